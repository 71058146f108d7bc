/*
 * emit_data.c - pass 3 for global data: declarations, arrays, statistics,
 * foreach, and the locks each handler takes.
 *
 * Scalars are plain C variables. Arrays are runtime maps (core/map.h).
 * Statistics are kept per CPU (core/globals.c) and merged when read; so are
 * arrays of statistics, one map per CPU. A handler takes the lock of every
 * global it (or a function it calls) uses, in declaration order, before it
 * runs: read locks where it only reads or adds to statistics, write locks
 * where it writes, reads statistics (merging) or sorts.
 */
#include "emit.h"

#include <inttypes.h>
#include <string.h>

enum { ACC_NONE, ACC_READ, ACC_WRITE };

static const char *gname(const struct symbol *sym)
{
	return emit_global_name(sym);
}

static bool is_stats(const struct symbol *sym)
{
	return sym->type == TY_STATS;
}

static const char *utap_type(enum type t)
{
	return t == TY_STRING ? "UTAP_T_STRING" : t == TY_STATS ? "UTAP_T_STATS" : "UTAP_T_LONG";
}

/* ---- histogram specs: one per statistics global, from its uses ---- */

static void set_hist(struct global *g, struct node *n, int type, int64_t start, int64_t stop,
		     int64_t interval)
{
	struct hist_info *h = &g->hist;

	if (h->type && (h->type != type || h->start != start || h->stop != stop ||
			h->interval != interval)) {
		error_at(n->loc, "'%s' is used with two different histograms", g->sym->name);
		note_at(h->loc, "the other histogram is here");
		return;
	}
	h->type = type;
	h->start = start;
	h->stop = stop;
	h->interval = interval;
	h->loc = n->loc;
}

static bool literal(struct node *n, int64_t *v)
{
	if (n && n->kind == N_NUM) {
		*v = n->num;
		return true;
	}
	if (n && n->kind == N_UNARY && !strcmp(n->op, "-") && n->lhs->kind == N_NUM) {
		*v = -n->lhs->num;
		return true;
	}
	return false;
}

static void note_hist(struct node *n)
{
	struct node *x = n->lhs;
	struct global *g = x && x->sym ? x->sym->global : NULL;
	int64_t a[3];
	struct node *p = n->args;

	if (!g)
		return;
	if (!strcmp(n->name, "@hist_log")) {
		set_hist(g, n, 1, 0, 0, 0);
		return;
	}
	for (int i = 0; i < 3; i++, p = p ? p->next : NULL)
		if (!literal(p, &a[i])) {
			error_at(p ? p->loc : n->loc, "@hist_linear parameters must be literal numbers");
			return;
		}
	if (a[2] <= 0 || a[1] <= a[0] || (a[1] - a[0]) / a[2] + 3 > 128) {
		error_at(n->loc, "@hist_linear(%s, %" PRId64 ", %" PRId64 ", %" PRId64 "): needs "
			 "start < stop, interval > 0 and at most 125 buckets", x->name ? x->name :
			 g->sym->name, a[0], a[1], a[2]);
		return;
	}
	set_hist(g, n, 2, a[0], a[1], a[2]);
}

static void note_variance(struct node *n)
{
	struct global *g = n->lhs && n->lhs->sym ? n->lhs->sym->global : NULL;
	int64_t shift;

	if (!g || strcmp(n->name, "@variance") || !n->rhs)
		return;
	if (!literal(n->rhs, &shift) || shift < 0 || shift > 62) {
		error_at(n->rhs->loc, "the @variance bit shift must be a literal from 0 to 62");
		return;
	}
	g->hist.bit_shift = (int)shift;
}

static void walk_hist(struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_HIST)
			note_hist(n);
		if (n->kind == N_STATOP)
			note_variance(n);
		walk_hist(n->lhs);
		walk_hist(n->rhs);
		walk_hist(n->cond);
		walk_hist(n->then);
		walk_hist(n->els);
		walk_hist(n->init);
		walk_hist(n->inc);
		walk_hist(n->body);
		walk_hist(n->catch_body);
		walk_hist(n->args);
		walk_hist(n->fe_limit);
	}
}

/* ---- declarations ---- */

static void emit_hist_spec(struct emitter *em, const struct global *g)
{
	const struct hist_info *h = &g->hist;

	if (h->type == 2)
		sb_printf(&em->top, "static const struct utap_hist_spec %s_hist = { .type = "
			  "UTAP_HIST_LINEAR, .bit_shift = %d, .buckets = %" PRId64 ", .start = "
			  "%" PRId64 "LL, .stop = %" PRId64 "LL, .interval = %" PRId64 "LL };\n",
			  gname(g->sym), h->bit_shift, (h->stop - h->start) / h->interval + 3,
			  h->start, h->stop, h->interval);
	else
		sb_printf(&em->top, "static const struct utap_hist_spec %s_hist = { .type = %s, "
			  ".bit_shift = %d, .buckets = %d };\n", gname(g->sym),
			  h->type == 1 ? "UTAP_HIST_LOG" : "UTAP_HIST_NONE", h->bit_shift,
			  h->type == 1 ? 128 : 0);
}

static void emit_map_spec(struct emitter *em, const struct global *g)
{
	const struct symbol *s = g->sym;

	sb_printf(&em->top, "static const struct utap_map_spec %s_spec = { .nkeys = %d, .keytype "
		  "= {", gname(s), s->arity);
	for (int i = 0; i < s->arity; i++)
		sb_printf(&em->top, " %s,", utap_type(s->keytypes[i]));
	sb_printf(&em->top, " }, .valtype = %s, .wrap = %d, .maxentries = %s, "
		  ".strlen_max = MAXSTRINGLEN, .hist = %s };\n", utap_type(s->type), g->wrap,
		  g->size ? arena_printf("%ld", g->size) : "MAXMAPENTRIES",
		  is_stats(s) ? arena_printf("&%s_hist", gname(s)) : "NULL");
}

static void emit_init_call(struct emitter *em, const char *alloc, const char *free)
{
	sb_printf(&em->init, "\trc = %s;\n\tif (rc)\n\t\treturn rc;\n", alloc);
	sb_printf(&em->exit, "\t%s;\n", free);
}

static void emit_global(struct emitter *em, struct global *g)
{
	struct symbol *s = g->sym;
	const char *n = gname(s);

	sb_printf(&em->top, "static struct utap_lock %s_lock;\n", n);
	if (is_stats(s))
		emit_hist_spec(em, g);
	if (s->arity > 0) {
		emit_map_spec(em, g);
		if (is_stats(s)) {
			sb_printf(&em->top, "static struct utap_pmap %s;\n", n);
			emit_init_call(em, arena_printf("utap_pmap_alloc(&%s, &%s_spec)", n, n),
				       arena_printf("utap_pmap_free(&%s)", n));
		} else {
			sb_printf(&em->top, "static struct utap_map %s;\n", n);
			emit_init_call(em, arena_printf("utap_map_alloc(&%s, &%s_spec)", n, n),
				       arena_printf("utap_map_free(&%s)", n));
		}
		return;
	}
	if (is_stats(s)) {
		sb_printf(&em->top, "static struct utap_pstat %s;\n", n);
		emit_init_call(em, arena_printf("utap_pstat_alloc(&%s, &%s_hist)", n, n),
			       arena_printf("utap_pstat_free(&%s)", n));
	} else if (s->type == TY_STRING) {
		sb_printf(&em->top, "static char %s[MAXSTRINGLEN]%s;\n", n,
			  g->init ? arena_printf(" = %s", c_string_literal(g->init->str,
									     g->init->str_len)) : "");
	} else {
		sb_printf(&em->top, "static int64_t %s%s;\n", n,
			  g->init ? arena_printf(" = %" PRId64 "LL", g->init->num) : "");
	}
}

void emit_globals(struct emitter *em)
{
	struct session *s = em->s;

	for (struct derived_probe *d = s->derived; d; d = d->next) {
		walk_hist(d->body);
		walk_hist(d->cond);
	}
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		walk_hist(fn->body);
	sb_puts(&em->init, "\tint rc __maybe_unused;\n");
	for (struct global *g = s->globals; g; g = g->next_used) {
		if (g->init && g->sym->arity > 0)
			error_at(g->sym->loc, "array '%s' cannot have an initial value", g->sym->name);
		emit_global(em, g);
	}
}

/* ---- which globals a handler uses, and how ---- */

static void access_walk(struct emitter *em, struct node *n, unsigned char *acc);

static void mark(unsigned char *acc, const struct symbol *sym, int mode)
{
	if (sym && sym->kind == SYM_GLOBAL && acc[sym->index] < mode)
		acc[sym->index] = (unsigned char)mode;
}

static const unsigned char *function_access(struct emitter *em, struct function *fn)
{
	int n = em->s->nglobals;

	if (fn->access)
		return fn->access;
	/* a recursive call sees the partial set; it only adds its own uses */
	fn->access = arena_alloc((size_t)n + 1);
	access_walk(em, fn->body, fn->access);
	return fn->access;
}

static struct symbol *target_sym(struct node *n)
{
	if (n->kind == N_VAR || n->kind == N_INDEX)
		return n->sym;
	return NULL;
}

static void access_walk(struct emitter *em, struct node *n, unsigned char *acc)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case N_VAR:
		case N_INDEX:
		case N_IN:
			mark(acc, n->sym, ACC_READ);
			break;
		case N_ASSIGN:
		case N_PREINC:
		case N_POSTINC:
		case N_DELETE:
			mark(acc, target_sym(n->lhs), ACC_WRITE);
			break;
		case N_AGG_ADD:
			mark(acc, target_sym(n->lhs), ACC_READ);	/* this CPU's copy */
			break;
		case N_STATOP:
		case N_HIST:
			mark(acc, target_sym(n->lhs), ACC_WRITE);	/* merges into one */
			break;
		case N_FOREACH: {
			struct node *arr = n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs;

			/* over buckets: the N_HIST under it is marked as any is */
			if (arr->sym)
				mark(acc, arr->sym, n->fe_sort_dir || is_stats(arr->sym) ?
				     ACC_WRITE : ACC_READ);
			break;
		}
		case N_CALL:
			if (n->fn) {
				const unsigned char *fa = function_access(em, n->fn);

				for (int i = 0; i < em->s->nglobals; i++)
					if (acc[i] < fa[i])
						acc[i] = fa[i];
			}
			break;
		default:
			break;
		}
		access_walk(em, n->lhs, acc);
		access_walk(em, n->rhs, acc);
		access_walk(em, n->cond, acc);
		access_walk(em, n->then, acc);
		access_walk(em, n->els, acc);
		access_walk(em, n->init, acc);
		access_walk(em, n->inc, acc);
		access_walk(em, n->body, acc);
		access_walk(em, n->catch_body, acc);
		access_walk(em, n->args, acc);
		access_walk(em, n->fe_limit, acc);
	}
}

/* The lock list of a handler; returns its C name, or NULL when it uses no globals. */
const char *emit_handler_locks(struct emitter *em, struct derived_probe *d, int *count)
{
	int n = em->s->nglobals, k = 0;
	unsigned char *acc = arena_alloc((size_t)n + 1);
	const char *name = arena_printf("utap_locks_%d", d->handler);

	access_walk(em, d->body, acc);
	access_walk(em, d->cond, acc);
	for (int i = 0; i < n; i++)
		k += acc[i] != ACC_NONE;
	*count = k;
	if (!k)
		return NULL;
	sb_printf(&em->top, "static const struct utap_lockreq %s[%d] = {\n", name, k);
	for (struct global *g = em->s->globals; g; g = g->next_used)
		if (acc[g->sym->index])
			sb_printf(&em->top, "\t{ &%s_lock, %d },\n", gname(g->sym),
				  acc[g->sym->index] == ACC_WRITE);
	sb_puts(&em->top, "};\n");
	return name;
}

/* ---- keys ---- */

/* Evaluates the keys (wildcards as 0) and returns "union utap_key kN[] = {...}" text. */
static const char *emit_keys(struct emitter *em, struct node *keys, const char **name,
			     unsigned *mask)
{
	struct strbuf sb = { 0 };
	struct val vals[UTAP_MAX_KEYS];
	int n = 0;
	const char *r;

	*mask = 0;
	for (struct node *k = keys; k && n < UTAP_MAX_KEYS; k = k->next, n++) {
		if (k->kind == N_NULL) {
			vals[n].c = NULL;
			continue;
		}
		/* The value's own type, not the node's: a string local or a
		 * temporary leaves the node's type unset. */
		vals[n] = emit_value(em, k);
		if (vals[n].type == TY_UNKNOWN)
			vals[n].type = k->type;
		*mask |= 1u << n;
	}
	*name = arena_printf("k%d", em->nlabels++);
	sb_printf(&sb, "union utap_key %s[%d] = {", *name, n ? n : 1);
	for (int i = 0; i < n; i++) {
		if (!vals[i].c)
			sb_puts(&sb, " { .l = 0 },");
		else
			sb_printf(&sb, " { .%c = %s },",
				  vals[i].type == TY_STRING ? 's' : 'l', vals[i].c);
	}
	sb_puts(&sb, " };");
	r = arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

static bool full_mask(unsigned mask, int nkeys)
{
	return mask == (1u << nkeys) - 1;
}

/* ---- reading and writing elements ---- */

struct val emit_index_read(struct emitter *em, struct node *n)
{
	struct symbol *s = n->sym;
	const char *k;
	unsigned mask;
	const char *keys = emit_keys(em, n->args, &k, &mask);
	const char *t = s->type == TY_STRING ? emit_new_str(em) : emit_new_long(em);

	if (!full_mask(mask, s->arity))
		error_at(n->loc, "'*' is only allowed in 'in', 'delete' and foreach");
	emit_line(em, "{");
	em->indent++;
	emit_line(em, "%s", keys);
	emit_line(em, "void *v = utap_map_find(&%s, %s);", gname(s), k);
	if (s->type == TY_STRING)
		emit_line(em, "utap_strlcpy(%s, v ? (const char *)v : \"\", MAXSTRINGLEN);", t);
	else
		emit_line(em, "%s = v ? *(int64_t *)v : 0;", t);
	em->indent--;
	emit_line(em, "}");
	return (struct val){ .type = s->type, .c = t, .str_temp = s->type == TY_STRING };
}

struct index_keys emit_index_keys(struct emitter *em, struct node *n)
{
	struct index_keys k;

	k.decl = emit_keys(em, n->args, &k.name, &k.mask);
	if (!full_mask(k.mask, n->sym->arity))
		error_at(n->loc, "'*' is only allowed in 'in', 'delete' and foreach");
	return k;
}

const char *emit_index_insert(struct emitter *em, struct node *n, const struct index_keys *k)
{
	const char *p = arena_printf("p%d", em->nlabels++);

	emit_line(em, "void *%s;", p);
	emit_line(em, "{");
	em->indent++;
	emit_line(em, "%s", k->decl);
	emit_line(em, "%s = utap_map_insert(&%s, %s);", p, gname(n->sym), k->name);
	em->indent--;
	emit_line(em, "}");
	emit_line(em, "if (unlikely(!%s))", p);
	em->indent++;
	emit_fail(em, "Array overflow, check MAXMAPENTRIES", n);
	em->indent--;
	return p;
}

struct val emit_in(struct emitter *em, struct node *n)
{
	struct symbol *s = n->sym;
	const char *k;
	unsigned mask;
	const char *keys = emit_keys(em, n->args, &k, &mask);
	const char *t = emit_new_long(em);

	emit_line(em, "{");
	em->indent++;
	emit_line(em, "%s", keys);
	if (full_mask(mask, s->arity)) {
		if (is_stats(s))
			emit_line(em, "%s = utap_pmap_exists(&%s, %s);", t, gname(s), k);
		else
			emit_line(em, "%s = utap_map_find(&%s, %s) != NULL;", t, gname(s), k);
	} else {
		emit_line(em, "struct utap_map *m = %s;", is_stats(s) ?
			  arena_printf("utap_pmap_aggregate(&%s)", gname(s)) :
			  arena_printf("&%s", gname(s)));
		emit_line(em, "void *e;");
		emit_line(em, "%s = 0;", t);
		emit_line(em, "for (e = utap_map_first(m); e && !%s; e = utap_map_next(m, e))", t);
		emit_line(em, "\t%s = utap_map_entry_matches(m, e, %s, %#xu);", t, k, mask);
	}
	em->indent--;
	emit_line(em, "}");
	return (struct val){ .type = TY_LONG, .c = t };
}

void emit_delete_global(struct emitter *em, struct node *target)
{
	struct symbol *s = target->sym;

	if (target->kind == N_VAR) {
		if (s->arity > 0)
			emit_line(em, is_stats(s) ? "utap_pmap_clear(&%s);" : "utap_map_clear(&%s);",
				  gname(s));
		else if (is_stats(s))
			emit_line(em, "utap_pstat_clear(&%s);", gname(s));
		return;
	}
	{
		const char *k;
		unsigned mask;
		const char *keys = emit_keys(em, target->args, &k, &mask);

		emit_line(em, "{");
		em->indent++;
		emit_line(em, "%s", keys);
		if (full_mask(mask, s->arity)) {
			emit_line(em, is_stats(s) ? "utap_pmap_delete(&%s, %s);" :
				  "utap_map_delete(&%s, %s);", gname(s), k);
		} else if (is_stats(s)) {
			error_at(target->loc, "deleting a slice of a statistics array is not "
				 "supported; delete the whole array or single elements");
		} else {
			emit_line(em, "void *e = utap_map_first(&%s), *nx;", gname(s));
			emit_line(em, "for (; e; e = nx) {");
			emit_line(em, "\tnx = utap_map_next(&%s, e);", gname(s));
			emit_line(em, "\tif (utap_map_entry_matches(&%s, e, %s, %#xu))", gname(s), k,
				  mask);
			emit_line(em, "\t\tutap_map_delete_entry(&%s, e);", gname(s));
			emit_line(em, "}");
		}
		em->indent--;
		emit_line(em, "}");
	}
}

/* ---- statistics ---- */

void emit_agg_add(struct emitter *em, struct node *n)
{
	struct node *x = n->lhs;
	struct symbol *s = x->sym;
	struct val v;

	if (s->kind != SYM_GLOBAL) {
		error_at(x->loc, "statistics '%s' must be a global variable", s->name);
		return;
	}
	if (x->kind == N_VAR) {
		v = emit_value(em, n->rhs);
		emit_line(em, "utap_pstat_add(&%s, %s);", gname(s), v.c);
		return;
	}
	{
		const char *k;
		unsigned mask;
		const char *keys = emit_keys(em, x->args, &k, &mask);
		const char *st = arena_printf("st%d", em->nlabels++);

		v = emit_value(em, n->rhs);
		emit_line(em, "{");
		em->indent++;
		emit_line(em, "%s", keys);
		emit_line(em, "struct utap_stat *%s = utap_pmap_slot(&%s, %s);", st, gname(s), k);
		emit_line(em, "if (unlikely(!%s))", st);
		em->indent++;
		emit_fail(em, "Array overflow, check MAXMAPENTRIES", x);
		em->indent--;
		emit_line(em, "utap_stat_add(%s, &%s_hist, %s);", st, gname(s), v.c);
		em->indent--;
		emit_line(em, "}");
	}
}

/* Leaves a "struct utap_stat *" C expression for the aggregate x (merged over CPUs). */
static const char *emit_aggregate(struct emitter *em, struct node *x)
{
	struct symbol *s = x->sym;
	const char *st = arena_printf("st%d", em->nlabels++);

	emit_line(em, "struct utap_stat *%s;", st);
	if (x->kind == N_VAR) {
		emit_line(em, "%s = utap_pstat_aggregate(&%s);", st, gname(s));
	} else {
		const char *k;
		unsigned mask;
		const char *keys = emit_keys(em, x->args, &k, &mask);

		emit_line(em, "{");
		em->indent++;
		emit_line(em, "%s", keys);
		emit_line(em, "%s = utap_pmap_element(&%s, %s);", st, gname(s), k);
		em->indent--;
		emit_line(em, "}");
	}
	return st;
}

static const char *stat_op_name(const char *op)
{
	if (!strcmp(op, "@count"))
		return "UTAP_STAT_COUNT";
	if (!strcmp(op, "@sum"))
		return "UTAP_STAT_SUM";
	if (!strcmp(op, "@min"))
		return "UTAP_STAT_MIN";
	if (!strcmp(op, "@max"))
		return "UTAP_STAT_MAX";
	if (!strcmp(op, "@avg"))
		return "UTAP_STAT_AVG";
	return "UTAP_STAT_VARIANCE";
}

struct val emit_stat_op(struct emitter *em, struct node *n)
{
	struct node *x = n->lhs;
	const char *t = emit_new_long(em);
	const char *st;

	if (!x->sym || !is_stats(x->sym) || x->sym->kind != SYM_GLOBAL) {
		error_at(x->loc, "%s needs a global statistics variable", n->name);
		return (struct val){ .type = TY_LONG, .c = "0" };
	}
	st = emit_aggregate(em, x);
	if (strcmp(n->name, "@count")) {
		emit_line(em, "if (unlikely(%s->count == 0))", st);
		em->indent++;
		emit_fail(em, "empty aggregate", n);
		em->indent--;
	}
	emit_line(em, "%s = utap_stat_get(%s, &%s_hist, %s);", t, st, gname(x->sym),
		  stat_op_name(n->name));
	return (struct val){ .type = TY_LONG, .c = t };
}

void emit_print_hist(struct emitter *em, struct node *n)
{
	struct node *x = n->lhs;
	const char *st;

	if (!x->sym || !is_stats(x->sym) || x->sym->kind != SYM_GLOBAL) {
		error_at(x->loc, "%s needs a global statistics variable", n->name);
		return;
	}
	st = emit_aggregate(em, x);
	emit_line(em, "if (unlikely(%s->count == 0))", st);
	em->indent++;
	emit_fail(em, "empty aggregate", n);
	em->indent--;
	emit_line(em, "utap_print_hist(c, %s, &%s_hist);", st, gname(x->sym));
}

struct val emit_hist_bucket(struct emitter *em, struct node *n)
{
	struct node *x = n->lhs->lhs;
	const char *t = emit_new_long(em), *i, *st;

	if (!x->sym || !is_stats(x->sym) || x->sym->kind != SYM_GLOBAL) {
		error_at(x->loc, "%s needs a global statistics variable", n->lhs->name);
		return (struct val){ .type = TY_LONG, .c = "0" };
	}
	i = emit_value(em, n->rhs).c;
	emit_line(em, "{");
	em->indent++;
	st = emit_aggregate(em, x);
	emit_line(em, "if (unlikely(%s < 0 || %s >= %s_hist.buckets))", i, i, gname(x->sym));
	em->indent++;
	emit_fail(em, "histogram index out of range", n);
	em->indent--;
	emit_line(em, "%s = %s->hist[%s];", t, st, i);
	em->indent--;
	emit_line(em, "}");
	return (struct val){ .type = TY_LONG, .c = t };
}

/* ---- foreach ---- */

static void bind_foreach_vars(struct emitter *em, struct node *n, struct symbol *arr,
			      const char *m, const char *e)
{
	for (int i = 0; i < n->fe_nkeys; i++) {
		struct symbol *k = n->fe_keys[i];

		if (arr->keytypes[i] == TY_STRING)
			emit_line(em, "utap_strlcpy(l->l_%s, utap_map_key_str(%s, %s, %d), "
				  "MAXSTRINGLEN);", k->name, m, e, i);
		else
			emit_line(em, "l->l_%s = utap_map_key_long(%s, %s, %d);", k->name, m, e, i);
	}
	if (n->fe_value) {
		if (arr->type == TY_STRING)
			emit_line(em, "utap_strlcpy(l->l_%s, utap_map_value(%s, %s), MAXSTRINGLEN);",
				  n->fe_value->name, m, e);
		else
			emit_line(em, "l->l_%s = *(int64_t *)utap_map_value(%s, %s);",
				  n->fe_value->name, m, e);
	}
}

/* Does n (or a function it calls) assign, delete or add to arr? */
static bool modifies(struct node *n, const struct symbol *arr, int depth)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case N_ASSIGN:
		case N_PREINC:
		case N_POSTINC:
		case N_DELETE:
		case N_AGG_ADD:
			if (target_sym(n->lhs) == arr)
				return true;
			break;
		case N_CALL:
			/* and the overloads a next falls through to */
			for (struct function *fn = n->fn; fn && depth < 16;
			     fn = fn->can_next ? fn->overload : NULL)
				if (modifies(fn->body, arr, depth + 1))
					return true;
			break;
		default:
			break;
		}
		if (modifies(n->lhs, arr, depth) || modifies(n->rhs, arr, depth) ||
		    modifies(n->cond, arr, depth) || modifies(n->then, arr, depth) ||
		    modifies(n->els, arr, depth) || modifies(n->init, arr, depth) ||
		    modifies(n->inc, arr, depth) || modifies(n->body, arr, depth) ||
		    modifies(n->catch_body, arr, depth) || modifies(n->args, arr, depth))
			return true;
	}
	return false;
}

/* One iteration's MAXACTION charge. */
static void foreach_charge(struct emitter *em, struct node *n)
{
	emit_line(em, "if (unlikely(--c->actionremaining < 0))");
	em->indent++;
	emit_fail(em, "MAXACTION exceeded", n);
	em->indent--;
}

/* The body with break and continue bound; then the loop's and its block's ends. */
static void foreach_body(struct emitter *em, struct node *n,
			 void (*body)(struct emitter *, struct node *), const char *brk,
			 const char *cont)
{
	emit_loop_body(em, body, n->body, brk, cont);
	em->indent--;
	emit_line(em, "}");
	em->indent--;
	emit_line(em, "}");
	emit_line(em, "%s: __attribute__((unused));", brk);
}

/*
 * foreach (b in @hist_log(x)): every bucket in order, empty ones too, as
 * stap does; v = b binds the bucket's count. b is a copy: the body may change it.
 */
static void emit_foreach_hist(struct emitter *em, struct node *n,
			      void (*body)(struct emitter *, struct node *))
{
	struct node *x = n->lhs->lhs;
	const char *brk = arena_printf("brk_%d", em->nlabels++);
	const char *cont = arena_printf("cont_%d", em->nlabels++);
	const char *b = arena_printf("fb%d", em->nlabels++), *lim = NULL, *st;

	if (!x->sym || !is_stats(x->sym) || x->sym->kind != SYM_GLOBAL) {
		error_at(x->loc, "%s needs a global statistics variable", n->lhs->name);
		return;
	}
	if (n->fe_limit)
		lim = emit_value(em, n->fe_limit).c;
	emit_line(em, "{");
	em->indent++;
	st = emit_aggregate(em, x);
	emit_line(em, "u32 %s;", b);
	emit_line(em, "for (%s = 0; %s < %s_hist.buckets; %s++) {", b, b, gname(x->sym), b);
	em->indent++;
	if (lim)
		emit_line(em, "if (%s >= %s)\n%*s\tbreak;", b, lim, em->indent, "");
	foreach_charge(em, n);
	emit_line(em, "l->l_%s = %s;", n->fe_keys[0]->name, b);
	if (n->fe_value)
		emit_line(em, "l->l_%s = %s->hist[%s];", n->fe_value->name, st, b);
	foreach_body(em, n, body, brk, cont);
}

void emit_foreach(struct emitter *em, struct node *n, void (*body)(struct emitter *,
								  struct node *))
{
	struct node *arr = n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs;
	struct symbol *s = arr->sym;
	const char *brk = arena_printf("brk_%d", em->nlabels++);
	const char *cont = arena_printf("cont_%d", em->nlabels++);
	const char *m = arena_printf("fm%d", em->nlabels++);
	const char *e = arena_printf("fe%d", em->nlabels++);
	const char *idx = arena_printf("fi%d", em->nlabels++);
	const char *lim = NULL, *k = NULL, *keys = NULL;
	unsigned mask = 0;
	bool sorted = n->fe_sort_dir != 0;

	if (n->lhs->kind == N_HIST) {
		emit_foreach_hist(em, n, body);
		return;
	}
	if (s->arity <= 0) {
		error_at(arr->loc, "foreach needs an array; '%s' is a scalar", s->name);
		return;
	}
	if (modifies(n->body, s, 0))
		error_at(n->loc, "array '%s' is modified inside its own foreach loop", s->name);
	if (n->fe_limit)
		lim = emit_value(em, n->fe_limit).c;
	if (n->lhs->kind == N_INDEX)
		keys = emit_keys(em, n->lhs->args, &k, &mask);
	emit_line(em, "{");
	em->indent++;
	if (keys)
		emit_line(em, "%s", keys);
	emit_line(em, "struct utap_map *%s = %s;", m, is_stats(s) ?
		  arena_printf("utap_pmap_aggregate(&%s)", gname(s)) : arena_printf("&%s", gname(s)));
	emit_line(em, "void *%s;", e);
	emit_line(em, "int64_t %s = 0;", idx);
	if (sorted) {
		const char *buf = arena_printf("utap_sortbuf_%d", em->nsortbufs++);
		const char *cnt = arena_printf("fn%d", em->nlabels++);

		sb_printf(&em->top, "static void **%s;\n", buf);
		sb_printf(&em->init, "\t%s = vmalloc(sizeof(void *) * %s_spec.maxentries);\n"
			  "\tif (!%s)\n\t\treturn -ENOMEM;\n", buf, gname(s), buf);
		sb_printf(&em->exit, "\tvfree(%s);\n", buf);
		emit_line(em, "u32 %s = utap_map_sort(%s, %s, %d, %d, %s, -1), j%s;",
			  cnt, m, buf, n->fe_sort_col, n->fe_sort_dir,
			  stat_op_name(n->fe_sort_agg ? n->fe_sort_agg : "@count"), cnt);
		emit_line(em, "for (j%s = 0; j%s < %s; j%s++) {", cnt, cnt, cnt, cnt);
		em->indent++;
		emit_line(em, "%s = %s[j%s];", e, buf, cnt);
	} else {
		emit_line(em, "for (%s = utap_map_first(%s); %s; %s = utap_map_next(%s, %s)) {", e,
			  m, e, e, m, e);
		em->indent++;
	}
	if (keys)
		emit_line(em, "if (!utap_map_entry_matches(%s, %s, %s, %#xu))\n%*s\tcontinue;", m, e,
			  k, mask, em->indent, "");
	if (lim)
		emit_line(em, "if (%s >= %s)\n%*s\tbreak;", idx, lim, em->indent, "");
	emit_line(em, "%s++;", idx);
	foreach_charge(em, n);
	bind_foreach_vars(em, n, s, m, e);
	foreach_body(em, n, body, brk, cont);
}

/* ---- stap prints globals that are written but never read when the session ends ---- */

static void used_globals(struct emitter *em, unsigned char *read, unsigned char *written)
{
	/* reads are every access that is not a pure write; computed from the AST */
	for (struct derived_probe *d = em->s->derived; d; d = d->next) {
		access_walk(em, d->body, written);
		emit_reads(em, d->body, read);
		emit_reads(em, d->cond, read);
	}
	for (struct function *fn = em->s->functions; fn; fn = fn->next_used)
		emit_reads(em, fn->body, read);
}

void emit_global_autoprint(struct emitter *em)
{
	int n = em->s->nglobals;
	unsigned char *read = arena_alloc((size_t)n + 1), *written = arena_alloc((size_t)n + 1);

	used_globals(em, read, written);
	for (struct global *g = em->s->globals; g; g = g->next_used) {
		struct symbol *s = g->sym;

		if (read[s->index] || !written[s->index] || g->src->is_tapset)
			continue;
		if (s->arity > 0) {
			const char *buf = arena_printf("utap_autoprint_buf_%d", s->index);

			sb_printf(&em->top, "static void **%s;\n", buf);
			sb_printf(&em->init, "\t%s = vmalloc(sizeof(void *) * %s_spec.maxentries);\n"
				  "\tif (!%s)\n\t\treturn -ENOMEM;\n", buf, gname(s), buf);
			sb_printf(&em->exit, "\tvfree(%s);\n", buf);
			sb_printf(&em->autoprint, "\t\tutap_autoprint_%s(c, \"%s\", &%s, %s);\n",
				  is_stats(s) ? "pmap" : "map", s->name, gname(s), buf);
		} else {
			sb_printf(&em->autoprint, "\t\tutap_autoprint_%s(c, \"%s\", %s%s);\n",
				  is_stats(s) ? "pstat" : s->type == TY_STRING ? "str" : "long",
				  s->name, s->type == TY_STRING ? "" : "&", gname(s));
		}
	}
}

static void reads_list(struct emitter *em, struct node *n, unsigned char *read)
{
	for (; n; n = n->next)
		emit_reads(em, n, read);
}

static bool is_write(const struct node *n)
{
	return n && (n->kind == N_ASSIGN || n->kind == N_PREINC || n->kind == N_POSTINC ||
		     n->kind == N_AGG_ADD || n->kind == N_DELETE);
}

/* A write whose value nobody uses (a statement, a for's init or step): not a read. */
static void unused_write_reads(struct emitter *em, struct node *n, unsigned char *read)
{
	if (!is_write(n)) {
		emit_reads(em, n, read);
		return;
	}
	if (n->lhs->kind == N_INDEX)
		reads_list(em, n->lhs->args, read);
	emit_reads(em, n->rhs, read);
}

/*
 * Marks the globals n reads. A write (=, ++, <<<, delete) on its own is not
 * a read; one whose value an expression uses (--d == 0) is, as in stap.
 */
void emit_reads(struct emitter *em, struct node *n, unsigned char *read)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_EXPR_STMT:
		unused_write_reads(em, n->lhs, read);
		return;
	case N_FOR:
		unused_write_reads(em, n->init, read);
		unused_write_reads(em, n->inc, read);
		emit_reads(em, n->cond, read);
		emit_reads(em, n->body, read);
		return;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		mark(read, (n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs)->sym, ACC_READ);
		unused_write_reads(em, n, read);
		return;
	case N_AGG_ADD:
	case N_DELETE:
		unused_write_reads(em, n, read);
		return;
	case N_VAR:
	case N_INDEX:
	case N_IN:
		mark(read, n->sym, ACC_READ);
		break;
	case N_STATOP:
	case N_HIST:
		mark(read, target_sym(n->lhs), ACC_READ);
		break;
	case N_FOREACH:
		mark(read, (n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs)->sym, ACC_READ);
		break;
	case N_CALL:
		if (n->fn && !n->fn->reads_walked) {
			n->fn->reads_walked = true;
			emit_reads(em, n->fn->body, read);
		}
		break;
	default:
		break;
	}
	emit_reads(em, n->lhs, read);
	emit_reads(em, n->rhs, read);
	emit_reads(em, n->cond, read);
	emit_reads(em, n->then, read);
	emit_reads(em, n->els, read);
	emit_reads(em, n->init, read);
	emit_reads(em, n->inc, read);
	reads_list(em, n->body, read);
	emit_reads(em, n->catch_body, read);
	reads_list(em, n->args, read);
	emit_reads(em, n->fe_limit, read);
}
