/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sym.h - symbol and line tables at run time: validate untrusted blobs,
 * look addresses up, and print them exactly as SystemTap prints them.
 *
 * Pure core: no allocation, no faults on bad input, bounded loops. A table
 * is validated once (utap_symtab_init / utap_linetab_init); lookups on a
 * validated view cannot read outside the blob.
 *
 * The formatter does not care where symbols come from: user modules, the
 * kernel ("kernel" as the module path) or anything else that can be packed
 * into the table format.
 */
#ifndef UTAP_UNWIND_SYM_H
#define UTAP_UNWIND_SYM_H

#include "core/port.h"
#include "unwind/api.h"
#include "unwind/symtab_format.h"

/* A validated symbol table (pointers into the caller's blob). */
struct utap_symtab {
	const struct utap_symtab_hdr *hdr;
	const struct utap_symtab_seg *segs;
	const struct utap_sym_group *groups;
	const u8 *data;
	const u16 *tok;
	const char *tok_str;
	u64 base;
	u32 nsyms;
	u32 ngroups;
	u32 nsegs;
	u32 data_size;
};

/* A validated line table. */
struct utap_linetab {
	const struct utap_linetab_hdr *hdr;
	const struct utap_line_block *blocks;
	const u8 *data;
	const u32 *files;
	const char *str;
	u64 base;
	u32 nrows;
	u32 nblocks;
	u32 data_size;
	u32 nfiles;
	u32 str_size;
};

/* One decoded line table row. */
struct utap_line_row {
	u64 addr;		/* file-relative */
	u32 line;
	u16 file;		/* index, UTAP_LINE_GAP or UTAP_LINE_NOFILE */
};

/* Walks the rows of a validated table in address order. */
struct utap_line_iter {
	const struct utap_linetab *t;
	u32 block;
	u32 row;		/* within the block */
	const u8 *p, *end;
	struct utap_line_row prev;
};

/* What a symbol lookup found for one file-relative address. */
struct utap_sym_hit {
	const char *name;	/* in the caller's buffer, as stored (a leading '.' is still there) */
	u64 offset;		/* address - symbol start */
	u64 size;		/* next symbol start - symbol start, 0 for the last */
	u32 index;
};

/*
 * Check every header field, offset, size, the sort order and string
 * termination of BLOB (SIZE bytes, 8-byte aligned), and fill in T.
 * Returns 0, or -EINVAL for anything malformed.
 */
UTAP_UNWIND_API
int utap_symtab_init(struct utap_symtab *t, const void *blob, size_t size);
UTAP_UNWIND_API
int utap_linetab_init(struct utap_linetab *t, const void *blob, size_t size);

/*
 * The symbol covering file-relative address REL, SystemTap's way: the last
 * symbol starting at or below REL, however far below. False if REL is below
 * the first symbol or the table is empty. The name is decoded into BUF
 * (SIZE bytes, cut to fit, NUL-terminated), which hit->name points to.
 */
UTAP_UNWIND_API
bool utap_symtab_lookup(const struct utap_symtab *t, u64 rel, struct utap_sym_hit *hit,
			char *buf, size_t size);

/* Entry I (< nsyms) in address order: its file-relative address and name (empty: a gap). */
UTAP_UNWIND_API
void utap_symtab_entry(const struct utap_symtab *t, u32 i, u64 *addr, char *buf, size_t size);

/*
 * The source line of file-relative address REL. True when a row covers it;
 * *file is then the path name or NULL (file unknown) and *line may be 0
 * (the compiler's "no line" rows).
 */
UTAP_UNWIND_API
bool utap_linetab_lookup(const struct utap_linetab *t, u64 rel, const char **file, u32 *line);

/* Iterate: start, then utap_linetab_next() until it returns false. */
UTAP_UNWIND_API
void utap_linetab_iter(struct utap_line_iter *it, const struct utap_linetab *t);
UTAP_UNWIND_API
bool utap_linetab_next(struct utap_line_iter *it, struct utap_line_row *row);

/* The path of file index FILE, or NULL for UTAP_LINE_GAP/NOFILE. */
const char *utap_linetab_file(const struct utap_linetab *t, u16 file);

/*
 * Load bias of a mapping of this file: the mapping starts at VM_START and
 * maps file offset FILE_OFFSET. Uses the PT_LOAD segment that contains that
 * offset. Returns 0, or -ENOENT if no segment does.
 */
UTAP_UNWIND_API
int utap_symtab_load_bias(const struct utap_symtab *t, u64 vm_start, u64 file_offset,
			  u64 *bias);

/*
 * The whole extent the file occupies when loaded with BIAS: from the lowest
 * segment start rounded down to a page to the highest segment end rounded
 * up. SystemTap's module-only fallback prints offsets and sizes against it.
 */
UTAP_UNWIND_API
void utap_symtab_extent(const struct utap_symtab *t, u64 bias, u64 *start, u64 *end);

/*
 * Everything the formatter knows about the module an address falls in.
 * All-zero (path NULL) means the address is in no known mapping.
 */
struct utap_sym_ctx {
	const char *path;			/* module path as printed; NULL = unknown */
	u64 start;				/* module extent, for [MOD+OFF/SIZE] */
	u64 end;
	u64 bias;				/* run-time address - file-relative address */
	const struct utap_symtab *syms;		/* NULL: no symbols */
	const struct utap_linetab *lines;	/* NULL: no line table */
};

/*
 * Format bits. The values are SystemTap's _STP_SYM_* flags (its runtime/sym.h),
 * so flag sets combine and fall back exactly as there.
 */
#define UTAP_SYM_HEXSTR		0x000u	/* hex address */
#define UTAP_SYM_SYMBOL		0x001u	/* symbol name */
#define UTAP_SYM_HEX_SYMBOL	0x002u	/* "ADDR : SYM" */
#define UTAP_SYM_MODULE		0x004u	/* " [MOD]" */
#define UTAP_SYM_OFFSET		0x008u	/* "+OFF" */
#define UTAP_SYM_SIZE		0x010u	/* "/SIZE" */
#define UTAP_SYM_INEXACT	0x020u	/* " (inexact)" with SYMBOL */
#define UTAP_SYM_PRE_SPACE	0x040u	/* leading space */
#define UTAP_SYM_POST_SPACE	0x080u	/* trailing space (wins over NEWLINE) */
#define UTAP_SYM_NEWLINE	0x100u	/* trailing newline */
#define UTAP_SYM_MODULE_BASENAME 0x200u	/* " [basename]" */
#define UTAP_SYM_LINENUMBER	0x400u
#define UTAP_SYM_FILENAME	0x800u

/* ubacktrace()/backtrace(): "ADDR " per frame */
#define UTAP_SYM_NONE	(UTAP_SYM_HEXSTR | UTAP_SYM_POST_SPACE)
/* print_ubacktrace_brief(): "SYM+OFF\n" */
#define UTAP_SYM_BRIEF	(UTAP_SYM_SYMBOL | UTAP_SYM_OFFSET | UTAP_SYM_NEWLINE)
/* print_ubacktrace()/print_backtrace(): " ADDR : SYM+OFF/SIZE [MOD]\n" */
#define UTAP_SYM_FULL	(UTAP_SYM_SYMBOL | UTAP_SYM_HEX_SYMBOL | UTAP_SYM_MODULE | \
			 UTAP_SYM_OFFSET | UTAP_SYM_SIZE | UTAP_SYM_PRE_SPACE | \
			 UTAP_SYM_NEWLINE)
/* print_ubacktrace_fileline(): FULL plus " at FILE:LINE" */
#define UTAP_SYM_FULLER	(UTAP_SYM_FULL | UTAP_SYM_FILENAME | UTAP_SYM_LINENUMBER)
/* sprint_ubacktrace(): "SYM+OFF [MODBASE]\n" */
#define UTAP_SYM_SIMPLE	(UTAP_SYM_SYMBOL | UTAP_SYM_MODULE | UTAP_SYM_MODULE_BASENAME | \
			 UTAP_SYM_OFFSET | UTAP_SYM_NEWLINE)
/* usymdata()/symdata(): "SYM+OFF/SIZE [MOD]" */
#define UTAP_SYM_DATA	(UTAP_SYM_SYMBOL | UTAP_SYM_MODULE | UTAP_SYM_OFFSET | UTAP_SYM_SIZE)
/* usymfileline(), usymfile(), usymline() */
#define UTAP_SYM_FILELINE (UTAP_SYM_FILENAME | UTAP_SYM_LINENUMBER)

/*
 * Render ADDR in MODE into BUF (SIZE bytes) with snprintf semantics: the
 * output is NUL-terminated when SIZE > 0 and truncated to fit; the return
 * value is the full length it would have had. Every fallback of SystemTap's
 * order is kept: symbol+module, symbol only, module only (offset and size
 * relative to the module extent), bare address. Address 0 is always bare.
 * CTX describes the mapping that contains ADDR, or is NULL (no known
 * mapping). Only SystemTap's exact flag sets (the UTAP_SYM_* modes above,
 * optionally with INEXACT) have a symbolic form; any other set prints the
 * address, as in SystemTap. Callers that emulate sprint_*() copy at most
 * MAXSTRINGLEN - 1 bytes of it, which is what SystemTap does.
 */
UTAP_UNWIND_API
int utap_sym_format(char *buf, size_t size, u64 addr, const struct utap_sym_ctx *ctx,
		    unsigned mode);

/*
 * ADDR in hex, "0x" and its digits without leading zeros, into OUT (at
 * least UTAP_SYM_HEX_MAX bytes, no NUL); returns the length. It is what
 * UTAP_SYM_NONE prints of an address, before the space.
 */
#define UTAP_SYM_HEX_MAX 18
UTAP_UNWIND_API
int utap_sym_hex(char *out, u64 addr);

/*
 * The same, for a symbol found elsewhere (the kernel's kallsyms): NAME at
 * OFFSET in a symbol of SYMSIZE bytes, in module MOD (NULL: none). NAME
 * NULL means nothing is known: the address is printed.
 */
UTAP_UNWIND_API
int utap_sym_format_known(char *buf, size_t size, u64 addr, const char *name, u64 offset,
			  u64 symsize, const char *mod, unsigned mode);

/*
 * umodname(): the module path, or "<unknown>" with *unknown set, in which
 * case the caller raises SystemTap's "module cannot be found" error.
 */
UTAP_UNWIND_API
int utap_sym_modname(char *buf, size_t size, const struct utap_sym_ctx *ctx, bool *unknown);

/*
 * The line a backtrace printer emits when there is no user (or kernel)
 * context: "<no user backtrace at PP>\n" in modes that print symbols,
 * just "\n" in hex mode, as SystemTap does.
 */
UTAP_UNWIND_API
int utap_sym_no_backtrace(char *buf, size_t size, const char *pp, unsigned mode, bool kernel);

#endif /* UTAP_UNWIND_SYM_H */
