/*
 * us_deep.c - the target of make bench-ustack: main -> d1 -> ... -> d9,
 * and d9 calls getppid() N times (default 200). A kprobe on getppid sees
 * ten frames in the program (getppid's return address in libc, d9 ... d1)
 * before main. Built twice: like Debian builds (no frame pointers) for the
 * table walk, and with -fno-omit-frame-pointer for the frame-pointer walk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int calls = 200;

__attribute__((noinline)) long d9(long x)
{
	for (int i = 0; i < calls; i++)
		x += getppid();
	return x;
}

/* NAME calls INNER and uses the result: a real frame, not a tail call */
#define LINK(name, inner)					\
	__attribute__((noinline)) long name(long x)		\
	{							\
		long r = inner(x + 1);				\
		asm volatile("" ::: "memory");			\
		return r * 3;					\
	}

LINK(d8, d9)
LINK(d7, d8)
LINK(d6, d7)
LINK(d5, d6)
LINK(d4, d5)
LINK(d3, d4)
LINK(d2, d3)
LINK(d1, d2)

int main(int argc, char **argv)
{
	if (argc > 1)
		calls = atoi(argv[1]);
	printf("deep %d\n", d1(argc) != 42);
	return 0;
}
