/*
 * us_prof.c - targets for sampled stacks, each a 3-deep chain under main
 * that runs for SECONDS of wall time (default 2):
 *
 *   us_prof cpu [SECONDS]    main -> s1 -> s2 -> s3: arithmetic in user mode
 *   us_prof sys [SECONDS]    main -> l1 -> l2 -> l3: getppid() in a loop
 *   us_prof vdso [SECONDS]   main -> v1 -> v2 -> v3: gettimeofday() (the vDSO)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2;

static int expired(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9 >= seconds;
}

/* NAME calls INNER and uses the result: a real frame, not a tail call */
#define LINK(name, inner)						\
	__attribute__((noinline)) unsigned long name(unsigned long x)	\
	{								\
		unsigned long r = inner(x ^ 1);				\
		asm volatile("" ::: "memory");				\
		return r + 1;						\
	}

__attribute__((noinline)) unsigned long s3(unsigned long x)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1 << 20; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	} while (!expired(&t0));
	return x;
}

__attribute__((noinline)) unsigned long l3(unsigned long x)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 256; i++)
			x += (unsigned long)getppid();
	} while (!expired(&t0));
	return x;
}

__attribute__((noinline)) unsigned long v3(unsigned long x)
{
	struct timespec t0;
	struct timeval tv;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 256; i++) {
			gettimeofday(&tv, NULL);
			x += (unsigned long)tv.tv_usec;
		}
	} while (!expired(&t0));
	return x;
}

LINK(s2, s3)
LINK(s1, s2)
LINK(l2, l3)
LINK(l1, l2)
LINK(v2, v3)
LINK(v1, v2)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "cpu";
	unsigned long r;

	if (argc > 2)
		seconds = atof(argv[2]);
	if (!strcmp(mode, "sys"))
		r = l1(argc);
	else if (!strcmp(mode, "vdso"))
		r = v1(argc);
	else
		r = s1(argc);
	printf("prof %s %d\n", mode, r != 42);
	return 0;
}
