/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn.h - x86-64 instruction decoder (64-bit mode, user-space ISA).
 *
 * Pure core: finds an instruction's length, its control-flow class, the
 * direct branch displacement and the explicit memory operand. Used for
 * software branch detection while single-stepping, for data addresses in
 * instruction traces and to check that probe addresses are instruction
 * boundaries.
 *
 * Covers legacy and REX prefixes, the one-byte, 0F, 0F38 and 0F3A maps, x87,
 * 3DNow!, VEX (C4/C5), EVEX (62, including disp8*N compression), and AMD XOP
 * (8F). Where Intel and AMD differ in 64-bit mode (66 before a near branch)
 * the decoder follows Intel.
 */
#ifndef UTAP_ARCH_X86_64_INSN_H
#define UTAP_ARCH_X86_64_INSN_H

#include "core/port.h"

#define X86_MAX_INSN_LEN 15

enum x86_flow {
	X86_FLOW_SEQ,		/* falls through to the next instruction */
	X86_FLOW_JCC,		/* jcc, loop, loope, loopne, jrcxz, xbegin */
	X86_FLOW_JMP,		/* direct near jmp */
	X86_FLOW_JMP_IND,	/* jmp r/m */
	X86_FLOW_CALL,		/* direct near call */
	X86_FLOW_CALL_IND,	/* call r/m */
	X86_FLOW_RET,		/* near ret, ret imm16 */
	X86_FLOW_SYSCALL,	/* syscall, sysenter */
	X86_FLOW_TRAP,		/* int3, int n, int1, ud0/1/2, hlt */
	X86_FLOW_FAR,		/* far jmp/call/ret, iret, sysret, sysexit */
};

/* encoding of the opcode */
enum x86_enc {
	X86_ENC_LEGACY,
	X86_ENC_3DNOW,		/* 0F 0F modrm ... suffix */
	X86_ENC_VEX,
	X86_ENC_EVEX,
	X86_ENC_XOP,
};

/* opcode maps; VEX/EVEX/XOP use their own map numbers (1..3, 5, 6, 8..10) */
enum x86_map {
	X86_MAP_1BYTE = 0,
	X86_MAP_0F = 1,
	X86_MAP_0F38 = 2,
	X86_MAP_0F3A = 3,
	X86_MAP_EVEX5 = 5,
	X86_MAP_EVEX6 = 6,
	X86_MAP_XOP8 = 8,
	X86_MAP_XOP9 = 9,
	X86_MAP_XOPA = 10,
};

/* segment override (last one wins) */
enum x86_seg {
	X86_SEG_NONE, X86_SEG_ES, X86_SEG_CS, X86_SEG_SS, X86_SEG_DS,
	X86_SEG_FS, X86_SEG_GS,
};

/* general registers in hardware order, as indices into gpr[16] */
enum x86_gpr {
	X86_RAX, X86_RCX, X86_RDX, X86_RBX, X86_RSP, X86_RBP, X86_RSI, X86_RDI,
	X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14, X86_R15,
};
#define X86_REG_NONE (-1)

/* memory accessed without a ModRM operand (x86_insn.implicit) */
#define X86_IMP_STACK	0x01	/* push, pop, call, ret, enter, leave ... */
#define X86_IMP_SRC	0x02	/* string source  seg:[rsi] */
#define X86_IMP_DST	0x04	/* string destination  es:[rdi] */
#define X86_IMP_XLAT	0x08	/* seg:[rbx + al] */

struct x86_insn_info {
	u8 len;			/* 1..15 */
	u8 flow;		/* enum x86_flow */
	bool rep;		/* rep/repne string op: traps repeat at one IP */
	u8 enc;			/* enum x86_enc */
	u8 map;			/* enum x86_map */
	u8 opcode;		/* last opcode byte (3DNow!: the suffix) */
	bool has_modrm;
	u8 modrm;
	u8 sib;

	/* prefixes */
	u8 rex;			/* effective REX byte, or 0 */
	u8 pp;			/* mandatory prefix: 0, 0x66, 0xF3 or 0xF2 */
	bool opsize;		/* 66 seen */
	bool adsize;		/* 67 seen: 32-bit addressing */
	bool lock;
	u8 seg;			/* enum x86_seg */
	bool vex_w;		/* REX.W / VEX.W / EVEX.W / XOP.W */
	u8 vl;			/* VEX/EVEX vector length in bytes: 16, 32, 64 */
	u8 osize;		/* operand size in bytes for GPR forms: 2, 4, 8 */

	u8 imm_len;		/* bytes of immediate (not counting rel) */
	u64 imm;		/* first immediate, zero-extended */
	s32 rel;		/* direct branch displacement */

	/* the explicit memory operand (ModRM or moffs) */
	bool has_mem;
	bool rip_rel;		/* [rip + disp] (eip with 67) */
	bool vsib;		/* index is a vector register (gather/scatter) */
	s8 base;		/* enum x86_gpr or X86_REG_NONE */
	s8 index;		/* gpr, vector register (vsib), or X86_REG_NONE */
	u8 scale;		/* 1, 2, 4, 8 */
	s64 disp;		/* displacement (EVEX disp8 already scaled; moffs) */

	u8 implicit;		/* X86_IMP_* */
	u8 nmem;		/* memory accesses incl. implicit ones */
};

/*
 * Decode the instruction at buf. Returns its length (1..15), -EAGAIN when
 * avail bytes are too few to know it (fetch more, up to 15), or -EINVAL for an
 * invalid or undefined encoding, including anything longer than 15 bytes.
 * Never reads buf[avail] or beyond.
 */
int x86_insn_decode(const u8 *buf, size_t avail, struct x86_insn_info *out);

/* Target of a direct jmp/jcc/call/xbegin whose first byte is at ip. */
u64 x86_insn_branch_target(const struct x86_insn_info *insn, u64 ip);

/*
 * Effective (linear) address of the memory operand: the explicit one, or for
 * string instructions the source ([rsi]) if there is one, else the
 * destination ([rdi]); xlat's [rbx+al]. gpr[] holds rax..r15 in hardware
 * order. False when the instruction has no such operand or its address
 * needs vector registers (vsib).
 */
bool x86_insn_mem_ea(const struct x86_insn_info *insn, u64 ip, const u64 gpr[16],
		     u64 fs_base, u64 gs_base, u64 *ea);

#endif /* UTAP_ARCH_X86_64_INSN_H */
