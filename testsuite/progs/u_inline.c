/*
 * u_inline.c - a function gcc inlines at every level (always_inline) into
 * two callers, and labels, for .function("F"), .inline and .label probes.
 * u_inline N sums twice(i * 40) + scale(i, 3) for i < N; twice() jumps to
 * its label big when the scaled value passes 100; main() passes again once.
 */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) long scale(long v, int k)
{
	return v * k + 1;
}

static __attribute__((noinline)) long twice(long v)
{
	long r = scale(v, 2);

	if (r > 100)
		goto big;
	return r;
big:
	return r - 100;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long sum = 0;

	for (int i = 0; i < n; i++) {
		sum += twice(i * 40);
		sum += scale(i, 3);
	}
again:
	if (sum < 0) {
		sum = -sum;
		goto again;
	}
	printf("%ld\n", sum);
	return 0;
}
