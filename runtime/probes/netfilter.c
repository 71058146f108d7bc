// SPDX-License-Identifier: GPL-2.0
/*
 * netfilter.c - netfilter.hook("H").pf("P") probes: one hook function per
 * probe, registered with nf_register_net_hook() in the initial network
 * namespace. The hook runs where the stack passes the packet (softirq for
 * received packets, the sender's task for local output), with no
 * registers. The handler sees the packet through c->probe_data and may set
 * the verdict, NF_ACCEPT unless it does.
 */
#ifndef UTAP_PROBES_NETFILTER_C
#define UTAP_PROBES_NETFILTER_C

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/net_namespace.h>
#include "probes/regs.c"

/* What the target variables name ($skb, $in, ...; translator/probes/netfilter.c). */
struct utap_nf_hit {
	unsigned int hooknum;
	struct sk_buff *skb;
	const struct net_device *in;
	const struct net_device *out;
	int (*okfn)(struct net *net, struct sock *sk, struct sk_buff *skb);
	unsigned int verdict;
};

struct utap_nf_hook {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	u_int8_t pf;
	unsigned int hooknum;
	int priority;
	struct nf_hook_ops ops;
	bool registered;
};

static unsigned int utap_nf_hookfn(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct utap_nf_hook *h = priv;
	struct utap_nf_hit hit = {
		.hooknum = state->hook,
		.skb = skb,
		.in = state->in,
		.out = state->out,
		.okfn = state->okfn,
		.verdict = NF_ACCEPT,
	};
	struct utap_context *c = utap_context_enter(h->probe, UTAP_RUNNING);

	if (!c)
		return NF_ACCEPT;
	c->probe_data = &hit;
	utap_regs_reset_syscall();
	h->handler(c);
	utap_context_leave(c);
	return hit.verdict;
}

/* Waits for hook functions still running on other CPUs before the module goes. */
static void utap_nf_unregister(struct utap_nf_hook *tab, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (!tab[i].registered)
			continue;
		nf_unregister_net_hook(&init_net, &tab[i].ops);
		tab[i].registered = false;
		any = true;
	}
	if (any)
		synchronize_net();
}

static int utap_nf_register(struct utap_nf_hook *tab, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		struct utap_nf_hook *h = &tab[i];

		memset(&h->ops, 0, sizeof(h->ops));
		h->ops.hook = utap_nf_hookfn;
		h->ops.priv = h;
		h->ops.pf = h->pf;
		h->ops.hooknum = h->hooknum;
		h->ops.priority = h->priority;
		h->registered = false;
		rc = nf_register_net_hook(&init_net, &h->ops);
		if (rc) {
			utap_err("probe %s registration error: the kernel refused the netfilter "
				 "hook (rc %d)", h->probe->pp, rc);
			return rc;
		}
		h->registered = true;
	}
	return 0;
}

#endif /* UTAP_PROBES_NETFILTER_C */
