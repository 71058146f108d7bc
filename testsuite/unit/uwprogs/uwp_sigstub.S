/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A signal trampoline the way musl writes it: rt_sigreturn with no CFI.
 * Never called; the table builder must recognise it by its code.
 */
	.text
	.p2align 4
	nop
	.globl	uwp_musl_restore
	.type	uwp_musl_restore, @function
uwp_musl_restore:
	movq	$15, %rax
	syscall
	.size	uwp_musl_restore, .-uwp_musl_restore
	.section .note.GNU-stack,"",@progbits
