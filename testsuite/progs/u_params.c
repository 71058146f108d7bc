/*
 * u_params - a target for uprobe tests: functions with known arguments,
 * a struct passed by pointer, a void function and a recursive one.
 * noipa keeps every function a real, separately callable function with
 * the standard calling convention, so probes see what the caller passed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

struct point {
	int x;
	long y;
	const char *name;
	unsigned char tag[4];
};

__attribute__((noipa)) long u_add(int a, long b)
{
	return a + b;
}

__attribute__((noipa)) int u_point(struct point *p, unsigned char flag)
{
	return p->x * 2 + flag + p->tag[2];
}

__attribute__((noipa)) const char *u_greet(const char *who, int n)
{
	return n > 0 ? who : "nobody";
}

__attribute__((noipa)) void u_void(void)
{
}

/* really recursive: the empty asm keeps gcc from turning it into a loop */
__attribute__((noipa)) int u_depth(int n)
{
	int r;

	if (n <= 0)
		return 0;
	r = u_depth(n - 1);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

int main(void)
{
	struct point pt = { 41, -2, "origin", { 1, 2, 3, 4 } };
	long r = u_add(7, -5);
	int s = u_point(&pt, 200);
	const char *g = u_greet("world", 3);

	u_void();
	/* a libc function nothing else calls, for library probes */
	printf("%ld %d %s %d %d\n", r, s, g, u_depth(3), strverscmp("u1", "u2") < 0);
	return 0;
}
