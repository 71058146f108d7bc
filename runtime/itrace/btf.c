// SPDX-License-Identifier: GPL-2.0
/*
 * btf.c - does the CPU step by branches? With DEBUGCTL.BTF and TF set, a
 * CPU that honours BTF traps only after taken branches (ptrace's
 * PTRACE_SINGLEBLOCK). QEMU's TCG ignores the bit (it reads back 0), and
 * KVM on Intel drops it for guests, so it is probed on every CPU when a
 * run starts: written, read back, restored.
 *
 * Where it works, a thread whose only consumers are .insn.block handlers
 * (no .insn handler, no trace output) is block-stepped: each trap ends a
 * block, found by decoding forward from the block's start to the taken
 * branch (utap_block_walk). Anything irregular (an int3, a signal, a
 * debugger stepping the thread, code that does not decode) goes back to
 * single steps, which see everything; the next safe point may switch again.
 */

static int utap_it_btf;		/* every CPU kept BTF */

static void utap_it_btf_probe_cpu(void *info)
{
	atomic_t *refused = info;
	u64 old, v;

	if (rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &old)) {
		atomic_inc(refused);
		return;
	}
	if (wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, old | DEBUGCTLMSR_BTF) ||
	    rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &v) || !(v & DEBUGCTLMSR_BTF))
		atomic_inc(refused);
	wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, old);
}

static void utap_it_btf_probe(void)
{
	atomic_t refused = ATOMIC_INIT(0);

	on_each_cpu(utap_it_btf_probe_cpu, &refused, 1);
	utap_it_btf = !atomic_read(&refused);
}

static size_t utap_it_code(void *arg, u64 addr, u8 *buf)
{
	return utap_it_fetch(addr, buf);
}

/* current's TIF_BLOCKSTEP and this CPU's DEBUGCTL.BTF, kept in step as the kernel does. */
static void utap_it_btf_set(bool on)
{
	unsigned long flags, dc;

	local_irq_save(flags);
	if (on)
		set_thread_flag(TIF_BLOCKSTEP);
	else
		clear_thread_flag(TIF_BLOCKSTEP);
	dc = get_debugctlmsr();
	update_debugctlmsr(on ? dc | DEBUGCTLMSR_BTF : dc & ~DEBUGCTLMSR_BTF);
	local_irq_restore(flags);
}

/* Block-stepping serves the thread now (its tracker holds nothing back). */
static bool utap_it_btf_ok(const struct utap_itask *st)
{
	const struct utap_iproc *pr = st->proc;
	const struct utap_tracker *t = &st->trk;

	return utap_it_btf && !st->btf_off && pr && !pr->insn_mask && pr->block_mask &&
	       st->okind == UTAP_IT_OUT_NONE &&
	       !test_thread_flag(TIF_SINGLESTEP) && t->have_pend && !t->have_held &&
	       !t->in_int3 && !t->in_xol && !t->in_syscall;
}

/*
 * Back to single steps. The open block ends before until (the thread got
 * there without a branch), or is dropped (until 0). The tracker restarts
 * at ip.
 */
static void utap_it_btf_leave(struct utap_itask *st, u64 until, u64 ip)
{
	struct utap_trace_step last;
	u8 b[UTAP_INSN_BYTES];

	if (until && st->proc && st->proc->block_mask &&
	    utap_block_walk(st->bstart, 0, until, utap_it_code, NULL, UTAP_IT_WALK_MAX,
			    &st->blk, &last))
		utap_it_block_done(st, &last);
	utap_block_reset(&st->blk);
	st->btf = false;
	utap_it_btf_set(false);
	utap_trk_start(&st->trk, ip, b, utap_it_fetch(ip, b));
}

/* A block-step trap at regs->ip: the block since bstart ended with a taken branch. */
static void utap_it_btf_trap(struct utap_itask *st, struct pt_regs *regs)
{
	struct utap_trace_step last;

	if (test_thread_flag(TIF_SINGLESTEP)) {
		/* a debugger's single step: one instruction since the last trap */
		utap_it_btf_leave(st, regs->ip, regs->ip);
		return;
	}
	if (!utap_block_walk(st->bstart, regs->ip, 0, utap_it_code, NULL, UTAP_IT_WALK_MAX,
			     &st->blk, &last)) {
		utap_it_btf_leave(st, 0, regs->ip);
		st->btf_off = true;
		return;
	}
	last.tid = st->tid;
	utap_it_block_done(st, &last);
	st->bstart = regs->ip;
}
