/*
 * netfilter.c - netfilter hook probes, as stapprobes(3stap) gives them:
 *
 *   netfilter.hook("HOOK").pf("PF")[.priority("PRIO")]
 *   netfilter.pf("PF").hook("HOOK")[.priority("PRIO")]
 *
 * Each probe is a hook function of its own (runtime/probes/netfilter.c),
 * registered in the initial network namespace. PF is NFPROTO_IPV4, _IPV6,
 * _ARP or _BRIDGE; HOOK one of that family's hooks by its kernel name (the
 * IPv4 and IPv6 hooks also by their older NF_IP_ and NF_IP6_ names); PRIO a
 * number or one of the family's NF_IP_PRI_ / NF_IP6_PRI_ names, default 0.
 * In guru mode, as in stap, any identifier or number is taken verbatim.
 *
 * Target variables: $hooknum, $skb, $in, $out ($indev, $outdev the same
 * devices), $okfn, and $verdict, which the handler may assign in guru mode
 * (NF_ACCEPT unless it does).
 */
#include "codegen/emit.h"
#include "probes/cparams.h"

#include <ctype.h>
#include <string.h>

struct nf_family {
	const char *pf;			/* the NFPROTO_ name, also the C value */
	const char *const *prefixes;	/* of its hooks' names, NULL-ended */
	const char *const *hooks;	/* the names after a prefix, by number, NULL-ended */
	const char *const *prios;	/* named priorities (C enumerators), NULL-ended */
};

static const char *const inet_hooks[] = {
	"PRE_ROUTING", "LOCAL_IN", "FORWARD", "LOCAL_OUT", "POST_ROUTING", NULL,
};
static const char *const arp_hooks[] = { "IN", "OUT", "FORWARD", NULL };
static const char *const bridge_hooks[] = {
	"PRE_ROUTING", "LOCAL_IN", "FORWARD", "LOCAL_OUT", "POST_ROUTING", "BROUTING", NULL,
};

static const char *const ip_prefixes[] = { "NF_INET_", "NF_IP_", NULL };
static const char *const ip6_prefixes[] = { "NF_INET_", "NF_IP6_", NULL };
static const char *const arp_prefixes[] = { "NF_ARP_", NULL };
static const char *const bridge_prefixes[] = { "NF_BR_", NULL };

/* <linux/netfilter_ipv4.h>'s enum nf_ip_hook_priorities */
static const char *const ip_prios[] = {
	"NF_IP_PRI_FIRST", "NF_IP_PRI_RAW_BEFORE_DEFRAG", "NF_IP_PRI_CONNTRACK_DEFRAG",
	"NF_IP_PRI_RAW", "NF_IP_PRI_SELINUX_FIRST", "NF_IP_PRI_CONNTRACK", "NF_IP_PRI_MANGLE",
	"NF_IP_PRI_NAT_DST", "NF_IP_PRI_FILTER", "NF_IP_PRI_SECURITY", "NF_IP_PRI_NAT_SRC",
	"NF_IP_PRI_SELINUX_LAST", "NF_IP_PRI_CONNTRACK_HELPER", "NF_IP_PRI_CONNTRACK_CONFIRM",
	"NF_IP_PRI_LAST", NULL,
};

/* <linux/netfilter_ipv6.h>'s enum nf_ip6_hook_priorities */
static const char *const ip6_prios[] = {
	"NF_IP6_PRI_FIRST", "NF_IP6_PRI_RAW_BEFORE_DEFRAG", "NF_IP6_PRI_CONNTRACK_DEFRAG",
	"NF_IP6_PRI_RAW", "NF_IP6_PRI_SELINUX_FIRST", "NF_IP6_PRI_CONNTRACK",
	"NF_IP6_PRI_MANGLE", "NF_IP6_PRI_NAT_DST", "NF_IP6_PRI_FILTER", "NF_IP6_PRI_SECURITY",
	"NF_IP6_PRI_NAT_SRC", "NF_IP6_PRI_SELINUX_LAST", "NF_IP6_PRI_CONNTRACK_HELPER",
	"NF_IP6_PRI_LAST", NULL,
};

static const char *const no_prios[] = { NULL };

static const struct nf_family families[] = {
	{ "NFPROTO_IPV4", ip_prefixes, inet_hooks, ip_prios },
	{ "NFPROTO_IPV6", ip6_prefixes, inet_hooks, ip6_prios },
	{ "NFPROTO_ARP", arp_prefixes, arp_hooks, no_prios },
	{ "NFPROTO_BRIDGE", bridge_prefixes, bridge_hooks, no_prios },
};

struct nf_data {
	const char *pf;		/* C expressions for the hook's ops */
	const char *hook;
	const char *prio;
};

static bool netfilter_match(const struct probe_point *pp)
{
	const struct pp_component *c = pp->comps->next;

	return c && (!strcmp(c->name, "hook") || !strcmp(c->name, "pf"));
}

/* A decimal number, with an optional sign: what a priority may be besides a name. */
static bool is_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* What guru mode takes verbatim: a C identifier or a number. */
static bool is_c_word(const char *s)
{
	if (is_number(s))
		return true;
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static const struct nf_family *find_family(const char *pf)
{
	for (size_t i = 0; i < ARRAY_LEN(families); i++)
		if (!strcmp(families[i].pf, pf))
			return &families[i];
	return NULL;
}

/* "A, B, C": the family's priority names, or its hook names with every prefix */
static const char *names_of(const struct nf_family *f, bool prios)
{
	struct strbuf sb = { 0 };
	const char *r;

	if (prios)
		for (const char *const *p = f->prios; *p; p++)
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", *p);
	else
		for (const char *const *pre = f->prefixes; *pre; pre++)
			for (const char *const *h = f->hooks; *h; h++)
				sb_printf(&sb, "%s%s%s", sb.len ? ", " : "", *pre, *h);
	r = arena_strdup(sb.len ? sb.buf : "none");
	sb_free(&sb);
	return r;
}

/* The component's string argument; "" with an error reported when it has none. */
static const char *arg_of(const struct pp_component *c, struct loc loc)
{
	const char *a = pp_component_arg_str(c);

	if (!a)
		error_at(loc, "netfilter '.%s' takes a name as a string: .%s(\"NAME\")", c->name,
			 c->name);
	return a;
}

/* Reads the components after "netfilter" into the three names as written. */
static int split_point(const struct probe_point *pp, const char **hook, const char **pf,
		       const char **prio)
{
	const struct pp_component *c = pp->comps->next;

	for (int i = 0; i < 2; i++, c = c->next) {
		const char **slot = !c ? NULL : !strcmp(c->name, "hook") ? hook :
				    !strcmp(c->name, "pf") ? pf : NULL;

		if (!slot || *slot) {
			error_at(pp->loc, "expected netfilter.hook(\"HOOK\").pf(\"PF\") or "
				 "netfilter.pf(\"PF\").hook(\"HOOK\"), then optionally "
				 ".priority(\"PRIORITY\")");
			return -1;
		}
		if (!(*slot = arg_of(c, pp->loc)))
			return -1;
	}
	if (c && !strcmp(c->name, "priority")) {
		if (!(*prio = arg_of(c, pp->loc)))
			return -1;
		c = c->next;
	}
	if (c) {
		error_at(pp->loc, "unexpected '.%s' in a netfilter probe point", c->name);
		return -1;
	}
	return 0;
}

/* The hook's number, or NULL when the family has no such hook. */
static const char *find_hook(const struct nf_family *f, const char *hook)
{
	for (const char *const *pre = f->prefixes; *pre; pre++) {
		size_t n = strlen(*pre);

		if (strncmp(hook, *pre, n))
			continue;
		for (int i = 0; f->hooks[i]; i++)
			if (!strcmp(hook + n, f->hooks[i]))
				return arena_printf("%d", i);
	}
	return NULL;
}

static bool known_prio(const struct nf_family *f, const char *prio)
{
	if (is_number(prio))
		return true;
	for (const char *const *p = f->prios; *p; p++)
		if (!strcmp(*p, prio))
			return true;
	return false;
}

/* Checks a known family's hook and priority; guru mode takes other C words too. */
static int check_names(struct session *s, const struct nf_family *f, struct nf_data *d,
		       const char *hook, const char *prio, struct loc loc)
{
	d->pf = f->pf;
	d->hook = find_hook(f, hook);
	if (!d->hook && s->guru && is_c_word(hook))
		d->hook = hook;
	if (!d->hook) {
		error_at(loc, "unknown netfilter hook \"%s\" for protocol family %s (its hooks: "
			 "%s)", hook, f->pf, names_of(f, false));
		return -1;
	}
	d->prio = prio ? prio : "0";
	if (!prio || known_prio(f, prio) || (s->guru && is_c_word(prio)))
		return 0;
	if (!*f->prios)
		error_at(loc, "unknown netfilter priority \"%s\": protocol family %s takes a number",
			 prio, f->pf);
	else
		error_at(loc, "unknown netfilter priority \"%s\" for protocol family %s: give a "
			 "number or one of: %s", prio, f->pf, names_of(f, true));
	return -1;
}

/* Guru mode: names stap does not know are C, inserted as written. */
static int parse_guru(struct nf_data *d, const char *hook, const char *pf, const char *prio,
		      struct loc loc)
{
	const char *bad = !is_c_word(hook) ? hook : !is_c_word(pf) ? pf :
			  prio && !is_c_word(prio) ? prio : NULL;

	if (bad) {
		error_at(loc, "\"%s\" is neither an identifier nor a number", bad);
		return -1;
	}
	d->pf = pf;
	d->hook = hook;
	d->prio = prio ? prio : "0";
	return 0;
}

static int parse_point(struct session *s, const struct probe_point *pp, struct nf_data *d)
{
	const char *hook = NULL, *pf = NULL, *prio = NULL;
	const struct nf_family *f;

	if (split_point(pp, &hook, &pf, &prio))
		return -1;
	f = find_family(pf);
	if (!f && s->guru)
		return parse_guru(d, hook, pf, prio, pp->loc);
	if (!f) {
		error_at(pp->loc, "unknown netfilter protocol family \"%s\" (one of NFPROTO_IPV4, "
			 "NFPROTO_IPV6, NFPROTO_ARP, NFPROTO_BRIDGE)", pf);
		return -1;
	}
	return check_names(s, f, d, hook, prio, pp->loc);
}

static int netfilter_resolve(struct session *s, struct probe_point *pp,
			     struct derived_probe *proto)
{
	struct nf_data *nd = arena_alloc(sizeof(*nd));
	struct derived_probe *d;

	if (parse_point(s, pp, nd))
		return -1;
	d = new_derived(proto, pp_string(pp));
	d->data = nd;
	d->ctx = 0;	/* softirq or the sender's task: no registers */
	return 1;
}

static void netfilter_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	emit_need(em, "netfilter");
	sb_printf(&em->glue, "static struct utap_nf_hook utap_nf_hooks[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct nf_data *nd = dps[i]->data;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".pf = %s, .hooknum = %s, .priority = %s },\n", dps[i]->index,
			  dps[i]->handler, nd->pf, nd->hook, nd->prio);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_nf_register(utap_nf_hooks, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", n);
	sb_printf(&em->unreg, "\tutap_nf_unregister(utap_nf_hooks, %d);\n", n);
}

/* ---- target variables: members of the hit (struct utap_nf_hit) ---- */

struct nf_var {
	const char *name;	/* as the script writes it, without '$' */
	const char *member;	/* of struct utap_nf_hit */
	const char *type;	/* for -L */
};

static const struct nf_var nf_vars[] = {
	{ "hooknum", "hooknum", "unsigned int" },
	{ "skb", "skb", "struct sk_buff*" },
	{ "in", "in", "struct net_device const*" },
	{ "out", "out", "struct net_device const*" },
	{ "indev", "in", "struct net_device const*" },
	{ "outdev", "out", "struct net_device const*" },
	{ "okfn", "okfn", "int (*)(struct net*, struct sock*, struct sk_buff*)" },
	{ "verdict", "verdict", "unsigned int" },
};

static const struct nf_var *find_var(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(nf_vars); i++)
		if (!strcmp(nf_vars[i].name, name))
			return &nf_vars[i];
	return NULL;
}

static int netfilter_target_var(struct session *s, struct derived_probe *d, struct node *n,
				bool quiet)
{
	(void)s;
	if (n->kind != N_TARGET || n->name[1] == '$' || !find_var(n->name + 1)) {
		if (!quiet)
			error_at(n->loc, "target variable '%s' is not available in probe '%s' (its "
				 "variables: $hooknum $skb $in $out $indev $outdev $okfn $verdict)",
				 n->name ? n->name : "@cast", d->pp);
		return -1;
	}
	if (cparams_check_target(n, quiet))
		return -1;
	n->type = TY_LONG;
	return 0;
}

static const char *hit_member(const char *member)
{
	return arena_printf("((struct utap_nf_hit *)c->probe_data)->%s", member);
}

static struct val netfilter_emit_target_var(struct emitter *em, struct derived_probe *d,
					    struct node *n)
{
	(void)d;
	return cparams_emit_target(em, n, hit_member(find_var(n->name + 1)->member));
}

/* $verdict = V, as stap allows it: in guru mode, and only the whole variable */
static bool netfilter_store_target_var(struct emitter *em, struct derived_probe *d,
				       struct node *lhs, const char *op, struct val v)
{
	(void)d;
	if (strcmp(lhs->name, "$verdict") || lhs->args || lhs->op) {
		error_at(lhs->loc, "only $verdict can be assigned in a netfilter probe");
		return false;
	}
	if (!em->s->guru) {
		error_at(lhs->loc, "assigning $verdict needs guru mode (-g)");
		return false;
	}
	if (strcmp(op, "=") || v.type != TY_LONG) {
		error_at(lhs->loc, "$verdict takes a number, assigned with '='");
		return false;
	}
	emit_line(em, "%s = (unsigned int)%s;", hit_member("verdict"), v.c);
	return true;
}

static void netfilter_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	(void)s;
	(void)d;
	for (size_t i = 0; i < ARRAY_LEN(nf_vars); i++)
		fprintf(out, " $%s:%s", nf_vars[i].name, nf_vars[i].type);
}

const struct provider provider_netfilter = {
	.name = "netfilter",
	.match = netfilter_match,
	.resolve = netfilter_resolve,
	.emit = netfilter_emit,
	.target_var = netfilter_target_var,
	.emit_target_var = netfilter_emit_target_var,
	.store_target_var = netfilter_store_target_var,
	.list_vars = netfilter_list_vars,
};
