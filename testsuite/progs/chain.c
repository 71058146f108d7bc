/*
 * chain.c - main -> a -> b -> c, each a real frame (noinline, no tail
 * calls), built -O2 -g without frame pointers like Debian packages. c()
 * makes a read() and a getppid() so both uprobes and kernel probes see the
 * whole chain. Each function returns a value the caller uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) int c(int x)
{
	char buf[8];
	int n = (int)read(-1, buf, sizeof(buf));	/* fails with EBADF: a syscall in c() */

	return x + n + (int)getppid() * 0 + 1;
}

__attribute__((noinline)) int b(int x)
{
	int r = c(x * 2);

	asm volatile("" ::: "memory");
	return r + 1;
}

__attribute__((noinline)) int a(int x)
{
	int r = b(x + 3);

	asm volatile("" ::: "memory");
	return r * 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, total = 0;

	for (int i = 0; i < n; i++)
		total += a(i);
	printf("chain %d\n", total);
	return 0;
}
