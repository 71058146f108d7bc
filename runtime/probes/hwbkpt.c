// SPDX-License-Identifier: GPL-2.0
/*
 * hwbkpt.c - kernel.data(...).write/.rw probes: a hardware watchpoint on
 * every CPU (register_wide_hw_breakpoint), whose handler runs the probe
 * with the registers of the instruction that made the access (x86 reports
 * a data breakpoint after it). A symbol's address is looked up when the
 * module starts (probes/ksym.c).
 */
#ifndef UTAP_PROBES_HWBKPT_C
#define UTAP_PROBES_HWBKPT_C

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "probes/ksym.c"

struct utap_hwbkpt {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	unsigned long addr;	/* 0: symbol's */
	const char *symbol;
	int len;
	bool rw;
	bool optional;
	struct perf_event * __percpu *events;
};

static void utap_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	struct utap_hwbkpt *h = bp->overflow_handler_context;
	struct utap_context *c = utap_context_enter(h->probe, UTAP_RUNNING);

	if (!c)
		return;
	c->regs = regs;
	c->user_mode = regs && user_mode(regs);
	h->handler(c);
	utap_context_leave(c);
}

static int utap_hwbkpt_len(int len)
{
	return len == 8 ? HW_BREAKPOINT_LEN_8 : len == 4 ? HW_BREAKPOINT_LEN_4 :
	       len == 2 ? HW_BREAKPOINT_LEN_2 : HW_BREAKPOINT_LEN_1;
}

static int utap_hwbkpt_register_one(struct utap_hwbkpt *h)
{
	struct perf_event_attr attr;
	void * __percpu *events;

	if (h->symbol) {
		h->addr = utap_ksym_lookup(h->symbol);
		if (!h->addr) {
			utap_err("probe %s: the running kernel has no symbol '%s'", h->probe->pp,
				 h->symbol);
			return -ENOENT;
		}
	}
	hw_breakpoint_init(&attr);
	attr.bp_addr = h->addr;
	attr.bp_len = utap_hwbkpt_len(h->len);
	attr.bp_type = h->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	events = (void * __percpu *)register_wide_hw_breakpoint(&attr, utap_hwbkpt_hit, h);
	if (IS_ERR((void __force *)events)) {
		long rc = PTR_ERR((void __force *)events);

		if (h->optional)
			return 0;
		utap_err("probe %s registration error (rc %ld): %s", h->probe->pp, rc,
			 rc == -ENOSPC ? "every debug register is in use" :
			 rc == -EINVAL ? "the address and length are not aligned as the CPU "
			 "needs" : "the kernel refused the watchpoint");
		return (int)rc;
	}
	h->events = (struct perf_event * __percpu *)events;
	return 0;
}

static int utap_hwbkpts_register(struct utap_hwbkpt *tab, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = utap_hwbkpt_register_one(&tab[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/* Safe on a partly registered table; no handler runs once it returns. */
static void utap_hwbkpts_unregister(struct utap_hwbkpt *tab, int n)
{
	for (int i = 0; i < n; i++) {
		if (!tab[i].events)
			continue;
		unregister_wide_hw_breakpoint(tab[i].events);
		tab[i].events = NULL;
	}
}

#endif /* UTAP_PROBES_HWBKPT_C */
