/*
 * begin_end.c - begin, end and never probes.
 *
 * begin(N) and end(N) run in priority order (lower first, then script
 * order) from the runner's start and stop requests, in process context.
 * never probes are type-checked and compiled but never run.
 */
#include "codegen/emit.h"

#include <stdlib.h>
#include <string.h>

struct begin_end_data {
	int64_t priority;
	bool is_end;
};

static int begin_end_resolve(struct session *s, struct probe_point *pp,
			     struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps;
	struct begin_end_data *data = arena_alloc(sizeof(*data));
	struct derived_probe *d;

	if (c->next) {
		error_at(pp->loc, "'%s' takes no further components", c->name);
		return -1;
	}
	if (c->arg && (!strcmp(c->name, "never") || c->arg->kind != N_NUM)) {
		error_at(pp->loc, "%s", !strcmp(c->name, "never") ?
			 "'never' takes no argument" :
			 arena_printf("'%s' takes a numeric priority", c->name));
		return -1;
	}
	data->priority = c->arg ? c->arg->num : 0;
	data->is_end = !strcmp(c->name, "end");
	d = new_derived(proto, pp_string(pp));
	d->data = data;
	d->ctx = CTX_SLEEPABLE | CTX_TASK;
	if (!strcmp(c->name, "never"))
		d->data = NULL;
	(void)s;
	return 1;
}

static int by_priority(const void *a, const void *b)
{
	const struct derived_probe *x = *(struct derived_probe *const *)a;
	const struct derived_probe *y = *(struct derived_probe *const *)b;
	const struct begin_end_data *dx = x->data, *dy = y->data;

	if (dx->priority != dy->priority)
		return dx->priority < dy->priority ? -1 : 1;
	return x->index - y->index;
}

static void begin_end_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	struct derived_probe **sorted = arena_alloc(sizeof(*sorted) * (n + 1));
	int m = 0;

	for (int i = 0; i < n; i++)
		if (dps[i]->data)
			sorted[m++] = dps[i];
	qsort(sorted, m, sizeof(*sorted), by_priority);
	for (int i = 0; i < m; i++) {
		const struct begin_end_data *data = sorted[i]->data;

		/* as stap 4.8 (measured): after exit() no further begin probe runs */
		if (!data->is_end)
			sb_printf(&em->begin, "\tif (!utap_exit_pending()) {\n");
		emit_run_handler(data->is_end ? &em->end : &em->begin, sorted[i],
				 data->is_end ? "UTAP_STOPPING" : "UTAP_STARTING",
				 data->is_end ? "\t" : "\t\t");
		if (!data->is_end)
			sb_printf(&em->begin, "\t}\n");
	}
}

const struct provider provider_begin_end = {
	.name = "begin/end/never",
	.resolve = begin_end_resolve,
	.emit = begin_end_emit,
};
