// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - the safe points: the die notifier (#DB, int3), the syscall,
 * fork, exec, exit and signal tracepoints, and the task_work. Each runs in
 * the traced thread's own context and is the only place its tracker, its
 * output buffer and its TF change.
 */

static const u8 utap_it_int3_byte = 0xcc;

/* Gives up TF. A debugger stepping the thread keeps it, as its own. */
static void utap_it_release_tf(struct pt_regs *regs)
{
	if (utap_it_xol_active())
		return;		/* uprobes' out-of-line step owns TF now */
	if (test_thread_flag(TIF_SINGLESTEP)) {
		/* ptrace set TF too: let it clear TF when it stops stepping */
		set_thread_flag(TIF_FORCED_TF);
		return;
	}
	regs->flags &= ~X86_EFLAGS_TF;
}

/* Tracing of current stops (it is at a safe point; regs: its user registers). */
static void utap_it_stop(struct utap_itask *st, struct pt_regs *regs, u64 next, u16 flags)
{
	st->regs = regs;
	if (st->btf) {
		/* the open block's end is not known: it is dropped */
		st->btf = false;
		utap_block_reset(&st->blk);
		utap_it_btf_set(false);
	}
	if (test_bit(IT_ON, &st->bits)) {
		utap_trk_stop(&st->trk, next, flags);
		utap_it_block_flush(st);
		utap_it_release_tf(regs);
	}
	clear_bit(IT_ON, &st->bits);
	clear_bit(IT_OFF_REQ, &st->bits);
	clear_bit(IT_WANT_ON, &st->bits);
	clear_bit(IT_INT3, &st->bits);
	clear_bit(IT_XOL, &st->bits);
	clear_bit(IT_SIG, &st->bits);
	clear_bit(IT_REQ_INT3, &st->bits);
	clear_bit(IT_MAPSCAN, &st->bits);
	clear_bit(IT_TRACER, &st->bits);
	if (test_and_clear_bit(IT_STARTED, &st->bits))
		utap_it_out_stop(st);
	else
		utap_it_out_flush(st);
}

static bool utap_it_should_stop(struct utap_itask *st)
{
	return test_bit(IT_OFF_REQ, &st->bits) || !utap_it_running();
}

/* Keeps the thread stepping from here (by blocks, where that serves). */
static void utap_it_arm(struct utap_itask *st, struct pt_regs *regs)
{
	regs->flags |= X86_EFLAGS_TF;
	if (!st->btf && utap_it_btf_ok(st)) {
		st->btf = true;
		st->bstart = st->trk.pend.ip;
		utap_block_reset(&st->blk);
	}
	if (st->btf)
		utap_it_btf_set(true);
	else
		utap_it_pend_ea(st, regs);
}

/* Tracing of current starts at its user registers regs. */
static bool utap_it_begin(struct utap_itask *st, struct pt_regs *regs)
{
	u8 b[UTAP_INSN_BYTES];
	size_t n;

	clear_bit(IT_WANT_ON, &st->bits);
	if (test_thread_flag(TIF_ADDR32)) {	/* exec'ed a 32-bit program */
		atomic64_inc(&utap_it_compat);
		return false;
	}
	if (!st->proc)
		st->proc = utap_it_proc_get(current->tgid);
	if (!st->proc) {
		atomic64_inc(&utap_it_noslot);
		return false;
	}
	/* pairs with the release in utap_it_match_proc(): the masks are set */
	if (!smp_load_acquire(&st->proc->matched))
		utap_it_match_proc(st->proc);
	st->tid = current->pid;
	st->pid = current->tgid;
	st->regs = regs;
	utap_trk_init(&st->trk, utap_it_emit, st);
	utap_block_reset(&st->blk);
	st->map_lo = st->map_hi = 0;
	st->btf = st->btf_off = false;
	set_bit(IT_STARTED, &st->bits);
	utap_it_out_start(st);
	if (test_and_clear_bit(IT_REQ_INT3, &st->bits)) {
		/* itrace_on() in the uprobe at req_ip: that instruction runs first */
		utap_trk_start(&st->trk, st->req_ip, &utap_it_int3_byte, 1);
		utap_trk_int3(&st->trk, st->req_ip);
		set_bit(IT_INT3, &st->bits);
	} else {
		n = utap_it_fetch_task(regs->ip, b);
		utap_trk_start(&st->trk, regs->ip, b, n);
	}
	set_bit(IT_ON, &st->bits);
	if (st->okind == UTAP_IT_OUT_RECORDS)
		set_bit(IT_MAPSCAN, &st->bits);
	return true;
}

/*
 * What ran at the int3 the thread hit, now that uprobes is done with it.
 * False while uprobes still has to step the instruction out of line.
 */
static bool utap_it_int3_done(struct utap_itask *st, struct pt_regs *regs, bool off)
{
	u64 at = st->trk.int3_ip, cur = regs->ip;
	u8 b[UTAP_INSN_BYTES], orig[UTAP_INSN_BYTES];
	enum utap_int3_how how;
	size_t n = 0, no = 0;

	if (!off && utap_it_xol_active()) {
		no = utap_it_orig_bytes(at, orig);
		utap_trk_int3_resolve(&st->trk, UTAP_INT3_XOL, cur, orig, no, NULL, 0);
		clear_bit(IT_INT3, &st->bits);
		set_bit(IT_XOL, &st->bits);
		return false;
	}
	if (utap_it_in_uprobes_area(at)) {
		how = UTAP_INT3_TRAMPOLINE;
	} else if (off || cur == at) {
		/* itrace_off() in the uprobe: its instruction is not part of the trace */
		how = UTAP_INT3_NOT_RUN;
		no = utap_it_orig_bytes(at, orig);
	} else if (cur == at + 1 && utap_it_int3_sigtrap_pending()) {
		/* a tracer sees the SIGTRAP first, and may take the int3 for its breakpoint */
		how = current->ptrace ? UTAP_INT3_TRACED : UTAP_INT3_REAL;
	} else {
		how = UTAP_INT3_EMULATED;
		no = utap_it_orig_bytes(at, orig);
	}
	if (how != UTAP_INT3_NOT_RUN)
		n = utap_it_fetch_task(cur, b);
	clear_bit(IT_INT3, &st->bits);
	utap_trk_int3_resolve(&st->trk, how, cur, orig, no, b, n);
	return true;
}

/* A tracer had the thread stopped: it resumes at regs->ip, over code the tracer may have written. */
static void utap_it_tracer_resume(struct utap_itask *st, struct pt_regs *regs)
{
	u8 b[UTAP_INSN_BYTES];

	if (st->btf) {
		utap_it_btf_leave(st, 0, regs->ip);	/* the open block's end is not known */
		return;
	}
	utap_trk_resume(&st->trk, regs->ip, b, utap_it_fetch_task(regs->ip, b));
	if (st->okind == UTAP_IT_OUT_RECORDS && !utap_it_ip_known(st, regs->ip))
		set_bit(IT_MAPSCAN, &st->bits);
}

/* The task_work: the safe point on the thread's way back to user mode. */
static void utap_it_task_point(struct utap_itask *st)
{
	struct pt_regs *regs = task_pt_regs(current);
	u8 b[UTAP_INSN_BYTES];
	size_t n;

	st->regs = regs;
	if (utap_it_should_stop(st)) {
		if (test_bit(IT_ON, &st->bits) && test_bit(IT_INT3, &st->bits))
			utap_it_int3_done(st, regs, true);
		utap_it_stop(st, regs, regs->ip, 0);
		return;
	}
	if (utap_it_xol_active()) {
		/*
		 * uprobes steps an instruction out of line: TF is its own until
		 * its post-step. Come back after it (the #DB of its step queues
		 * this work again); a pending int3 is that instruction.
		 */
		if (test_bit(IT_ON, &st->bits) && test_bit(IT_INT3, &st->bits))
			utap_it_int3_done(st, regs, false);
		set_bit(IT_XOL, &st->bits);
		return;
	}
	if (test_and_clear_bit(IT_XOL, &st->bits) && test_bit(IT_ON, &st->bits)) {
		n = utap_it_fetch_task(regs->ip, b);
		utap_trk_xol_done(&st->trk, regs->ip, b, n);
	}
	if (test_bit(IT_WANT_ON, &st->bits) && !test_bit(IT_ON, &st->bits) &&
	    !utap_it_begin(st, regs))
		return;
	if (!test_bit(IT_ON, &st->bits))
		return;
	if (test_bit(IT_INT3, &st->bits)) {
		utap_it_int3_done(st, regs, false);
		if (test_bit(IT_XOL, &st->bits))
			return;		/* TF stays clear for uprobes' step */
	}
	if (test_and_clear_bit(IT_SIG, &st->bits)) {
		if (st->btf)
			utap_it_btf_leave(st, 0, regs->ip);
		n = utap_it_fetch_task(regs->ip, b);
		utap_trk_signal(&st->trk, regs->ip, b, n);
	}
	if (test_and_clear_bit(IT_TRACER, &st->bits))
		utap_it_tracer_resume(st, regs);
	if (test_and_clear_bit(IT_MAPSCAN, &st->bits))
		utap_it_scan_maps(st);
	if (utap_it_should_stop(st)) {
		utap_it_stop(st, regs, regs->ip, 0);
		return;
	}
	utap_it_arm(st, regs);
}

static void utap_it_work_fn(struct callback_head *cb)
{
	struct utap_itask *st = container_of(cb, struct utap_itask, work);

	clear_bit(IT_WORK, &st->bits);
	/* a request after this point queues the work again; we see its bits */
	smp_mb__after_atomic();
	if (current == st->task && current->mm && !(current->flags & PF_EXITING) &&
	    !test_bit(IT_DEAD, &st->bits))
		utap_it_task_point(st);
	utap_it_put(st);
	/*
	 * The unloader waits for this count, then for an RCU-tasks grace period
	 * that covers the few instructions left until this function returns.
	 */
	atomic_dec(&utap_it_works);
}

/* ---- the die notifier ----------------------------------------------------- */

/* A #DB from user mode. dr6p: the exception's dr6 value (6.1 passes its address). */
static int utap_it_debug(struct pt_regs *regs, unsigned long *dr6p)
{
	struct utap_itask *st = utap_it_find(current);
	u8 b[UTAP_INSN_BYTES];
	bool ptrace_step;
	size_t n;

	if (!st || !(*dr6p & DR_STEP))
		return NOTIFY_DONE;
	if (utap_it_xol_step()) {
		/* uprobes' own step out of line: its notifier takes it; go on after */
		if (test_bit(IT_XOL, &st->bits))
			utap_it_queue(st, TWA_RESUME);
		return NOTIFY_DONE;
	}
	if (!test_bit(IT_ON, &st->bits) || test_bit(IT_INT3, &st->bits) ||
	    test_bit(IT_XOL, &st->bits))
		return NOTIFY_DONE;	/* not our step */
	ptrace_step = test_thread_flag(TIF_SINGLESTEP);
	st->regs = regs;
	if (st->btf) {
		utap_it_btf_trap(st, regs);
		atomic64_inc(&utap_it_steps);
		if (utap_it_should_stop(st))
			utap_it_stop(st, regs, regs->ip, 0);
		else
			utap_it_arm(st, regs);
		goto consumed;
	}
	if (st->trk.have_pend && !st->trk.pend.len) {
		/* its page was not present before it ran; it is now */
		n = utap_it_fetch(st->trk.pend.ip, b);
		if (n)
			utap_insn_set(&st->trk.pend, st->trk.pend.ip, b, n);
	}
	n = utap_it_fetch(regs->ip, b);
	utap_trk_trap(&st->trk, regs->ip, b, n);
	atomic64_inc(&utap_it_steps);
	if (utap_it_should_stop(st)) {
		utap_it_stop(st, regs, regs->ip, 0);
	} else {
		utap_it_arm(st, regs);
		if (st->okind == UTAP_IT_OUT_RECORDS && !utap_it_ip_known(st, regs->ip)) {
			set_bit(IT_MAPSCAN, &st->bits);
			utap_it_queue(st, TWA_RESUME);
		}
	}
consumed:
	if (ptrace_step)
		return NOTIFY_DONE;	/* the debugger asked for this step too */
	*dr6p &= ~DR_STEP;
	utap_it_clear_dr6_step();
	if ((*dr6p | utap_it_virtual_dr6()) & DR_TRAP_BITS)
		return NOTIFY_DONE;	/* a hardware breakpoint fired as well */
	return NOTIFY_STOP;
}

/*
 * An int3 from user mode while the thread steps: a uprobe (inside the
 * traced range, or the one that stops tracing), the uretprobe trampoline,
 * or the program's or a debugger's breakpoint. TF must be clear before
 * uprobes looks at the registers, or it sends SIGTRAP. What ran there is
 * settled by the task_work, after uprobes.
 */
static int utap_it_int3(struct pt_regs *regs)
{
	struct utap_itask *st = utap_it_find(current);

	if (!st || !test_bit(IT_ON, &st->bits) || !(regs->flags & X86_EFLAGS_TF) ||
	    test_bit(IT_INT3, &st->bits) || test_bit(IT_XOL, &st->bits))
		return NOTIFY_DONE;
	/*
	 * A debugger stepping the thread keeps its TF: uprobes then reports
	 * the probed instruction to it with a SIGTRAP, as without us.
	 */
	if (!test_thread_flag(TIF_SINGLESTEP))
		regs->flags &= ~X86_EFLAGS_TF;
	st->regs = regs;
	if (st->btf)
		utap_it_btf_leave(st, regs->ip - 1, regs->ip - 1);
	utap_trk_int3(&st->trk, regs->ip - 1);
	set_bit(IT_INT3, &st->bits);
	utap_it_queue(st, TWA_RESUME);
	return NOTIFY_DONE;
}

static int utap_it_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;

	if (!args->regs || !user_mode(args->regs))
		return NOTIFY_DONE;
	if (val == DIE_DEBUG)
		return utap_it_debug(args->regs, (unsigned long *)args->err);
	if (val == DIE_INT3)
		return utap_it_int3(args->regs);
	return NOTIFY_DONE;
}

/* Before uprobes' notifier (INT_MAX - 1). */
static struct notifier_block utap_it_die_nb = {
	.notifier_call = utap_it_die,
	.priority = INT_MAX,
};

/* ---- tracepoints ------------------------------------------------------------ */

/*
 * A ptrace call (of the tracer, in its context) naming a traced thread: the
 * thread's task_work runs when the tracer lets it go, and reads again where
 * it is and the code there. Requests come only while the thread is
 * stopped, except those that stop it, after which more requests follow.
 */
static void utap_it_ptrace_call(const struct pt_regs *regs)
{
	struct utap_itask *st = NULL;
	struct task_struct *t;

	if (regs->di == PTRACE_TRACEME || in_compat_syscall())
		return;
	rcu_read_lock();
	t = pid_task(find_vpid((pid_t)regs->si), PIDTYPE_PID);
	if (t)
		st = utap_it_get(t, false);
	rcu_read_unlock();
	if (!st)
		return;
	if (test_bit(IT_ON, &st->bits)) {
		set_bit(IT_TRACER, &st->bits);
		utap_it_queue(st, TWA_RESUME);
	}
	utap_it_put(st);
}

/* A syscall instruction ran with TF set: SYSCALL masked TF, no trap follows it. */
static void utap_it_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct utap_itask *st;
	u8 b[UTAP_INSN_BYTES];
	size_t n;

	if (id == __NR_ptrace)
		utap_it_ptrace_call(regs);
	st = utap_it_find(current);
	if (!st || !test_bit(IT_ON, &st->bits) || !user_mode(regs) ||
	    !(regs->flags & X86_EFLAGS_TF) || test_bit(IT_INT3, &st->bits) ||
	    test_bit(IT_XOL, &st->bits) || st->btf)
		return;
	st->regs = regs;
	n = utap_it_fetch(regs->ip - 2, b);
	utap_trk_sys_enter(&st->trk, regs->ip - 2, b, n);
	utap_it_out_flush(st);	/* the thread may sleep in the syscall */
}

static bool utap_it_may_restart(long ret)
{
	return ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
	       ret == -ERESTART_RESTARTBLOCK;
}

/* The thread returns to user mode at regs->ip: its next instruction. */
static void utap_it_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct utap_itask *st = utap_it_find(current);
	u8 b[UTAP_INSN_BYTES];
	size_t n;

	if (!st || !test_bit(IT_ON, &st->bits) || test_bit(IT_INT3, &st->bits) ||
	    test_bit(IT_XOL, &st->bits))
		return;
	st->regs = regs;
	if (!st->btf) {
		n = utap_it_fetch(regs->ip, b);
		utap_trk_sys_exit(&st->trk, regs->ip, b, n, utap_it_may_restart(ret));
	}
	if (utap_it_should_stop(st)) {
		utap_it_stop(st, regs, regs->ip, 0);
		return;
	}
	/* sigreturn or a debugger may have cleared it: keep stepping */
	utap_it_arm(st, regs);
}

/*
 * A new thread or process. Its user registers are a copy of the parent's,
 * TF included. It is traced if whole-process tracing covers it; otherwise
 * it runs untraced, whatever the parent does.
 */
static void utap_it_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct utap_itask *pst = utap_it_find(parent), *cst;
	bool tf_ours = pst && test_bit(IT_ON, &pst->bits);

	if (tf_ours) {
		task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
		clear_tsk_thread_flag(child, TIF_BLOCKSTEP);
	}
	if (!utap_it_cfg.whole || !utap_it_running() || !utap_it_matches_any(child))
		return;
	cst = utap_it_get(child, true);
	if (!cst)
		return;
	set_bit(IT_WANT_ON, &cst->bits);
	utap_it_queue(cst, TWA_RESUME);	/* runs before its first user instruction */
	utap_it_put(cst);
}

/* The thread runs a new program: the old image's trace ends here. */
static void utap_it_exec(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct utap_itask *st = utap_it_find(current);
	struct utap_iproc *pr;

	if (st) {
		utap_it_stop(st, regs, regs->ip, UTAP_STEP_EXCEPTION);
		pr = st->proc;
		st->proc = NULL;
		if (pr) {
			/* the other threads are gone: the process starts afresh */
			pr->matched = false;
			utap_it_proc_put(pr);
		}
		st->tid = current->pid;
	}
	clear_thread_flag(TIF_BLOCKSTEP);
	if (!utap_it_cfg.whole || !utap_it_running() || !utap_it_matches_any(current))
		return;
	st = utap_it_get(current, true);
	if (!st)
		return;
	if (st->proc) {
		utap_it_proc_put(st->proc);
		st->proc = NULL;
	}
	set_bit(IT_WANT_ON, &st->bits);
	utap_it_queue(st, TWA_RESUME);
	utap_it_put(st);
}

static void utap_it_exit(void *data, struct task_struct *p)
{
	struct utap_itask *st = utap_it_find(current);

	if (!st)
		return;
	utap_it_stop(st, task_pt_regs(current), 0, 0);
	utap_it_out_end(st);
	utap_it_proc_put(st->proc);
	st->proc = NULL;
	utap_it_unhash(st);
}

/*
 * A handler frame is being set up (delivery clears TF in the registers
 * the handler starts with): trace the handler from its first instruction.
 * The task_work queued here runs after the frame is set up.
 */
static void utap_it_signal(void *data, int sig, struct kernel_siginfo *info,
			   struct k_sigaction *ka)
{
	struct utap_itask *st = utap_it_find(current);

	if (!st || !test_bit(IT_ON, &st->bits) || !ka ||
	    ka->sa.sa_handler == SIG_DFL || ka->sa.sa_handler == SIG_IGN)
		return;
	set_bit(IT_SIG, &st->bits);
	utap_it_queue(st, TWA_RESUME);
}
