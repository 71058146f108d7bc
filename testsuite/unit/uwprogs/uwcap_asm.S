/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwcap_snapshot: store all general registers in DWARF order, as the
 * caller sees them right after this call returns, then hand them to
 * uwcap_write(tag, regs). Carries CFI so backtrace() can pass through.
 */
	.text
	.globl	uwcap_snapshot
	.type	uwcap_snapshot, @function
uwcap_snapshot:
	.cfi_startproc
	subq	$152, %rsp
	.cfi_def_cfa_offset 160
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movq	%rcx, 16(%rsp)
	movq	%rbx, 24(%rsp)
	movq	%rsi, 32(%rsp)
	movq	%rdi, 40(%rsp)
	movq	%rbp, 48(%rsp)
	leaq	160(%rsp), %rax		/* rsp once we have returned */
	movq	%rax, 56(%rsp)
	movq	%r8, 64(%rsp)
	movq	%r9, 72(%rsp)
	movq	%r10, 80(%rsp)
	movq	%r11, 88(%rsp)
	movq	%r12, 96(%rsp)
	movq	%r13, 104(%rsp)
	movq	%r14, 112(%rsp)
	movq	%r15, 120(%rsp)
	movq	152(%rsp), %rax		/* our return address = the pc */
	movq	%rax, 128(%rsp)
	movq	%rsp, %rsi
	call	uwcap_write@PLT
	addq	$152, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	uwcap_snapshot, .-uwcap_snapshot
	.section .note.GNU-stack,"",@progbits
