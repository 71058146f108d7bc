/*
 * error_probe.c - error and error(N) probes: a "final gasp" that runs when
 * the session ends because run-time errors went past MAXERRORS (by default
 * the first one), in place of the end probes, in priority order as stap runs them.
 */
#include "codegen/emit.h"

#include <stdlib.h>
#include <string.h>

static int error_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps;
	int64_t *priority = arena_alloc(sizeof(*priority));
	struct derived_probe *d;

	(void)s;
	if (c->next || (c->arg && !pp_component_arg_num(c, priority))) {
		error_at(pp->loc, "expected 'error' or 'error(PRIORITY)'");
		return -1;
	}
	d = new_derived(proto, pp_string(pp));
	d->data = priority;
	d->ctx = CTX_SLEEPABLE | CTX_TASK;
	return 1;
}

static int by_priority(const void *a, const void *b)
{
	const struct derived_probe *x = *(struct derived_probe *const *)a;
	const struct derived_probe *y = *(struct derived_probe *const *)b;
	int64_t px = *(const int64_t *)x->data, py = *(const int64_t *)y->data;

	if (px != py)
		return px < py ? -1 : 1;
	return x->index - y->index;
}

static void error_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	struct derived_probe **sorted = arena_alloc(sizeof(*sorted) * (n + 1));

	memcpy(sorted, dps, sizeof(*sorted) * n);
	qsort(sorted, n, sizeof(*sorted), by_priority);
	/* they run only in the error state the core enters past MAXERRORS,
	 * in which the end probes emitted before them do not */
	for (int i = 0; i < n; i++)
		emit_run_handler(&em->end, sorted[i], "UTAP_ERROR", "\t");
}

const struct provider provider_error = {
	.name = "error",
	.resolve = error_resolve,
	.emit = error_emit,
};
