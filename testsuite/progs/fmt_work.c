/*
 * fmt_work - a deterministic workload for the trace format tests: work(n)
 * runs the same instructions for the same n every time (no libc inside),
 * with conditional branches both ways, calls and returns.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long mix(long x)
{
	return x * 2654435761L % 1000003;
}

__attribute__((noinline)) long work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++) {
		if (i % 3 == 0)
			s += mix(i);
		else
			s ^= i;
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	printf("%ld\n", work(n));
	return 0;
}
