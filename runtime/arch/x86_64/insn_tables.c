// SPDX-License-Identifier: GPL-2.0
/*
 * insn_tables.c - opcode attributes for the x86-64 decoder.
 *
 * The two legacy maps are laid out like the opcode tables of the Intel SDM
 * vol. 2 appendix A (rows = high nibble, columns = low nibble), one
 * attribute word per opcode in 64-bit mode. Prefix and escape bytes are
 * handled before the tables are consulted; their entries are never read
 * (escapes are marked BAD so that VEX/EVEX reject them).
 */
#include "arch/x86_64/insn_tables.h"

#define NO	0			/* opcode only */
#define PX	0			/* prefix, never looked up */
#define BAD	A_BAD			/* #UD, or invalid in 64-bit mode */
#define ESC	A_BAD			/* escape or VEX/EVEX/XOP prefix */
#define MR	A_M			/* ModRM */
#define MB	(A_M | I_B)		/* ModRM, imm8 */
#define MZ	(A_M | I_Z)		/* ModRM, imm16/32 */
#define IB	I_B
#define IW	I_W
#define IZ	I_Z
#define IV	I_V
#define MO	I_MO			/* mov al/rax <-> moffs */
#define LEA	(A_M | K_NOACC)
#define NOP	(A_M | K_NOACC)		/* nop Ev and hint nops */
#define GRP3	A_M			/* F6/F7: imm depends on ModRM.reg */
#define PSH	K_STACK			/* push/pop */
#define STS	K_SRC			/* lods, outs */
#define STD	K_DST			/* stos, scas, ins */
#define STSD	(K_SRC | K_DST)		/* movs, cmps */
#define JC8	(I_R8 | FL(X86_FLOW_JCC))
#define JC32	(I_R32 | FL(X86_FLOW_JCC))
#define J8	(I_R8 | FL(X86_FLOW_JMP))
#define J32	(I_R32 | FL(X86_FLOW_JMP))
#define CALL	(I_R32 | FL(X86_FLOW_CALL) | K_STACK)
#define RET	(FL(X86_FLOW_RET) | K_STACK)
#define RETW	(RET | I_W)
#define RETF	(FL(X86_FLOW_FAR) | K_STACK)
#define RETFW	(RETF | I_W)
#define IRET	(FL(X86_FLOW_FAR) | K_STACK)
#define TRAP	FL(X86_FLOW_TRAP)
#define INTB	(TRAP | I_B)
#define UD	(A_M | FL(X86_FLOW_TRAP))	/* ud0, ud1 */
#define SYS	FL(X86_FLOW_SYSCALL)
#define FAR	FL(X86_FLOW_FAR)
#define ENTER	(I_WB | K_STACK)

const u16 x86_map_1byte[256] = {
/*	 0     1     2     3     4     5     6     7     8     9     A     B     C     D     E     F */
/* 0 */	 MR,   MR,   MR,   MR,   IB,   IZ,   BAD,  BAD,  MR,   MR,   MR,   MR,   IB,   IZ,   BAD,  ESC,
/* 1 */	 MR,   MR,   MR,   MR,   IB,   IZ,   BAD,  BAD,  MR,   MR,   MR,   MR,   IB,   IZ,   BAD,  BAD,
/* 2 */	 MR,   MR,   MR,   MR,   IB,   IZ,   PX,   BAD,  MR,   MR,   MR,   MR,   IB,   IZ,   PX,   BAD,
/* 3 */	 MR,   MR,   MR,   MR,   IB,   IZ,   PX,   BAD,  MR,   MR,   MR,   MR,   IB,   IZ,   PX,   BAD,
/* 4 */	 PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,   PX,
/* 5 */	 PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,  PSH,
/* 6 */	 BAD,  BAD,  ESC,  MR,   PX,   PX,   PX,   PX,   PSH|IZ, MZ, PSH|IB, MB,  STD,  STD,  STS,  STS,
/* 7 */	 JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,  JC8,
/* 8 */	 MB,   MZ,   BAD,  MB,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   LEA,  MR,   MR|PSH,
/* 9 */	 NO,   NO,   NO,   NO,   NO,   NO,   NO,   NO,   NO,   NO,   BAD,  NO,   PSH,  PSH,  NO,   NO,
/* A */	 MO,   MO,   MO,   MO,   STSD, STSD, STSD, STSD, IB,   IZ,   STD,  STD,  STS,  STS,  STD,  STD,
/* B */	 IB,   IB,   IB,   IB,   IB,   IB,   IB,   IB,   IV,   IV,   IV,   IV,   IV,   IV,   IV,   IV,
/* C */	 MB,   MB,   RETW, RET,  ESC,  ESC,  MB,   MZ,   ENTER, PSH, RETFW, RETF, TRAP, INTB, BAD,  IRET,
/* D */	 MR,   MR,   MR,   MR,   BAD,  BAD,  BAD,  NO,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* E */	 JC8,  JC8,  JC8,  JC8,  IB,   IB,   IB,   IB,   CALL, J32,  BAD,  J8,   NO,   NO,   NO,   NO,
/* F */	 PX,   TRAP, PX,   PX,   TRAP, NO,   GRP3, GRP3, NO,   NO,   NO,   NO,   NO,   NO,   MR,   MR,
};

const u16 x86_map_0f[256] = {
/*	 0     1     2     3     4     5     6     7     8     9     A     B     C     D     E     F */
/* 0 */	 MR,   MR,   MR,   MR,   BAD,  SYS,  NO,   FAR,  NO,   NO,   BAD,  TRAP, BAD,  MR,   NO,   ESC,
/* 1 */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   NOP,  MR,   MR,   NOP,  NOP,  NOP,  NOP,
/* 2 */	 MR,   MR,   MR,   MR,   BAD,  BAD,  BAD,  BAD,  MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* 3 */	 NO,   NO,   NO,   NO,   SYS,  FAR,  BAD,  NO,   ESC,  BAD,  ESC,  BAD,  BAD,  BAD,  BAD,  BAD,
/* 4 */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* 5 */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* 6 */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* 7 */	 MB,   MB,   MB,   MB,   MR,   MR,   MR,   NO,   MR,   MR,   BAD,  BAD,  MR,   MR,   MR,   MR,
/* 8 */	 JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32, JC32,
/* 9 */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* A */	 PSH,  PSH,  NO,   MR,   MB,   MR,   BAD,  BAD,  PSH,  PSH,  NO,   MR,   MB,   MR,   MR,   MR,
/* B */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   UD,   MB,   MR,   MR,   MR,   MR,   MR,
/* C */	 MR,   MR,   MB,   MR,   MB,   MB,   MB,   MR,   NO,   NO,   NO,   NO,   NO,   NO,   NO,   NO,
/* D */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* E */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,
/* F */	 MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   MR,   UD,
};

/* legacy 0F 38 xx (all ModRM, no immediate) */
const u8 x86_0f38_valid[256] = {
	[0x00 ... 0x0B] = 1,	/* SSSE3 pshufb .. pmulhrsw */
	[0x10] = 1, [0x14 ... 0x15] = 1, [0x17] = 1,
	[0x1C ... 0x1E] = 1,	/* pabs */
	[0x20 ... 0x25] = 1, [0x28 ... 0x2B] = 1,
	[0x30 ... 0x35] = 1, [0x37 ... 0x41] = 1,
	[0x80 ... 0x82] = 1,	/* invept, invvpid, invpcid */
	[0xC8 ... 0xCD] = 1,	/* SHA */
	[0xCF] = 1,		/* gf2p8mulb */
	[0xD8] = 1, [0xDB ... 0xDF] = 1,	/* AES, Key Locker */
	[0xF0 ... 0xF1] = 1,	/* movbe, crc32 */
	[0xF5 ... 0xF6] = 1,	/* wruss, adcx/adox/wrss */
	[0xF8 ... 0xFC] = 1,	/* movdir64b/enqcmd, movdiri, encodekey, aadd */
};

/* legacy 0F 3A xx (all ModRM + imm8) */
const u8 x86_0f3a_valid[256] = {
	[0x08 ... 0x0F] = 1,	/* round, blend, palignr */
	[0x14 ... 0x17] = 1,	/* pextr, extractps */
	[0x20 ... 0x22] = 1,	/* pinsr, insertps */
	[0x40 ... 0x42] = 1, [0x44] = 1,
	[0x60 ... 0x63] = 1,	/* pcmpXstrX */
	[0xCC] = 1, [0xCE ... 0xCF] = 1, [0xDF] = 1,
};

/* 3DNow! suffix bytes (AMD APM vol. 5) */
const u8 x86_3dnow_valid[256] = {
	[0x0C] = 1, [0x0D] = 1, [0x1C] = 1, [0x1D] = 1, [0x8A] = 1,
	[0x8E] = 1, [0x90] = 1, [0x94] = 1, [0x96] = 1, [0x97] = 1,
	[0x9A] = 1, [0x9E] = 1, [0xA0] = 1, [0xA4] = 1, [0xA6] = 1,
	[0xA7] = 1, [0xAA] = 1, [0xAE] = 1, [0xB0] = 1, [0xB4] = 1,
	[0xB6] = 1, [0xB7] = 1, [0xBB] = 1, [0xBF] = 1,
};

/*
 * VEX opcodes: which mandatory prefixes (pp) each one exists with, in some
 * W/L combination. Maps 0F38 and 0F3A are 66-only apart from the entries
 * listed.
 */
#define PFX_NP	1	/* no prefix */
#define PFX_66	2
#define PFX_F3	4
#define PFX_F2	8
#define PFX_ALL	(PFX_NP | PFX_66 | PFX_F3 | PFX_F2)
#define PFX_PS	(PFX_NP | PFX_66)	/* ps/pd forms */

static const u8 vex_0f[256] = {
	[0x10 ... 0x12] = PFX_ALL, [0x13] = PFX_PS, [0x14 ... 0x15] = PFX_PS,
	[0x16] = PFX_PS | PFX_F3, [0x17] = PFX_PS,
	[0x28 ... 0x29] = PFX_PS, [0x2A] = PFX_F3 | PFX_F2, [0x2B] = PFX_PS,
	[0x2C ... 0x2D] = PFX_F3 | PFX_F2, [0x2E ... 0x2F] = PFX_PS,
	[0x41 ... 0x42] = PFX_PS, [0x44 ... 0x47] = PFX_PS, [0x4A ... 0x4B] = PFX_PS,
	[0x50] = PFX_PS, [0x51] = PFX_ALL, [0x52 ... 0x53] = PFX_NP | PFX_F3,
	[0x54 ... 0x57] = PFX_PS, [0x58 ... 0x5A] = PFX_ALL, [0x5B] = PFX_PS | PFX_F3,
	[0x5C ... 0x5F] = PFX_ALL,
	[0x60 ... 0x6E] = PFX_66, [0x6F] = PFX_66 | PFX_F3,
	[0x70] = PFX_66 | PFX_F3 | PFX_F2, [0x71 ... 0x76] = PFX_66, [0x77] = PFX_NP,
	[0x7C ... 0x7D] = PFX_66 | PFX_F2, [0x7E ... 0x7F] = PFX_66 | PFX_F3,
	[0x90 ... 0x91] = PFX_PS, [0x92 ... 0x93] = PFX_PS | PFX_F2,
	[0x98 ... 0x99] = PFX_PS,
	[0xAE] = PFX_NP, [0xC2] = PFX_ALL, [0xC4 ... 0xC5] = PFX_66, [0xC6] = PFX_PS,
	[0xD0] = PFX_66 | PFX_F2, [0xD1 ... 0xE5] = PFX_66,
	[0xE6] = PFX_66 | PFX_F3 | PFX_F2, [0xE7 ... 0xEF] = PFX_66,
	[0xF0] = PFX_F2, [0xF1 ... 0xFE] = PFX_66,
};

static const u8 vex_0f38[256] = {
	[0x00 ... 0x0F] = PFX_66, [0x13] = PFX_66, [0x16 ... 0x1A] = PFX_66,
	[0x1C ... 0x1E] = PFX_66, [0x20 ... 0x25] = PFX_66, [0x28 ... 0x41] = PFX_66,
	[0x45 ... 0x47] = PFX_66,
	[0x49] = PFX_ALL, [0x4B] = PFX_66 | PFX_F3 | PFX_F2,	/* AMX */
	[0x50 ... 0x53] = PFX_ALL, [0x58 ... 0x5A] = PFX_66,
	[0x5C] = PFX_F3 | PFX_F2, [0x5E] = PFX_ALL,
	[0x72] = PFX_F3, [0x78 ... 0x79] = PFX_66, [0x8C] = PFX_66, [0x8E] = PFX_66,
	[0x90 ... 0x93] = PFX_66, [0x96 ... 0x9F] = PFX_66, [0xA6 ... 0xAF] = PFX_66,
	[0xB0] = PFX_ALL, [0xB1] = PFX_66 | PFX_F3, [0xB4 ... 0xBF] = PFX_66,
	[0xCF] = PFX_66, [0xDB ... 0xDF] = PFX_66, [0xE0 ... 0xEF] = PFX_66,
	[0xF2 ... 0xF3] = PFX_NP,				/* andn, blsr.. */
	[0xF5] = PFX_NP | PFX_F3 | PFX_F2, [0xF6] = PFX_F2, [0xF7] = PFX_ALL,
};

static const u8 vex_0f3a[256] = {
	[0x00 ... 0x02] = PFX_66, [0x04 ... 0x06] = PFX_66, [0x08 ... 0x0F] = PFX_66,
	[0x14 ... 0x19] = PFX_66, [0x1D] = PFX_66, [0x20 ... 0x22] = PFX_66,
	[0x30 ... 0x33] = PFX_66, [0x38 ... 0x39] = PFX_66, [0x40 ... 0x42] = PFX_66,
	[0x44] = PFX_66, [0x46] = PFX_66, [0x48 ... 0x4C] = PFX_66,
	[0x5C ... 0x5F] = PFX_66, [0x60 ... 0x63] = PFX_66, [0x68 ... 0x6F] = PFX_66,
	[0x78 ... 0x7F] = PFX_66, [0xCE ... 0xCF] = PFX_66, [0xDF] = PFX_66,
	[0xF0] = PFX_F2,					/* rorx */
};

/* AMD XOP maps 8, 9, 10 (AMD APM vol. 6) */
static const u8 xop_ops[3][256] = {
	{
		[0x85 ... 0x87] = 1, [0x8E ... 0x8F] = 1, [0x95 ... 0x97] = 1,
		[0x9E ... 0x9F] = 1, [0xA2 ... 0xA3] = 1, [0xA6] = 1,
		[0xB6] = 1, [0xC0 ... 0xC3] = 1, [0xCC ... 0xCF] = 1,
		[0xEC ... 0xEF] = 1,
	}, {
		[0x01 ... 0x02] = 1, [0x12] = 1, [0x80 ... 0x83] = 1,
		[0x90 ... 0x9B] = 1, [0xC1 ... 0xC3] = 1, [0xC6 ... 0xC7] = 1,
		[0xCB] = 1, [0xD1 ... 0xD3] = 1, [0xD6 ... 0xD7] = 1,
		[0xDB] = 1, [0xE1 ... 0xE3] = 1,
	}, {
		[0x10] = 1, [0x12] = 1,
	},
};

static unsigned int pp_bit(u8 pp)
{
	return pp == 0x66 ? PFX_66 : pp == 0xF3 ? PFX_F3 : pp == 0xF2 ? PFX_F2 : PFX_NP;
}

bool x86_vex_valid(u8 map, u8 op, u8 pp)
{
	static const u8 *const maps[4] = { NULL, vex_0f, vex_0f38, vex_0f3a };

	if (map > X86_MAP_0F3A)
		return xop_ops[map - X86_MAP_XOP8][op];
	return maps[map][op] & pp_bit(pp);
}

/*
 * x87 register forms (ModRM C0-FF) that exist, one bit per ModRM - C0, for
 * D8..DF. The undocumented aliases that execute (fstp1, fxch4, fcomp5,
 * ffreep, fxch7, fstp8, fstp9, fneni, fndisi, fsetpm) are included; the
 * holes raise #UD.
 */
static const u64 x87_reg_forms[8] = {
	~0ull,							/* D8 */
	~(0xFEull << 16 | 0xCCull << 32 | 1ull << 47),		/* D9 */
	0xFFFFFFFFull | 1ull << 41,				/* DA */
	0xFFFFFFFFull | 0x1Full << 32 | 0xFFFFull << 40,	/* DB */
	~0ull,							/* DC */
	0xFFFFFFFFFFFFull,					/* DD */
	0xFFFFFFull | 1ull << 25 | 0xFFFFFFFFull << 32,	/* DE */
	0x1FFFFFFFFull | 0xFFFFull << 40,			/* DF */
};

bool x86_x87_reg_valid(u8 op, u8 modrm)
{
	return (x87_reg_forms[op & 7] >> (modrm & 0x3F)) & 1;
}

bool x86_is_vsib(u8 op)
{
	/* gathers 90-93, scatters A0-A3, gather/scatter prefetches C6-C7 */
	return (op >= 0x90 && op <= 0x93) || (op >= 0xA0 && op <= 0xA3) ||
	       op == 0xC6 || op == 0xC7;
}

/*
 * EVEX disp8*N (Intel SDM vol. 2, 2.7.5): an 8-bit displacement is scaled
 * by N, which follows from the instruction's tuple type, the vector length,
 * EVEX.W (element size) and EVEX.b (broadcast).
 */
enum tuple {
	T_NONE,		/* N = 1 */
	T_FV,		/* full vector: bcst ? element : VL */
	T_HV,		/* half vector: bcst ? 4 : VL/2 */
	T_FVM,		/* full vector memory: VL */
	T_HVM,		/* VL/2 */
	T_QVM,		/* VL/4 */
	T_OVM,		/* VL/8 */
	T_S,		/* one element, size by W: 4 or 8 */
	T_1, T_2, T_4, T_8, T_16, T_32,	/* fixed */
	T_DUP,		/* movddup: 8 at 128 bits, else VL */
	T_PS_SS,	/* none/66: FV; F3/F2: S */
	T_UPS_SS,	/* none/66: FVM; F3/F2: S */
	T_SPECIAL,	/* resolved in special_tuple() */
};

static const u8 tuple_0f[256] = {
	[0x10 ... 0x11] = T_UPS_SS,
	[0x12] = T_SPECIAL, [0x13] = T_8, [0x14 ... 0x15] = T_FV,
	[0x16] = T_SPECIAL, [0x17] = T_8,
	[0x28 ... 0x29] = T_FVM, [0x2A] = T_S, [0x2B] = T_FVM,
	[0x2C ... 0x2D] = T_SPECIAL, [0x2E ... 0x2F] = T_S,
	[0x51] = T_PS_SS, [0x54 ... 0x57] = T_FV, [0x58 ... 0x59] = T_PS_SS,
	[0x5A] = T_SPECIAL, [0x5B] = T_FV, [0x5C ... 0x5F] = T_PS_SS,
	[0x60 ... 0x61] = T_FVM, [0x62] = T_FV, [0x63 ... 0x65] = T_FVM,
	[0x66] = T_FV, [0x67 ... 0x69] = T_FVM, [0x6A ... 0x6D] = T_FV,
	[0x6E] = T_S, [0x6F] = T_FVM,
	[0x70] = T_SPECIAL, [0x71] = T_FVM, [0x72] = T_FV, [0x73] = T_SPECIAL,
	[0x74 ... 0x75] = T_FVM, [0x76] = T_FV,
	[0x78 ... 0x7B] = T_SPECIAL, [0x7E] = T_S, [0x7F] = T_FVM,
	[0xC2] = T_PS_SS, [0xC4] = T_2, [0xC6] = T_FV,
	[0xD1 ... 0xD3] = T_16, [0xD4] = T_FV, [0xD5] = T_FVM, [0xD6] = T_S,
	[0xD8 ... 0xDA] = T_FVM, [0xDB] = T_FV, [0xDC ... 0xDE] = T_FVM,
	[0xDF] = T_FV,
	[0xE0] = T_FVM, [0xE1 ... 0xE2] = T_16, [0xE3 ... 0xE5] = T_FVM,
	[0xE6] = T_SPECIAL, [0xE7 ... 0xEA] = T_FVM, [0xEB] = T_FV,
	[0xEC ... 0xEE] = T_FVM, [0xEF] = T_FV,
	[0xF1 ... 0xF3] = T_16, [0xF4] = T_FV, [0xF5 ... 0xF6] = T_FVM,
	[0xF8 ... 0xF9] = T_FVM, [0xFA ... 0xFB] = T_FV,
	[0xFC ... 0xFD] = T_FVM, [0xFE] = T_FV,
};

static const u8 tuple_0f38[256] = {
	[0x00] = T_FVM, [0x04] = T_FVM, [0x0B] = T_FVM, [0x0C ... 0x0D] = T_FV,
	[0x10 ... 0x15] = T_SPECIAL, [0x16] = T_FV,
	[0x18] = T_4, [0x19] = T_8, [0x1A] = T_16, [0x1B] = T_32,
	[0x1C ... 0x1D] = T_FVM, [0x1E ... 0x1F] = T_FV,
	[0x20 ... 0x25] = T_SPECIAL, [0x26] = T_FVM, [0x27 ... 0x29] = T_FV,
	[0x2A] = T_FVM, [0x2B ... 0x2C] = T_FV, [0x2D] = T_S,
	[0x30 ... 0x35] = T_SPECIAL, [0x36 ... 0x37] = T_FV,
	[0x38] = T_FVM, [0x39] = T_FV, [0x3A] = T_FVM, [0x3B] = T_FV,
	[0x3C] = T_FVM, [0x3D] = T_FV, [0x3E] = T_FVM, [0x3F] = T_FV,
	[0x40] = T_FV, [0x42] = T_FV, [0x43] = T_S, [0x44 ... 0x47] = T_FV,
	[0x4C] = T_FV, [0x4D] = T_S, [0x4E] = T_FV, [0x4F] = T_S,
	[0x50 ... 0x53] = T_FV, [0x54] = T_FVM, [0x55] = T_FV,
	[0x58] = T_4, [0x59] = T_8, [0x5A] = T_16, [0x5B] = T_32,
	[0x62 ... 0x63] = T_SPECIAL, [0x64 ... 0x65] = T_FV, [0x66] = T_FVM,
	[0x68] = T_FV,
	[0x70] = T_FVM, [0x71] = T_FV, [0x72] = T_SPECIAL, [0x73] = T_FV,
	[0x75] = T_FVM, [0x76 ... 0x77] = T_FV, [0x78] = T_1, [0x79] = T_2,
	[0x7D] = T_FVM, [0x7E ... 0x7F] = T_FV,
	[0x83] = T_FV, [0x88 ... 0x8B] = T_S, [0x8D] = T_FVM, [0x8F] = T_FVM,
	[0x90 ... 0x93] = T_S,
	[0x96 ... 0x98] = T_FV, [0x99] = T_S, [0x9A] = T_FV, [0x9B] = T_S,
	[0x9C] = T_FV, [0x9D] = T_S, [0x9E] = T_FV, [0x9F] = T_S,
	[0xA0 ... 0xA3] = T_S,
	[0xA6 ... 0xA8] = T_FV, [0xA9] = T_S, [0xAA] = T_FV, [0xAB] = T_S,
	[0xAC] = T_FV, [0xAD] = T_S, [0xAE] = T_FV, [0xAF] = T_S,
	[0xB4 ... 0xB5] = T_FV,
	[0xB6 ... 0xB8] = T_FV, [0xB9] = T_S, [0xBA] = T_FV, [0xBB] = T_S,
	[0xBC] = T_FV, [0xBD] = T_S, [0xBE] = T_FV, [0xBF] = T_S,
	[0xC4] = T_FV, [0xC6 ... 0xC7] = T_S, [0xC8] = T_FV, [0xCA] = T_FV,
	[0xCB] = T_S, [0xCC] = T_FV, [0xCD] = T_S, [0xCF] = T_FVM,
	[0xDC ... 0xDF] = T_FVM,
};

static const u8 tuple_0f3a[256] = {
	[0x00 ... 0x01] = T_FV, [0x03 ... 0x05] = T_FV, [0x08 ... 0x09] = T_FV,
	[0x0A ... 0x0B] = T_S, [0x0F] = T_FVM,
	[0x14] = T_1, [0x15] = T_2, [0x16] = T_S, [0x17] = T_4,
	[0x18 ... 0x19] = T_16, [0x1A ... 0x1B] = T_32, [0x1D] = T_HVM,
	[0x1E ... 0x1F] = T_FV,
	[0x20] = T_1, [0x21] = T_4, [0x22] = T_S, [0x23] = T_FV,
	[0x25 ... 0x26] = T_FV, [0x27] = T_S,
	[0x38 ... 0x39] = T_16, [0x3A ... 0x3B] = T_32, [0x3E ... 0x3F] = T_FVM,
	[0x42] = T_FVM, [0x43] = T_FV, [0x44] = T_FVM,
	[0x50] = T_FV, [0x51] = T_S, [0x54] = T_FV, [0x55] = T_S,
	[0x56] = T_FV, [0x57] = T_S, [0x66] = T_FV, [0x67] = T_S,
	[0x70] = T_FVM, [0x71] = T_FV, [0x72] = T_FVM, [0x73] = T_FV,
	[0xC2] = T_FV,		/* vcmpph (AVX512-FP16) */
	[0xCE ... 0xCF] = T_FV,
};

/* vpmov[sz]x* (66) and vpmov* down-conversions (F3) of 0F38 20-25, 30-35 */
static const u8 tuple_pmov[6] = { T_HVM, T_QVM, T_OVM, T_HVM, T_QVM, T_HVM };

static unsigned int special_tuple(const struct x86_insn_info *in)
{
	unsigned int reg = (in->modrm >> 3) & 7;
	bool w = in->vex_w, scalar = in->pp == 0xF3 || in->pp == 0xF2;
	u8 op = in->opcode;

	if (in->map == X86_MAP_0F38) {
		if ((op & 0xE8) == 0x20 && (op & 7) < 6)	/* 20-25, 30-35 */
			return tuple_pmov[op & 7];
		switch (op) {
		case 0x10 ... 0x15:	/* F3: vpmovus*; 66: psrlvw.. cvtph2ps.. */
			if (in->pp == 0xF3)
				return tuple_pmov[op & 7];
			return op == 0x13 ? T_HVM : op <= 0x12 ? T_FVM : T_FV;
		case 0x62 ... 0x63:
			return w ? T_2 : T_1;
		case 0x72:
			return in->pp == 0x66 ? T_FVM : T_FV;
		}
		return T_NONE;
	}
	switch (op) {
	case 0x12:		/* movlps/movlpd; movsldup; movddup */
		return in->pp == 0xF3 ? T_FVM : in->pp == 0xF2 ? T_DUP : T_8;
	case 0x16:		/* movhps/movhpd; movshdup */
		return in->pp == 0xF3 ? T_FVM : T_8;
	case 0x2C ... 0x2D:	/* cvt(t)ss2si, cvt(t)sd2si */
	case 0x78 ... 0x79:	/* cvt(t)ps2udq...; cvt(t)ss2usi, sd2usi */
		if (in->pp == 0xF3)
			return T_4;
		if (in->pp == 0xF2)
			return T_8;
		return T_FV;
	case 0x5A:		/* cvtps2pd; cvtpd2ps; cvtss2sd; cvtsd2ss */
		return scalar ? T_S : in->pp == 0x66 ? T_FV : T_HV;
	case 0x70:		/* pshufd; pshufhw, pshuflw */
		return in->pp == 0x66 ? T_FV : T_FVM;
	case 0x73:		/* psrldq, pslldq; psrlq, psllq */
		return reg == 3 || reg == 7 ? T_FVM : T_FV;
	case 0x7A:		/* cvttp[sd]2qq, cvtudq2pd/uqq2pd; cvtudq2ps */
		if (in->pp == 0xF2)
			return T_FV;
		return w ? T_FV : T_HV;
	case 0x7B:		/* cvtp[sd]2qq; cvtusi2ss/sd */
		if (scalar)
			return T_S;
		return w ? T_FV : T_HV;
	case 0xE6:		/* cvttpd2dq, cvtpd2dq; cvtdq2pd/qq2pd */
		if (in->pp == 0xF3)
			return w ? T_FV : T_HV;
		return T_FV;
	}
	return T_NONE;
}

/* EVEX 0F38 is 66 apart from these F3 (vpmov*, ...) and F2 forms */
static const u8 evex_0f38_more[256] = {
	[0x10 ... 0x15] = PFX_F3, [0x20 ... 0x2A] = PFX_F3,
	[0x30 ... 0x35] = PFX_F3, [0x38 ... 0x3A] = PFX_F3,
	[0x52] = PFX_F3 | PFX_F2, [0x53] = PFX_F2, [0x68] = PFX_F2,
	[0x72] = PFX_F3 | PFX_F2, [0x9A ... 0x9B] = PFX_F2, [0xAA ... 0xAB] = PFX_F2,
};

/* AVX512-FP16 maps 5 and 6: defined opcodes (any prefix) */
static const u8 fp16_map5[256] = {
	[0x10 ... 0x11] = 1, [0x1D] = 1, [0x2A] = 1, [0x2C ... 0x2F] = 1,
	[0x51] = 1, [0x58 ... 0x5F] = 1, [0x6E] = 1, [0x78 ... 0x7E] = 1,
};

static const u8 fp16_map6[256] = {
	[0x13] = 1, [0x2C ... 0x2D] = 1, [0x42 ... 0x43] = 1,
	[0x4C ... 0x4F] = 1, [0x56 ... 0x57] = 1, [0x96 ... 0x9F] = 1,
	[0xA6 ... 0xAF] = 1, [0xB6 ... 0xBF] = 1, [0xD6 ... 0xD7] = 1,
};

static const u8 *const tuples[4] = { NULL, tuple_0f, tuple_0f38, tuple_0f3a };

/*
 * EVEX opcodes: those with a tuple type, and the register-only ones. Map 0F
 * uses the VEX prefix rules plus the AVX-512 additions; 0F38 and 0F3A need
 * a prefix (no-prefix forms there are AVX512-FP16, allowed in 0F3A).
 */
bool x86_evex_valid(u8 map, u8 op, u8 pp)
{
	unsigned int ppb = pp_bit(pp), ok;

	if (map == X86_MAP_EVEX5)
		return fp16_map5[op];
	if (map == X86_MAP_EVEX6)
		return fp16_map6[op];
	if (tuples[map][op] == T_NONE &&
	    !(map == X86_MAP_0F && op == 0xC5) &&		/* vpextrw */
	    !(map == X86_MAP_0F38 && op >= 0x7A && op <= 0x7C))	/* vpbroadcast r */
		return false;
	if (map == X86_MAP_0F3A)
		return true;
	if (map == X86_MAP_0F38)
		return (PFX_66 | evex_0f38_more[op]) & ppb;
	ok = vex_0f[op];
	switch (op) {
	case 0x6F:			/* vmovdqu8/16 */
	case 0x7F:
		ok |= PFX_F2;
		break;
	case 0x78 ... 0x79:		/* vcvt(t)ps2udq .. sd2usi */
		ok = PFX_ALL;
		break;
	case 0x7A ... 0x7B:		/* vcvt(t)ps2qq, vcvtudq2pd, usi2ss .. */
		ok = PFX_66 | PFX_F3 | PFX_F2;
		break;
	}
	return ok & ppb;
}

unsigned int x86_evex_disp8_scale(const struct x86_insn_info *in, bool bcst)
{
	unsigned int t = T_NONE, vl = in->vl, esz = in->vex_w ? 8 : 4;
	bool scalar = in->pp == 0xF3 || in->pp == 0xF2;

	switch (in->map) {
	case X86_MAP_0F:
	case X86_MAP_0F38:
	case X86_MAP_0F3A:
		t = tuples[in->map][in->opcode];
		break;
	case X86_MAP_EVEX5:
	case X86_MAP_EVEX6:
		/* AVX512-FP16: 2-byte elements; approximate for conversions */
		esz = 2;
		if (in->map == X86_MAP_EVEX6)
			scalar = tuple_0f38[in->opcode] == T_S;
		t = scalar ? T_S : T_FV;
		break;
	}
	if (t == T_SPECIAL)
		t = special_tuple(in);
	else if (t == T_PS_SS)
		t = scalar ? T_S : T_FV;
	else if (t == T_UPS_SS)
		t = scalar ? T_S : T_FVM;

	switch (t) {
	case T_FV:
		return bcst ? esz : vl;
	case T_HV:
		return bcst ? 4 : vl / 2;
	case T_FVM:
		return vl;
	case T_HVM:
		return vl / 2;
	case T_QVM:
		return vl / 4;
	case T_OVM:
		return vl / 8;
	case T_S:
		return esz;
	case T_1:
		return 1;
	case T_2:
		return 2;
	case T_4:
		return 4;
	case T_8:
		return 8;
	case T_16:
		return 16;
	case T_32:
		return 32;
	case T_DUP:
		return vl == 16 ? 8 : vl;
	}
	return 1;
}
