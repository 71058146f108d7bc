/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symtab_format.h - the byte layout of symbol and line tables, shared by the
 * translator (which writes them from ELF files) and the runtime (which
 * validates and searches them, possibly after receiving them from user space
 * as untrusted bytes).
 *
 * Both tables are one contiguous blob: a fixed header followed by arrays at
 * header-given offsets. All fields are in host byte order (little-endian on
 * x86-64; a foreign order fails the magic check). The blob must start at an
 * 8-byte aligned address and every array is naturally aligned inside it.
 *
 * Addresses are "file-relative": the ELF virtual address (st_value, p_vaddr).
 * A run-time address maps to one by subtracting the mapping's load bias.
 * Arrays hold 32-bit offsets from the header's base, so one table spans at
 * most 4 GiB of address space.
 *
 * Symbol table: symbols in strictly ascending address order, one name per
 * address (the builder already chose among aliases), packed in groups of
 * UTAP_SYM_GROUP. groups[] gives each group's first address and where its
 * bytes start; a lookup binary-searches groups[] and decodes one group.
 * Symbol k of a group is
 *   k > 0:  uleb128(addr(k) - addr(k-1) - 1)
 *           uleb128(n), then n name codes
 * and each code c stands for the bytes tok_str[tok[c] .. tok[c + 1]): a
 * per-table set of up to 256 tokens, single characters and the pairs of
 * tokens the builder found most often (kallsyms' token table, trained on
 * the table's own names), which halves the bytes of names. A symbol's
 * printed size is the distance to the next entry (0 for the last one), as
 * SystemTap prints it. An empty name (n = 0) marks a gap: addresses from
 * it up to the next entry have no symbol.
 *
 * Line table: rows sorted by strictly ascending address; row i covers
 * [addr(i), addr(i+1)) and the last row is always a gap. A row's file
 * indexes files[] (string-table offsets of source path names), or is
 * UTAP_LINE_GAP (no line information here) or UTAP_LINE_NOFILE (a line
 * number whose file name is unknown). Rows are delta-encoded in blocks of
 * UTAP_LINE_BLOCK; blocks[] gives each block's first address and where its
 * bytes start, so a lookup binary-searches blocks[] and decodes at most one
 * block. Within a block, row k is:
 *   k > 0:  uleb128(addr(k) - addr(k-1) - 1)
 *           sleb128(2 * (line(k) - line(k-1)) + changed)
 *   changed: uleb128(file(k))       (changed = file(k) != file(k-1))
 * where row -1 of every block has line 0 and file UTAP_LINE_GAP. A block's
 * rows fill exactly the bytes up to the next block's (or the data's) end.
 *
 * Bump UTAP_SYMTAB_VERSION on any change; readers reject other versions.
 */
#ifndef UTAP_SYMTAB_FORMAT_H
#define UTAP_SYMTAB_FORMAT_H

#include "core/port.h"

#define UTAP_SYMTAB_MAGIC	0x4d595355u	/* "USYM" */
#define UTAP_LINETAB_MAGIC	0x4e494c55u	/* "ULIN" */
#define UTAP_SYMTAB_VERSION	2
#define UTAP_LINETAB_VERSION	1

#define UTAP_SYMTAB_BUILD_ID_MAX 64
#define UTAP_SYMTAB_MAX_SEGS	64

/* utap_symtab_hdr.elf_type: the ELF e_type the table came from */
#define UTAP_SYMTAB_ET_NONE	0	/* not from an ELF file (e.g. kallsyms) */
#define UTAP_SYMTAB_ET_EXEC	2	/* fixed addresses: load bias 0 */
#define UTAP_SYMTAB_ET_DYN	3	/* PIE or shared library */

/* utap_symtab_seg.flags: the ELF p_flags bits */
#define UTAP_SEG_X		0x1u
#define UTAP_SEG_W		0x2u
#define UTAP_SEG_R		0x4u

#define UTAP_LINE_GAP		0xffffu
#define UTAP_LINE_NOFILE	0xfffeu
#define UTAP_LINE_MAX_FILES	0xfffdu

/* One PT_LOAD segment of the ELF file (all from its program header). */
struct utap_symtab_seg {
	u64 vaddr;
	u64 memsz;
	u64 offset;
	u64 filesz;
	u32 flags;
	u32 reserved;		/* 0 */
};

struct utap_symtab_hdr {
	u32 magic;		/* UTAP_SYMTAB_MAGIC */
	u16 version;		/* UTAP_SYMTAB_VERSION */
	u16 hdr_size;		/* sizeof(struct utap_symtab_hdr) */
	u32 total_size;		/* bytes in the whole blob */
	u8 elf_type;		/* UTAP_SYMTAB_ET_* */
	u8 build_id_len;	/* 0 = none */
	u16 reserved;		/* 0 */
	u64 base;		/* symbol addresses are base + offset */
	u32 nsegs;
	u32 segs_off;		/* struct utap_symtab_seg[nsegs], 8-aligned */
	u32 nsyms;
	u32 ngroups;		/* nsyms / UTAP_SYM_GROUP rounded up */
	u32 groups_off;		/* struct utap_sym_group[ngroups], 4-aligned */
	u32 data_off;		/* the packed symbols */
	u32 data_size;
	u32 tok_off;		/* u16[257]: token c is tok_str[tok[c] .. tok[c + 1]) */
	u32 tok_str_off;	/* token bytes, no NUL among them */
	u32 tok_size;		/* = tok[256] */
	u8 build_id[UTAP_SYMTAB_BUILD_ID_MAX];
};

#define UTAP_SYM_GROUP		16
#define UTAP_SYM_NAME_MAX	512	/* a longer name is cut (KSYM_NAME_LEN) */

/* Where one group of symbols starts. */
struct utap_sym_group {
	u32 addr;		/* its first symbol's address - base */
	u32 data;		/* offset of its bytes in the data area */
};

#define UTAP_LINE_BLOCK		16

/* Where one block of line rows starts. */
struct utap_line_block {
	u32 addr;		/* its first row's address - base */
	u32 data;		/* offset of its encoded rows in the data area */
};

struct utap_linetab_hdr {
	u32 magic;		/* UTAP_LINETAB_MAGIC */
	u16 version;		/* UTAP_SYMTAB_VERSION */
	u16 hdr_size;		/* sizeof(struct utap_linetab_hdr) */
	u32 total_size;
	u8 build_id_len;
	u8 reserved[3];		/* 0 */
	u64 base;		/* row addresses are base + offset */
	u32 nrows;
	u32 nblocks;		/* nrows / UTAP_LINE_BLOCK rounded up */
	u32 blocks_off;		/* struct utap_line_block[nblocks], 4-aligned */
	u32 data_off;		/* the encoded rows */
	u32 data_size;
	u32 nfiles;		/* <= UTAP_LINE_MAX_FILES */
	u32 files_off;		/* u32[nfiles], offsets into the string table */
	u32 str_off;
	u32 str_size;		/* >= 1; its last byte is NUL */
	u32 reserved2;		/* 0 */
	u8 build_id[UTAP_SYMTAB_BUILD_ID_MAX];
};

#endif /* UTAP_SYMTAB_FORMAT_H */
