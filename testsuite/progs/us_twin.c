/*
 * us_twin.c - two builds with the same addresses and other frames: us_twin
 * and us_twin2 (-DTWIN=2) differ only in how much stack hop() takes (one
 * immediate, the same bytes long), so every function starts at the same
 * address in both and the return address in hop() is the same pc with
 * another CFA rule. A cache of unwind rules that mixed the two files up
 * would walk one program's stack with the other's frame.
 *
 * main -> hop -> leaf -> getppid(), N times (default 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef TWIN
#define TWIN 1
#endif
#if TWIN == 1
#define HOP_FRAME "8"		/* keeps the stack 16-byte aligned at the call */
#else
#define HOP_FRAME "40"
#endif

long hop(long x);

__attribute__((noinline)) long leaf(long x)
{
	asm volatile("" ::: "memory");
	return x + getppid();
}

asm(".text\n"
    ".globl hop\n"
    ".type hop, @function\n"
    "hop:\n"
    ".cfi_startproc\n"
    "	subq $" HOP_FRAME ", %rsp\n"
    ".cfi_adjust_cfa_offset " HOP_FRAME "\n"
    "	call leaf\n"
    "	addq $" HOP_FRAME ", %rsp\n"
    ".cfi_adjust_cfa_offset -" HOP_FRAME "\n"
    "	ret\n"
    ".cfi_endproc\n"
    ".size hop, .-hop\n");

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long x = 0;

	for (int i = 0; i < n; i++)
		x += hop(i);
	printf("twin %d %d\n", TWIN, x != 0);
	return 0;
}
