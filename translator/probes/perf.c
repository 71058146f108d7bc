/*
 * perf.c - perf.type(T).config(C)[.sample(N)|.hz(F)]: sampling perf events
 * on every CPU. perf.sw.*, perf.hw.* and timer.profile are tapset aliases
 * for it (tapsets/perf.stp). Whether the CPU has the event is only known
 * at run time; '?' makes a missing one a silent no-op there.
 */
#include "codegen/emit.h"
#include "base/command.h"
#include "probes/providers.h"

#include <stdlib.h>
#include <string.h>

struct perf_data {
	int64_t type, config;
	int64_t period;		/* events per sample, or samples per second */
	bool freq;
	const char *counter;	/* .counter("NAME"): counted for @perf, the body never runs */
	int slot;		/* its place among the counters */
};

/* The .counter probes, for @perf("NAME") in any probe. */
static struct perf_data *counters[64];
static int ncounters;

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

/* Whether PATH is the -c command's program: the only process a counter follows. */
static bool is_target_program(const struct session *s, const char *path)
{
	const char *prog = s->command ? command_path(s->command) : NULL;
	char *a = prog ? realpath(prog, NULL) : NULL, *b = realpath(path, NULL);
	bool same = a && b && !strcmp(a, b);

	free(a);
	free(b);
	return same;
}

/*
 * perf.type(T).config(C)[.process("P")].counter("NAME"): a counting event
 * on the -c target (stap's default when .process names no program), read
 * by @perf("NAME").
 */
static int counter_resolve(struct session *s, struct probe_point *pp,
			   struct derived_probe *proto, struct perf_data *p,
			   const struct pp_component *c)
{
	const char *proc = NULL;
	struct derived_probe *d;

	if (!strcmp(c->name, "process")) {
		proc = pp_component_arg_str(c);
		c = c->next;
	}
	if (!c || strcmp(c->name, "counter") || !pp_component_arg_str(c) || c->next) {
		error_at(pp->loc, "perf.type(T).config(C).process(...) counts for @perf: it must "
			 "end in .counter(\"NAME\") (sampling one process is not supported)");
		return -1;
	}
	if (!s->command) {
		error_at(pp->loc, "a perf counter counts the -c command's program: give -c");
		return -1;
	}
	if (proc && *proc && !is_target_program(s, proc)) {
		error_at(pp->loc, "a perf counter counts the -c command's program only, not '%s'",
			 proc);
		return -1;
	}
	p->counter = pp_component_arg_str(c);
	for (int i = 0; i < ncounters; i++)
		if (!strcmp(counters[i]->counter, p->counter)) {
			error_at(pp->loc, "a second perf counter named '%s'", p->counter);
			return -1;
		}
	if (ncounters == (int)ARRAY_LEN(counters)) {
		error_at(pp->loc, "more than %d perf counters", (int)ARRAY_LEN(counters));
		return -1;
	}
	p->slot = ncounters;
	counters[ncounters++] = p;
	/* stap's name: a counter samples nothing (sample(0)), its program's path absolute */
	if (proc && *proc) {
		char *abs = realpath(proc, NULL);

		proc = arena_strdup(abs ? abs : proc);
		free(abs);
	}
	d = new_derived(proto, arena_printf("perf.type(%lld).config(%lld).sample(0)%s%s%s"
					    ".counter(\"%s\")", (long long)p->type,
					    (long long)p->config, proc ? ".process(\"" : "",
					    proc ? proc : "", proc ? "\")" : "", p->counter));
	d->data = p;
	d->ctx = CTX_MAYBE_USER;
	return 1;
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
	if (c && (!strcmp(c->name, "process") || !strcmp(c->name, "counter")))
		return counter_resolve(s, pp, proto, p, c);
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
			  ".optional = %d, .counter = %d, .name = \"%s\" },\n", dps[i]->index,
			  dps[i]->handler, (long long)p->type, (long long)p->config,
			  (long long)p->period, p->freq, dps[i]->point->optional, !!p->counter,
			  event_name(p->type, p->config));
	}
	sb_printf(&em->glue, "};\n\n");
	if (ncounters)
		sb_printf(&em->top, "static struct utap_perf *utap_perf_counters[%d];\n",
			  ncounters);
	for (int i = 0; i < n; i++) {
		const struct perf_data *p = dps[i]->data;

		if (p->counter)
			sb_printf(&em->reg, "\tutap_perf_counters[%d] = &utap_perfs[%d];\n", p->slot,
				  i);
	}
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_perfs_register(utap_perfs, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", n);
	sb_printf(&em->unreg, "\tutap_perfs_unregister(utap_perfs, %d);\n", n);
}

const struct provider provider_perf = {
	.name = "perf",
	.resolve = perf_resolve,
	.emit = perf_emit,
};

/* ---- @perf("NAME"): a counter's value, in any probe ---- */

static int perf_counter_check(struct session *s, struct derived_probe *d, struct node *n,
			      bool quiet)
{
	const struct node *name = n->lhs;

	(void)s;
	(void)d;
	if (n->nargs != 1 || name->kind != N_STR) {
		if (!quiet)
			error_at(n->loc, "@perf takes the name of a perf counter as a literal string");
		return -1;
	}
	for (int i = 0; i < ncounters; i++)
		if (!strcmp(counters[i]->counter, name->str)) {
			n->num = i;
			n->type = TY_LONG;
			n->owner = &provider_perf_counter;
			return 0;
		}
	if (!quiet)
		error_at(n->loc, "@perf(\"%s\"): no perf counter of that name; declare one with "
			 "probe perf.type(T).config(C).counter(\"%s\") {}", name->str, name->str);
	return -1;
}

static struct val perf_counter_emit(struct emitter *em, struct derived_probe *d, struct node *n)
{
	const char *res = emit_new_long(em);

	(void)d;
	emit_need(em, "perf");
	emit_line(em, "if (utap_perf_read(c, utap_perf_counters[%d], &%s))", (int)n->num, res);
	emit_line(em, "\tUTAP_ERROR(c, c->error_buf, %s, %s);", c_near(n), em->err_label);
	return (struct val){ .type = TY_LONG, .c = res };
}

const struct provider provider_perf_counter = {
	.name = "@perf",
	.target_var = perf_counter_check,
	.emit_target_var = perf_counter_emit,
};
