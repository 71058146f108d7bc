/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn_tables.h - opcode attribute tables of the x86-64 decoder (internal).
 */
#ifndef UTAP_ARCH_X86_64_INSN_TABLES_H
#define UTAP_ARCH_X86_64_INSN_TABLES_H

#include "arch/x86_64/insn.h"

/* immediate kinds: attribute bits 0-3 */
#define I_NONE	0
#define I_B	1	/* imm8 */
#define I_W	2	/* imm16 */
#define I_Z	3	/* imm16 with 66, else imm32 */
#define I_V	4	/* imm16/32/64 by operand size (mov r, imm) */
#define I_MO	5	/* moffs: 64-bit address, 32-bit with 67 */
#define I_WB	6	/* imm16 + imm8 (enter) */
#define I_BB	7	/* imm8 + imm8 (extrq, insertq) */
#define I_D	8	/* imm32 (XOP map A) */
#define I_R8	9	/* rel8 */
#define I_R32	10	/* rel32: Intel ignores 66 on near branches */
#define I_RZ	11	/* rel16 with 66, else rel32 (xbegin) */
#define I_MASK	0xF

#define A_M	0x10	/* ModRM follows */
#define A_BAD	0x20	/* undefined, or invalid in 64-bit mode */

#define FL_SHIFT 8	/* bits 8-11: enum x86_flow */
#define FL(f)	((f) << FL_SHIFT)

#define K_STACK	0x1000	/* implicit stack access */
#define K_SRC	0x2000	/* string source [rsi] */
#define K_DST	0x4000	/* string destination [rdi] */
#define K_NOACC	0x8000	/* the ModRM memory operand is not accessed */

extern const u16 x86_map_1byte[256];
extern const u16 x86_map_0f[256];
/* 1 where a legacy (non-VEX) opcode of that map is defined */
extern const u8 x86_0f38_valid[256];
extern const u8 x86_0f3a_valid[256];
extern const u8 x86_3dnow_valid[256];	/* by suffix byte */

/* opcode defined in that VEX / EVEX map (any prefix, W, L) */
bool x86_vex_valid(u8 map, u8 op, u8 pp);
bool x86_evex_valid(u8 map, u8 op, u8 pp);

/* x87 D8-DF with a register ModRM (C0-FF) that executes */
bool x86_x87_reg_valid(u8 op, u8 modrm);

/* VEX/EVEX 0F38 opcodes whose SIB index is a vector register */
bool x86_is_vsib(u8 opcode);

/* The N of EVEX disp8*N for the decoded opcode (ModRM known). */
unsigned int x86_evex_disp8_scale(const struct x86_insn_info *in, bool bcst);

#endif /* UTAP_ARCH_X86_64_INSN_TABLES_H */
