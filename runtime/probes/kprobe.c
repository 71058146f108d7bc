// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.c - kprobe and kretprobe probes (kprobe.*, kernel.function,
 * module().function, kernel.statement), registered by symbol name so that
 * no kernel address is needed when the module is built.
 *
 * The generated code defines one table of struct utap_kprobe per family and
 * calls utap_kprobes_register() / utap_kprobes_unregister() on it.
 * Unregistering is batched: the kernel waits for an RCU grace period once
 * for the whole batch, after which no handler of ours can be running or
 * start (kprobe handlers run with preemption disabled; a kretprobe's rethook
 * handler is cleared before that grace period).
 */
#ifndef UTAP_PROBES_KPROBE_C
#define UTAP_PROBES_KPROBE_C

#include <linux/kprobes.h>
#include "probes/regs.c"

enum utap_kprobe_flags {
	UTAP_KP_RETURN = 1,	/* a kretprobe */
	UTAP_KP_OPTIONAL = 2,	/* '?': a registration failure skips it silently */
	UTAP_KP_SOFT = 4,	/* one of a wildcard's matches: a failure warns and skips */
	UTAP_KP_ENTRY = 8,	/* a kretprobe whose handler reads @entry(): save the registers */
};

/*
 * @entry($param) in a .return probe: the registers at the function's entry,
 * saved per call in the kretprobe instance's data by the entry handler.
 */
#define UTAP_KP_ENTRY_REGS(c) \
	((struct pt_regs *)((struct kretprobe_instance *)(c)->probe_data)->data)

struct utap_kprobe {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	const char *symbol;	/* "name" or "module:name"; NULL when addr is set */
	unsigned long addr;	/* kernel.statement(ADDR).absolute */
	unsigned int flags;
	int maxactive;		/* kretprobes: instances; 0 for the default */
	bool registered;
	union {
		struct kprobe kp;
		struct kretprobe rp;
	} u;
};

/* Runs one handler with the probe's registers; the context is per CPU. */
static void utap_kprobe_run(struct utap_kprobe *p, struct pt_regs *regs, void *hit)
{
	struct utap_context *c = utap_context_enter(p->probe, UTAP_RUNNING);

	if (!c)
		return;
	c->regs = regs;
	c->user_mode = false;
	c->probe_data = hit;
	utap_regs_reset_syscall();
	p->handler(c);
	utap_context_leave(c);
}

static int utap_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct utap_kprobe *p = container_of(kp, struct utap_kprobe, u.kp);
	unsigned long ip = instruction_pointer(regs);

	/*
	 * The breakpoint left the IP one byte past the probed instruction;
	 * handlers see the probed address, as if nothing had been inserted
	 * (stap does the same). The kernel gets its own value back.
	 */
	instruction_pointer_set(regs, (unsigned long)kp->addr);
	utap_kprobe_run(p, regs, NULL);
	instruction_pointer_set(regs, ip);
	return 0;
}

static int utap_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	/* the IP is already the address returned to */
	if (rp)
		utap_kprobe_run(container_of(rp, struct utap_kprobe, u.rp), regs, ri);
	return 0;
}

static int utap_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	memcpy(ri->data, regs, sizeof(*regs));
	return 0;
}

static const char *utap_kprobe_why(int rc)
{
	switch (rc) {
	case -EINVAL:
		return "the kernel refuses to probe there (blacklisted, entry or noinstr "
		       "code, or not an instruction boundary)";
	case -ENOENT:
		return "no such symbol in the running kernel (or its module is not loaded)";
	case -EILSEQ:
		return "not an instruction boundary";
	case -EBUSY:
		return "the address is already in use by another kind of probe";
	case -ENOMEM:
		return "out of memory";
	case -EOPNOTSUPP:
		return "not supported by this kernel";
	default:
		return "registration failed";
	}
}

static int utap_kprobe_register_one(struct utap_kprobe *p, int default_maxactive)
{
	struct kprobe *kp = (p->flags & UTAP_KP_RETURN) ? &p->u.rp.kp : &p->u.kp;

	memset(&p->u, 0, sizeof(p->u));
	if (p->symbol)
		kp->symbol_name = p->symbol;
	else
		kp->addr = (kprobe_opcode_t *)p->addr;
	if (!(p->flags & UTAP_KP_RETURN)) {
		kp->pre_handler = utap_kprobe_pre;
		return register_kprobe(kp);
	}
	p->u.rp.handler = utap_kretprobe_ret;
	if (p->flags & UTAP_KP_ENTRY) {
		p->u.rp.entry_handler = utap_kretprobe_entry;
		p->u.rp.data_size = sizeof(struct pt_regs);
	}
	p->u.rp.maxactive = p->maxactive ? p->maxactive : default_maxactive;
	return register_kretprobe(&p->u.rp);
}

/*
 * Instances per kretprobe: one per task inside the function at once (tasks
 * blocked in read() hold theirs for as long as they block). Generous for a
 * few functions; a wildcard over hundreds gets fewer, to bound the memory.
 */
static int utap_kretprobe_instances(struct utap_kprobe *tab, int n)
{
	int i, nret = 0, cpus = (int)num_possible_cpus();

	for (i = 0; i < n; i++)
		nret += !!(tab[i].flags & UTAP_KP_RETURN);
	return nret > 64 ? max(32, 4 * cpus) : max(128, 16 * cpus);
}

/* 0, or the error of the first probe whose failure ends the session. */
static int utap_kprobes_register(struct utap_kprobe *tab, int n)
{
	int i, rc, instances = utap_kretprobe_instances(tab, n);

	for (i = 0; i < n; i++) {
		struct utap_kprobe *p = &tab[i];

		p->registered = false;
		rc = utap_kprobe_register_one(p, instances);
		if (rc == 0) {
			p->registered = true;
			continue;
		}
		if (p->flags & UTAP_KP_OPTIONAL)
			continue;
		if (p->flags & UTAP_KP_SOFT) {
			utap_warn("probe %s registration error (rc %d): %s; skipped", p->probe->pp,
				  rc, utap_kprobe_why(rc));
			continue;
		}
		utap_err("probe %s registration error (rc %d): %s", p->probe->pp, rc,
			 utap_kprobe_why(rc));
		return rc;
	}
	return 0;
}

/*
 * Hits the kernel did not hand to us, as stap reports them: a kprobe that
 * fired while another kprobe was being handled on the same CPU, or a
 * return that found no free kretprobe instance (too many tasks inside the
 * function at once: .maxactive(N) raises the limit).
 */
static void utap_kprobe_count_missed(struct utap_kprobe *p)
{
	unsigned long reentered, no_instance = 0;

	if (p->flags & UTAP_KP_RETURN) {
		reentered = p->u.rp.kp.nmissed;
		no_instance = (unsigned long)p->u.rp.nmissed;
	} else {
		reentered = p->u.kp.nmissed;
	}
	if (reentered)
		utap_warn("Skipped due to missed kprobe on '%s': %lu", p->probe->pp, reentered);
	if (no_instance)
		utap_warn("Skipped due to missed kretprobe/1 on '%s': %lu", p->probe->pp,
			  no_instance);
	atomic_add((int)(reentered + no_instance), &utap_skipped);
}

/*
 * Unregisters what is registered, in two batches (one grace period each).
 * kps and rps are scratch arrays of n entries. Probes skipped because their
 * CPU was busy, and returns missed for want of instances, count as skipped.
 */
static void utap_kprobes_unregister(struct utap_kprobe *tab, int n, struct kprobe **kps,
				    struct kretprobe **rps)
{
	int i, nk = 0, nr = 0;

	for (i = 0; i < n; i++) {
		if (!tab[i].registered)
			continue;
		if (tab[i].flags & UTAP_KP_RETURN)
			rps[nr++] = &tab[i].u.rp;
		else
			kps[nk++] = &tab[i].u.kp;
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(rps, nr);
	for (i = 0; i < n; i++) {
		if (tab[i].registered)
			utap_kprobe_count_missed(&tab[i]);
		tab[i].registered = false;
	}
}

#endif /* UTAP_PROBES_KPROBE_C */
