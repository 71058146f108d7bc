/*
 * c32_syscall.h - system calls of a 32-bit (ia32) test program without a
 * C library, through int $0x80: the number in eax, the arguments in ebx,
 * ecx, edx, esi, edi and ebp.
 */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ef[2] = { e, f }, *p = ef, r;

	/* the sixth argument goes in ebp, which the compiler keeps for itself */
	asm volatile("push %%ebp\n\tmov 4(%%edi), %%ebp\n\tmov (%%edi), %%edi\n\t"
		     "int $0x80\n\tpop %%ebp"
		     : "=a"(r), "+D"(p) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return r;
}

#define sys3(nr, a, b, c) sys6(nr, a, b, c, 0, 0, 0)
#define sys5(nr, a, b, c, d, e) sys6(nr, a, b, c, d, e, 0)
