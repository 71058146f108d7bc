/*
 * u_pretty.c - values of every kind stap's pretty-printer ($x$, $x$$,
 * $$parms$) shows differently: integers of each width and sign, chars,
 * bool, enums (one with a negative value), strings (NULL, unreadable),
 * pointers, nested and anonymous structs and unions, arrays of ints,
 * chars, structs and two dimensions, bit-fields, floating point.
 */
#include <stdbool.h>
#include <stdio.h>

enum color { RED, GREEN = 5 };
struct inner { short s; unsigned char uc; };
struct rec {
	int i;
	unsigned int u;
	long l;
	char c;
	bool b;
	enum color col;
	const char *name;
	void *ptr;
	struct inner in;
	struct inner *inp;
	int arr[3];
	char text[8];
	union { int ui; float uf; } un;
	struct { int ax, ay; };
	int (*fn)(int);
	double d;
};

struct leaf { int v; };
struct mid { struct leaf lf; struct leaf arr2[2]; int one[1]; };
struct top {
	struct mid m;
	const char *null_s;
	const char *bad_s;
	unsigned flag : 1;
	int bits : 5;
	signed char sc;
	unsigned long long ull;
	int grid[2][2];
	char **argv;
	union { int x; long y; };
	enum { NEG = -2, POS = 3 } e;
	long double ld;
	float f;
};

static int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) int show(struct rec *p, int n, const char *msg, struct inner byval)
{
	int local = n + 1;

	return p->i + local + msg[0] + byval.s;
}

__attribute__((noinline)) int show2(struct top *t, char c, unsigned char uc, signed char sc, bool b)
{
	return t->m.lf.v + c + uc + sc + b;
}

int main(int argc, char **argv)
{
	struct inner in = { -7, 200 };
	struct rec r = { -3, 4000000000u, -5000000000L, 'q', true, GREEN, "hello \"x\"\n",
			 (void *)0x1234, { 12, 34 }, &in, { 1, -2, 3 }, "abc", { .ui = 9 },
			 { .ax = 10, .ay = 11 }, twice, 2.5 };
	struct top t = { { { 5 }, { { 6 }, { 7 } }, { 8 } }, 0, (const char *)1, 1, -3, -9,
			 18446744073709551615ull, { { 1, 2 }, { 3, 4 } }, argv, { .y = 77 }, NEG,
			 1.5L, 0.5f };

	printf("%d %d\n", show(&r, 42, "msg", in), show2(&t, '\t', 255, -1, true) + argc);
	return 0;
}
