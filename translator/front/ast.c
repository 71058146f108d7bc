/*
 * ast.c - helpers every pass uses on the tree: new symbols, deep copies of
 * subtrees, probe point arguments, type names.
 */
#include "front/front.h"

const char *type_name(enum type t)
{
	switch (t) {
	case TY_LONG:
		return "long";
	case TY_STRING:
		return "string";
	case TY_STATS:
		return "statistics";
	default:
		return "unknown";
	}
}

struct symbol *new_symbol(const char *name, enum sym_kind kind, struct loc loc)
{
	struct symbol *s = arena_alloc(sizeof(*s));

	s->name = name;
	s->kind = kind;
	s->loc = loc;
	s->arity = kind == SYM_GLOBAL ? -1 : 0;
	return s;
}

const char *pp_component_arg_str(const struct pp_component *c)
{
	return c && c->arg && c->arg->kind == N_STR ? c->arg->str : NULL;
}

bool pp_component_arg_num(const struct pp_component *c, int64_t *out)
{
	if (!c || !c->arg || c->arg->kind != N_NUM)
		return false;
	*out = c->arg->num;
	return true;
}

static struct node *clone_list(const struct node *n)
{
	struct node head = { 0 }, *cur = &head;

	for (; n; n = n->next)
		cur = cur->next = clone_node(n);
	return head.next;
}

struct node *clone_node(const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = arena_alloc(sizeof(*c));
	*c = *n;
	c->next = NULL;
	/* a @cast's lhs is its list of call arguments */
	c->lhs = n->kind == N_CAST ? clone_list(n->lhs) : clone_node(n->lhs);
	c->rhs = clone_node(n->rhs);
	c->cond = clone_node(n->cond);
	c->then = clone_node(n->then);
	c->els = clone_node(n->els);
	c->init = clone_node(n->init);
	c->inc = clone_node(n->inc);
	c->body = clone_list(n->body);
	c->catch_body = clone_node(n->catch_body);
	c->args = clone_list(n->args);
	c->fe_limit = clone_node(n->fe_limit);
	/* symbols are per-body: foreach and catch names are re-created on resolution */
	for (int i = 0; i < n->fe_nkeys; i++)
		if (n->fe_keys[i])
			c->fe_keys[i] = new_symbol(n->fe_keys[i]->name, SYM_LOCAL, n->fe_keys[i]->loc);
	if (n->fe_value)
		c->fe_value = new_symbol(n->fe_value->name, SYM_LOCAL, n->fe_value->loc);
	if (n->catch_var)
		c->catch_var = new_symbol(n->catch_var->name, SYM_LOCAL, n->catch_var->loc);
	return c;
}

void visit_children(struct node *n, void (*fn)(struct node *, void *), void *arg)
{
	struct node *kids[] = { n->lhs, n->rhs, n->cond, n->then, n->els, n->init, n->inc,
				n->body, n->catch_body, n->args, n->fe_limit };

	for (size_t i = 0; i < ARRAY_LEN(kids); i++)
		if (kids[i])
			fn(kids[i], arg);
}

struct ast_walker {
	void (*visit)(struct node *, void *);
	void *ctx;
};

static void walk_child(struct node *kid, void *w)
{
	const struct ast_walker *wk = w;

	ast_walk(kid, wk->visit, wk->ctx);
}

/* Calls visit on every node of the list at n and of its subtrees, parents first. */
void ast_walk(struct node *n, void (*visit)(struct node *, void *), void *ctx)
{
	struct ast_walker w = { visit, ctx };

	for (; n; n = n->next) {
		visit(n, ctx);
		visit_children(n, walk_child, &w);
	}
}
