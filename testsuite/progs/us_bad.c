/*
 * us_bad.c - stacks a walk cannot go through, each made around a getppid()
 * system call, in this order (a kprobe on getppid sees them one by one):
 *
 *   1. the stack pointer moved to an unmapped address (0x10000)
 *   2. the stack pointer in a PROT_NONE page
 *   3. the stack pointer at a kernel address
 *   4. the function's own return address overwritten (0xdeadbeef)
 *   5. an ordinary call, for comparison
 *
 * The walk must end at the frame it cannot step from, print nothing
 * invented, and the kernel must stay quiet. Every register the hand-written
 * functions change is restored before they return.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

long bad_sp(unsigned long new_sp);
long bad_ra(void);

/* getppid() with rsp = new_sp (the CFI still says rsp is the frame's) */
asm(".text\n"
    ".globl bad_sp\n.type bad_sp, @function\n"
    "bad_sp:\n"
    "	.cfi_startproc\n"
    "	push %r12\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %r12, -16\n"
    "	mov %rsp, %r12\n"
    "	mov %rdi, %rsp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	mov %r12, %rsp\n"
    "	pop %r12\n"
    "	.cfi_def_cfa_offset 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size bad_sp, .-bad_sp\n"

/* getppid() while the return address slot holds 0xdeadbeef (and rbp is 0) */
    ".globl bad_ra\n.type bad_ra, @function\n"
    "bad_ra:\n"
    "	.cfi_startproc\n"
    "	push %rbx\n"
    "	.cfi_def_cfa_offset 16\n"
    "	.cfi_offset %rbx, -16\n"
    "	push %rbp\n"
    "	.cfi_def_cfa_offset 24\n"
    "	.cfi_offset %rbp, -24\n"
    "	mov 16(%rsp), %rbx\n"
    "	mov $0xdeadbeef, %eax\n"
    "	mov %rax, 16(%rsp)\n"
    "	xor %ebp, %ebp\n"
    "	mov $110, %eax\n"
    "	syscall\n"
    "	mov %rbx, 16(%rsp)\n"
    "	pop %rbp\n"
    "	.cfi_def_cfa_offset 16\n"
    "	pop %rbx\n"
    "	.cfi_def_cfa_offset 8\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size bad_ra, .-bad_ra\n");

int main(void)
{
	long sum = 0;
	char *none = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (none == MAP_FAILED)
		return 1;
	sum += bad_sp(0x10000);
	sum += bad_sp((unsigned long)none + (1 << 15));
	sum += bad_sp(0xffff888000001000ul);
	sum += bad_ra();
	sum += getppid();
	printf("bad %d\n", sum != 0);
	return 0;
}
