// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - starting and stopping the engine, and the requests of
 * itrace_on()/itrace_off() (any probe context, any thread; never block).
 *
 * Stopping switches stepping off in every thread before the die notifier
 * goes: a thread whose TF outlived the notifier would die by SIGTRAP at its
 * next instruction. Threads that run, or sleep interruptibly, stop at
 * their next safe point (a TWA_SIGNAL task_work wakes the sleepers); a
 * thread stopped by a signal or a debugger has TF taken out of its saved
 * registers under its siglock, which keeps it from being resumed meanwhile.
 */

struct utap_it_tp {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

static struct utap_it_tp utap_it_tps[] = {
	{ "sys_enter", utap_it_sys_enter },
	{ "sys_exit", utap_it_sys_exit },
	{ "sched_process_fork", utap_it_fork },
	{ "sched_process_exec", utap_it_exec },
	{ "sched_process_exit", utap_it_exit },
	{ "signal_deliver", utap_it_signal },
};

static bool utap_it_die_registered;

static void utap_it_tp_find(struct tracepoint *tp, void *priv)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(utap_it_tps); i++)
		if (!strcmp(tp->name, utap_it_tps[i].name))
			utap_it_tps[i].tp = tp;
}

static void utap_it_tps_unregister(void)
{
	bool any = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(utap_it_tps); i++) {
		if (!utap_it_tps[i].tp)
			continue;
		tracepoint_probe_unregister(utap_it_tps[i].tp, utap_it_tps[i].func, NULL);
		utap_it_tps[i].tp = NULL;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

static int utap_it_tps_register(void)
{
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(utap_it_tps); i++)
		utap_it_tps[i].tp = NULL;
	for_each_kernel_tracepoint(utap_it_tp_find, NULL);
	for (i = 0; i < ARRAY_SIZE(utap_it_tps); i++) {
		struct utap_it_tp *t = &utap_it_tps[i];

		rc = t->tp ? tracepoint_probe_register(t->tp, t->func, NULL) : -ENOENT;
		if (rc) {
			utap_err("itrace: cannot attach to the %s tracepoint (rc %d)", t->name, rc);
			for (; i < ARRAY_SIZE(utap_it_tps); i++)
				utap_it_tps[i].tp = NULL;
			utap_it_tps_unregister();
			return rc;
		}
	}
	return 0;
}

/* Module load: memory for the thread and process states. */
static int utap_itrace_init(void)
{
	int i;

	utap_it_pool = vzalloc(sizeof(*utap_it_pool) * MAXITRACETHREADS);
	utap_it_procs = vzalloc(sizeof(*utap_it_procs) * MAXITRACEPROCS);
	if (!utap_it_pool || !utap_it_procs) {
		vfree(utap_it_pool);
		vfree(utap_it_procs);
		utap_it_pool = NULL;
		utap_it_procs = NULL;
		return -ENOMEM;
	}
	for (i = MAXITRACETHREADS - 1; i >= 0; i--) {
		utap_it_pool[i].next_free = utap_it_free;
		utap_it_free = &utap_it_pool[i];
	}
	for (i = 0; i < MAXITRACEPROCS; i++)
		mutex_init(&utap_it_procs[i].scan_mutex);
	return 0;
}

static void utap_itrace_exit(void)
{
	vfree(utap_it_pool);
	vfree(utap_it_procs);
	utap_it_pool = NULL;
	utap_it_procs = NULL;
	utap_it_free = NULL;
}

static void utap_it_probes_put(void)
{
	int i;

	for (i = 0; i < utap_it_cfg.nprobes; i++) {
		struct utap_insn_probe *p = &utap_it_cfg.probes[i];

		if (p->have_path)
			path_put(&p->kpath);
		p->have_path = false;
	}
}

/* The files of process("PATH") probes: matched against a process's executable. */
static int utap_it_probes_lookup(void)
{
	int i, rc;

	for (i = 0; i < utap_it_cfg.nprobes; i++) {
		struct utap_insn_probe *p = &utap_it_cfg.probes[i];

		p->have_path = false;
		if (!p->path)
			continue;
		rc = kern_path(p->path, LOOKUP_FOLLOW, &p->kpath);
		if (rc) {
			utap_err("probe %s registration error (rc %d): cannot find %s",
				 p->probe->pp, rc, p->path);
			utap_it_probes_put();
			return rc;
		}
		p->inode = d_inode(p->kpath.dentry);
		p->real_inode = d_real_inode(p->kpath.dentry);
		p->have_path = true;
	}
	return 0;
}

/* Whole-process tracing: every thread of a matching process, from attach. */
static void utap_it_attach_all(void)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		struct utap_itask *st;
		bool match = false;
		int i;

		if ((t->flags & PF_KTHREAD) || t->exit_state || t == current)
			continue;
		for (i = 0; i < utap_it_cfg.nprobes && !match; i++) {
			const struct utap_insn_probe *p = &utap_it_cfg.probes[i];

			if (p->target_tree && utap_it_cfg.target_from_exec)
				continue;	/* the -c command: from its exec on */
			match = utap_it_probe_matches(p, t);
		}
		if (!match)
			continue;
		st = utap_it_get(t, true);
		if (!st)
			continue;
		set_bit(IT_WANT_ON, &st->bits);
		utap_it_queue(st, TWA_SIGNAL);
		utap_it_put(st);
	}
	rcu_read_unlock();
}

/* Session start (probe registration): the probes of the script and its mode. */
static int utap_itrace_start(struct utap_insn_probe *probes, int n, bool whole, bool from_exec)
{
	int rc;

	if (!utap_it_pool)
		return -ENOMEM;
	utap_it_cfg.probes = probes;
	utap_it_cfg.nprobes = n;
	utap_it_cfg.whole = whole;
	utap_it_cfg.target_from_exec = from_exec;
	rc = utap_it_probes_lookup();
	if (rc)
		return rc;
	utap_it_btf_probe();
	atomic_set(&utap_it_state, UTAP_IT_RUNNING);
	rc = register_die_notifier(&utap_it_die_nb);
	if (rc) {
		utap_err("itrace: cannot register a die notifier (rc %d)", rc);
		goto fail;
	}
	utap_it_die_registered = true;
	rc = utap_it_tps_register();
	if (rc)
		goto fail;
	if (whole)
		utap_it_attach_all();
	return 0;
fail:
	atomic_set(&utap_it_state, UTAP_IT_IDLE);
	if (utap_it_die_registered)
		unregister_die_notifier(&utap_it_die_nb);
	utap_it_die_registered = false;
	utap_it_probes_put();
	return rc;
}

/* Locks t's siglock if t still has a sighand; the kernel's __lock_task_sighand is not exported. */
static struct sighand_struct *utap_it_lock_sighand(struct task_struct *t, unsigned long *flags)
{
	struct sighand_struct *sh;

	rcu_read_lock();
	for (;;) {
		sh = rcu_dereference(t->sighand);
		if (!sh)
			break;
		spin_lock_irqsave(&sh->siglock, *flags);
		if (likely(sh == rcu_access_pointer(t->sighand)))
			break;
		spin_unlock_irqrestore(&sh->siglock, *flags);
	}
	rcu_read_unlock();
	return sh;
}

/*
 * A thread stopped by a signal or a debugger runs no user code until it is
 * resumed, and its resumption takes the siglock: drop its TF there.
 */
static bool utap_it_stop_stopped(struct utap_itask *st)
{
	struct task_struct *t = st->task;
	struct sighand_struct *sh;
	unsigned long flags;
	bool done = false;

	if (test_bit(IT_WORK, &st->bits))
		return false;
	sh = utap_it_lock_sighand(t, &flags);
	if (!sh)
		return false;
	if (task_is_stopped_or_traced(t) && !test_bit(IT_WORK, &st->bits)) {
		if (test_bit(IT_ON, &st->bits) && !test_bit(IT_INT3, &st->bits) &&
		    !test_bit(IT_XOL, &st->bits)) {
			if (test_tsk_thread_flag(t, TIF_SINGLESTEP))
				set_tsk_thread_flag(t, TIF_FORCED_TF);
			else
				task_pt_regs(t)->flags &= ~X86_EFLAGS_TF;
			if (st->btf)
				clear_tsk_thread_flag(t, TIF_BLOCKSTEP);
			st->btf = false;
		}
		clear_bit(IT_ON, &st->bits);
		clear_bit(IT_WANT_ON, &st->bits);
		done = true;
	}
	spin_unlock_irqrestore(&sh->siglock, flags);
	return done;
}

static bool utap_it_all_off(void)
{
	int i;

	if (atomic_read(&utap_it_works))
		return false;
	for (i = 0; i < MAXITRACETHREADS; i++) {
		struct utap_itask *st = &utap_it_pool[i];

		if (READ_ONCE(st->task) && !test_bit(IT_DEAD, &st->bits) &&
		    (test_bit(IT_ON, &st->bits) || test_bit(IT_XOL, &st->bits) ||
		     test_bit(IT_INT3, &st->bits)))
			return false;
	}
	return true;
}

/* Asks every traced thread to stop; true when none is left stepping. */
static void utap_it_stop_all(void)
{
	unsigned long flags;
	int i;

	for (i = 0; i < MAXITRACETHREADS; i++) {
		struct utap_itask *st = &utap_it_pool[i];
		bool busy;

		raw_spin_lock_irqsave(&utap_it_lock, flags);
		busy = st->task && !test_bit(IT_DEAD, &st->bits) && refcount_inc_not_zero(&st->ref);
		raw_spin_unlock_irqrestore(&utap_it_lock, flags);
		if (!busy)
			continue;
		if ((test_bit(IT_ON, &st->bits) || test_bit(IT_WANT_ON, &st->bits)) &&
		    !utap_it_stop_stopped(st))
			utap_it_queue(st, TWA_SIGNAL);
		utap_it_put(st);
	}
}

/* Unreported late requests and dropped records of the run, as warnings. */
static void utap_it_report(void)
{
	s64 lost = atomic64_read(&utap_it_lost), gaps = atomic64_read(&utap_it_gaps);
	s64 noslot = atomic64_read(&utap_it_noslot), compat = atomic64_read(&utap_it_compat);

	if (lost)
		utap_warn("itrace: %lld traced instructions were lost: their records did not fit "
			  "in the transport buffer (try -s)", (long long)lost);
	if (gaps)
		utap_warn("itrace: %lld itrace_on() requests took effect late (the thread was "
			  "running); the instructions it ran in between were not traced",
			  (long long)gaps);
	if (noslot)
		utap_warn("itrace: %lld threads could not be traced: more than %d at once "
			  "(-D MAXITRACETHREADS=N)", (long long)noslot, MAXITRACETHREADS);
	if (compat)
		utap_warn("itrace: %lld requests to trace a 32-bit thread were ignored: "
			  "instruction tracing is for x86-64 tasks only", (long long)compat);
}

/* Session stop: no thread steps, no trap or task_work of ours is left. */
static void utap_itrace_stop(void)
{
	unsigned long waited = 0;
	int i;

	if (atomic_cmpxchg(&utap_it_state, UTAP_IT_RUNNING, UTAP_IT_STOPPING) != UTAP_IT_RUNNING)
		return;
	synchronize_rcu();	/* requests in flight see the engine stopping */
	utap_it_stop_all();
	while (!utap_it_all_off()) {
		msleep(20);
		waited += 20;
		if (waited % 5000 == 0) {
			pr_info("utap: itrace: waiting for traced threads to stop stepping\n");
			utap_it_stop_all();
		}
	}
	utap_it_tps_unregister();
	if (utap_it_die_registered)
		unregister_die_notifier(&utap_it_die_nb);
	utap_it_die_registered = false;
	/* the last instructions of a task_work that already dropped its count */
	if (READ_ONCE(utap_it_ever_queued)) {
#ifdef CONFIG_TASKS_RCU
		synchronize_rcu_tasks();
#else
		synchronize_rcu();
#endif
	}
	/* states of threads still alive: their records, then the table's references */
	for (i = 0; i < MAXITRACETHREADS; i++) {
		struct utap_itask *st = &utap_it_pool[i];

		if (!st->task || test_bit(IT_DEAD, &st->bits))
			continue;
		if (test_and_clear_bit(IT_STARTED, &st->bits))
			utap_it_out_stop(st);
		utap_it_out_end(st);
		utap_it_proc_put(st->proc);
		st->proc = NULL;
		utap_it_unhash(st);
	}
	rcu_barrier();
	utap_it_probes_put();
	utap_it_report();
	atomic_set(&utap_it_state, UTAP_IT_IDLE);
}

/* ---- requests ------------------------------------------------------------- */

/* The thread with (global) ID tid, referenced; NULL if there is none or it has no user part. */
static struct task_struct *utap_it_task(long tid)
{
	struct task_struct *t;

	if (tid <= 0 || tid > PID_MAX_LIMIT)
		return NULL;
	rcu_read_lock();
	t = pid_task(find_pid_ns((pid_t)tid, &init_pid_ns), PIDTYPE_PID);
	if (t && ((t->flags & PF_KTHREAD) || t->exit_state))
		t = NULL;
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

/*
 * itrace_on() (on) or itrace_off() for thread tid, 0 meaning the current
 * one. 1 if the request was taken, 0 if there is no such user thread or
 * tracing is not running, -ENOSPC when too many threads are traced.
 */
static int utap_itrace_request(struct utap_context *c, long tid, bool on)
{
	struct task_struct *t;
	struct utap_itask *st;
	bool self;
	int rc = 1;

	if (!utap_it_running() || in_nmi())
		return 0;
	t = tid ? utap_it_task(tid) : current;
	if (!t || (!tid && ((t->flags & PF_KTHREAD) || !t->mm)))
		goto none;
	self = t == current;
	st = utap_it_get(t, on);
	if (!st) {
		rc = on ? -ENOSPC : 1;
		goto out;
	}
	if (!on) {
		clear_bit(IT_WANT_ON, &st->bits);
		if (test_bit(IT_ON, &st->bits))
			set_bit(IT_OFF_REQ, &st->bits);
	} else if (test_bit(IT_ON, &st->bits)) {
		clear_bit(IT_OFF_REQ, &st->bits);
	} else if (!test_and_set_bit(IT_WANT_ON, &st->bits)) {
		if (self && c && c->regs && c->user_mode && c->regs == task_pt_regs(current)) {
			u8 op = 0;

			/* in a uprobe handler: the probed instruction is the first step */
			if (!copy_from_user_nofault(&op, (const void __user *)c->regs->ip, 1) &&
			    op == 0xcc) {
				st->req_ip = c->regs->ip;
				set_bit(IT_REQ_INT3, &st->bits);
			}
		}
		if (!utap_it_queue(st, self ? TWA_RESUME : TWA_SIGNAL)) {
			clear_bit(IT_WANT_ON, &st->bits);
			rc = 0;
		} else if (!self) {
			/*
			 * The task_work is queued and the thread told: if it is
			 * not on a CPU now, it runs no user instruction before
			 * the task_work. If it is, it may run some untraced.
			 */
			smp_mb();
			if (READ_ONCE(t->on_cpu)) {
				atomic_inc(&st->gaps);
				atomic64_inc(&utap_it_gaps);
			}
		}
	}
	utap_it_put(st);
out:
	if (tid && t)
		put_task_struct(t);
	return rc;
none:
	if (tid && t)
		put_task_struct(t);
	return 0;
}

/* The step (or block) of the insn handler running in c, or NULL elsewhere. */
static const struct utap_itrace_event *utap_itrace_event(struct utap_context *c)
{
	const struct utap_itrace_event *ev = this_cpu_ptr(&utap_it_event);

	return c->probe_data == ev && ev->step ? ev : NULL;
}
