/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwtab_format.h - the on-disk/in-kernel format of a user unwind table.
 *
 * One table ("blob") describes one ELF file. The translator builds it from
 * the file's CFI (translator/elf/uwbuild.c); the module only validates it
 * (uwtab.c) and applies its rows (uwstep.c). Addresses are file-relative
 * (ELF vaddr); the runtime subtracts a mapping's load bias before a lookup,
 * so one table serves every mapping of that file in every process.
 *
 * Layout, all fields little-endian, every array naturally aligned:
 *
 *   struct uwt_header
 *   struct uwt_rule   rules[nr_rules]        interned, most used first
 *   u32               blocks[nr_blocks + 1]  group covering each block start
 *   struct uwt_group  groups[nr_groups]      where each group of rows starts
 *   u8                data[data_size]        the rows, packed
 *
 * Rows (start, rule) are kept in groups of UWT_GROUP_ROWS (the last one
 * may be shorter); a group gives its first row's start (bytes from
 * text_start) and where its bytes begin, and the same, relative to those,
 * of its row UWT_MID_ROW (its midpoint), so a lookup decodes at most half
 * a group. A row is one byte, the start delta in the low 3 bits and the
 * rule in the high 5, each followed by a ULEB128 extension when its field
 * is all ones:
 *   delta: the first row of a group has 0 (its start is the group's);
 *          else start - previous start - 1, 7 meaning 7 + the ULEB;
 *   rule:  the rule's index, 31 meaning 31 + the ULEB.
 * Rules are sorted by use, so most rows take one byte, and a lookup steps
 * over the rows before its own with a test or two of the byte (a
 * move-to-front list of recent rules packs tighter, but a lookup then
 * decodes every rule before its own). A group's bytes end where the next
 * group's begin. A midpoint that does not fit its 16-bit fields (or a
 * group without one) is UWT_NO_MID in both. The text range
 * [text_start, text_end) is cut into blocks of 1 << block_shift bytes;
 * blocks[b] is the last group starting at or before block b, so a lookup
 * binary-searches the few groups between blocks[b] and blocks[b + 1] and
 * decodes at most half of one group.
 *
 * Row rules say how to compute the caller's frame from this frame:
 *   CFA  = base register + cfa_off              (UWT_CFA_REG)
 *   CFA  = *(base register + cfa_off) + cfa_off2 (UWT_CFA_DEREF: DRAP)
 *   CFA  = RSP + 8, + 8 more when (pc & 15) >= cfa_off2 (UWT_PLT)
 *   everything from the rt_sigframe ucontext at RSP + 40 (UWT_SIGNAL)
 *   no CFI here (UWT_NONE)
 * then RA at CFA + ra_off, or in a register (__vfork), or undefined, which
 * ends the stack (_start, clone, clone3, and the dynamic loader's entry). The caller's RSP is the CFA
 * unless sp_reg names a register holding it. RBX, RBP and R12-R15 follow
 * their save rule: same value, undefined, saved at CFA + off, equal to
 * CFA + off, copied from a register, or saved at register + off.
 */
#ifndef UTAP_UWTAB_FORMAT_H
#define UTAP_UWTAB_FORMAT_H

#include "core/port.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "uwtab tables are little-endian; add byte swapping for this host"
#endif

#define UWT_MAGIC		0x31545755u	/* "UWT1" */
#define UWT_VERSION		3
#define UWT_GROUP_ROWS		32
#define UWT_MID_ROW		16	/* the row a group's midpoint names */
#define UWT_NO_MID		0xffffu
#define UWT_DELTA_BITS		3	/* a row byte: delta | rule << UWT_DELTA_BITS */
#define UWT_DELTA_ESC		7u
#define UWT_RULE_ESC		31u
#define UWT_BUILD_ID_MAX	32
#define UWT_MIN_BLOCK_SHIFT	4
#define UWT_MAX_BLOCK_SHIFT	16
#define UWT_MAX_RULES		0xffffu
#define UWT_MAX_SIZE		(256u << 20)	/* no real file needs more */

/* header flags: where the rows came from */
#define UWT_F_EH_FRAME		0x1u
#define UWT_F_DEBUG_FRAME	0x2u
#define UWT_F_SYNTH_PLT		0x4u	/* PLT rows made from section headers */
#define UWT_F_SYNTH_SIGNAL	0x8u	/* signal trampoline found by its code */
#define UWT_F_SYNTH_ENTRY	0x10u	/* e_entry without CFI: end of stack */
#define UWT_F_ALL		0x1fu

struct uwt_header {
	u32 magic;
	u16 version;
	u16 header_size;	/* sizeof(struct uwt_header) */
	u32 flags;		/* UWT_F_* */
	u32 total_size;		/* bytes of the whole blob */
	u64 text_start;		/* file vaddr of the first covered byte */
	u64 text_end;		/* first byte past the covered range */
	u32 nr_rules;
	u32 nr_blocks;		/* ceil((text_end - text_start) >> block_shift) */
	u32 nr_rows;
	u32 nr_groups;		/* ceil(nr_rows / UWT_GROUP_ROWS) */
	u32 rules_off;		/* byte offsets from the start of the blob */
	u32 blocks_off;
	u32 groups_off;
	u32 data_off;
	u32 data_size;
	u8 block_shift;
	u8 build_id_len;
	u16 reserved;		/* 0 */
	u8 build_id[UWT_BUILD_ID_MAX];
};

/* DWARF register numbers of x86-64, as used in rules and struct uw_regs */
enum uwt_reg {
	UWT_RAX, UWT_RDX, UWT_RCX, UWT_RBX, UWT_RSI, UWT_RDI, UWT_RBP, UWT_RSP,
	UWT_R8, UWT_R9, UWT_R10, UWT_R11, UWT_R12, UWT_R13, UWT_R14, UWT_R15,
	UWT_RIP,
	UWT_NR_REGS
};

enum uwt_kind {
	UWT_NONE,		/* no usable CFI covers this range */
	UWT_CFA_REG,		/* CFA = reg + cfa_off */
	UWT_CFA_DEREF,		/* CFA = *(reg + cfa_off) + cfa_off2 */
	UWT_PLT,		/* lazy .plt entry, threshold in cfa_off2 */
	UWT_SIGNAL,		/* glibc __restore_rt: registers from the ucontext */
	UWT_NR_KINDS
};

enum uwt_ra {
	UWT_RA_AT_CFA,		/* RA = *(CFA + ra_off) */
	UWT_RA_IN_REG,		/* RA = value of ra_reg (__vfork) */
	UWT_RA_UNDEF,		/* end of stack (_start, clone, clone3, ld.so's entry) */
	UWT_NR_RA
};

/* The callee-saved registers a rule carries a save rule for, in slot order. */
#define UWT_NR_SAVED 6
#define UWT_SAVED_REGS { UWT_RBX, UWT_RBP, UWT_R12, UWT_R13, UWT_R14, UWT_R15 }

enum uwt_save {
	UWT_SAVE_SAME,		/* unchanged: the caller's value is this frame's */
	UWT_SAVE_UNDEF,		/* not recoverable */
	UWT_SAVE_AT_CFA,	/* *(CFA + off) */
	UWT_SAVE_VAL_CFA,	/* CFA + off */
	UWT_SAVE_IN_REG,	/* the value of register reg in this frame */
	UWT_SAVE_AT_REG,	/* *(reg + off), reg's value in this frame */
	UWT_NR_SAVE
};

/* save_how[i] packs the kind (low nibble) and the register (high nibble) */
#define UWT_SAVE_KIND(how)	((how) & 0xf)
#define UWT_SAVE_REG(how)	((how) >> 4)
#define UWT_SAVE_HOW(kind, reg)	((u8)((kind) | ((reg) << 4)))

#define UWT_SP_IS_CFA		0xff	/* sp_reg: caller's RSP is the CFA */

/* The kernel's rt_sigframe as seen by __restore_rt (pretcode popped). */
#define UWT_SIGFRAME_GREGS	40	/* uc_mcontext.gregs at RSP + 40 */
#define UWT_SIGFRAME_NR_GREGS	17	/* R8..R15 RDI RSI RBP RBX RDX RAX RCX RSP RIP */

/*
 * 24 bytes: save offsets are in words (registers are saved 8-byte aligned;
 * one further than 127 words from its base, or a CFA_DEREF addend outside
 * s8, is CFI the builder marks unknown or unsupported, never truncates).
 */
struct uwt_rule {
	u8 kind;		/* enum uwt_kind */
	u8 cfa_reg;		/* CFA base for CFA_REG/CFA_DEREF */
	u8 ra_how;		/* enum uwt_ra */
	u8 ra_reg;		/* RA_IN_REG: the register */
	s32 cfa_off;
	s16 ra_off;		/* RA_AT_CFA: offset from the CFA, usually -8 */
	s8 cfa_off2;		/* CFA_DEREF: added after the load; PLT: threshold */
	u8 sp_reg;		/* UWT_SP_IS_CFA or the register holding caller RSP */
	u8 save_how[UWT_NR_SAVED];
	s8 save_off8[UWT_NR_SAVED];	/* offset / 8 */
};

#define UWT_SAVE_OFF(rule, i)	((s32)(rule)->save_off8[i] * 8)

struct uwt_group {
	u32 start;		/* first row's start, bytes from text_start */
	u32 data;		/* its bytes, from data_off */
	u16 mid_start;		/* row UWT_MID_ROW's start, from start; or UWT_NO_MID */
	u16 mid_data;		/* its bytes, from data; or UWT_NO_MID */
};

#endif /* UTAP_UWTAB_FORMAT_H */
