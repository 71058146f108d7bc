/*
 * k_spin - spins in user mode, without system calls, for SECONDS seconds
 * of its own CPU time (default 2): a target for timer.profile and perf
 * samples that must find it in user mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	volatile unsigned long x = 0;
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);

	/* clock() is a vDSO-free syscall on some systems: check it rarely */
	while (clock() < end)
		for (int i = 0; i < 10000000; i++)
			x += i;
	printf("spun %s\n", x ? "yes" : "no");
	return 0;
}
