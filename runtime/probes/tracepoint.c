// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint.c - kernel.trace("name") probes. The kernel does not export
 * its struct tracepoint symbols, so each is found by name at registration
 * with for_each_kernel_tracepoint(). The generated probe function, typed by
 * the tracepoint's own header, packs its arguments in a struct that the
 * handler reads through c->probe_data.
 */
#ifndef UTAP_PROBES_TRACEPOINT_C
#define UTAP_PROBES_TRACEPOINT_C

#include <linux/tracepoint.h>
#include "probes/regs.c"

struct utap_tracepoint {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	const char *name;
	void *func;		/* the generated probe function */
	bool optional;
	struct tracepoint *tp;
	bool registered;
};

struct utap_tp_lookup {
	struct utap_tracepoint *tab;
	int n;
};

static void utap_tracepoint_run(void *data, void *args)
{
	struct utap_tracepoint *t = data;
	struct utap_context *c = utap_context_enter(t->probe, UTAP_RUNNING);

	if (!c)
		return;
	c->probe_data = args;
	utap_regs_reset_syscall();
	t->handler(c);
	utap_context_leave(c);
}

/*
 * __syscall("NAME") probes (translator/probes/syscall.c): the sys_enter or
 * sys_exit callback picked the handler by the syscall number. The registers
 * are the syscall's user registers, and the argument functions read them
 * with the syscall convention (ia32's for a 32-bit task); v is the number
 * on entry, the result on exit; native the x86-64 number of the syscall.
 */
struct utap_syscall_hit {
	struct pt_regs *regs;
	long v;
};

static void utap_syscall_run(const struct utap_probe *p, void (*handler)(struct utap_context *c),
			     struct pt_regs *regs, long v, long native)
{
	struct utap_syscall_hit hit = { regs, v };
	struct utap_context *c = utap_context_enter(p, UTAP_RUNNING);

	if (!c)
		return;
	c->regs = regs;
	c->user_mode = true;
	c->probe_data = &hit;
	utap_regs_set_syscall(c, (unsigned long)regs);
	utap_regs_set_native(native);
	handler(c);
	utap_context_leave(c);
}

static void utap_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct utap_tp_lookup *l = priv;
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->tab[i].tp && !strcmp(tp->name, l->tab[i].name))
			l->tab[i].tp = tp;
}

static int utap_tracepoints_register(struct utap_tracepoint *tab, int n)
{
	struct utap_tp_lookup lookup = { tab, n };
	int i, rc;

	for (i = 0; i < n; i++)
		tab[i].tp = NULL;
	for_each_kernel_tracepoint(utap_tracepoint_match, &lookup);
	for (i = 0; i < n; i++) {
		struct utap_tracepoint *t = &tab[i];

		t->registered = false;
		rc = t->tp ? tracepoint_probe_register(t->tp, t->func, t) : -ENOENT;
		if (!rc) {
			t->registered = true;
			continue;
		}
		if (t->optional)
			continue;
		if (!t->tp)
			utap_err("probe %s registration error: the running kernel has no tracepoint "
				 "%s (tracepoints of modules are not supported)", t->probe->pp, t->name);
		else
			utap_err("probe %s registration error (rc %d)", t->probe->pp, rc);
		return rc;
	}
	return 0;
}

/* After the grace periods of tracepoint_synchronize_unregister() no probe function runs. */
static void utap_tracepoints_unregister(struct utap_tracepoint *tab, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (!tab[i].registered)
			continue;
		tracepoint_probe_unregister(tab[i].tp, tab[i].func, &tab[i]);
		tab[i].registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

#endif /* UTAP_PROBES_TRACEPOINT_C */
