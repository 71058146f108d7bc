/*
 * listing.c - `utap -l PATTERN` and `-L PATTERN`: the probe points a
 * pattern resolves to, one per line, sorted; -L adds each point's target
 * variables. Exits non-zero when nothing matches, as stap does.
 */
#include "utap.h"
#include "probes/provider.h"

#include <stdlib.h>
#include <string.h>

static int by_pp(const void *a, const void *b)
{
	const struct derived_probe *x = *(struct derived_probe *const *)a;
	const struct derived_probe *y = *(struct derived_probe *const *)b;

	return strcmp(x->pp, y->pp);
}

int list_probe_points(struct session *s)
{
	const char *text = arena_printf("probe %s {}", s->list_pattern);
	struct source *src = source_from_string("<pattern>", text);
	struct derived_probe **all;
	int n = 0;

	s->user_file = parse_source(s, src);
	if (diag_errors || load_tapsets(s))
		return 1;
	/* every point is optional: a pattern that matches nothing is not an error here */
	for (struct probe *p = s->user_file->probes; p; p = p->next)
		for (struct probe_point *pp = p->points; pp; pp = pp->next)
			pp->optional = true;
	if (elaborate(s) && !s->derived)
		return 1;
	for (struct derived_probe *d = s->derived; d; d = d->next)
		n++;
	all = arena_alloc(sizeof(*all) * (n + 1));
	n = 0;
	for (struct derived_probe *d = s->derived; d; d = d->next)
		all[n++] = d;
	qsort(all, n, sizeof(*all), by_pp);
	for (int i = 0; i < n; i++) {
		if (i && !strcmp(all[i]->pp, all[i - 1]->pp))
			continue;
		fputs(all[i]->pp, stdout);
		if (s->list_vars && all[i]->prov->list_vars)
			all[i]->prov->list_vars(s, all[i], stdout);
		fputc('\n', stdout);
	}
	return n ? 0 : 1;
}
