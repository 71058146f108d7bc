/*
 * k_hot - a kernel function hit as fast as a task can: getpid() through
 * syscall(2) (never cached by libc) for SECONDS seconds (default 10).
 * Prints how many calls it made, for comparison with what a probe saw.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10, end = now() + seconds;
	long calls = 0;

	while (now() < end) {
		for (int i = 0; i < 100; i++)
			syscall(SYS_getpid);
		calls += 100;
	}
	printf("calls %ld\n", calls);
	return 0;
}
