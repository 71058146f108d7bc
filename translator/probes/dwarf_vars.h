/*
 * dwarf_vars.h - target variables of user-space functions from DWARF:
 * $param, $param->field, $var[i], &$var, $$parms, $$vars, $$locals,
 * $return, $$return, @entry(...), and what -L lists.
 *
 * The DWARF comes from the binary itself (-g) or from its separate
 * debuginfo (found by build-id); libdw reads it. Only locations that are
 * simple at the probe address are supported: a register, memory at a
 * register or at the frame base (a register, or the CFA, which the CFI
 * gives at the probe's address) plus an offset, and values computed from
 * those (DW_OP_stack_value, DW_OP_entry_value of a register at the
 * entry). Types: integers, enums, bools,
 * pointers, structs and unions reached through ->, arrays through [i].
 * Anything else is a translate-time error that names the variable, and
 * @defined() is 0 for it.
 */
#ifndef UTAP_DWARF_VARS_H
#define UTAP_DWARF_VARS_H

#include <elfutils/libdw.h>
#include <stdio.h>

#include "codegen/emit.h"
#include "probes/process_bin.h"
#include "probes/uvars.h"

struct dwarf_func;

/*
 * The DWARF function whose entry is ENTRY (named NAME), or NULL without
 * DWARF: for a .function probe, whose variables are the function's own.
 */
struct dwarf_func *dwarf_func_find(struct ubinary *b, const char *name, uint64_t entry);

/*
 * The DWARF function whose code contains link-time address PC, or NULL:
 * for a statement, where the variables of the blocks around it count too.
 */
struct dwarf_func *dwarf_func_at(struct ubinary *b, uint64_t pc);

/*
 * A probe at PC whose variables are SCOPE's (an inlined copy of a
 * function inside FUNC, or FUNC itself; with BLOCKS the lexical blocks
 * around PC too), FUNC giving the frame base; WHERE is what pp() shows
 * after the '@'.
 */
struct dwarf_func *dwarf_func_scope(struct ubinary *b, Dwarf_Die *func, Dwarf_Die *scope,
				    uint64_t pc, const char *where, bool blocks);

/*
 * Where a .function probe on F sits, as in stap: the entry when F's CU has
 * location lists (optimized code, described from the first instruction
 * on), else the end of the prologue from the line table, where -O0 code
 * has stored its parameters.
 */
uint64_t dwarf_func_probe_pc(struct dwarf_func *f);

/* "FILE:LINE" of its declaration as stap prints it in pp(), or NULL. */
const char *dwarf_func_where(const struct dwarf_func *f);

/* libdw's handle on B's DWARF (for the readers beside this one), or NULL without DWARF. */
Dwarf *dwarf_handle(struct ubinary *b);

/* The concrete (out-of-line) subprogram DIE of F. */
Dwarf_Die *dwarf_func_die(struct dwarf_func *f);

/* One address of a source line, for .statement("FUNC@FILE:LINE"). */
struct line_addr {
	uint64_t addr;
	const char *file;	/* as the line table names it */
	uint64_t func;		/* entry of the containing function */
	const char *func_name;
};

/*
 * The first address of FILE:LINE (FILE a glob, or a path tail) in each
 * function FUNC_PAT (a glob) names, at most MAX; -1 without DWARF.
 */
int dwarf_line_addrs(struct ubinary *b, const char *func_pat, const char *file_pat, int line,
		     struct line_addr *out, int max);

/* For .function("NAME@SPEC"): SPEC is "FILE", "FILE:LINE" (globs in FILE allowed). */
/* Does WHERE ("FILE:LINE") match SPEC ("FILE" or "FILE:LINE", FILE a glob or a tail)? */
bool dwarf_where_matches(const char *where, const char *spec);

bool dwarf_func_in_file(struct ubinary *b, const char *name, uint64_t entry, const char *spec);

/*
 * Checks target variable N of derived probe D (a probe at link-time PC in
 * function F, which may be NULL) and records how to read it in N; a
 * .return probe's values are captured into CAPS at PC (the entry, or the
 * end of the prologue). With QUIET nothing is reported. Returns 0 or -1.
 */
int dwarf_target_var(struct session *s, struct derived_probe *d, struct dwarf_func *f,
		     uint64_t pc, struct entry_caps *caps, struct node *n, bool quiet);

/* The value of a target variable dwarf_target_var() accepted. */
struct val dwarf_emit_target_var(struct emitter *em, struct derived_probe *d, struct node *n);

/* -L: " $name:type" for each variable located at PC (and $return in return probes). */
void dwarf_list_vars(struct dwarf_func *f, uint64_t pc, bool is_return, FILE *out);

#endif /* UTAP_DWARF_VARS_H */
