/*
 * nesting.c - the MAXNESTING a script gets by default, counted as stap 4.8
 * counts it from the call graph (measured with stap -p3 -k, stap_common.h):
 * the deepest chain of calls from a probe; a chain that calls back into a
 * function already on it counts its depth at that call plus 11 (a function
 * calling itself from a probe gets 13, a cycle of two 14, of three 15).
 */
#include "codegen/emit.h"

#include <stdlib.h>

#define NEST_RECURSION 11
#define NEST_BUDGET 100000	/* visits; a huge call graph keeps what was found */

struct callees {
	struct function **fn;
	int n, cap;
};

struct nest_walk {
	struct function **stack;
	int budget;
};

static void add_function(struct callees *c, struct function *fn)
{
	for (int i = 0; i < c->n; i++)
		if (c->fn[i] == fn)
			return;
	if (c->n == c->cap) {
		struct function **grown = arena_alloc(sizeof(*grown) * (size_t)(c->cap * 2 + 4));

		for (int i = 0; i < c->n; i++)
			grown[i] = c->fn[i];
		c->fn = grown;
		c->cap = c->cap * 2 + 4;
	}
	c->fn[c->n++] = fn;
}

/* A call reaches the overload it names and, through 'next', every later one. */
static void add_callee(struct node *n, void *ctx)
{
	if (n->kind != N_CALL)
		return;
	for (struct function *fn = n->fn; fn; fn = fn->can_next ? fn->overload : NULL)
		add_function(ctx, fn);
}

static struct callees *callees_of(struct node *body, struct node *cond)
{
	struct callees *c = arena_alloc(sizeof(*c));

	ast_walk(body, add_callee, c);
	ast_walk(cond, add_callee, c);
	return c;
}

struct nest_graph {
	struct function **all;
	struct callees **memo;	/* all[i]'s callees, found once */
	int nfn;
};

static struct callees *fn_callees(struct nest_graph *g, struct function *fn)
{
	for (int i = 0; i < g->nfn; i++)
		if (g->all[i] == fn)
			return g->memo[i] ? g->memo[i] : (g->memo[i] = callees_of(fn->body, NULL));
	return callees_of(fn->body, NULL);
}

static int depth_from(struct nest_graph *g, struct nest_walk *w, struct function *fn, int depth)
{
	struct callees *c;
	int best = depth;

	for (int i = 0; i < depth - 1; i++)
		if (w->stack[i] == fn)
			return depth + NEST_RECURSION;
	if (--w->budget < 0)
		return depth;
	w->stack[depth - 1] = fn;
	c = fn_callees(g, fn);
	for (int i = 0; i < c->n; i++) {
		int d = depth_from(g, w, c->fn[i], depth + 1);

		if (d > best)
			best = d;
	}
	return best;
}

int max_nesting(struct session *s)
{
	struct nest_graph g = { 0 };
	struct nest_walk w = { .budget = NEST_BUDGET };
	int best = 1;	/* stap's least, measured with no calls at all */

	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		g.nfn++;
	g.all = arena_alloc(sizeof(*g.all) * (size_t)(g.nfn + 1));
	g.memo = arena_alloc(sizeof(*g.memo) * (size_t)(g.nfn + 1));
	w.stack = arena_alloc(sizeof(*w.stack) * (size_t)(g.nfn + 2));
	g.nfn = 0;
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		g.all[g.nfn++] = fn;
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		struct callees *c = callees_of(d->body, d->cond);

		for (int i = 0; i < c->n; i++) {
			int depth = depth_from(&g, &w, c->fn[i], 1);

			if (depth > best)
				best = depth;
		}
	}
	return best;
}
