#!/bin/sh
# fmtprog.sh - assemble the trace format tests' program in the current
# directory: ./fmt (non-PIE, no build-id, text at 0x401000, exits with 6)
# and its "source" ./fmt.c (the line numbers of the .loc directives).
# The same program as testsuite/unit/test_fmt_lib.c builds; fmtsteps.h
# holds its 18 steps from _start to the exit syscall.
set -e
dir=$(pwd)
cat > fmt.s <<ASM
	.file 1 "$dir/fmt.c"
	.text
	.globl loop
	.type loop, @function
loop:
	.loc 1 3
	xor %eax, %eax
	.loc 1 4
1:	add %rdi, %rax
	.loc 1 5
	dec %rdi
	jnz 1b
	.loc 1 6
	ret
	.size loop, .-loop
	.globl _start
	.type _start, @function
_start:
	.loc 1 9
	mov \$3, %edi
	call loop
	.loc 1 10
	test %rax, %rax
	je 2f
	.loc 1 11
	mov %rax, %rdi
	.loc 1 12
2:	mov \$60, %eax
	syscall
	.size _start, .-_start
ASM
cat > fmt.c <<'SRC'
/* the test program's "source": line numbers match fmt.s */

long loop(long n) {
	long s = 0; do s += n;
	while (--n);
	return s; }

void _start(void) {
	long r = loop(3);
	if (r)
		exit_with(r);
	exit_with(0); }
SRC
as --64 -o fmt.o fmt.s
ld --build-id=none -o fmt fmt.o
