/*
 * us_jit.c - code without unwind tables: a few bytes of machine code in an
 * anonymous executable mapping (as a JIT makes them) that keep a frame
 * pointer and call back into C. The walk steps over the generated frame by
 * its frame pointer and marks the frame it finds that way as inexact.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int jit_callee(void)
{
	return (int)getppid() * 0 + 7;
}

__attribute__((noinline)) int jit_run(int (*code)(int (*)(void)))
{
	int r = code(jit_callee);

	asm volatile("" ::: "memory");
	return r + 1;
}

int main(void)
{
	/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	printf("jit %d\n", jit_run((int (*)(int (*)(void)))mem));
	return 0;
}
