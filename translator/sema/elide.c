/*
 * elide.c - pass 2's dead-code elision, as stap 4.8's pass 2 does it:
 * an assignment to a local nothing reads becomes its right side, and an
 * expression statement without side effects is dropped (each with a
 * warning), until nothing changes; locals no statement names any more
 * leave the probe's list. Side-effect free: literals, reads of variables,
 * arrays and target variables, operators over those, sprint*() of them,
 * and calls to functions that are: embedded C marked pure, or a script
 * body that writes no global, prints nothing and calls only such functions.
 */
#include "sema/provider.h"
#include "sema/sema.h"

#include <string.h>

static bool pure_expr(const struct node *n);
static bool pure_stmts(const struct node *n);

/* 0 not known, 1 being looked at (a recursive call counts as pure), 2 pure, 3 not */
static unsigned char *fn_state;
static struct function **fn_seen;
static int nfn, capfn;

static int fn_slot(struct function *fn)
{
	for (int i = 0; i < nfn; i++)
		if (fn_seen[i] == fn)
			return i;
	if (nfn == capfn) {
		int cap = capfn ? capfn * 2 : 64;
		struct function **f = arena_alloc(sizeof(*f) * (size_t)cap);
		unsigned char *st = arena_alloc((size_t)cap);

		if (nfn) {
			memcpy(f, fn_seen, sizeof(*f) * (size_t)nfn);
			memcpy(st, fn_state, (size_t)nfn);
		}
		fn_seen = f;
		fn_state = st;
		capfn = cap;
	}
	fn_seen[nfn] = fn;
	fn_state[nfn] = 0;
	return nfn++;
}

static bool pure_function(struct function *fn)
{
	int i = fn_slot(fn);

	if (fn_state[i] == 0) {
		fn_state[i] = 1;
		fn_state[i] = (fn->embedded ? fn->pure : pure_stmts(fn->body)) ? 2 : 3;
	}
	return fn_state[i] != 3;
}

static bool pure_list(const struct node *n)
{
	for (; n; n = n->next)
		if (!pure_expr(n))
			return false;
	return true;
}

static bool pure_call(const struct node *n)
{
	/* 'next' may run any later overload */
	for (struct function *fn = n->fn; fn; fn = fn->can_next ? fn->overload : NULL)
		if (!pure_function(fn))
			return false;
	return n->fn && pure_list(n->args);
}

static bool pure_expr(const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_NUM:
	case N_STR:
	case N_VAR:
	case N_ARGC:
	case N_NULL:
	case N_TARGET:
	case N_CAST:
	case N_ENTRY:
		return true;
	case N_INDEX:
	case N_IN:
		return pure_list(n->args);
	case N_BINARY:
	case N_LOGICAL:
	case N_COMPARE:
	case N_CONCAT:
	case N_UNARY:
	case N_REGEX:
	case N_STATOP:
	case N_BUCKET:
		return pure_expr(n->lhs) && pure_expr(n->rhs);
	case N_HIST:
		return pure_expr(n->lhs) && pure_list(n->args);
	case N_TERNARY:
		return pure_expr(n->cond) && pure_expr(n->then) && pure_expr(n->els);
	case N_PRINT:
		return (n->print_flags & PF_TO_STRING) && pure_list(n->args);
	case N_CALL:
		return pure_call(n);
	case N_EMBED:
		return n->str && strstr(n->str, "/* pure */");
	default:
		return false;
	}
}

/* A write to a local of the function itself is no side effect. */
static bool local_lvalue(const struct node *lv)
{
	return lv->kind == N_VAR && lv->sym && lv->sym->kind != SYM_GLOBAL;
}

static bool pure_stmt(const struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		return pure_stmts(n->body);
	case N_EXPR_STMT:
	case N_RETURN:
		return pure_stmts(n->lhs);
	case N_ASSIGN:
		return local_lvalue(n->lhs) && pure_expr(n->rhs);
	case N_PREINC:
	case N_POSTINC:
		return local_lvalue(n->lhs);
	case N_IF:
	case N_WHILE:
	case N_FOR:
		return pure_expr(n->cond) && pure_stmts(n->then) && pure_stmts(n->els) &&
		       pure_stmts(n->init) && pure_stmts(n->inc) && pure_stmts(n->body);
	case N_FOREACH:
		return pure_expr(n->lhs) && pure_expr(n->fe_limit) && pure_stmts(n->body);
	case N_TRY:
		return pure_stmts(n->body) && pure_stmts(n->catch_body);
	case N_NEXT:
	case N_BREAK:
	case N_CONTINUE:
		return true;
	default:
		return pure_expr(n);
	}
}

static bool pure_stmts(const struct node *n)
{
	for (; n; n = n->next)
		if (!pure_stmt(n))
			return false;
	return true;
}

/* ---- the locals a body reads ---- */

struct reads {
	const struct symbol *sym;
	bool read;
};

/* On a list of nodes, with their subtrees */
static void find_read(struct node *n, void *arg)
{
	struct reads *r = arg;

	for (; n && !r->read; n = n->next) {
		/* the target of a plain '=' is no read; x++ and x += 1 are */
		if (n->kind == N_ASSIGN && !strcmp(n->op, "=") && n->lhs->kind == N_VAR) {
			find_read(n->rhs, r);
			continue;
		}
		if (n->kind == N_VAR && n->sym == r->sym)
			r->read = true;
		visit_children(n, find_read, r);
	}
}

static bool is_read(struct node *body, const struct symbol *sym)
{
	struct reads r = { sym, false };

	find_read(body, &r);
	return r.read;
}

struct names {
	const struct symbol *sym;
	bool named;
};

static void find_name(struct node *n, void *arg)
{
	struct names *m = arg;

	m->named |= n->sym == m->sym || n->catch_var == m->sym || n->fe_value == m->sym;
	for (int i = 0; i < n->fe_nkeys; i++)
		m->named |= n->fe_keys[i] == m->sym;
}

/* ---- eliding ---- */

/* As stap, only what the script itself wrote is reported: its tapsets' aliases
 * set many variables a script leaves unread. */
static void elided(struct loc loc, const char *what)
{
	if (!loc.src || !loc.src->is_tapset)
		warn_at(loc, "eliding %s", what);
}

struct elider {
	struct node *root;	/* the whole body, where reads are looked for */
	bool changed;
};

static bool dead_store(struct elider *e, const struct node *st)
{
	const struct node *a = st->lhs;

	return a && a->kind == N_ASSIGN && !strcmp(a->op, "=") && a->lhs->kind == N_VAR &&
	       a->lhs->sym && a->lhs->sym->kind == SYM_LOCAL && !is_read(e->root, a->lhs->sym);
}

static void elide_list(struct elider *e, struct node **list);

/* Into the blocks under a statement: only a block's list loses statements. */
static void elide_branch(struct elider *e, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		elide_list(e, &n->body);
		return;
	case N_IF:
		elide_branch(e, n->then);
		elide_branch(e, n->els);
		return;
	case N_WHILE:
	case N_FOR:
	case N_FOREACH:
		elide_branch(e, n->body);
		return;
	case N_TRY:
		elide_branch(e, n->body);
		elide_branch(e, n->catch_body);
		if (n->catch_var && !is_read(n->catch_body, n->catch_var)) {
			n->catch_var = NULL;	/* catch (e) where e is not read: catch */
			e->changed = true;
		}
		return;
	default:
		return;
	}
}

static bool empty_block(const struct node *n)
{
	return !n || (n->kind == N_BLOCK && !n->body);
}

/* An if or foreach left with nothing to run, on operands without side effects */
static bool idle(const struct node *st)
{
	/* (an if whose dead branch pass 2 dropped is not stap's to report) */
	if (st->kind == N_IF)
		return st->then && empty_block(st->then) && empty_block(st->els) &&
		       pure_expr(st->cond);
	return st->kind == N_FOREACH && empty_block(st->body) && pure_expr(st->lhs) &&
	       pure_expr(st->fe_limit);
}

static void elide_list(struct elider *e, struct node **list)
{
	for (struct node **p = list; *p;) {
		struct node *st = *p;

		if (st->kind == N_EXPR_STMT && dead_store(e, st)) {
			elided(st->lhs->loc, arena_printf("the assignment to '%s', which nothing "
							  "reads", st->lhs->lhs->name));
			st->lhs = st->lhs->rhs;
			e->changed = true;
		}
		if (st->kind == N_EXPR_STMT && pure_expr(st->lhs)) {
			elided(st->lhs->loc, "an expression without side effects");
			*p = st->next;
			e->changed = true;
			continue;
		}
		elide_branch(e, st);
		if (idle(st)) {
			elided(st->loc, "a statement that does nothing");
			*p = st->next;
			e->changed = true;
			continue;
		}
		p = &st->next;
	}
}

static void elide_body(struct node *body)
{
	struct elider e = { body, true };

	while (e.changed) {
		e.changed = false;
		elide_branch(&e, body);
	}
}

/* The locals some statement of BODY (or COND) still names. */
static struct symbol *named_locals(struct symbol *locals, struct node *body, struct node *cond)
{
	struct symbol head = { 0 }, *tail = &head;

	for (struct symbol *l = locals; l;) {
		struct symbol *next = l->next;
		struct names m = { l, false };

		ast_walk(body, find_name, &m);
		ast_walk(cond, find_name, &m);
		if (m.named || l->kind == SYM_PARAM) {
			tail->next = l;
			tail = l;
		}
		l = next;
	}
	tail->next = NULL;
	return head.next;
}

void elide(struct session *s)
{
	/* the table lives in this session's arena */
	fn_seen = NULL;
	fn_state = NULL;
	nfn = capfn = 0;
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		struct derived_probe *first = s->derived;

		while (first != d && first->handler != d->handler)
			first = first->next;
		if (first != d) {
			d->locals = first->locals;	/* one handler, done once */
			continue;
		}
		elide_body(d->body);
		d->locals = named_locals(d->locals, d->body, d->cond);
	}
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		if (fn->body) {
			elide_body(fn->body);
			fn->locals = named_locals(fn->locals, fn->body, NULL);
		}
}

static bool named_anywhere(struct session *s, const struct symbol *sym)
{
	struct names m = { sym, false };

	for (struct derived_probe *d = s->derived; d && !m.named; d = d->next) {
		ast_walk(d->body, find_name, &m);
		ast_walk(d->cond, find_name, &m);
	}
	for (struct function *fn = s->functions; fn && !m.named; fn = fn->next_used)
		ast_walk(fn->body, find_name, &m);
	return m.named;
}

void elide_globals(struct session *s)
{
	struct global **tail = &s->globals;
	int n = 0;

	while (*tail) {
		struct global *g = *tail;

		if (!named_anywhere(s, g->sym)) {
			g->used = false;
			*tail = g->next_used;
			continue;
		}
		g->sym->index = n++;
		tail = &g->next_used;
	}
	s->nglobals = n;
}
