// SPDX-License-Identifier: GPL-2.0
/*
 * timer.c - timer.s/ms/us/ns/hz(N) probes on hrtimers and timer.jiffies(N)
 * on timer_list timers, each with an optional randomize(M): every period is
 * N plus a uniformly random value in [-M, M].
 *
 * As in stap, each probe is one timer (not one per CPU), and its handler
 * has no registers. A timer re-arms itself only while it is armed; to stop
 * it, it is disarmed and then cancelled synchronously, which also waits for
 * a handler already running on another CPU.
 */
#ifndef UTAP_PROBES_TIMER_C
#define UTAP_PROBES_TIMER_C

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/random.h>
#include "probes/regs.c"

struct utap_timer {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	u64 interval;		/* ns, or jiffies */
	u64 randomize;		/* the same unit; 0: none */
	bool jiffies;
	atomic_t armed;
	union {
		struct hrtimer hr;
		struct timer_list tl;
	} u;
};

/* The next period: interval +/- a random part, never below one unit of the timer. */
static u64 utap_timer_period(const struct utap_timer *t)
{
	u64 period = t->interval;
	u64 floor = t->jiffies ? 1 : 1000;

	if (t->randomize) {
		u64 span = 2 * t->randomize + 1;
		u64 r = get_random_u64() % span;

		period = period + r - t->randomize;
		if ((s64)period < (s64)floor)
			period = floor;
	}
	return period;
}

static void utap_timer_run(struct utap_timer *t)
{
	struct utap_context *c = utap_context_enter(t->probe, UTAP_RUNNING);

	if (!c)
		return;
	utap_regs_reset_syscall();
	t->handler(c);
	utap_context_leave(c);
}

static enum hrtimer_restart utap_hrtimer_fn(struct hrtimer *hr)
{
	struct utap_timer *t = container_of(hr, struct utap_timer, u.hr);
	enum hrtimer_restart restart = HRTIMER_NORESTART;

	if (atomic_read(&t->armed)) {
		/* from now, not from the missed expiry: a stalled CPU gets no burst */
		hrtimer_forward_now(hr, ns_to_ktime(utap_timer_period(t)));
		restart = HRTIMER_RESTART;
	}
	utap_timer_run(t);
	return restart;
}

static void utap_jtimer_fn(struct timer_list *tl)
{
	struct utap_timer *t = from_timer(t, tl, u.tl);

	if (atomic_read(&t->armed))
		mod_timer(tl, jiffies + (unsigned long)utap_timer_period(t));
	utap_timer_run(t);
}

/* Starting a timer cannot fail. */
static void utap_timers_start(struct utap_timer *tab, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct utap_timer *t = &tab[i];

		atomic_set(&t->armed, 1);
		if (t->jiffies) {
			timer_setup(&t->u.tl, utap_jtimer_fn, 0);
			mod_timer(&t->u.tl, jiffies + (unsigned long)utap_timer_period(t));
		} else {
			hrtimer_init(&t->u.hr, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
			t->u.hr.function = utap_hrtimer_fn;
			hrtimer_start(&t->u.hr, ns_to_ktime(utap_timer_period(t)), HRTIMER_MODE_REL);
		}
	}
}

static void utap_timers_stop(struct utap_timer *tab, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct utap_timer *t = &tab[i];

		if (!atomic_xchg(&t->armed, 0))
			continue;
		if (t->jiffies)
			del_timer_sync(&t->u.tl);
		else
			hrtimer_cancel(&t->u.hr);
	}
}

#endif /* UTAP_PROBES_TIMER_C */
