// SPDX-License-Identifier: GPL-2.0
/*
 * perf.c - perf.type(T).config(C).sample(N) / .hz(F) probes (and the
 * perf.sw.*, perf.hw.* and timer.profile aliases): one kernel counter per
 * online CPU, whose overflow handler runs the probe with the interrupted
 * registers (user or kernel: user_mode() tells).
 *
 * A counter the CPU lacks (every hardware counter under QEMU TCG) fails to
 * register: an error naming the probe, or nothing for a '?' probe. CPUs
 * brought online later get no counter.
 *
 * A .counter("NAME") probe runs no handler: one counting event on the -c
 * target (created at start, while the command is held before its exec,
 * inherited by its threads and children), which @perf("NAME") reads.
 */
#ifndef UTAP_PROBES_PERF_C
#define UTAP_PROBES_PERF_C

#include <linux/perf_event.h>
#include "probes/regs.c"

struct utap_perf {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	u32 type;
	u64 config;
	u64 period;		/* events per sample, or samples per second with freq */
	bool freq;
	bool optional;
	bool counter;		/* .counter(): counts the target for @perf */
	const char *name;	/* perf.hw.instructions ..., for messages */
	struct perf_event **events;	/* per CPU, or NULL */
	struct perf_event *task_event;	/* .counter(): on the target, or NULL */
};

static void utap_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct utap_perf *p = event->overflow_handler_context;
	struct utap_context *c = utap_context_enter(p->probe, UTAP_RUNNING);

	if (!c)
		return;
	c->regs = regs;
	c->user_mode = regs && user_mode(regs);
	utap_regs_reset_syscall();
	p->handler(c);
	utap_context_leave(c);
}

static const char *utap_perf_why(long rc)
{
	switch (rc) {
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODEV:
		return "this CPU cannot count it (no PMU, or not this event)";
	case -EINVAL:
		return "invalid event attributes";
	case -EACCES:
	case -EPERM:
		return "not permitted";
	case -EBUSY:
		return "the counter is in use";
	default:
		return "registration failed";
	}
}

static void utap_perf_release(struct utap_perf *p)
{
	int cpu;

	if (p->task_event)
		perf_event_release_kernel(p->task_event);
	p->task_event = NULL;
	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

/* The counting event of a .counter() probe, on the -c target. */
static long utap_perf_count_target(struct utap_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.inherit = 1,
	};
	struct pid *pid = find_get_pid((pid_t)utap_target);
	struct task_struct *task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	struct perf_event *e;

	put_pid(pid);
	if (!task)
		return -ESRCH;
	e = perf_event_create_kernel_counter(&attr, -1, task, NULL, NULL);
	put_task_struct(task);
	if (IS_ERR(e))
		return PTR_ERR(e);
	p->task_event = e;
	return 0;
}

/* @perf("NAME"): the count so far, threads and children that ended included. */
static int utap_perf_read(struct utap_context *c, const struct utap_perf *p, s64 *v)
{
	u64 enabled, running;

	if (!p || !p->task_event) {
		snprintf(c->error_buf, MAXSTRINGLEN, "perf counter '%s' is not counting",
			 p ? p->name : "?");
		return -1;
	}
	*v = (s64)perf_event_read_value(p->task_event, &enabled, &running);
	return 0;
}

static long utap_perf_create(struct utap_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.freq = p->freq,
	};
	int cpu;

	if (p->freq)
		attr.sample_freq = p->period;
	else
		attr.sample_period = p->period;
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(&attr, cpu, NULL,
									 utap_perf_overflow, p);

		if (IS_ERR(e)) {
			utap_perf_release(p);
			return PTR_ERR(e);
		}
		p->events[cpu] = e;
	}
	return 0;
}

static int utap_perfs_register(struct utap_perf *tab, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		long rc = tab[i].counter ? utap_perf_count_target(&tab[i]) :
			  utap_perf_create(&tab[i]);

		if (!rc || tab[i].optional)
			continue;
		utap_err("probe %s registration error (rc %ld): %s: %s", tab[i].probe->pp, rc,
			 tab[i].name, utap_perf_why(rc));
		return (int)rc;
	}
	return 0;
}

/* Releasing a counter removes it from its CPU synchronously: no handler runs after. */
static void utap_perfs_unregister(struct utap_perf *tab, int n)
{
	int i;

	for (i = 0; i < n; i++)
		utap_perf_release(&tab[i]);
}

#endif /* UTAP_PROBES_PERF_C */
