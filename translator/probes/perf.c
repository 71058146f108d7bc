/*
 * perf.c - perf.type(T).config(C)[.sample(N)|.hz(F)]: sampling perf events
 * on every CPU. perf.sw.*, perf.hw.* and timer.profile are tapset aliases
 * for it (tapsets/perf.stp). Whether the CPU has the event is only known
 * at run time; '?' makes a missing one a silent no-op there.
 */
#include "codegen/emit.h"

#include <string.h>

struct perf_data {
	int64_t type, config;
	int64_t period;		/* events per sample, or samples per second */
	bool freq;
};

/* The generic events' names, as the perf.sw.* and perf.hw.* aliases spell them. */
static const char *event_name(int64_t type, int64_t config)
{
	static const char *const hw[] = {
		"cpu_cycles", "instructions", "cache_references", "cache_misses",
		"branch_instructions", "branch_misses", "bus_cycles", "stalled_cycles_frontend",
		"stalled_cycles_backend", "ref_cpu_cycles",
	};
	static const char *const sw[] = {
		"cpu_clock", "task_clock", "page_faults", "context_switches", "cpu_migrations",
		"page_faults_min", "page_faults_maj", "alignment_faults", "emulation_faults",
	};

	if (type == 0 && config >= 0 && config < (int64_t)ARRAY_LEN(hw))
		return arena_printf("perf.hw.%s", hw[config]);
	if (type == 1 && config >= 0 && config < (int64_t)ARRAY_LEN(sw))
		return arena_printf("perf.sw.%s", sw[config]);
	return arena_printf("perf.type(%lld).config(%lld)", (long long)type, (long long)config);
}

static bool num_component(const struct pp_component *c, const char *name, int64_t *out)
{
	return c && !strcmp(c->name, name) && pp_component_arg_num(c, out);
}

static int perf_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps->next;
	struct perf_data *p = arena_alloc(sizeof(*p));
	struct derived_probe *d;
	const char *text;

	(void)s;
	if (!num_component(c, "type", &p->type) || !num_component(c->next, "config", &p->config)) {
		error_at(pp->loc, "expected perf.type(N).config(M), or one of the perf.sw.* and "
			 "perf.hw.* aliases");
		return -1;
	}
	c = c->next->next;
	p->period = 1000000;	/* stap's default */
	if (num_component(c, "sample", &p->period) || num_component(c, "hz", &p->period)) {
		p->freq = !strcmp(c->name, "hz");
		c = c->next;
	}
	if (c) {
		error_at(pp->loc, "perf.%s is not supported (utap has type, config, sample and hz)",
			 c->name);
		return -1;
	}
	if (p->type < 0 || p->type > UINT32_MAX || p->config < 0) {
		error_at(pp->loc, "invalid perf event type or config");
		return -1;
	}
	if (p->period < 1) {
		error_at(pp->loc, "invalid perf sample period %lld", (long long)p->period);
		return -1;
	}
	text = arena_printf("perf.type(%lld).config(%lld).%s(%lld)", (long long)p->type,
			    (long long)p->config, p->freq ? "hz" : "sample", (long long)p->period);
	d = new_derived(proto, text);
	d->data = p;
	d->ctx = CTX_MAYBE_USER;
	return 1;
}

static void perf_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	emit_need(em, "perf");
	sb_printf(&em->glue, "static struct utap_perf utap_perfs[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct perf_data *p = dps[i]->data;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".type = %lld, .config = %lldULL, .period = %lldULL, .freq = %d, "
			  ".optional = %d, .name = \"%s\" },\n", dps[i]->index, dps[i]->handler,
			  (long long)p->type, (long long)p->config, (long long)p->period, p->freq,
			  dps[i]->point->optional, event_name(p->type, p->config));
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_perfs_register(utap_perfs, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", n);
	sb_printf(&em->unreg, "\tutap_perfs_unregister(utap_perfs, %d);\n", n);
}

const struct provider provider_perf = {
	.name = "perf",
	.resolve = perf_resolve,
	.emit = perf_emit,
};
