// SPDX-License-Identifier: GPL-2.0
/*
 * insn.c - x86-64 instruction decoder (64-bit mode).
 *
 * One pass over the bytes: legacy and REX prefixes, then the opcode (which
 * may be an escape into the 0F, 0F38, 0F3A maps, or a VEX/EVEX/XOP prefix),
 * then ModRM, SIB, displacement and immediate. Each opcode of the legacy maps
 * has one attribute word in a table laid out like the opcode maps of the
 * Intel SDM (volume 2, appendix A); the few opcodes whose shape depends on
 * ModRM.reg are fixed up afterwards. Every byte is fetched through next(),
 * which enforces both the caller's buffer size and the 15-byte limit.
 */
#include "arch/x86_64/insn.h"
#include "arch/x86_64/insn_tables.h"

struct dec {
	const u8 *buf;
	size_t avail;
	size_t lim;		/* min(avail, 15) */
	size_t pos;
	u8 rep;			/* last F2/F3 prefix */
	u8 rx, rb;		/* REX.X / REX.B (or VEX/EVEX/XOP equivalents) */
	u8 vx;			/* EVEX.V' (index bit 4 for vsib) */
	bool evex_b;		/* EVEX.b: broadcast / rounding */
	bool disp8;		/* displacement was one byte */
	u8 vvvv;		/* VEX/EVEX/XOP vvvv, un-inverted */
};

/* The byte at the current position, or -EINVAL past 15, -EAGAIN past avail. */
static int next(struct dec *d)
{
	if (likely(d->pos < d->lim))
		return d->buf[d->pos++];
	return d->pos >= X86_MAX_INSN_LEN ? -EINVAL : -EAGAIN;
}

/* Read an n-byte little-endian value (n <= 8). */
static int next_le(struct dec *d, unsigned int n, u64 *val)
{
	u64 v = 0;
	unsigned int i;

	if (d->pos + n > X86_MAX_INSN_LEN)
		return -EINVAL;
	if (d->pos + n > d->avail)
		return -EAGAIN;
	for (i = 0; i < n; i++)
		v |= (u64)d->buf[d->pos + i] << (8 * i);
	d->pos += n;
	*val = v;
	return 0;
}

static s64 sign_extend(u64 v, unsigned int bytes)
{
	unsigned int shift = 64 - 8 * bytes;

	return (s64)(v << shift) >> shift;
}

/*
 * ModRM, SIB and displacement. With regonly the mod field is ignored and no
 * SIB or displacement follows (MOV to/from control and debug registers).
 */
static int decode_modrm(struct dec *d, struct x86_insn_info *in, bool regonly)
{
	unsigned int mod, rm, dlen = 0;
	int b;
	u64 v;

	b = next(d);
	if (b < 0)
		return b;
	in->has_modrm = true;
	in->modrm = b;
	mod = b >> 6;
	rm = b & 7;
	if (mod == 3 || regonly)
		return 0;

	in->has_mem = true;
	if (rm == 4) {
		unsigned int base, index;

		b = next(d);
		if (b < 0)
			return b;
		in->sib = b;
		base = b & 7;
		index = (b >> 3) & 7;
		if (in->vsib) {
			in->index = index | d->rx << 3 | d->vx << 4;
			in->scale = 1 << (b >> 6);
		} else if (index != 4 || d->rx) {
			in->index = index | d->rx << 3;
			in->scale = 1 << (b >> 6);
		}
		if (base == 5 && mod == 0)
			dlen = 4;
		else
			in->base = base | d->rb << 3;
	} else if (in->vsib) {
		return -EINVAL;		/* vsib needs a SIB byte */
	} else if (rm == 5 && mod == 0) {
		in->rip_rel = true;
		dlen = 4;
	} else {
		in->base = rm | d->rb << 3;
	}
	if (mod == 1)
		dlen = 1;
	else if (mod == 2)
		dlen = 4;
	d->disp8 = dlen == 1;
	if (dlen) {
		b = next_le(d, dlen, &v);
		if (b < 0)
			return b;
		in->disp = sign_extend(v, dlen);
	}
	return 0;
}

/* Immediate of the given kind; a relative one goes to in->rel. */
static int decode_imm(struct dec *d, struct x86_insn_info *in, unsigned int kind)
{
	unsigned int n = 0;
	bool rel = false;
	u64 v;
	int err;

	switch (kind) {
	case I_NONE:
		return 0;
	case I_B:
		n = 1;
		break;
	case I_W:
		n = 2;
		break;
	case I_Z:
		n = in->osize == 2 ? 2 : 4;
		break;
	case I_V:
		n = in->osize;
		break;
	case I_MO:
		n = in->adsize ? 4 : 8;
		break;
	case I_WB:
		n = 3;
		break;
	case I_BB:
		n = 2;
		break;
	case I_D:
		n = 4;
		break;
	case I_R8:
		n = 1;
		rel = true;
		break;
	case I_R32:
		n = 4;
		rel = true;
		break;
	case I_RZ:
		n = in->osize == 2 ? 2 : 4;
		rel = true;
		break;
	}
	err = next_le(d, n, &v);
	if (err)
		return err;
	if (rel) {
		in->rel = (s32)sign_extend(v, n);
	} else if (kind == I_MO) {
		in->has_mem = true;
		in->disp = (s64)v;
	} else {
		in->imm_len = n;
		in->imm = v;
	}
	return 0;
}

/*
 * Legacy one-byte opcodes whose meaning depends on ModRM.reg. Returns the
 * attribute word to use, or A_BAD.
 */
static u16 fixup_1byte(struct x86_insn_info *in, u16 attr)
{
	unsigned int reg = (in->modrm >> 3) & 7;
	bool mem = (in->modrm >> 6) != 3;

	if (in->opcode >= 0xD8 && in->opcode <= 0xDF) {	/* x87 */
		if (!mem)
			return x86_x87_reg_valid(in->opcode, in->modrm) ?
			       attr : A_BAD;
		/* reserved memory forms: D9 /1, DB /4, DB /6, DD /5 */
		if ((in->opcode == 0xD9 && reg == 1) ||
		    (in->opcode == 0xDB && (reg == 4 || reg == 6)) ||
		    (in->opcode == 0xDD && reg == 5))
			return A_BAD;
		return attr;
	}
	switch (in->opcode) {
	case 0x8C:			/* mov Ev, Sw: es..gs */
		return reg < 6 ? attr : A_BAD;
	case 0x8E:			/* mov Sw, Ew: not cs */
		return reg < 6 && reg != 1 ? attr : A_BAD;
	case 0x8D:			/* lea: memory form only */
		return mem ? attr : A_BAD;
	case 0xC6:			/* mov Eb,Ib; xabort Ib */
	case 0xC7:			/* mov Ev,Iz; xbegin Jz */
		if (reg == 0)
			return attr;
		if (in->modrm != 0xF8)
			return A_BAD;
		if (in->opcode == 0xC6)
			return attr;
		return A_M | I_RZ | FL(X86_FLOW_JCC);
	case 0xF6:			/* test Eb,Ib is /0 and /1 */
		return A_M | (reg < 2 ? I_B : 0);
	case 0xF7:
		return A_M | (reg < 2 ? I_Z : 0);
	case 0xFE:			/* inc/dec Eb */
		return reg < 2 ? attr : A_BAD;
	case 0xFF:
		switch (reg) {
		case 2:
			return A_M | FL(X86_FLOW_CALL_IND) | K_STACK;
		case 3:
			return mem ? A_M | FL(X86_FLOW_FAR) | K_STACK : A_BAD;
		case 4:
			return A_M | FL(X86_FLOW_JMP_IND);
		case 5:
			return mem ? A_M | FL(X86_FLOW_FAR) : A_BAD;
		case 6:
			return A_M | K_STACK;
		case 7:
			return A_BAD;
		}
		return attr;
	}
	return attr;
}

static u16 fixup_0f(struct x86_insn_info *in, u16 attr)
{
	unsigned int reg = (in->modrm >> 3) & 7;
	bool mem = (in->modrm >> 6) != 3;

	switch (in->opcode) {
	case 0x00:			/* sldt .. verw; /6 /7 undefined */
		return reg < 6 ? attr : A_BAD;
	case 0x0D:			/* prefetch, prefetchw: memory only */
		return mem ? attr : A_BAD;
	case 0xC7:			/* cmpxchg8b/16b, xrstors.. / rdrand.. */
		if (mem)
			return reg != 0 && reg != 2 ? attr : A_BAD;
		return reg >= 6 ? attr : A_BAD;
	case 0x78:			/* 66: extrq Ib,Ib; F2: insertq Ib,Ib */
		if (in->pp == 0x66 || in->pp == 0xF2)
			return attr | I_BB;
		return attr;
	case 0xB8:			/* popcnt needs F3 (else jmpe) */
		return in->pp == 0xF3 ? attr : A_BAD;
	case 0xF0:			/* lddqu needs F2 */
		return in->pp == 0xF2 ? attr : A_BAD;
	case 0xB2:			/* lss, lfs, lgs: memory only */
	case 0xB4:
	case 0xB5:
		return mem ? attr : A_BAD;
	}
	return attr;
}

/*
 * LOCK is allowed only on the read-modify-write forms with a memory
 * destination (SDM vol. 2 "LOCK"); anything else raises #UD.
 */
static bool lock_ok(const struct x86_insn_info *in)
{
	unsigned int reg = (in->modrm >> 3) & 7;
	u8 op = in->opcode;

	if (!in->has_mem || in->enc != X86_ENC_LEGACY)
		return false;
	if (in->map == X86_MAP_0F)
		return op == 0xAB || op == 0xB3 || op == 0xBB ||	/* bts.. */
		       op == 0xB0 || op == 0xB1 || op == 0xC0 || op == 0xC1 ||
		       (op == 0xBA && reg >= 5) || (op == 0xC7 && reg == 1);
	if (in->map != X86_MAP_1BYTE)
		return false;
	if (op < 0x40)		/* add, or, adc, sbb, and, sub, xor Ev,Gv */
		return (op & 6) == 0 && (op & 0x38) != 0x38;
	switch (op) {
	case 0x80:
	case 0x81:
	case 0x83:
		return reg != 7;			/* not cmp */
	case 0x86:
	case 0x87:
		return true;				/* xchg */
	case 0xF6:
	case 0xF7:
		return reg == 2 || reg == 3;		/* not, neg */
	case 0xFE:
	case 0xFF:
		return reg < 2;				/* inc, dec */
	}
	return false;
}

/* Ends the decode once attr is final: immediate, flow, memory accesses. */
static int finish(struct dec *d, struct x86_insn_info *in, u16 attr)
{
	int err;

	if (attr & A_BAD)
		return -EINVAL;
	if (in->lock && !lock_ok(in))
		return -EINVAL;
	err = decode_imm(d, in, attr & I_MASK);
	if (err)
		return err;
	in->len = d->pos;
	in->flow = (attr >> FL_SHIFT) & 0xF;
	if (attr & K_STACK)
		in->implicit |= X86_IMP_STACK;
	if (attr & K_SRC)
		in->implicit |= X86_IMP_SRC;
	if (attr & K_DST)
		in->implicit |= X86_IMP_DST;
	if (in->map == X86_MAP_1BYTE && in->opcode == 0xD7)
		in->implicit |= X86_IMP_XLAT;
	in->rep = d->rep && (in->implicit & (X86_IMP_SRC | X86_IMP_DST));
	in->nmem = (in->has_mem && !(attr & K_NOACC)) +
		   !!(in->implicit & X86_IMP_STACK) +
		   !!(in->implicit & X86_IMP_SRC) +
		   !!(in->implicit & X86_IMP_DST) +
		   !!(in->implicit & X86_IMP_XLAT);
	return in->len;
}

static int decode_legacy_map(struct dec *d, struct x86_insn_info *in, u16 attr)
{
	int err;

	if (attr & A_BAD)
		return -EINVAL;
	if (attr & A_M) {
		bool crdr = in->map == X86_MAP_0F &&
			    (in->opcode & 0xFC) == 0x20;

		err = decode_modrm(d, in, crdr);
		if (err)
			return err;
		if (in->map == X86_MAP_1BYTE)
			attr = fixup_1byte(in, attr);
		else if (in->map == X86_MAP_0F)
			attr = fixup_0f(in, attr);
	}
	return finish(d, in, attr);
}

static int decode_3dnow(struct dec *d, struct x86_insn_info *in)
{
	int err, b;

	in->enc = X86_ENC_3DNOW;
	err = decode_modrm(d, in, false);
	if (err)
		return err;
	b = next(d);
	if (b < 0)
		return b;
	in->opcode = b;
	if (!x86_3dnow_valid[b])
		return -EINVAL;
	return finish(d, in, A_M);
}

/* After 0F. */
static int decode_0f(struct dec *d, struct x86_insn_info *in)
{
	int b = next(d);

	if (b < 0)
		return b;
	switch (b) {
	case 0x0F:
		in->map = X86_MAP_0F;
		return decode_3dnow(d, in);
	case 0x38:
	case 0x3A:
		in->map = b == 0x38 ? X86_MAP_0F38 : X86_MAP_0F3A;
		b = next(d);
		if (b < 0)
			return b;
		in->opcode = b;
		if (in->map == X86_MAP_0F38) {
			if (!x86_0f38_valid[b])
				return -EINVAL;
			return decode_legacy_map(d, in, A_M);
		}
		if (!x86_0f3a_valid[b])
			return -EINVAL;
		return decode_legacy_map(d, in, A_M | I_B);
	}
	in->map = X86_MAP_0F;
	in->opcode = b;
	return decode_legacy_map(d, in, x86_map_0f[b]);
}

static const u8 pp_prefix[4] = { 0, 0x66, 0xF3, 0xF2 };

/*
 * Opcode, ModRM and immediate of a VEX, EVEX or XOP instruction, whose map,
 * pp, W and extension bits are already in in/d.
 */
static int decode_vex_body(struct dec *d, struct x86_insn_info *in)
{
	u16 attr = A_M;
	int b, err;

	b = next(d);
	if (b < 0)
		return b;
	in->opcode = b;
	if (b == 0x77 && in->map == X86_MAP_0F && d->vvvv)
		return -EINVAL;		/* vzeroupper/vzeroall: vvvv = 1111b */
	if (in->enc == X86_ENC_EVEX ? !x86_evex_valid(in->map, b, in->pp) :
				      !x86_vex_valid(in->map, b, in->pp))
		return -EINVAL;
	switch (in->map) {
	case X86_MAP_0F:
		attr = x86_map_0f[b];
		if (attr & A_BAD)
			return -EINVAL;
		if (!(attr & A_M) && !(b == 0x77 && in->enc == X86_ENC_VEX))
			return -EINVAL;
		attr &= A_M | I_MASK;
		if ((attr & I_MASK) != I_B)
			attr &= A_M;
		break;
	case X86_MAP_0F38:
		in->vsib = x86_is_vsib(b);
		break;
	case X86_MAP_0F3A:
	case X86_MAP_XOP8:
		attr = A_M | I_B;
		break;
	case X86_MAP_XOPA:
		attr = A_M | I_D;
		break;
	}
	if (attr & A_M) {
		err = decode_modrm(d, in, false);
		if (err)
			return err;
	}
	if (in->enc == X86_ENC_EVEX) {
		/* L'L = 3 only as rounding control: register form with b */
		if (in->vl > 64 && (in->has_mem || !d->evex_b))
			return -EINVAL;
		if (in->has_mem && d->disp8)
			in->disp *= x86_evex_disp8_scale(in, d->evex_b);
		if (in->vl > 64)
			in->vl = 64;	/* L'L = 3 with register rounding */
	}
	return finish(d, in, attr);
}

/* VEX, EVEX and XOP forbid 66, F2, F3, LOCK and REX before them. */
static bool vex_prefix_ok(const struct dec *d, const struct x86_insn_info *in)
{
	return !d->rep && !in->opsize && !in->lock && !in->rex;
}

/* C5: R vvvv L pp, map 0F */
static int decode_vex2(struct dec *d, struct x86_insn_info *in)
{
	int b1;

	in->enc = X86_ENC_VEX;
	b1 = next(d);
	if (b1 < 0)
		return b1;
	in->map = X86_MAP_0F;
	d->vvvv = (~b1 >> 3) & 0xF;
	in->vl = b1 & 4 ? 32 : 16;
	in->pp = pp_prefix[b1 & 3];
	return decode_vex_body(d, in);
}

/*
 * C4 (VEX, maps 1-3) and 8F with ModRM.reg != 0 (XOP, maps 8-10) share one
 * layout: R X B m-mmmm, then W vvvv L pp.
 */
static int decode_vex3(struct dec *d, struct x86_insn_info *in, u8 enc)
{
	bool xop = enc == X86_ENC_XOP;
	int b1, b2;

	in->enc = enc;
	b1 = next(d);
	if (b1 < 0)
		return b1;
	d->rx = !(b1 & 0x40);
	d->rb = !(b1 & 0x20);
	in->map = b1 & 0x1F;
	if (xop ? in->map < X86_MAP_XOP8 || in->map > X86_MAP_XOPA :
		  in->map < X86_MAP_0F || in->map > X86_MAP_0F3A)
		return -EINVAL;
	b2 = next(d);
	if (b2 < 0)
		return b2;
	if (xop && (b2 & 3))
		return -EINVAL;		/* XOP.pp must be 0 */
	in->vex_w = b2 >> 7;
	d->vvvv = (~b2 >> 3) & 0xF;
	in->vl = b2 & 4 ? 32 : 16;
	in->pp = pp_prefix[b2 & 3];
	return decode_vex_body(d, in);
}

/* 62 */
static int decode_evex(struct dec *d, struct x86_insn_info *in)
{
	int p0, p1, p2;

	in->enc = X86_ENC_EVEX;
	p0 = next(d);
	if (p0 < 0)
		return p0;
	p1 = next(d);
	if (p1 < 0)
		return p1;
	p2 = next(d);
	if (p2 < 0)
		return p2;
	/* P0: R X B R' 0 m m m   P1: W v v v v 1 p p   P2: z L' L b V' a a a */
	in->map = p0 & 7;
	if ((p0 & 8) || !(p1 & 4))
		return -EINVAL;
	if (in->map == 0 || in->map == 4 || in->map == 7)
		return -EINVAL;
	d->rx = !(p0 & 0x40);
	d->rb = !(p0 & 0x20);
	d->vx = !(p2 & 8);
	d->evex_b = p2 & 0x10;
	in->vex_w = p1 >> 7;
	d->vvvv = (~p1 >> 3) & 0xF;
	in->pp = pp_prefix[p1 & 3];
	in->vl = 16 << ((p2 >> 5) & 3);		/* 128 means reserved */
	return decode_vex_body(d, in);
}

int x86_insn_decode(const u8 *buf, size_t avail, struct x86_insn_info *in)
{
	struct dec d = {
		.buf = buf,
		.avail = avail,
		.lim = avail < X86_MAX_INSN_LEN ? avail : X86_MAX_INSN_LEN,
	};
	int b, next_b;

	memset(in, 0, sizeof(*in));
	in->base = X86_REG_NONE;
	in->index = X86_REG_NONE;
	in->scale = 1;

	for (;;) {
		b = next(&d);
		if (b < 0)
			return b;
		if ((b & 0xF0) == 0x40) {
			in->rex = b;
			continue;
		}
		switch (b) {
		case 0x26:
		case 0x2E:
		case 0x36:
		case 0x3E:
			in->seg = X86_SEG_ES + ((b >> 3) & 3);
			break;
		case 0x64:
		case 0x65:
			in->seg = X86_SEG_FS + (b & 1);
			break;
		case 0x66:
			in->opsize = true;
			break;
		case 0x67:
			in->adsize = true;
			break;
		case 0xF0:
			in->lock = true;
			break;
		case 0xF2:
		case 0xF3:
			d.rep = b;
			break;
		default:
			goto opcode;
		}
		in->rex = 0;	/* REX counts only right before the opcode */
	}

opcode:
	in->opcode = b;
	in->pp = d.rep ? d.rep : in->opsize ? 0x66 : 0;
	in->vex_w = in->rex & 8;
	d.rx = (in->rex >> 1) & 1;
	d.rb = in->rex & 1;
	in->osize = in->vex_w ? 8 : in->opsize ? 2 : 4;

	switch (b) {
	case 0x0F:
		return decode_0f(&d, in);
	case 0xC4:
		return vex_prefix_ok(&d, in) ?
		       decode_vex3(&d, in, X86_ENC_VEX) : -EINVAL;
	case 0xC5:
		return vex_prefix_ok(&d, in) ? decode_vex2(&d, in) : -EINVAL;
	case 0x62:
		return vex_prefix_ok(&d, in) ? decode_evex(&d, in) : -EINVAL;
	case 0x8F:
		/* XOP when ModRM.reg (XOP's map field) is not 0, else pop */
		if (d.pos >= d.avail && d.pos < X86_MAX_INSN_LEN)
			return -EAGAIN;
		next_b = d.pos < d.avail ? d.buf[d.pos] : 0;
		if ((next_b >> 3) & 7)
			return vex_prefix_ok(&d, in) ?
			       decode_vex3(&d, in, X86_ENC_XOP) : -EINVAL;
		break;
	}
	in->map = X86_MAP_1BYTE;
	return decode_legacy_map(&d, in, x86_map_1byte[b]);
}

u64 x86_insn_branch_target(const struct x86_insn_info *in, u64 ip)
{
	return ip + in->len + (s64)in->rel;
}

bool x86_insn_mem_ea(const struct x86_insn_info *in, u64 ip, const u64 gpr[16],
		     u64 fs_base, u64 gs_base, u64 *ea)
{
	u8 seg = in->seg;
	u64 a;

	if (in->has_mem) {
		if (in->vsib)
			return false;
		a = (u64)in->disp;
		if (in->rip_rel)
			a += ip + in->len;
		if (in->base != X86_REG_NONE)
			a += gpr[in->base & 15];
		if (in->index != X86_REG_NONE)
			a += gpr[in->index & 15] * in->scale;
	} else if (in->implicit & X86_IMP_SRC) {
		a = gpr[X86_RSI];
	} else if (in->implicit & X86_IMP_DST) {
		a = gpr[X86_RDI];
		seg = X86_SEG_ES;	/* no override for es:[rdi] */
	} else if (in->implicit & X86_IMP_XLAT) {
		a = gpr[X86_RBX] + (gpr[X86_RAX] & 0xFF);
	} else {
		return false;
	}
	if (in->adsize)
		a = (u32)a;
	if (seg == X86_SEG_FS)
		a += fs_base;
	else if (seg == X86_SEG_GS)
		a += gs_base;
	*ea = a;
	return true;
}
