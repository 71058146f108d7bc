/*
 * listing.c - `utap -l PATTERN` and `-L PATTERN`: the probe points a
 * pattern resolves to, one per line, sorted; -L adds each point's target
 * variables. A point reached through an alias is listed by the alias's
 * name, with the alias's own variables first under -L, as stap lists
 * syscall.read. Exits non-zero when nothing matches, as stap does.
 *
 * And -p2: what pass 2 kept, globals with their types, the used functions,
 * and each resolved probe point with its locals, in stap's "# probes" layout.
 */
#include "sema/sema.h"
#include "sema/provider.h"

#include <stdlib.h>
#include <string.h>

static const char *listed(const struct derived_probe *d)
{
	return d->listed_pp ? d->listed_pp : d->pp;
}

static int by_pp(const void *a, const void *b)
{
	const struct derived_probe *x = *(struct derived_probe *const *)a;
	const struct derived_probe *y = *(struct derived_probe *const *)b;

	return strcmp(listed(x), listed(y));
}

/* An alias's variables: the pattern's own body is empty, so every local is the alias's. */
static void list_alias_vars(const struct derived_probe *d)
{
	for (const struct symbol *l = d->locals; l; l = l->next)
		printf(" %s:%s", l->name, l->type == TY_STRING ? "string" :
		       l->type == TY_STATS ? "stats" : "long");
}

int list_probe_points(struct session *s)
{
	const char *text = arena_printf("probe %s {}", s->list_pattern);
	struct source *src = source_from_string("<pattern>", text);
	struct derived_probe **all;
	int n = 0;

	if (load_tapset_macros(s))
		return 1;
	s->user_file = parse_source(s, src);
	if (diag_errors || load_tapsets(s))
		return 1;
	/* every point is optional: a pattern that matches nothing is not an error here */
	for (struct probe *p = s->user_file->probes; p; p = p->next)
		for (struct probe_point *pp = p->points; pp; pp = pp->next)
			pp->optional = true;
	if (elaborate(s) && !s->derived)
		return 1;
	/* the aliases' variables are typed only by inference */
	if (s->list_vars) {
		bool quiet = diag_silent;

		diag_silent = true;
		infer_types(s);
		diag_silent = quiet;
	}
	for (struct derived_probe *d = s->derived; d; d = d->next)
		n++;
	all = arena_alloc(sizeof(*all) * (n + 1));
	n = 0;
	for (struct derived_probe *d = s->derived; d; d = d->next)
		all[n++] = d;
	qsort(all, n, sizeof(*all), by_pp);
	for (int i = 0; i < n; i++) {
		if (i && !strcmp(listed(all[i]), listed(all[i - 1])))
			continue;
		/* a used tapset's own probes (json.stp's metadata file) are not the pattern's */
		if (all[i]->probe->src && all[i]->probe->src->is_tapset)
			continue;
		fputs(listed(all[i]), stdout);
		if (s->list_vars && all[i]->listed_pp)
			list_alias_vars(all[i]);
		if (s->list_vars && all[i]->prov->list_vars)
			all[i]->prov->list_vars(s, all[i], stdout);
		fputc('\n', stdout);
	}
	return n ? 0 : 1;
}

/* ---- -p2 ---- */

static int by_function_name(const void *a, const void *b)
{
	return strcmp((*(const struct function *const *)a)->name,
		      (*(const struct function *const *)b)->name);
}

/* By name, as stap lists them: the order of use says nothing to a reader. */
static void dump_used_functions(struct strbuf *sb, struct function *list)
{
	size_t n = 0, i = 0;

	for (const struct function *fn = list; fn; fn = fn->next_used)
		n++;
	if (!n)
		return;
	const struct function **v = arena_alloc(n * sizeof(*v));

	for (const struct function *fn = list; fn; fn = fn->next_used)
		v[i++] = fn;
	qsort(v, n, sizeof(*v), by_function_name);
	sb_puts(sb, "# functions\n");
	for (i = 0; i < n; i++) {
		dump_function_head(sb, v[i], true);
		sb_putc(sb, '\n');
		dump_locals(sb, v[i]->locals);
	}
}

/* "pp? if (cond) <- the aliases <- the probe's points as written", as stap -p2 prints it */
static void dump_derived_origin(struct strbuf *sb, const struct derived_probe *d)
{
	sb_puts(sb, d->pp);
	if (d->point->optional)
		sb_putc(sb, d->point->sufficient ? '!' : '?');
	if (d->cond) {
		sb_puts(sb, " if (");
		dump_expr(sb, d->cond);
		sb_putc(sb, ')');
	}
	sb_printf(sb, " /* <- %s", d->origin ? d->origin : "");
	for (const struct probe_point *pp = d->probe->points; pp; pp = pp->next) {
		dump_probe_point_written(sb, pp);
		sb_puts(sb, pp->next ? "," : " */\n");
	}
}

void dump_session(FILE *out, const struct session *s)
{
	struct strbuf sb = { 0 };
	bool embedded = false;

	/* the script's own top-level %{ %}, as written (stap leaves out the tapsets') */
	for (const struct embed *e = s->embeds; e; e = e->next) {
		if (e->loc.src != s->user_file->src)
			continue;
		if (!embedded)
			sb_puts(&sb, "# global embedded code\n");
		embedded = true;
		sb_printf(&sb, "%%{%s%%}\n", e->code);
	}
	if (s->globals)
		sb_puts(&sb, "# globals\n");
	for (const struct global *g = s->globals; g; g = g->next_used) {
		sb_puts(&sb, g->sym->name);
		if (g->size)
			sb_printf(&sb, "[%ld]", g->size);
		if (g->wrap)
			sb_putc(&sb, '%');
		dump_typed(&sb, "", g->sym->type, true);
		if (g->sym->arity > 0) {
			sb_putc(&sb, ' ');
			sb_putc(&sb, '[');
			for (int i = 0; i < g->sym->arity; i++)
				sb_printf(&sb, "%s%s", i ? ", " : "", type_name(g->sym->keytypes[i]));
			sb_putc(&sb, ']');
		}
		sb_putc(&sb, '\n');
	}
	dump_used_functions(&sb, s->functions);
	sb_puts(&sb, "# probes\n");
	for (const struct derived_probe *d = s->derived; d; d = d->next) {
		dump_derived_origin(&sb, d);
		dump_locals(&sb, d->locals);
	}
	fputs(sb.buf ? sb.buf : "", out);
	sb_free(&sb);
}
