/*
 * elide_alias.c - an alias's variables the probe never reads are not computed, as
 * stap elides unused variables: with `probe syscall.* { n[name]++ }` none
 * of the aliases' argstr sprintfs is built.
 *
 * A statement `VAR = EXPR` of an alias body goes when nothing reads VAR (the
 * rest of the alias body, the bodies of the aliases around it, the probe's
 * body and condition) and EXPR has no side effect; an `if` whose branches
 * are left empty goes too if its condition has none. Repeated until nothing
 * changes, since dropping argstr leaves fd unread. A variable some alias
 * asks @probewrite() about keeps its writes: they are what it counts.
 */
#include "sema/sema.h"

#include <string.h>

#define PURE_DEPTH 8	/* calls deeper than this count as having side effects */

struct reads {
	const char *name;
	int vars, writes;
};

static bool body_pure(struct session *s, const struct node *n, int depth);

static bool is_global(struct session *s, const char *name)
{
	for (struct file *f = s->tapset_files; f; f = f->next)
		for (struct global *g = f->globals; g; g = g->next)
			if (!strcmp(g->sym->name, name))
				return true;
	for (struct global *g = s->user_file->globals; g; g = g->next)
		if (!strcmp(g->sym->name, name))
			return true;
	return false;
}

/* Every function of that name and arity, in any file, has no side effect. */
static bool call_pure(struct session *s, const struct node *call, int depth)
{
	bool found = false;
	struct file head = *s->user_file;

	if (depth > PURE_DEPTH)
		return false;
	head.next = s->tapset_files;
	for (struct file *f = &head; f; f = f->next)
		for (struct function *fn = f->functions; fn; fn = fn->next) {
			if (strcmp(fn->name, call->name) || fn->nparams != call->nargs)
				continue;
			found = true;
			if (fn->embedded ? !fn->pure : !body_pure(s, fn->body, depth + 1))
				return false;
		}
	return found;
}

/* A write inside a function is pure when it is to a local (not a global, not an array). */
static bool write_pure(struct session *s, const struct node *target, int depth)
{
	return depth > 0 && target->kind == N_VAR && !is_global(s, target->name);
}

static bool node_pure(struct session *s, const struct node *n, int depth)
{
	switch (n->kind) {
	case N_ASSIGN:
		return write_pure(s, n->lhs, depth) && body_pure(s, n->rhs, depth);
	case N_PREINC:
	case N_POSTINC:
		return write_pure(s, n->lhs, depth);
	case N_CALL:
		return call_pure(s, n, depth) && body_pure(s, n->args, depth);
	case N_PRINT:
		return (n->print_flags & PF_TO_STRING) && body_pure(s, n->args, depth);
	case N_AGG_ADD:
	case N_DELETE:
	case N_EMBED:
	case N_TRY:
	case N_NEXT:
	case N_ENTRY:
	case N_FOREACH:
		return false;
	default:
		break;
	}
	return body_pure(s, n->lhs, depth) && body_pure(s, n->rhs, depth) &&
	       body_pure(s, n->cond, depth) && body_pure(s, n->then, depth) &&
	       body_pure(s, n->els, depth) && body_pure(s, n->init, depth) &&
	       body_pure(s, n->inc, depth) && body_pure(s, n->body, depth) &&
	       body_pure(s, n->args, depth);
}

/* The list at n (expressions or statements) has no side effect. */
static bool body_pure(struct session *s, const struct node *n, int depth)
{
	for (; n; n = n->next)
		if (!node_pure(s, n, depth))
			return false;
	return true;
}

static void count_reads(struct node *n, void *ctx)
{
	struct reads *r = ctx;

	if (n->kind == N_VAR && !strcmp(n->name, r->name))
		r->vars++;
	if (n->kind == N_ASSIGN && !strcmp(n->op, "=") && n->lhs->kind == N_VAR &&
	    !strcmp(n->lhs->name, r->name))
		r->writes++;
}

/* The names @probewrite() asks about in any alias: their writes are kept */
static void note_probewrite(struct node *n, void *ctx)
{
	struct session *s = ctx;

	if (n->kind != N_PROBEWRITE)
		return;
	if (s->nprobewritten == s->capprobewritten) {
		int cap = s->capprobewritten * 2 + 8;
		const char **bigger = arena_alloc(sizeof(*bigger) * (size_t)cap);

		if (s->nprobewritten)
			memcpy(bigger, s->probewritten, sizeof(*bigger) * (size_t)s->nprobewritten);
		s->probewritten = bigger;
		s->capprobewritten = cap;
	}
	s->probewritten[s->nprobewritten++] = n->name;
}

static bool is_probewritten(struct session *s, const char *name)
{
	struct file head = *s->user_file;

	if (!s->probewritten_known) {
		s->probewritten_known = true;
		head.next = s->tapset_files;
		for (struct file *f = &head; f; f = f->next)
			for (struct probe *a = f->probes; a; a = a->next)
				if (a->is_alias) {
					ast_walk(a->body, note_probewrite, s);
					ast_walk(a->epilogue, note_probewrite, s);
				}
	}
	for (int i = 0; i < s->nprobewritten; i++)
		if (!strcmp(s->probewritten[i], name))
			return true;
	return false;
}

static bool is_read(struct node *const *trees, int n, const char *name)
{
	struct reads r = { name, 0, 0 };

	for (int i = 0; i < n; i++)
		ast_walk(trees[i], count_reads, &r);
	return r.vars > r.writes;
}

/* `VAR = EXPR;`: the assignment, else NULL */
static struct node *plain_assign(struct node *st)
{
	struct node *a = st->kind == N_EXPR_STMT ? st->lhs : NULL;

	if (!a || a->kind != N_ASSIGN || strcmp(a->op, "=") || a->lhs->kind != N_VAR)
		return NULL;
	return a;
}

static bool is_empty(const struct node *st)
{
	return !st || (st->kind == N_BLOCK && !st->body);
}

struct elide {
	struct session *s;
	struct node *trees[3];	/* the alias body, the rest, the condition */
};

static bool drop_unread(struct elide *e, struct node **list);

/* An if's branches, each a block or one statement; true if something went. */
static bool drop_in_if(struct elide *e, struct node *st)
{
	bool changed = false;
	struct node **branches[] = { &st->then, &st->els };

	for (int i = 0; i < 2; i++) {
		struct node **b = branches[i];

		if (!*b)
			continue;
		changed |= drop_unread(e, (*b)->kind == N_BLOCK ? &(*b)->body : b);
		if (!*b) {
			*b = arena_alloc(sizeof(**b));
			(*b)->kind = N_BLOCK;
			(*b)->loc = st->loc;
		}
	}
	return changed;
}

static bool drop_unread(struct elide *e, struct node **list)
{
	bool changed = false;

	for (struct node **p = list; *p;) {
		struct node *st = *p, *a = plain_assign(st);

		if (st->kind == N_IF && body_pure(e->s, st->cond, 0)) {
			changed |= drop_in_if(e, st);
			if (is_empty(st->then) && is_empty(st->els)) {
				*p = st->next;
				changed = true;
				continue;
			}
		} else if (a && body_pure(e->s, a->rhs, 0) && !is_read(e->trees, 3, a->lhs->name) &&
			   !is_probewritten(e->s, a->lhs->name)) {
			*p = st->next;
			changed = true;
			continue;
		}
		p = &st->next;
	}
	return changed;
}

void elide_unread_alias_vars(struct session *s, struct node *alias_body, struct node *rest,
			     struct node *cond)
{
	struct elide e = { s, { alias_body, rest, cond } };

	if (alias_body && alias_body->kind == N_BLOCK)
		while (drop_unread(&e, &alias_body->body))
			;
}
