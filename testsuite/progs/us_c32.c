/*
 * us_c32.c - a 32-bit (compat) task: getppid() through int $0x80, three
 * times. Built -m32 without a C library (no multilib needed), so it has its
 * own _start. User backtraces of a 32-bit task are not supported: they
 * must say so, not print 64-bit guesses.
 */
static long sys0(long nr)
{
	long r;

	asm volatile("int $0x80" : "=a"(r) : "a"(nr) : "memory");
	return r;
}

__attribute__((noinline)) long c32_leaf(void)
{
	return sys0(64);	/* getppid on i386 */
}

void _start(void)
{
	for (int i = 0; i < 3; i++)
		c32_leaf();
	asm volatile("int $0x80" : : "a"(1), "b"(0));	/* exit(0) */
	for (;;)
		;
}
