/*
 * test_softfp.c - the fp_* functions' integer binary64 arithmetic
 * (runtime/core/softfp.c) against this machine's FPU, bit for bit.
 */
#include "unit.h"
#include "core/softfp.c"

#include <math.h>

static u64 bits(double d)
{
	u64 b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

static double dbl(u64 b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/*
 * The x87's IEEE remainder: glibc's remainder() gives some zero results
 * the sign of -x, where IEEE 754 (and the FPU) gives that of x.
 */
static double fprem1(double x, double y)
{
	long double r = x;

	__asm__ volatile("1: fprem1; fnstsw %%ax; testb $4, %%ah; jnz 1b"
			 : "+t"(r) : "u"((long double)y) : "ax", "cc");
	return (double)r;
}

/* xorshift: the same sequence on every run */
static u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Operands of every kind: random bits, small integers, near-equal pairs, subnormals. */
static u64 operand(int i)
{
	static const double special[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 3.25, 1e308, -1e308,
					  4.9e-324, 2.2250738585072014e-308, 1e-310, INFINITY,
					  -INFINITY, 0.1, 1.0 / 3, 9007199254740993.0 };

	switch (i % 5) {
	case 0: return rnd();
	case 1: return bits((double)(s64)(rnd() % 2001) - 1000);
	case 2: return bits(special[rnd() % ARRAY_SIZE(special)]);
	case 3: return rnd() & 0x800fffffffffffffULL;		/* subnormal */
	default: return (rnd() & 0xbfffffffffffffffULL) | 0x3ff0000000000000ULL; /* [1, 2) and negatives */
	}
}

static int same(u64 got, u64 want)
{
	return got == want || (isnan(dbl(got)) && isnan(dbl(want)));
}

#define N 200000

TEST(arithmetic_against_fpu)
{
	int bad[6] = { 0 };

	for (int i = 0; i < N; i++) {
		u64 a = operand(i), b = operand(i / 5 + i % 3);
		volatile double x = dbl(a), y = dbl(b);

		if (i % 7 == 0)		/* neighbours: cancellation */
			b = a + (rnd() % 5) - 2, y = dbl(b);
		u64 got[6] = { utap_fp_add(a, b), utap_fp_sub(a, b), utap_fp_mul(a, b),
			       utap_fp_div(a, b), utap_fp_rem(a, b), utap_fp_sqrt(a) };
		u64 want[6] = { bits(x + y), bits(x - y), bits(x * y), bits(x / y),
				bits(fprem1(x, y)), bits(sqrt(x)) };

		for (int k = 0; k < 6; k++) {
			if (same(got[k], want[k]))
				continue;
			if (!bad[k]++)
				fprintf(stderr, "  op %d: a=%#llx b=%#llx: %#llx, want %#llx\n", k,
					(unsigned long long)a, (unsigned long long)b,
					(unsigned long long)got[k], (unsigned long long)want[k]);
		}
	}
	CHECK_INT(bad[0], 0);
	CHECK_INT(bad[1], 0);
	CHECK_INT(bad[2], 0);
	CHECK_INT(bad[3], 0);
	CHECK_INT(bad[4], 0);
	CHECK_INT(bad[5], 0);
}

TEST(comparisons_against_fpu)
{
	int bad = 0;

	for (int i = 0; i < N; i++) {
		u64 a = operand(i), b = i % 4 ? operand(i + 1) : a ^ (i % 8 ? 0 : 1ULL << 63);
		volatile double x = dbl(a), y = dbl(b);

		bad += utap_fp_eq(a, b) != (x == y);
		bad += utap_fp_lt(a, b) != (x < y);
		bad += utap_fp_le(a, b) != (x <= y);
	}
	CHECK_INT(bad, 0);
	CHECK(!utap_fp_eq(FP_DEFAULT_NAN, FP_DEFAULT_NAN));
	CHECK(utap_fp_eq(0, FP_SIGN));
}

TEST(conversions)
{
	int bad = 0;

	for (int i = 0; i < N; i++) {
		s64 v = (s64)rnd() >> (rnd() % 64);
		u32 f = (u32)rnd();
		float fl;

		bad += utap_fp_from_long(v) != bits((double)v);
		memcpy(&fl, &f, sizeof(fl));
		bad += !same(utap_fp32_to_fp64(f), bits((double)fl));
	}
	CHECK_INT(bad, 0);
	CHECK_HEX(utap_fp_from_long(INT64_MIN), 0xc3e0000000000000ULL);
	CHECK_HEX(utap_fp32_to_fp64(0x40490fdb), 0x400921fb60000000ULL);

	/* the rounding modes: nearest even, toward zero, down, up, nearest away */
	static const struct { double x; s64 want[5]; } r[] = {
		{ 2.5, { 2, 2, 2, 3, 3 } }, { -2.5, { -2, -2, -3, -2, -3 } },
		{ 3.25, { 3, 3, 3, 4, 3 } }, { -0.1, { 0, 0, -1, 0, 0 } },
		{ -3.7, { -4, -3, -4, -3, -4 } }, { 1e30, { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX } },
		{ -1e30, { INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN } },
		{ 9223372036854775807.0, { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX } },
		{ INFINITY, { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX } },
		{ -9223372036854775808.0, { INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN } },
		{ 1e-300, { 0, 0, 0, 1, 0 } }, { 7, { 7, 7, 7, 7, 7 } },
	};
	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		for (int mode = 0; mode < 5; mode++)
			CHECK_INT(utap_fp_to_long(bits(r[i].x), mode), r[i].want[mode]);
	CHECK_INT(utap_fp_to_long(FP_DEFAULT_NAN, 0), INT64_MAX);
	/* stap's NaN of an invalid operation is positive */
	CHECK_HEX(utap_fp_div(0, 0), 0x7ff8000000000000ULL);
	CHECK_HEX(utap_fp_sqrt(bits(-1.0)), 0x7ff8000000000000ULL);
}

/* the value, or 0xbad for an error */
static u64 fromstr(const char *s)
{
	u64 v;

	return utap_fp_from_string(s, &v) ? 0xbad : v;
}

TEST(from_string)
{
	static const char *const exact[] = { "3.25", "-0.1", "0.000123", "1e3", "12345678.9",
		"-7", "0.5", ".5", "1.", "3.14159", "9007199254740993", "1.0e2", "0.1e-5",
		"123456789012345678", "2.5e22", "-0", "4.9e-3" };

	for (size_t i = 0; i < ARRAY_SIZE(exact); i++) {
		u64 want = bits(strtod(exact[i], NULL)), got = 1;
		int rc = utap_fp_from_string(exact[i], &got);

		unit_check(!rc && got == want, __FILE__, __LINE__, "\"%s\" = %d %#llx, want %#llx",
			   exact[i], rc, (unsigned long long)got, (unsigned long long)want);
	}
	/* stap 4.8's answers: empty is 0, "-" is -0, a trailing "e" is ignored */
	CHECK_HEX(fromstr(""), 0);
	CHECK_HEX(fromstr("-"), 0x8000000000000000ULL);
	CHECK_HEX(fromstr("1e"), bits(1.0));
	CHECK_HEX(fromstr("+4"), bits(4.0));
	CHECK_HEX(fromstr("1.5e-2"), 0x3f8eb851eb851eb8ULL);
	CHECK_HEX(fromstr("0.01"), 0x3f847ae147ae147bULL);
	CHECK_HEX(fromstr("3.14159"), 0x400921f9f01b866eULL);
	/* and its errors */
	static const char *const invalid[] = { "abc", "2x", " 7", "1,5" };
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++)
		CHECK_INT(fromstr(invalid[i]), 0xbad);
	/* past the exact cases: within an ulp */
	CHECK(fabs(dbl(fromstr("1.7976931348623157e308")) / 1.7976931348623157e308 - 1) < 1e-15);
	CHECK(fabs(dbl(fromstr("6.02214076e-230")) / 6.02214076e-230 - 1) < 1e-15);
}

static const char *str(u64 a, int prec)
{
	static char buf[512];

	utap_fp_to_string(buf, sizeof(buf), a, prec);
	return buf;
}

TEST(to_string)
{
	CHECK_STR(str(bits(3.25), 3), "3.250");
	CHECK_STR(str(bits(2.0), 0), "2.0");
	CHECK_STR(str(bits(-0.1), 5), "-0.10000");
	CHECK_STR(str(bits(1.0 / 3), 10), "0.3333333333");
	CHECK_STR(str(bits(sqrt(2)), 8), "1.41421356");
	CHECK_STR(str(bits(0.6666666), 3), "0.667");
	CHECK_STR(str(bits(9.999), 2), "10.00");
	CHECK_STR(str(bits(-9.96), 1), "-10.0");
	CHECK_STR(str(bits(3.14159274101257324), 6), "3.141593");
	CHECK_STR(str(bits(12345678.9), 2), "12345678.90");
	CHECK_STR(str(bits(-9223372036854775808.0), 1), "-9223372036854775808.0");
	CHECK_STR(str(bits(1e20), 1), "100000000000000000000.0");
	CHECK_STR(str(bits(0.000123), 6), "0.000123");
	CHECK_STR(str(bits(-0.0), 2), "-0.00");
	CHECK_STR(str(bits(INFINITY), 2), "inf");
	CHECK_STR(str(bits(-INFINITY), 2), "-inf");
	CHECK_STR(str(FP_DEFAULT_NAN, 2), "nan");
	CHECK(strlen(str(bits(1e308), 2)) == 309 + 3);
	CHECK(!strncmp(str(bits(1e308), 2), "1000000000000000010979", 22));

	char small[6];

	utap_fp_to_string(small, sizeof(small), bits(123.456), 3);
	CHECK_STR(small, "123.4");
	utap_fp_to_string(small, sizeof(small), bits(99.96), 1);
	CHECK_STR(small, "100.0");
	utap_fp_to_string(small, sizeof(small), bits(999.96), 1);
	CHECK_STR(small, "1000.");
}

int main(void)
{
	unit_prog = "test_softfp";
	RUN(arithmetic_against_fpu);
	RUN(comparisons_against_fpu);
	RUN(conversions);
	RUN(from_string);
	RUN(to_string);
	return unit_done();
}
