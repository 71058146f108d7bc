// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - entering and leaving a probe handler.
 *
 * A handler runs with preemption disabled on its CPU's context. The entry
 * checks the session state (begin probes run while starting, end probes
 * while stopping, the rest only while running) and the busy flag; the exit
 * flushes the probe's output as one record and reports a run-time error.
 */

static struct utap_context **utap_contexts;
UTAP_API atomic_t utap_state = ATOMIC_INIT(UTAP_LOADED);
static atomic_t utap_exit_requested = ATOMIC_INIT(0);
static atomic_t utap_errors = ATOMIC_INIT(0);
UTAP_API atomic_t utap_skipped = ATOMIC_INIT(0);
/* why, for -v: nested in a probe on the same CPU, or a global's lock */
static atomic_t utap_skipped_nested = ATOMIC_INIT(0);
UTAP_API atomic_t utap_skipped_lock = ATOMIC_INIT(0);
static int utap_exit_status;

/*
 * --suppress-handler-errors: a failing handler ends quietly, as if its body
 * were try { } catch { next }; its error is counted (for the end-of-run
 * warning) but neither printed nor held against MAXERRORS, and skipped
 * probes do not end the session.
 */
#ifdef UTAP_SUPPRESS_HANDLER_ERRORS
#define UTAP_SUPPRESS_ERRORS 1
#else
#define UTAP_SUPPRESS_ERRORS 0
#endif
static atomic_t utap_suppressed_errors = ATOMIC_INIT(0);

UTAP_API long utap_target = 0;
module_param_named(target, utap_target, long, 0400);
/* the runner's process, which started the session (stp_pid()) */
UTAP_API long utap_runner_pid;

UTAP_API bool utap_exit_pending(void)
{
	return atomic_read(&utap_exit_requested) != 0;
}

/* exit(): ends the session after this handler; probes stop running at once. */
UTAP_API void utap_request_exit(void)
{
	atomic_cmpxchg(&utap_state, UTAP_RUNNING, UTAP_STOPPING);
	atomic_set(&utap_exit_requested, 1);
	utap_wake_reader(true);
}

/*
 * Errors past MAXERRORS: the session ends as stap's does, no further
 * probe of any kind runs but the error probes, which take the end
 * probes' place (an end probe already running finishes).
 */
static void utap_enter_error_state(void)
{
	int st = atomic_read(&utap_state);

	utap_exit_status = 1;
	while (st == UTAP_STARTING || st == UTAP_RUNNING || st == UTAP_STOPPING) {
		int seen = atomic_cmpxchg(&utap_state, st, UTAP_ERROR);

		if (seen == st)
			break;
		st = seen;
	}
	atomic_set(&utap_exit_requested, 1);
	utap_wake_reader(true);
}

static size_t utap_context_size(void)
{
	return ALIGN(sizeof(struct utap_context), 16) + utap_gen_frames_size();
}

static int utap_contexts_alloc(void)
{
	int cpu;

	utap_contexts = kcalloc(nr_cpu_ids, sizeof(*utap_contexts), GFP_KERNEL);
	if (!utap_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		utap_contexts[cpu] = vzalloc_node(utap_context_size(), cpu_to_node(cpu));
		if (!utap_contexts[cpu])
			return -ENOMEM;
	}
	return 0;
}

static void utap_contexts_free(void)
{
	int cpu;

	if (!utap_contexts)
		return;
	for_each_possible_cpu(cpu)
		vfree(utap_contexts[cpu]);
	kfree(utap_contexts);
	utap_contexts = NULL;
}

UTAP_API struct utap_context *utap_context_enter(const struct utap_probe *p, int state)
{
	struct utap_context *c;

	preempt_disable();
	if (unlikely(atomic_read(&utap_state) != state)) {
		preempt_enable();
		return NULL;
	}
	c = utap_contexts[smp_processor_id()];
	if (unlikely(atomic_inc_return(&c->busy) != 1)) {
		atomic_dec(&c->busy);
		atomic_inc(&utap_skipped_nested);
		if (atomic_inc_return(&utap_skipped) > MAXSKIPPED && !UTAP_SUPPRESS_ERRORS &&
		    !atomic_xchg(&utap_exit_requested, 1)) {
			utap_err("Skipped too many probes, check MAXSKIPPED or try again "
				 "with stap -t for more details.");
			utap_exit_status = 1;
			utap_request_exit();
		}
		preempt_enable();
		return NULL;
	}
	c->probe = p;
	c->regs = NULL;
	c->user_mode = false;
	c->probe_data = NULL;
	c->pc_is_ra = false;
	c->ustack.valid = false;
	c->nesting = 0;
	c->actionremaining = MAXACTION;
	c->last_error = NULL;
	c->last_near = NULL;
	c->aborted = false;
	c->printlen = 0;
	c->nprints = 0;
	return c;
}

static void utap_report_error(struct utap_context *c)
{
	int n;

	if (UTAP_SUPPRESS_ERRORS) {
		atomic_inc(&utap_errors);
		atomic_inc(&utap_suppressed_errors);
		return;
	}
	/* stap 4.8's form (its generated code, and measured): no probe point */
	if (c->last_near)
		utap_err("%s near %s", c->last_error, c->last_near);
	else
		utap_err("%s", c->last_error);
	n = atomic_inc_return(&utap_errors);
	if (n > MAXERRORS)
		utap_enter_error_state();
}

UTAP_API void utap_context_leave(struct utap_context *c)
{
	utap_print_flush(c);
	if (unlikely(c->last_error) && !c->aborted)
		utap_report_error(c);
	atomic_dec(&c->busy);
	preempt_enable();
}
