/*
 * chain.c - a small target for the symbol and line table tests: a call
 * chain main -> a -> b -> c (as in SystemTap's observed backtraces), data
 * objects, a static function, an alias pair, an IFUNC (which SystemTap
 * drops) and a function whose name starts with '.'.
 */
#include <stdio.h>
#include <stdlib.h>

int counter;				/* STT_OBJECT in .bss */
static int table[64] = { 1 };		/* local STT_OBJECT in .data */

__attribute__((noinline)) int c(int x)
{
	int i, sum = 0;

	for (i = 0; i < 64; i++)
		sum += table[i] * (x + i);
	counter += sum;
	return sum & 0xff;
}

__attribute__((noinline)) int b(int x)
{
	return c(x) + 1;
}

__attribute__((noinline)) int a(int x)
{
	return b(x) + 1;
}

static __attribute__((noinline)) int local_helper(int x)
{
	counter ^= x;
	return counter;
}

int alias_target(int x)
{
	return local_helper(x) + 2;
}

int alias_name(int x) __attribute__((alias("alias_target")));

static int impl_one(void)
{
	return 1;
}

static int (*resolve_pick(void))(void)
{
	return impl_one;
}

int picked(void) __attribute__((ifunc("resolve_pick")));

/* A function named ".dotted", printed without its dot. */
__asm__(".text\n"
	".globl .dotted\n"
	".type .dotted, @function\n"
	".dotted:\n"
	"\tret\n"
	".size .dotted, 1\n");

int main(int argc, char **argv)
{
	int r = a(argc) + alias_name(argc) + picked();

	if (argc > 5)
		printf("%d %s\n", r, argv[0]);
	return r == 12345 ? EXIT_FAILURE : EXIT_SUCCESS;
}
