/*
 * process_lifecycle.c - process.begin, process.end, process.thread.begin
 * and process.thread.end, for any process, process("PATH") or
 * process(PID). The runtime (runtime/probes/task_finder.c) follows
 * processes through the scheduler's fork/exec/exit tracepoints.
 *
 * Bare `process` probes cover every process; with -c or -x only the
 * target and its descendants (stap's rule). process("PATH") probes cover
 * the processes running that program; process(PID) that one process. A
 * begin probe has the task's saved user registers; an end probe runs
 * after the process's memory is gone and has none.
 */
#include "probes/process.h"

#include <inttypes.h>
#include <string.h>

enum lc_event { LC_BEGIN, LC_END, LC_THREAD_BEGIN, LC_THREAD_END };

static const char *const lc_event_c[] = {
	"UTAP_PEV_BEGIN", "UTAP_PEV_END", "UTAP_PEV_THREAD_BEGIN", "UTAP_PEV_THREAD_END",
};

struct lc_probe {
	enum lc_event event;
	const char *path;	/* NULL: no program named */
	int64_t pid;
	bool target_tree;
};

static bool lc_match(const struct probe_point *pp)
{
	static const char *const kinds[] = { "begin", "end", "thread" };

	return process_point_is(pp, kinds, 3);
}

/* begin, end, thread.begin or thread.end after the process component; -1 if none. */
static int lc_read_event(const struct probe_point *pp)
{
	const struct pp_component *c = process_kind(pp);
	bool thread = !strcmp(c->name, "thread");

	if (thread)
		c = c->next;
	if (!c || c->next || c->arg || (strcmp(c->name, "begin") && strcmp(c->name, "end"))) {
		error_at(pp->loc, "expected process%s.begin, .end, .thread.begin or .thread.end",
			 pp->comps->arg ? "(...)" : "");
		return -1;
	}
	if (!strcmp(c->name, "begin"))
		return thread ? LC_THREAD_BEGIN : LC_BEGIN;
	return thread ? LC_THREAD_END : LC_END;
}

static const char *lc_pp(const struct lc_probe *lp, const struct ubinary *b)
{
	static const char *const suffix[] = { "begin", "end", "thread.begin", "thread.end" };
	const char *prefix = b || lp->pid ? process_pp_prefix(b, lp->pid) : "process";

	return arena_printf("%s.%s", prefix, suffix[lp->event]);
}

static struct derived_probe *lc_add(struct derived_probe *proto, const struct lc_probe *tmpl,
				    const struct ubinary *b)
{
	struct lc_probe *lp = arena_alloc(sizeof(*lp));
	struct derived_probe *d;

	*lp = *tmpl;
	lp->path = b ? b->path : NULL;
	d = new_derived(proto, lc_pp(lp, b));
	d->data = lp;
	d->ctx = CTX_TASK;
	if (lp->event == LC_BEGIN || lp->event == LC_THREAD_BEGIN)
		d->ctx |= CTX_USER_REGS;
	return d;
}

static int lc_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	struct process_spec spec;
	struct lc_probe tmpl = { 0 };
	int event = lc_read_event(pp);
	int rc;

	if (event < 0)
		return -1;
	rc = process_spec_read(s, pp, false, &spec);
	if (rc <= 0)
		return rc;
	tmpl.event = (enum lc_event)event;
	tmpl.pid = spec.pid;
	tmpl.target_tree = spec.target_tree;
	if (!spec.nbins) {
		lc_add(proto, &tmpl, NULL);
		return 1;
	}
	for (int i = 0; i < spec.nbins; i++)
		lc_add(proto, &tmpl, spec.bins[i]);
	return spec.nbins;
}

/* ---- emitting -------------------------------------------------------------- */

#define LC_MAX_TARGETS 64	/* the runtime keeps a bit per target and process */

static bool same_target(const struct lc_probe *a, const struct lc_probe *b)
{
	return a->pid == b->pid && a->target_tree == b->target_tree &&
	       (a->path == b->path || (a->path && b->path && !strcmp(a->path, b->path)));
}

/* The index of dps[i]'s target among the distinct ones before it. */
static int target_index(struct derived_probe **dps, int i, int *ntargets, int *first)
{
	const struct lc_probe *lp = dps[i]->data;

	for (int t = 0; t < *ntargets; t++)
		if (same_target(dps[first[t]]->data, lp))
			return t;
	first[*ntargets] = i;
	return (*ntargets)++;
}

static void emit_targets(struct emitter *em, struct derived_probe **dps, const int *first,
			 int ntargets)
{
	sb_printf(&em->glue, "static struct utap_ptarget utap_lc_targets[%d] = {\n", ntargets);
	for (int t = 0; t < ntargets; t++) {
		const struct lc_probe *lp = dps[first[t]]->data;

		sb_printf(&em->glue, "\t{ .path = %s, .pid = %" PRId64 ", .target_tree = %d },\n",
			  lp->path ? c_string_literal(lp->path, strlen(lp->path)) : "NULL",
			  lp->pid, lp->target_tree);
	}
	sb_printf(&em->glue, "};\n\n");
}

static void lc_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	int *first = arena_alloc(sizeof(*first) * (n + 1));
	int *target = arena_alloc(sizeof(*target) * (n + 1));
	int ntargets = 0;

	for (int i = 0; i < n; i++)
		target[i] = target_index(dps, i, &ntargets, first);
	if (ntargets > LC_MAX_TARGETS) {
		error_at(dps[0]->point->loc, "too many different process(...) targets for "
			 ".begin/.end probes (%d; at most %d)", ntargets, LC_MAX_TARGETS);
		return;
	}
	emit_need(em, "task_finder");
	emit_targets(em, dps, first, ntargets);
	sb_printf(&em->glue, "static const struct utap_pprobe utap_lc_probes[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct lc_probe *lp = dps[i]->data;

		sb_printf(&em->glue, "\t{ &utap_probes[%d], utap_probe_%d, %d, %s },\n",
			  dps[i]->index, dps[i]->handler, target[i], lc_event_c[lp->event]);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_tf_register(utap_lc_targets, %d, utap_lc_probes, "
		  "%d);\n\n\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", ntargets, n);
	sb_printf(&em->unreg, "\tutap_tf_unregister();\n");
}

/* the names a '*' after the first component stands for */
static const char *const process_lifecycle_words[] = {
	"begin", "end", "thread", NULL
};

const struct provider provider_process_lifecycle = {
	.name = "process.begin/end",
	.words = process_lifecycle_words,
	.match = lc_match,
	.resolve = lc_resolve,
	.emit = lc_emit,
};
