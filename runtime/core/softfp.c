// SPDX-License-Identifier: GPL-2.0
/*
 * softfp.c - IEEE 754 binary64 arithmetic on the bits of a long (pure core).
 *
 * The fp_* tapset functions keep doubles in script longs; a module may not
 * touch the FPU, so everything here is integer arithmetic: round to
 * nearest even, subnormals, infinities and NaNs (x86's default NaN) as
 * the hardware does, but for the sign of the NaN an invalid operation
 * makes, positive as in stap. A finite value is unpacked as m * 2^e.
 */
#ifndef UTAP_CORE_SOFTFP_C
#define UTAP_CORE_SOFTFP_C

#include "port.h"

typedef unsigned __int128 utap_u128;

#define FP_SIGN (1ULL << 63)
#define FP_EXP(a) ((int)(((a) >> 52) & 0x7ff))
#define FP_FRAC(a) ((a) & ((1ULL << 52) - 1))
#define FP_INF 0x7ff0000000000000ULL
#define FP_DEFAULT_NAN 0x7ff8000000000000ULL	/* stap's (SoftFloat's), not x86's */

static int fp_isnan(u64 a)
{
	return FP_EXP(a) == 0x7ff && FP_FRAC(a);
}

static int fp_isinf(u64 a)
{
	return (a & ~FP_SIGN) == FP_INF;
}

/* The quiet form of the first NaN operand. */
static u64 fp_nan2(u64 a, u64 b)
{
	return (fp_isnan(a) ? a : b) | (1ULL << 51);
}

/* |a| as m * 2^e, m with its top bit at bit 52 (subnormals normalized); 0 for zero. */
static u64 fp_unpack(u64 a, int *e)
{
	u64 m = FP_FRAC(a);
	int x = FP_EXP(a);

	if (x) {
		*e = x - 1075;
		return m | (1ULL << 52);
	}
	if (!m)
		return 0;
	*e = -1074;
	while (!(m & (1ULL << 52))) {
		m <<= 1;
		(*e)--;
	}
	return m;
}

/* m >> n, with the bits shifted out OR'ed into the lowest ("jamming"). */
static u64 fp_shift_jam(u64 m, int n)
{
	if (n <= 0)
		return m;
	if (n >= 64)
		return m != 0;
	return (m >> n) | ((m & ((1ULL << n) - 1)) != 0);
}

/* sign and m * 2^e (m != 0, its lowest bit sticky) rounded to nearest even. */
static u64 fp_round_pack(u64 sign, int e, u64 m)
{
	int x;
	u64 r, bits;

	while (!(m & FP_SIGN)) {
		m <<= 1;
		e--;
	}
	x = e + 63 + 1023;	/* the biased exponent of the top bit */
	if (x >= 0x7ff)
		return sign | FP_INF;
	if (x < 1) {
		m = fp_shift_jam(m, 1 - x);
		x = 0;
	}
	r = m & 0x7ff;
	m >>= 11;
	if (r > 0x400 || (r == 0x400 && (m & 1)))
		m++;
	/* the hidden bit (or a carry out of a subnormal) adds to the exponent */
	bits = x ? ((u64)(x - 1) << 52) + m : m;
	if (FP_EXP(bits) == 0x7ff)
		return sign | FP_INF;
	return sign | bits;
}

/* The same from 128 bits. */
static u64 fp_round_pack128(u64 sign, int e, utap_u128 m)
{
	u64 hi = (u64)(m >> 64), lo = (u64)m;

	if (!hi)
		return fp_round_pack(sign, e, lo);
	while (!(hi & FP_SIGN)) {
		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		e--;
	}
	return fp_round_pack(sign, e + 64, hi | (lo != 0));
}

static u64 utap_fp_add(u64 a, u64 b)
{
	u64 sa = a & FP_SIGN, sb = b & FP_SIGN, ma, mb, m, sign = sa;
	int ea = 0, eb = 0, e;

	if (fp_isnan(a) || fp_isnan(b))
		return fp_nan2(a, b);
	if (fp_isinf(a) || fp_isinf(b)) {
		if (fp_isinf(a) && fp_isinf(b) && sa != sb)
			return FP_DEFAULT_NAN;
		return fp_isinf(a) ? a : b;
	}
	ma = fp_unpack(a, &ea);
	mb = fp_unpack(b, &eb);
	if (!ma || !mb) {
		if (!ma && !mb)
			return sa & sb;		/* -0 only when both are */
		return ma ? a : b;
	}
	/* top bits at 62: room for a carry, 10 guard bits */
	ma <<= 10, ea -= 10;
	mb <<= 10, eb -= 10;
	e = ea > eb ? ea : eb;
	ma = fp_shift_jam(ma, e - ea);
	mb = fp_shift_jam(mb, e - eb);
	if (sa == sb) {
		m = ma + mb;
	} else if (ma >= mb) {
		m = ma - mb;
	} else {
		m = mb - ma;
		sign = sb;
	}
	if (!m)
		return 0;
	return fp_round_pack(sign, e, m);
}

static u64 utap_fp_sub(u64 a, u64 b)
{
	return utap_fp_add(a, fp_isnan(b) ? b : b ^ FP_SIGN);
}

static u64 utap_fp_mul(u64 a, u64 b)
{
	u64 sign = (a ^ b) & FP_SIGN, ma, mb;
	int ea = 0, eb = 0;

	if (fp_isnan(a) || fp_isnan(b))
		return fp_nan2(a, b);
	ma = fp_unpack(a, &ea);
	mb = fp_unpack(b, &eb);
	if (fp_isinf(a) || fp_isinf(b))
		return (fp_isinf(a) ? mb || fp_isinf(b) : ma) ? sign | FP_INF : FP_DEFAULT_NAN;
	if (!ma || !mb)
		return sign;
	return fp_round_pack128(sign, ea + eb, (utap_u128)ma * mb);
}

static u64 utap_fp_div(u64 a, u64 b)
{
	u64 sign = (a ^ b) & FP_SIGN, ma, mb, q = 0;
	int ea = 0, eb = 0, i;

	if (fp_isnan(a) || fp_isnan(b))
		return fp_nan2(a, b);
	if (fp_isinf(a))
		return fp_isinf(b) ? FP_DEFAULT_NAN : sign | FP_INF;
	if (fp_isinf(b))
		return sign;
	ma = fp_unpack(a, &ea);
	mb = fp_unpack(b, &eb);
	if (!mb)
		return ma ? sign | FP_INF : FP_DEFAULT_NAN;
	if (!ma)
		return sign;
	/* 64 quotient bits by long division (no 128-bit divide in the kernel) */
	if (ma < mb) {
		ma <<= 1;
		ea--;
	}
	for (i = 0; i < 64; i++) {
		q <<= 1;
		if (ma >= mb) {
			ma -= mb;
			q |= 1;
		}
		ma <<= 1;
	}
	return fp_round_pack(sign, ea - eb - 63, q | (ma != 0));
}

/* IEEE remainder: a - n*b, n the quotient rounded to nearest even. */
static u64 utap_fp_rem(u64 a, u64 b)
{
	u64 sign = a & FP_SIGN, ma, mb, r;
	int ea = 0, eb = 0, d, odd = 0;

	if (fp_isnan(a) || fp_isnan(b))
		return fp_nan2(a, b);
	if (fp_isinf(a) || !(b & ~FP_SIGN))
		return FP_DEFAULT_NAN;
	if (fp_isinf(b) || !(a & ~FP_SIGN))
		return a;
	ma = fp_unpack(a, &ea);
	mb = fp_unpack(b, &eb);
	d = ea - eb;
	if (d < -1)
		return a;
	if (d == -1) {	/* |a| < |b|: n is 1 only past half of b */
		if (ma <= mb)
			return a;
		return fp_round_pack(sign ^ FP_SIGN, ea, 2 * mb - ma);
	}
	r = ma;
	if (r >= mb) {
		r -= mb;
		odd = 1;
	}
	while (d-- > 0) {
		r <<= 1;
		odd = 0;
		if (r >= mb) {
			r -= mb;
			odd = 1;
		}
	}
	if (2 * r > mb || (2 * r == mb && odd)) {
		r = mb - r;
		sign ^= FP_SIGN;
	}
	if (!r)
		return a & FP_SIGN;
	return fp_round_pack(sign, eb, r);
}

static u64 utap_fp_sqrt(u64 a)
{
	utap_u128 m, r = 0, bit;
	u64 ma;
	int e = 0;

	if (fp_isnan(a))
		return a | (1ULL << 51);
	if (!(a & ~FP_SIGN))
		return a;
	if (a & FP_SIGN)
		return FP_DEFAULT_NAN;
	if (fp_isinf(a))
		return a;
	ma = fp_unpack(a, &e);
	if (e & 1) {
		ma <<= 1;
		e--;
	}
	/* ma * 2^72 has 125 or 126 bits: a 63-bit root, the rest sticky */
	m = (utap_u128)ma << 72;
	e -= 72;
	for (bit = (utap_u128)1 << 126; bit > m; bit >>= 2)
		;
	while (bit) {
		if (m >= r + bit) {
			m -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return fp_round_pack(0, e / 2, (u64)r | (m != 0));
}

/* a == b, a < b, a <= b: false when either is a NaN; -0 equals +0. */
static int utap_fp_eq(u64 a, u64 b)
{
	if (fp_isnan(a) || fp_isnan(b))
		return 0;
	return a == b || !((a | b) & ~FP_SIGN);
}

static int utap_fp_lt(u64 a, u64 b)
{
	if (fp_isnan(a) || fp_isnan(b) || !((a | b) & ~FP_SIGN))
		return 0;
	if ((a ^ b) & FP_SIGN)
		return !!(a & FP_SIGN);
	return (a & FP_SIGN) ? a > b : a < b;
}

static int utap_fp_le(u64 a, u64 b)
{
	return utap_fp_lt(a, b) || utap_fp_eq(a, b);
}

/* Rounding modes of fp_to_long(), stap's (SoftFloat's) numbers. */
enum { FP_NEAR_EVEN = 0, FP_MIN_MAG = 1, FP_MIN = 2, FP_MAX = 3, FP_NEAR_MAX_MAG = 4 };

/*
 * a rounded to an integer by mode. Out of range, the long nearest it; a
 * NaN gives the largest long, as stap's do.
 */
static s64 utap_fp_to_long(u64 a, int mode)
{
	u64 m, i, f = 0, half = 0;
	int e = 0, neg = !!(a & FP_SIGN), up = 0;

	if (fp_isnan(a))
		return (s64)(FP_SIGN - 1);
	m = fp_unpack(a, &e);
	if (!m)
		return 0;
	if (fp_isinf(a) || e >= 11)	/* |a| >= 2^63 */
		return neg ? (s64)FP_SIGN : (s64)(FP_SIGN - 1);
	if (e >= 0) {
		i = m << e;
	} else if (e > -64) {
		i = m >> -e;
		f = m & ((1ULL << -e) - 1);
		half = 1ULL << (-e - 1);
	} else {
		i = 0;
		f = 1;		/* below a half */
		half = 2;
	}
	if (f) {
		switch (mode) {
		case FP_NEAR_EVEN: up = f > half || (f == half && (i & 1)); break;
		case FP_NEAR_MAX_MAG: up = f >= half; break;
		case FP_MIN: up = neg; break;
		case FP_MAX: up = !neg; break;
		}
	}
	i += up;
	if (i > (neg ? FP_SIGN : FP_SIGN - 1))
		return neg ? (s64)FP_SIGN : (s64)(FP_SIGN - 1);
	return neg ? -(s64)(i - 1) - 1 : (s64)i;
}

static u64 utap_fp_from_long(s64 v)
{
	u64 sign = v < 0 ? FP_SIGN : 0;

	if (!v)
		return 0;
	return fp_round_pack(sign, 0, sign ? -(u64)v : (u64)v);
}

/* A binary32 value's bits widened to binary64 (exact). */
static u64 utap_fp32_to_fp64(u32 f)
{
	u64 sign = (u64)(f >> 31) << 63, m = f & 0x7fffff;
	int x = (f >> 23) & 0xff;

	if (x == 0xff)
		return sign | FP_INF | (m << 29) | (m ? 1ULL << 51 : 0);
	if (!x) {
		if (!m)
			return sign;
		return fp_round_pack(sign, -149, m);
	}
	return sign | ((u64)(x - 127 + 1023) << 52) | (m << 29);
}

/* 10^n, n <= 22: exact as doubles (5^22 < 2^53) */
static u64 fp_pow10(int n)
{
	u64 p = 1;
	int i;

	for (i = 0; i < n && i < 18; i++)
		p *= 10;
	if (n <= 18)
		return utap_fp_from_long((s64)p);
	return utap_fp_mul(utap_fp_from_long((s64)p), fp_pow10(n - 18));
}

/*
 * A decimal number ("-3.25", "1e3", ".5") into *out: up to 19 significant
 * digits, scaled by powers of ten; exact (correctly rounded) when the
 * digits fit 53 bits and the scale is at most 22, as in most scripts.
 * -1 for a character that is no digit, sign, point or exponent, as stap
 * refuses them; out of place ones end the number; no digits give 0.
 */
static int utap_fp_from_string(const char *s, u64 *out)
{
	u64 d = 0, v, sign = 0;
	int x = 0, nd = 0, ex = 0, eneg = 0;
	const char *p;

	for (p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '+' ||
		      *p == 'e' || *p == 'E'))
			return -1;
	*out = 0;

	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? FP_SIGN : 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (nd < 19) {
			d = d * 10 + (u64)(*s - '0');
			nd += d != 0;
		} else {
			x++;
		}
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (nd < 19) {
				d = d * 10 + (u64)(*s - '0');
				nd += d != 0;
				x--;
			}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++)
			if (ex < 10000)
				ex = ex * 10 + (*s - '0');
		x += eneg ? -ex : ex;
	}
	if (!d) {
		*out = sign;
		return 0;
	}
	v = fp_round_pack(0, 0, d);
	for (; x > 0 && !fp_isinf(v); x -= x > 22 ? 22 : x)
		v = utap_fp_mul(v, fp_pow10(x > 22 ? 22 : x));
	for (; x < 0 && (v & ~FP_SIGN); x += x < -22 ? 22 : -x)
		v = utap_fp_div(v, fp_pow10(x < -22 ? 22 : -x));
	*out = sign | v;
	return 0;
}


/* The decimal digits of m * 2^e (e >= 0, up to 309 of them) into out[size]: their count. */
static size_t fp_int_digits(char *out, size_t size, u64 m, int e)
{
	u32 limb[34] = { (u32)m, (u32)(m >> 32) };	/* 2^1024 fits 32 limbs */
	int n = 2, i;
	size_t nd = 0, k;

	for (; e > 0; e--) {		/* times 2, e times */
		u32 carry = 0;

		for (i = 0; i < n; i++) {
			u32 top = limb[i] >> 31;

			limb[i] = (limb[i] << 1) | carry;
			carry = top;
		}
		if (carry)
			limb[n++] = carry;
	}
	do {				/* the lowest digit first: divide by 10 */
		u64 r = 0;

		for (i = n - 1; i >= 0; i--) {
			u64 cur = (r << 32) | limb[i];

			limb[i] = (u32)(cur / 10);
			r = cur % 10;
		}
		if (nd + 1 < size)
			out[nd++] = (char)('0' + r);
		while (n > 1 && !limb[n - 1])
			n--;
	} while (n > 1 || limb[0]);
	for (k = 0; k < nd / 2; k++) {
		char t = out[k];

		out[k] = out[nd - 1 - k];
		out[nd - 1 - k] = t;
	}
	return nd;
}

/* Adds one to the last digit of the number in buf[start, len) (room for one more), carrying. */
static size_t fp_round_up(char *buf, size_t start, size_t len, size_t size)
{
	size_t i = len;

	while (i-- > start) {
		if (buf[i] == '.')
			continue;
		if (buf[i] != '9') {
			buf[i]++;
			return len;
		}
		buf[i] = '0';
	}
	if (len + 1 >= size)	/* 9.99 became 10.00: the last digit goes */
		len--;
	memmove(buf + start + 1, buf + start, len - start);
	buf[start] = '1';
	return len + 1;
}

/*
 * a in fixed point with prec digits after the point (at least one, as
 * stap prints them), rounded half up; the integer part exact; "nan",
 * "inf" and "-inf" for those. A number that does not fit out[size] is cut.
 */
static void utap_fp_to_string(char *out, size_t size, u64 a, int prec)
{
	u64 m, fp = 0;
	int e = 0, fbits = 0;
	size_t len = 0, start;
	const char *word = fp_isnan(a) ? "nan" : !fp_isinf(a) ? NULL : (a & FP_SIGN) ? "-inf" : "inf";

	if (size < 2) {
		if (size)
			out[0] = 0;
		return;
	}
	if (word) {
		for (; *word && len + 1 < size; word++)
			out[len++] = *word;
		out[len] = 0;
		return;
	}
	if (prec < 1)
		prec = 1;
	if (a & FP_SIGN)
		out[len++] = '-';
	start = len;
	m = fp_unpack(a, &e);
	if (e >= 0) {
		len += fp_int_digits(out + len, size - len, m, e);
	} else if (e > -60) {
		len += fp_int_digits(out + len, size - len, m >> -e, 0);
		fp = m & ((1ULL << -e) - 1);
		fbits = -e;
	} else {		/* below 2^-7: the fraction * 2^60, its last bits jammed */
		len += fp_int_digits(out + len, size - len, 0, 0);
		fp = fp_shift_jam(m, -e - 60);
		fbits = 60;
	}
	if (len + 1 < size)
		out[len++] = '.';
	for (; prec > 0 && len + 1 < size; prec--) {
		fp *= 10;		/* fp < 2^60: no overflow */
		out[len++] = (char)('0' + (fbits ? fp >> fbits : 0));
		if (fbits)
			fp &= (1ULL << fbits) - 1;
	}
	if (!prec && fbits && fp >= 1ULL << (fbits - 1))
		len = fp_round_up(out, start, len, size);
	out[len] = 0;
}

#endif
