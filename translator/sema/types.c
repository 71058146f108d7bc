/*
 * types.c - pass 2, part 2: type inference.
 *
 * Every variable, array key, parameter and return value is long, string
 * or statistics. Types flow both ways through assignments, calls and
 * comparisons; we iterate until nothing changes, then make one more pass
 * that reports conflicts and anything still unknown.
 */
#include "sema/sema.h"
#include "sema/provider.h"

#include <string.h>

static bool changed;
static bool checking;	/* the final pass reports errors */

static void mismatch(struct loc loc, const char *what, enum type have, enum type want)
{
	if (checking)
		error_at(loc, "type mismatch: %s is %s here but %s is expected", what,
			 type_name(have), type_name(want));
}

static void unify(enum type *slot, enum type t, struct loc loc, const char *what)
{
	if (t == TY_UNKNOWN)
		return;
	if (*slot == TY_UNKNOWN) {
		*slot = t;
		changed = true;
	} else if (*slot != t) {
		mismatch(loc, what, t, *slot);
	}
}

static enum type infer(struct node *n, enum type want);

static void infer_list(struct node *n)
{
	for (; n; n = n->next)
		infer(n, TY_UNKNOWN);
}

static enum type expect_type(struct node *n, enum type t, const char *what)
{
	enum type got = infer(n, t);

	if (got != TY_UNKNOWN && got != t)
		mismatch(n->loc, what, got, t);
	return t;
}

static const char *sym_what(const struct symbol *s)
{
	return arena_printf("'%s'", s->name);
}

static enum type infer_var(struct node *n, enum type want)
{
	struct symbol *s = n->sym;

	if (!s)
		return TY_UNKNOWN;
	if (s->type == TY_STATS && checking)
		error_at(n->loc, "'%s' is a statistics aggregate; read it with @count, @sum, @min, "
			 "@max, @avg or @hist_*", s->name);
	if (want != TY_UNKNOWN && want != TY_STATS)
		unify(&s->type, want, n->loc, sym_what(s));
	return s->type;
}

static void infer_keys(struct symbol *s, struct node *keys)
{
	int i = 0;

	for (struct node *k = keys; k; k = k->next, i++) {
		enum type t;

		if (k->kind == N_NULL || !s || i >= UTAP_MAX_KEYS)
			continue;
		t = infer(k, s->keytypes[i]);
		unify(&s->keytypes[i], t, k->loc, arena_printf("key %d of '%s'", i + 1, s->name));
	}
}

static enum type infer_index(struct node *n, enum type want)
{
	struct symbol *s = n->sym;

	infer_keys(s, n->args);
	if (!s)
		return TY_UNKNOWN;
	if (want != TY_UNKNOWN)
		unify(&s->type, want, n->loc, arena_printf("an element of '%s'", s->name));
	return s->type;
}

/* Two slots that must end up the same type (one error if they differ). */
static void unify_both(enum type *a, enum type *b, struct loc loc, const char *what)
{
	if (*a == TY_UNKNOWN)
		unify(a, *b, loc, what);
	else
		unify(b, *a, loc, what);
}

/* A call's same-arity overloads take its arguments and give its value, reached or not. */
static void unify_overloads(struct function *fn, struct node *call)
{
	for (struct function *o = fn->overload; o; fn = o, o = o->overload) {
		struct symbol *p = fn->params, *q = o->params;

		for (struct node *a = call->args; a && p && q; a = a->next, p = p->next, q = q->next) {
			const char *what = arena_printf("argument '%s' of function '%s'", q->name,
							o->name);

			unify_both(&p->type, &q->type, a->loc, what);
		}
		unify_both(&fn->ret, &o->ret, call->loc, arena_printf("the value of '%s'", o->name));
	}
}

static enum type infer_call(struct node *n, enum type want)
{
	struct function *fn = n->fn;
	struct symbol *p;
	struct node *a;

	if (!fn) {
		infer_list(n->args);
		return TY_UNKNOWN;
	}
	for (a = n->args, p = fn->params; a && p; a = a->next, p = p->next) {
		enum type t = infer(a, p->type);

		unify(&p->type, t, a->loc,
		      arena_printf("argument '%s' of function '%s'", p->name, fn->name));
	}
	if (want != TY_UNKNOWN && want != TY_STATS)
		unify(&fn->ret, want, n->loc, arena_printf("the value of '%s'", fn->name));
	unify_overloads(fn, n);
	return fn->ret;
}

static enum type conv_arg_type(const struct fmt_piece *pc)
{
	return pc->conv == FC_STRING || pc->conv == FC_MEMORY || pc->conv == FC_MEMORY_HEX ?
	       TY_STRING : TY_LONG;
}

static void infer_printf_args(struct node *n, struct node *args)
{
	struct node *a = args;
	int argno = 2;

	for (const struct fmt_piece *pc = n->fmt->pieces; pc && a; pc = pc->next) {
		if (pc->conv == FC_LITERAL)
			continue;
		if (pc->width == -2 && a) {
			expect_type(a, TY_LONG, arena_printf("the '*' width (argument %d)", argno++));
			a = a->next;
		}
		if (pc->prec == -2 && a) {
			expect_type(a, TY_LONG, arena_printf("the '*' precision (argument %d)", argno++));
			a = a->next;
		}
		if (!a)
			break;
		if (pc->conv == FC_MEMORY || pc->conv == FC_MEMORY_HEX)
			expect_type(a, TY_LONG, arena_printf("argument %d (an address)", argno));
		else
			expect_type(a, conv_arg_type(pc), arena_printf("argument %d", argno));
		argno++;
		a = a->next;
	}
}

/* Parses a printf format once, before inference, so errors are reported once. */
static void prepare_print(struct node *n)
{
	struct node *fmt = n->args;

	if (n->temp)
		return;
	n->temp = 1;
	if (!(n->print_flags & PF_FORMAT))
		return;
	if (!fmt) {
		error_at(n->loc, "'%s' needs a format argument", n->name);
		return;
	}
	if (fmt->kind != N_STR) {
		error_at(fmt->loc, "the format of '%s' must be a string literal", n->name);
		return;
	}
	n->fmt = parse_format(fmt->str, fmt->str_len, fmt->loc);
	if (n->fmt && n->fmt->nargs != n->nargs - 1) {
		struct strbuf q = { 0 };

		dump_expr(&q, fmt);
		error_at(n->loc, "format %s wants %d argument%s but %d %s given", q.buf,
			 n->fmt->nargs, n->fmt->nargs == 1 ? "" : "s", n->nargs - 1,
			 n->nargs - 1 == 1 ? "is" : "are");
		sb_free(&q);
	}
}

static enum type infer_print(struct node *n)
{
	struct node *args = n->args;

	prepare_print(n);
	if (n->print_flags & PF_FORMAT) {
		if (n->fmt && args)
			infer_printf_args(n, args->next);
	} else {
		if ((n->print_flags & PF_DELIM) && args) {
			expect_type(args, TY_STRING, "the delimiter");
			args = args->next;
		}
		for (struct node *a = args; a; a = a->next)
			infer(a, TY_UNKNOWN);
		if (checking && !args && !(n->print_flags & PF_NEWLINE))
			error_at(n->loc, "'%s' needs at least one argument", n->name);
	}
	return n->print_flags & PF_TO_STRING ? TY_STRING : TY_UNKNOWN;
}

static enum type infer_stats_operand(struct node *x)
{
	struct symbol *s = x->sym;

	if (x->kind != N_VAR && x->kind != N_INDEX) {
		if (checking)
			error_at(x->loc, "statistics operators need an aggregate variable or array "
				 "element");
		return TY_UNKNOWN;
	}
	if (x->kind == N_INDEX)
		infer_keys(s, x->args);
	if (s)
		unify(&s->type, TY_STATS, x->loc, sym_what(s));
	return TY_STATS;
}

static enum type infer_assign(struct node *n)
{
	const char *op = n->op;
	enum type lt, rt;

	if (!strcmp(op, "=")) {
		lt = n->lhs->kind == N_VAR && n->lhs->sym ? n->lhs->sym->type :
		     n->lhs->kind == N_INDEX && n->lhs->sym ? n->lhs->sym->type : TY_UNKNOWN;
		rt = infer(n->rhs, lt == TY_STATS ? TY_UNKNOWN : lt);
		if (lt != TY_UNKNOWN && rt != TY_UNKNOWN && lt != rt && lt != TY_STATS) {
			/* one message for one mistake: the value does not fit the variable */
			if (checking)
				error_at(n->rhs->loc, "type mismatch: assigning a %s to '%s', which is "
					 "%s", type_name(rt), n->lhs->sym ? n->lhs->sym->name : "?",
					 type_name(lt));
			return lt;
		}
		lt = infer(n->lhs, rt);
		if (rt == TY_UNKNOWN)
			rt = infer(n->rhs, lt);
		return lt;
	}
	if (!strcmp(op, ".=")) {
		expect_type(n->lhs, TY_STRING, "the left side of '.='");
		expect_type(n->rhs, TY_STRING, "the right side of '.='");
		return TY_STRING;
	}
	expect_type(n->lhs, TY_LONG, arena_printf("the left side of '%s'", op));
	expect_type(n->rhs, TY_LONG, arena_printf("the right side of '%s'", op));
	return TY_LONG;
}

static enum type infer_compare(struct node *n)
{
	enum type lt = infer(n->lhs, TY_UNKNOWN);
	enum type rt = infer(n->rhs, lt);

	if (lt == TY_UNKNOWN)
		lt = infer(n->lhs, rt);
	if (lt != TY_UNKNOWN && rt != TY_UNKNOWN && lt != rt)
		mismatch(n->rhs->loc, arena_printf("the right side of '%s'", n->op), rt, lt);
	if (checking && (lt == TY_STATS || rt == TY_STATS))
		error_at(n->loc, "cannot compare statistics aggregates");
	return TY_LONG;
}

/* A bucket number and, bound, the bucket's count: both long. */
static void infer_foreach_hist(struct node *n)
{
	infer(n->lhs, TY_UNKNOWN);
	if (n->fe_keys[0])
		unify(&n->fe_keys[0]->type, TY_LONG, n->fe_keys[0]->loc, sym_what(n->fe_keys[0]));
	if (n->fe_value)
		unify(&n->fe_value->type, TY_LONG, n->fe_value->loc, sym_what(n->fe_value));
	if (n->fe_limit)
		expect_type(n->fe_limit, TY_LONG, "the foreach limit");
	infer(n->body, TY_UNKNOWN);
}

static void infer_foreach(struct node *n)
{
	struct node *arr = n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs;
	struct symbol *s = arr->sym;

	if (n->lhs->kind == N_HIST) {
		infer_foreach_hist(n);
		return;
	}
	if (n->fe_sort_agg && s && s->type != TY_STATS && s->type != TY_UNKNOWN && checking)
		error_at(arr->loc, "foreach sorts by %s only over a statistics array",
			 n->fe_sort_agg);

	if (n->lhs->kind == N_INDEX)
		infer_keys(s, n->lhs->args);
	for (int i = 0; s && i < n->fe_nkeys; i++) {
		struct symbol *k = n->fe_keys[i];

		unify(&k->type, s->keytypes[i], k->loc, sym_what(k));
		unify(&s->keytypes[i], k->type, k->loc, arena_printf("key %d of '%s'", i + 1,
								       s->name));
	}
	if (n->fe_value && s) {
		if (s->type == TY_STATS) {
			if (checking)
				error_at(n->fe_value->loc, "foreach cannot bind the value of a "
					 "statistics array; use @count(%s[...]) etc.", s->name);
		} else {
			unify(&n->fe_value->type, s->type, n->fe_value->loc, sym_what(n->fe_value));
			unify(&s->type, n->fe_value->type, n->fe_value->loc, sym_what(s));
		}
	}
	if (n->fe_limit)
		expect_type(n->fe_limit, TY_LONG, "the foreach limit");
	infer(n->body, TY_UNKNOWN);
}

static struct function *cur_fn;

static enum type infer_node(struct node *n, enum type want);

/* Infers n's type and records it on the node, where pass 3 reads it (?: picks its temporary by it). */
static enum type infer(struct node *n, enum type want)
{
	enum type t = infer_node(n, want);

	if (n && t != TY_UNKNOWN)
		n->type = t;
	return t;
}

/* The script values a target variable reads: [index] expressions, @cast's pointer */
static void infer_target_operands(struct node *n)
{
	for (struct node *a = n->args; a; a = a->next)
		if (!(a->op && !strcmp(a->op, "->")) && a->kind != N_NUM)
			expect_type(a, TY_LONG, "an index");
	if (n->kind == N_CAST && n->name && !strcmp(n->name, "@cast") && n->lhs &&
	    n->lhs->kind != N_NUM)
		expect_type(n->lhs, TY_LONG, "the address @cast reads");
}

static enum type infer_node(struct node *n, enum type want)
{
	enum type t;

	if (!n)
		return TY_UNKNOWN;
	switch (n->kind) {
	case N_NUM:
	case N_ARGC:
		return TY_LONG;
	case N_TARGET:
	case N_CAST:
	case N_ENTRY:
		infer_target_operands(n);
		return n->type;	/* set by the provider in pass 2 */
	case N_STR:
		return TY_STRING;
	case N_VAR:
		return infer_var(n, want);
	case N_INDEX:
		return infer_index(n, want);
	case N_CALL:
		return infer_call(n, want);
	case N_PRINT:
		return infer_print(n);
	case N_BINARY:
	case N_LOGICAL:
		expect_type(n->lhs, TY_LONG, arena_printf("the left operand of '%s'", n->op));
		expect_type(n->rhs, TY_LONG, arena_printf("the right operand of '%s'", n->op));
		return TY_LONG;
	case N_COMPARE:
		return infer_compare(n);
	case N_REGEX:
		expect_type(n->lhs, TY_STRING, arena_printf("the left operand of '%s'", n->op));
		return TY_LONG;
	case N_CONCAT:
		expect_type(n->lhs, TY_STRING, "the left operand of '.'");
		expect_type(n->rhs, TY_STRING, "the right operand of '.'");
		return TY_STRING;
	case N_UNARY:
		expect_type(n->lhs, TY_LONG, arena_printf("the operand of '%s'", n->op));
		return TY_LONG;
	case N_PREINC:
	case N_POSTINC:
		expect_type(n->lhs, TY_LONG, arena_printf("the operand of '%s'", n->op));
		return TY_LONG;
	case N_ASSIGN:
		return infer_assign(n);
	case N_AGG_ADD:
		infer_stats_operand(n->lhs);
		expect_type(n->rhs, TY_LONG, "the value added with '<<<'");
		return TY_UNKNOWN;
	case N_TERNARY:
		expect_type(n->cond, TY_LONG, "the condition");
		t = infer(n->then, want);
		if (t == TY_UNKNOWN)
			t = infer(n->els, want);
		{
			enum type a = infer(n->then, t), b = infer(n->els, t);

			if (a != TY_UNKNOWN && b != TY_UNKNOWN && a != b)
				mismatch(n->els->loc, "the second branch of '?:'", b, a);
			return a != TY_UNKNOWN ? a : b;
		}
	case N_IN:
		infer_keys(n->sym, n->args);
		return TY_LONG;
	case N_STATOP:
		infer_stats_operand(n->lhs);
		if (n->rhs)
			expect_type(n->rhs, TY_LONG, "the @variance bit shift");
		return TY_LONG;
	case N_HIST:
		infer_stats_operand(n->lhs);
		for (struct node *a = n->args; a; a = a->next)
			expect_type(a, TY_LONG, "a histogram parameter");
		return TY_UNKNOWN;
	case N_BUCKET:
		infer(n->lhs, TY_UNKNOWN);
		expect_type(n->rhs, TY_LONG, "a histogram bucket number");
		return TY_LONG;
	case N_EMBED:
		return n->type;	/* an expression's type is set by the parser; a statement's unknown */
	case N_BLOCK:
		infer_list(n->body);
		return TY_UNKNOWN;
	case N_EXPR_STMT:
		infer(n->lhs, TY_UNKNOWN);
		return TY_UNKNOWN;
	case N_IF:
		expect_type(n->cond, TY_LONG, "the if condition");
		infer(n->then, TY_UNKNOWN);
		infer(n->els, TY_UNKNOWN);
		return TY_UNKNOWN;
	case N_WHILE:
	case N_FOR:
		infer(n->init, TY_UNKNOWN);
		if (n->cond)
			expect_type(n->cond, TY_LONG, "the loop condition");
		infer(n->inc, TY_UNKNOWN);
		infer(n->body, TY_UNKNOWN);
		return TY_UNKNOWN;
	case N_FOREACH:
		infer_foreach(n);
		return TY_UNKNOWN;
	case N_RETURN:
		if (n->lhs && cur_fn) {
			t = infer(n->lhs, cur_fn->ret);
			unify(&cur_fn->ret, t, n->lhs->loc,
			      arena_printf("the return value of '%s'", cur_fn->name));
		}
		return TY_UNKNOWN;
	case N_DELETE:
		if (n->lhs->kind == N_INDEX)
			infer_keys(n->lhs->sym, n->lhs->args);
		return TY_UNKNOWN;
	case N_TRY:
		infer(n->body, TY_UNKNOWN);
		if (n->catch_var)
			unify(&n->catch_var->type, TY_STRING, n->catch_var->loc, "the catch variable");
		infer(n->catch_body, TY_UNKNOWN);
		return TY_UNKNOWN;
	default:
		return TY_UNKNOWN;
	}
}

static void infer_all(struct session *s)
{
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		cur_fn = NULL;
		if (d->cond)
			expect_type(d->cond, TY_LONG, "the probe condition");
		infer(d->body, TY_UNKNOWN);
	}
	for (struct function *fn = s->functions; fn; fn = fn->next_used) {
		cur_fn = fn;
		infer(fn->body, TY_UNKNOWN);
	}
	cur_fn = NULL;
}

static void check_symbol(const struct symbol *sym, const char *owner)
{
	if (sym->type == TY_STATS && sym->kind != SYM_GLOBAL) {
		error_at(sym->loc, "statistics '%s' must be a global variable", sym->name);
		return;
	}
	/* after other errors an unknown type is usually their echo */
	if (sym->type == TY_UNKNOWN && diag_errors)
		return;
	if (sym->type == TY_UNKNOWN)
		error_at(sym->loc, "cannot infer the type of %s '%s'%s", owner, sym->name,
			 sym->kind == SYM_LOCAL ? " (it is never assigned a value)" : "");
	for (int i = 0; i < sym->arity && !diag_errors; i++)
		if (sym->keytypes[i] == TY_UNKNOWN)
			error_at(sym->loc, "cannot infer the type of key %d of array '%s'", i + 1,
				 sym->name);
}

static bool returns_value(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_RETURN && n->lhs)
			return true;
		if (returns_value(n->then) || returns_value(n->els) || returns_value(n->body) ||
		    returns_value(n->catch_body))
			return true;
	}
	return false;
}

static void check_unknowns(struct session *s)
{
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		if (fn->ret == TY_UNKNOWN && returns_value(fn->body))
			error_at(fn->loc, "cannot infer the return type of function '%s' (declare it, "
				 "e.g. 'function %s:long (...)')", fn->name, fn->name);
	for (struct global *g = s->globals; g; g = g->next_used)
		check_symbol(g->sym, "global");
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		for (struct symbol *l = fn->locals; l; l = l->next)
			check_symbol(l, l->kind == SYM_PARAM ? "parameter" : "local");
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		bool seen = false;

		for (struct derived_probe *e = s->derived; e != d; e = e->next)
			if (e->handler == d->handler)
				seen = true;
		if (seen)
			continue;
		for (struct symbol *l = d->locals; l; l = l->next)
			check_symbol(l, "local");
	}
}

int infer_types(struct session *s)
{
	/* global initializers fix their types up front */
	for (struct global *g = s->globals; g; g = g->next_used)
		if (g->init)
			unify(&g->sym->type, g->init->type, g->sym->loc, sym_what(g->sym));
	for (int round = 0; round < 100; round++) {
		changed = false;
		infer_all(s);
		if (!changed)
			break;
	}
	checking = true;
	infer_all(s);
	check_unknowns(s);
	return diag_errors ? -1 : 0;
}
