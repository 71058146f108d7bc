/*
 * dwarf_inline.h - code DWARF knows that has no symbol of its own: the
 * inlined copies of functions (DW_TAG_inlined_subroutine), where
 * .function("F") and .function("F").inline probe as stap does, and the
 * labels of a function (DW_TAG_label), for .function("F").label("L").
 */
#ifndef UTAP_DWARF_INLINE_H
#define UTAP_DWARF_INLINE_H

#include "probes/dwarf_vars.h"

/* One inlined copy of a function, or one label. */
struct dwarf_site {
	const char *name;		/* the inlined function's, or the label's */
	uint64_t pc;			/* where the copy starts, or the label's address */
	const char *where;		/* FILE:LINE of its declaration */
	Dwarf_Off off;			/* its DIE */
	Dwarf_Off func_off;		/* the concrete function it is in */
};

/*
 * Every inlined copy in b, in DWARF order (read once per binary), or none
 * when no inlined function's name matches PATTERN (a glob); 0 without DWARF.
 */
size_t dwarf_inlines(struct ubinary *b, const char *pattern, const struct dwarf_site **out);

/* The labels with an address in F (its lexical blocks too, not its inlined copies). */
size_t dwarf_labels(struct dwarf_func *f, struct dwarf_site **out);

/* A call that F's code makes: to the function called CALLEE, returning to RETURN_PC. */
struct dwarf_call {
	const char *callee;
	uint64_t return_pc;		/* link-time */
	uint64_t entry;			/* the callee's, when its definition is the origin; else 0 */
};

/*
 * The calls DWARF's call sites (DW_TAG_call_site, DW_TAG_GNU_call_site)
 * describe in F and its blocks and inlined copies, tail calls left out:
 * optimized code only (gcc emits them from -O1 on).
 */
size_t dwarf_calls(struct dwarf_func *f, struct dwarf_call **out);

/* The probe's view of SITE: its variables are those in scope there. */
struct dwarf_func *dwarf_site_func(struct ubinary *b, const struct dwarf_site *site,
				   bool is_label);

#endif /* UTAP_DWARF_INLINE_H */
