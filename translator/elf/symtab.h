/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symtab.h - build symbol and line table blobs (runtime/unwind/symtab_format.h)
 * from ELF files, in the translator at translate time or in the runner for
 * files mapped later. The runtime looks them up with runtime/unwind/sym.h.
 *
 * Symbols (which ones SystemTap would print):
 *   - Source: the same choice libdwfl makes, because SystemTap's names come
 *     from it: the file's own .symtab; else the separate debuginfo's .symtab;
 *     else the file's .dynsym together with the .gnu_debugdata .symtab, in
 *     the order main locals, mini locals, main globals, mini globals.
 *   - Kept: STT_FUNC and STT_OBJECT (plus STT_NOTYPE with UTAP_SYMTAB_NOTYPE)
 *     that are defined in an allocated section (or absolute) and lie within
 *     the file's PT_LOAD extent. STT_GNU_IFUNC, STT_TLS, section and file
 *     symbols are dropped, as SystemTap drops them.
 *   - Aliases: at one address the symbol met last in that order wins (SystemTap
 *     fills an address-keyed map). With libc6-dbg this gives
 *     "__libc_start_main@GLIBC_2.2.5", the name SystemTap prints.
 *   - Size: not stored; the runtime prints the distance to the next symbol
 *     (0 after the last one), which is what SystemTap prints (observed
 *     "__libc_start_call_main+0x7a/0xb0" where st_size is 0xac).
 *   - Names are stored as they are; the formatter drops a leading '.'.
 *   - PLT stubs, which no symbol table covers, are named "sym@plt" (as perf
 *     and gdb name them), and each PLT section's start and end get a gap
 *     entry (an empty name: no symbol up to the next entry). SystemTap
 *     prints the symbol before the PLT there ("_init+0x36", "__abi_tag+...").
 *     A real symbol at the same address wins.
 *
 * Lines: the .debug_line of the separate debuginfo (else of the file), read
 * with libdw, turned into address-sorted rows. File names are composed the
 * way SystemTap's runtime composes them (DWARF 5: directory "/" name; older:
 * absolute name as is, directory 0 = the module's own directory). Where
 * units overlap, the first in section order wins, as in SystemTap's scan.
 */
#ifndef UTAP_ELF_SYMTAB_H
#define UTAP_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/debuginfo.h"
#include "unwind/symtab_format.h"

/* A finished table: malloc'ed (so 8-byte aligned), SIZE bytes. */
struct utap_blob {
	void *data;
	size_t size;
};

void utap_blob_free(struct utap_blob *b);

/* One symbol for the packer. Later entries win over earlier ones at one address. */
struct utap_sym_in {
	uint64_t addr;
	const char *name;
};

/* Header facts for the packer. */
struct utap_symtab_info {
	int elf_type;				/* UTAP_SYMTAB_ET_* */
	const struct utap_build_id *build_id;	/* NULL: none */
	const struct utap_symtab_seg *segs;	/* PT_LOAD segments */
	size_t nsegs;
	bool code_only;				/* UTAP_SYMTAB_CODE_ONLY */
};

/*
 * Sort, resolve aliases and pack SYMS into a symbol table blob. Used by the
 * ELF builder and by anything else with (address, name) pairs (kallsyms).
 * Returns 0, -E2BIG (addresses span more than 4 GiB, too many segments,
 * blob over 4 GiB) or -ENOMEM.
 */
int utap_symtab_pack(const struct utap_sym_in *syms, size_t n,
		     const struct utap_symtab_info *info, struct utap_blob *out);

/* One line table row for the packer: [addr, next row's addr) is FILE:LINE. */
struct utap_line_in {
	uint64_t addr;
	uint32_t line;
	uint16_t file;		/* index into the names, UTAP_LINE_GAP or UTAP_LINE_NOFILE */
};

/*
 * Pack ROWS (strictly ascending addresses, the last one a gap) and the file
 * NAMES they index into a line table blob. Returns 0, -EINVAL for rows that
 * break those rules, -E2BIG or -ENOMEM.
 */
int utap_linetab_pack(const struct utap_line_in *rows, size_t n, const char *const *names,
		      size_t nnames, const struct utap_build_id *build_id, struct utap_blob *out);

/* Also keep STT_NOTYPE symbols (kernel images, hand-written assembly). */
#define UTAP_SYMTAB_NOTYPE	0x1u
/* Drop SHN_ABS symbols (the vDSO's version markers, e.g. LINUX_2.6 at 0). */
#define UTAP_SYMTAB_NO_ABS	0x2u
/*
 * Only what an address in an executable segment can resolve to, for a
 * module that names nothing but code addresses (backtraces): symbols whose
 * span up to the next one touches no executable byte are dropped, each run
 * of them leaving one gap entry, so every code address gets the name,
 * offset and size the whole table gives it.
 */
#define UTAP_SYMTAB_CODE_ONLY	0x4u

/*
 * The symbol table of the binary DI describes. Returns 0 (possibly with no
 * symbols at all, e.g. for a fully stripped file), -EINVAL for a file that
 * is not an executable or shared object, or -E2BIG/-ENOMEM.
 */
int utap_symtab_build(const struct utap_debuginfo *di, unsigned flags, struct utap_blob *out);

/* Convenience: open PATH (debug ROOT, NULL for the default) and build its table. */
int utap_symtab_build_path(const char *path, const char *root, struct utap_blob *out);
int utap_symtab_build_path_flags(const char *path, const char *root, unsigned flags,
				 struct utap_blob *out);

/*
 * The line table of DI. MODULE_PATH is the path the runtime prints for this
 * module (DWARF <= 4 file names in directory 0 are placed in its directory).
 * Rows outside the file's PT_LOAD extent (discarded sections) are dropped.
 * A malformed unit ends the scan, keeping the units before it, as in
 * SystemTap. Returns 0 (an empty table when there is no .debug_line),
 * -E2BIG (rows spanning over 4 GiB) or -ENOMEM.
 */
int utap_linetab_build(const struct utap_debuginfo *di, const char *module_path,
		       struct utap_blob *out);

/*
 * The same from raw section bytes (.debug_line, .debug_line_str and
 * .debug_str, the last two may be NULL), keeping rows at any address: for
 * tests, fuzzers and containers other than ELF.
 */
int utap_linetab_build_raw(const void *line, size_t line_size, const void *line_str,
			   size_t line_str_size, const void *str, size_t str_size,
			   const char *module_path, const struct utap_build_id *build_id,
			   struct utap_blob *out);

#endif /* UTAP_ELF_SYMTAB_H */
