/*
 * parse.c - pass 1, part 3: tokens to AST, recursive descent.
 *
 * The grammar is stap's, with its precedence ladder:
 *
 *   assignment  = <<< += -= *= /= %= <<= >>= &= ^= |= .=   (right)
 *   ternary     ?:
 *   logical     || then &&
 *   bitwise     | then ^ then &
 *   array-in    k in a, [k1, k2] in a
 *   comparison  < > <= >= == != =~ !~
 *   shift       << >>
 *   concat      .
 *   additive    + -
 *   multiplic.  * / %
 *   unary       - + ! ~ ++ --
 *   postfix     ++ --
 *   value       literals, names, calls, a[k], $target->f, @count(x), (e)
 */
#include "front/front.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct parser {
	struct token *tok;
	struct file *file;
	const struct source *src;
	bool quiet;	/* an error was reported in this statement: no cascade */
	int depth;	/* nested expressions and statements being parsed */
	bool too_deep;	/* nesting hit PARSE_MAX_DEPTH: the rest of the file is skipped */
};

/*
 * The parser recurses for each parenthesis (twice), prefix operator and
 * statement; a limit keeps hostile input off the end of the C stack (500
 * parentheses take about 2 MB under ASan). Real scripts nest a few levels.
 */
#define PARSE_MAX_DEPTH 1000

/* One error per statement or declaration: later ones are usually echoes of the first. */
__attribute__((format(printf, 3, 4)))
static void perr(struct parser *p, struct loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (p->quiet || p->too_deep)
		return;
	p->quiet = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_at(loc, "%s", msg);
}

static struct node *parse_expr(struct parser *p);
static struct node *parse_stmt(struct parser *p);
static struct node *parse_block(struct parser *p);

static struct token *peek(struct parser *p)
{
	return p->tok;
}

static bool at(struct parser *p, const char *s)
{
	return tok_is(p->tok, s) && p->tok->kind != TK_STR;
}

static bool at_keyword(struct parser *p, const char *kw)
{
	return p->tok->kind == TK_IDENT && tok_is(p->tok, kw);
}

static struct token *advance(struct parser *p)
{
	struct token *t = p->tok;

	if (t->kind != TK_EOF)
		p->tok = t->next;
	return t;
}

static bool accept(struct parser *p, const char *s)
{
	if (at(p, s)) {
		advance(p);
		return true;
	}
	return false;
}

/*
 * On a syntax error we report once and skip to a likely statement or
 * declaration boundary, so one typo does not produce a cascade.
 */
/* Past the nesting limit: one error, and the parse jumps to the end of the file. */
static void skip_too_deep(struct parser *p)
{
	if (!p->too_deep)
		error_at(p->tok->loc, "the script nests too deeply here (parentheses, operators "
			 "or blocks)");
	p->too_deep = true;
	while (p->tok->kind != TK_EOF)
		p->tok = p->tok->next;
}

/* One level deeper, or false past the limit. */
static bool nest_enter(struct parser *p)
{
	if (p->depth < PARSE_MAX_DEPTH && !p->too_deep) {
		p->depth++;
		return true;
	}
	skip_too_deep(p);
	return false;
}

static void sync_after_error(struct parser *p)
{
	int depth = 0;

	while (peek(p)->kind != TK_EOF) {
		if (at(p, "{"))
			depth++;
		else if (at(p, "}")) {
			if (depth-- <= 0)
				return;
		} else if (at(p, ";") && depth == 0) {
			advance(p);
			return;
		} else if (depth == 0 && (at_keyword(p, "probe") || at_keyword(p, "function") ||
					  at_keyword(p, "global")) && peek(p)->line_start) {
			return;
		}
		advance(p);
	}
}

static bool expect(struct parser *p, const char *s, const char *context)
{
	if (accept(p, s))
		return true;
	perr(p, peek(p)->loc, "expected '%s' %s, found %s", s, context, tok_describe(peek(p)));
	return false;
}

static struct node *new_node(enum node_kind kind, struct token *t)
{
	struct node *n = arena_alloc(sizeof(*n));

	n->kind = kind;
	n->loc = t->loc;
	n->near = tok_describe(t);
	return n;
}

static struct node *new_binary(struct parser *p, enum node_kind kind, struct token *op,
			       struct node *l, struct node *r)
{
	struct node *n = new_node(kind, op);

	n->op = arena_strndup(op->text, op->len);
	n->lhs = l;
	n->rhs = r;
	n->chain = 1 + (l && r && l->chain < r->chain ? r->chain : l ? l->chain : 0);
	/* a long chain of operators is parsed by a loop, but later passes recurse */
	if (n->chain > PARSE_MAX_DEPTH)
		skip_too_deep(p);
	return n;
}

/* FN one nesting level deeper; past the limit a placeholder number. */
static struct node *parse_nested(struct parser *p, struct node *(*fn)(struct parser *))
{
	struct node *n;

	if (!nest_enter(p))
		return new_node(N_NUM, peek(p));
	n = fn(p);
	p->depth--;
	return n;
}

static const char *ident_text(struct token *t)
{
	return arena_strndup(t->text, t->len);
}

static bool is_keyword(const struct token *t)
{
	static const char *const kw[] = {
		"probe", "function", "global", "private", "if", "else", "while", "for",
		"foreach", "in", "limit", "break", "continue", "next", "return", "delete",
		"try", "catch",
	};

	if (t->kind != TK_IDENT)
		return false;
	for (size_t i = 0; i < ARRAY_LEN(kw); i++)
		if (tok_is(t, kw[i]))
			return true;
	return false;
}

/* ---- expressions ---- */

static struct node *parse_string_literal(struct parser *p)
{
	struct token *t = advance(p);
	struct node *n = new_node(N_STR, t);
	struct strbuf sb = { 0 };

	sb_putn(&sb, t->str, t->str_len);
	/* adjacent literals concatenate, as in C */
	while (peek(p)->kind == TK_STR) {
		t = advance(p);
		sb_putn(&sb, t->str, t->str_len);
	}
	n->str = arena_strndup(sb.buf ? sb.buf : "", sb.len);
	n->str_len = sb.len;
	n->type = TY_STRING;
	sb_free(&sb);
	return n;
}

static struct node *parse_args(struct parser *p, struct node *call, const char *what)
{
	struct node head = { 0 }, *cur = &head;

	if (!expect(p, "(", what))
		return call;
	while (!at(p, ")")) {
		cur = cur->next = parse_expr(p);
		call->nargs++;
		if (!accept(p, ","))
			break;
	}
	if (!at(p, ")")) {
		perr(p, peek(p)->loc, "expected ')' or ',' in the argument list of %s, found %s",
			 what, tok_describe(peek(p)));
		sync_after_error(p);
	} else {
		advance(p);
	}
	call->args = head.next;
	return call;
}

static int print_flags_for(const char *name)
{
	static const struct {
		const char *name;
		int flags;
	} tab[] = {
		{ "print", 0 },
		{ "println", PF_NEWLINE },
		{ "printf", PF_FORMAT },
		{ "printd", PF_DELIM },
		{ "printdln", PF_DELIM | PF_NEWLINE },
		{ "sprint", PF_TO_STRING },
		{ "sprintln", PF_TO_STRING | PF_NEWLINE },
		{ "sprintf", PF_TO_STRING | PF_FORMAT },
		{ "sprintd", PF_TO_STRING | PF_DELIM },
		{ "sprintdln", PF_TO_STRING | PF_DELIM | PF_NEWLINE },
	};

	for (size_t i = 0; i < ARRAY_LEN(tab); i++)
		if (!strcmp(tab[i].name, name))
			return tab[i].flags;
	return -1;
}

static struct node *parse_call(struct parser *p, struct token *name)
{
	const char *id = ident_text(name);
	int pf = print_flags_for(id);
	struct node *n = new_node(pf >= 0 ? N_PRINT : N_CALL, name);

	n->name = id;
	n->print_flags = pf >= 0 ? pf : 0;
	return parse_args(p, n, arena_printf("'%s'", id));
}

static struct node *parse_index(struct parser *p, struct node *base)
{
	struct token *open = advance(p);
	struct node *n = new_node(N_INDEX, open);
	struct node head = { 0 }, *cur = &head;

	n->lhs = base;
	n->loc = base->loc;
	n->near = base->near;
	while (!at(p, "]")) {
		if (at(p, "*")) {
			/* a[*, k] wildcard slice: a key of NULL matches anything */
			struct node *w = new_node(N_NULL, advance(p));

			cur = cur->next = w;
		} else {
			cur = cur->next = parse_expr(p);
		}
		n->nargs++;
		if (!accept(p, ","))
			break;
	}
	if (!accept(p, "]")) {
		perr(p, peek(p)->loc, "expected ']' or ',' after array index, found %s",
			 tok_describe(peek(p)));
		sync_after_error(p);
	}
	if (n->nargs > UTAP_MAX_KEYS)
		perr(p, n->loc, "too many array keys (%d); the limit is %d", n->nargs,
			 UTAP_MAX_KEYS);
	n->args = head.next;
	return n;
}

static bool is_pretty_suffix(const char *text)
{
	return !strcmp(text, "$") || !strcmp(text, "$$");
}

/* $var->field[3]$$: the components after the name become args, the '$'s pretty */
static struct node *parse_target_suffix(struct parser *p, struct node *n)
{
	struct node head = { 0 }, *cur = &head;

	for (;;) {
		if (at(p, "->")) {
			struct token *f;

			advance(p);
			f = peek(p);

			if (f->kind != TK_IDENT) {
				perr(p, f->loc, "expected a field name after '->', found %s",
					 tok_describe(f));
				break;
			}
			advance(p);
			cur = cur->next = new_node(N_STR, f);
			cur->str = ident_text(f);
			cur->op = "->";
		} else if (at(p, "[")) {
			advance(p);
			cur = cur->next = parse_expr(p);
			cur->op = "[";
			expect(p, "]", "after a target variable index");
		} else {
			break;
		}
	}
	n->args = head.next;
	if (peek(p)->kind == TK_TARGET && is_pretty_suffix(ident_text(peek(p))) && !n->pretty)
		n->pretty = (int)strlen(ident_text(advance(p)));
	return n;
}

/*
 * local->member...: stap's autocast of a local holding a typed value (one
 * assigned from a $var, @cast or @var chain), f()->member of a function
 * returning one, or (expr)->member of a typed expression: pass 2 makes it
 * the @cast.
 */
static struct node *parse_autocast(struct parser *p, struct token *t, struct node *var)
{
	struct node *n = new_node(N_CAST, t);

	n->name = "@autocast";
	n->lhs = var;
	n->nargs = 1;
	return parse_target_suffix(p, n);
}

static struct node *parse_target(struct parser *p, bool address_of)
{
	struct token *t = advance(p);
	struct node *n = new_node(N_TARGET, t);
	const char *name = ident_text(t);
	size_t len = strlen(name), k = 0;

	/* $x$, $x$$: the suffix is the node's; $$parms$ keeps it in its name */
	while (name[1] != '$' && k < 2 && len - k > 2 && name[len - k - 1] == '$')
		k++;
	n->name = k ? arena_strndup(name, len - k) : name;
	n->pretty = (int)k;
	n->op = address_of ? "&" : NULL;
	return parse_target_suffix(p, n);
}

/* A histogram's bucket: @hist_log(x)[i] (stap gives its count) */
static struct node *new_bucket(struct node *hist, struct node *index)
{
	struct node *b = arena_alloc(sizeof(*b));

	b->kind = N_BUCKET;
	b->loc = hist->loc;
	b->near = hist->near;
	b->lhs = hist;
	b->rhs = index;
	b->type = TY_LONG;
	return b;
}

static struct node *parse_bucket(struct parser *p, struct node *hist)
{
	struct node *index;

	advance(p);
	index = parse_expr(p);
	expect(p, "]", "after the histogram bucket number");
	return new_bucket(hist, index);
}

static struct node *string_node(struct token *t, const char *str)
{
	struct node *n = new_node(N_STR, t);

	n->str = str;
	n->str_len = strlen(str);
	n->type = TY_STRING;
	return n;
}

/* @cast(e, "type", "module") and @var("name", "module"): the call's arguments
 * in lhs (a list, nargs long), the ->f and [i] after it in args, as for $var */
static struct node *new_cast(struct token *t, struct node *call_args, int nargs)
{
	struct node *n = new_node(N_CAST, t);

	n->name = "@cast";
	n->lhs = call_args;
	n->nargs = nargs;
	return n;
}

/*
 * stap's tapset macros over @cast, as the forms they expand to:
 * @task(p) and @mm(p) cast to the kernel's task_struct and mm_struct;
 * @cast_sizeof(T) and @cast_module_sizeof(M, T) are &@cast(0, T, M)[1],
 * the address of element 1 of an array of T at 0.
 */
static struct node *parse_cast_macro(struct parser *p, struct token *t, const char *name)
{
	struct node *call = parse_args(p, new_node(N_CALL, t), name), *a = call->args;
	bool module = !strcmp(name, "@cast_module_sizeof");
	bool task = !strcmp(name, "@task");
	struct node *n, *zero, *one;

	if (call->nargs != (module ? 2 : 1)) {
		perr(p, t->loc, "%s takes %s", name, module ? "two arguments" : "one argument");
		return new_cast(t, NULL, 0);
	}
	if (task || !strcmp(name, "@mm")) {
		a->next = string_node(t, task ? "task_struct" : "mm_struct");
		a->next->next = string_node(t, task ? "kernel<linux/sched.h>" :
						      "kernel<linux/mm_types.h>");
		return parse_target_suffix(p, new_cast(t, a, 3));
	}
	zero = new_node(N_NUM, t);
	zero->type = TY_LONG;
	zero->next = module ? a->next : a;
	if (module) {
		a->next->next = a;
		a->next = NULL;
	}
	n = new_cast(t, zero, module ? 3 : 2);
	one = new_node(N_NUM, t);
	one->num = 1;
	one->type = TY_LONG;
	one->op = "[";
	n->args = one;
	n->op = "&";
	return n;
}

/*
 * @type_member_defined("type", member->path): whether the kernel type has
 * the member, as stap's macro has it, @defined(&@cast(0, "type", "kernel")->member).
 */
static struct node *parse_type_member_defined(struct parser *p, struct token *t)
{
	struct node *def = new_node(N_DEFINED, t), *cast, *first, *type;
	struct token *m;

	expect(p, "(", "after @type_member_defined");
	type = parse_expr(p);
	if (!expect(p, ",", "after @type_member_defined's type"))
		return def;
	m = peek(p);
	if (m->kind != TK_IDENT) {
		perr(p, m->loc, "expected a member name, found %s", tok_describe(m));
		return def;
	}
	advance(p);
	first = string_node(m, ident_text(m));
	first->op = "->";
	type->next = string_node(t, "kernel");
	cast = new_cast(t, NULL, 3);
	cast->lhs = new_node(N_NUM, t);
	cast->lhs->type = TY_LONG;
	cast->lhs->next = type;
	parse_target_suffix(p, cast);
	first->next = cast->args;
	cast->args = first;
	cast->op = "&";
	expect(p, ")", "after @type_member_defined's member");
	def->lhs = cast;
	return def;
}

static struct node *parse_at_op(struct parser *p);

/* &@cast(...)->f and &@var(...): the address, as &$var is */
static struct node *parse_cast_address(struct parser *p)
{
	struct token *amp = advance(p);
	struct node *n = parse_at_op(p);

	if (n->kind != N_CAST) {
		perr(p, amp->loc, "'&' takes a target variable, @cast or @var");
		return n;
	}
	n->op = "&";
	return n;
}

/* @probewrite(x) or @probewrite($x): pass 2 gives 1 if the body of the probe
 * that uses an alias writes x, else 0 */
static struct node *parse_probewrite(struct parser *p, struct token *t)
{
	struct node *n = new_node(N_PROBEWRITE, t);
	struct token *v;

	n->type = TY_LONG;
	n->name = "";
	if (!expect(p, "(", "after @probewrite"))
		return n;
	v = peek(p);
	if ((v->kind != TK_IDENT && v->kind != TK_TARGET) || is_keyword(v)) {
		perr(p, v->loc, "@probewrite takes a variable name or a $target variable, found %s",
			 tok_describe(v));
		sync_after_error(p);
		return n;
	}
	advance(p);
	n->name = ident_text(v);
	expect(p, ")", "to close @probewrite");
	return n;
}

/* @const("NAME") (guru): the C constant NAME of the headers the script
 * includes, as the embedded expression stap 4.8 makes of it */
static struct node *parse_const(struct parser *p, struct token *t)
{
	struct node *call = parse_args(p, new_node(N_CALL, t), "@const");
	struct node *n = new_node(N_EMBED, t);

	n->type = TY_LONG;
	n->name = "@const";
	n->str = "";
	if (call->nargs != 1 || call->args->kind != N_STR || !call->args->str[0]) {
		perr(p, t->loc, "@const takes one string, the name of a C constant: @const(\"NAME\")");
		return n;
	}
	n->str = arena_printf(" /* pure */ /* unprivileged */ /* stable */ %s ", call->args->str);
	return n;
}

static struct node *parse_at_op(struct parser *p)
{
	struct token *t = advance(p);
	const char *name = ident_text(t);
	struct node *n;
	static const char *const statops[] = { "@count", "@sum", "@min", "@max", "@avg",
					       "@variance" };

	for (size_t i = 0; i < ARRAY_LEN(statops); i++) {
		if (!strcmp(name, statops[i])) {
			n = parse_args(p, new_node(N_STATOP, t), name);
			n->name = name;
			if (n->nargs < 1 || n->nargs > (i == 5 ? 2 : 1))
				perr(p, t->loc, "%s takes %s", name,
					 i == 5 ? "one or two arguments" : "one argument");
			n->lhs = n->args;
			n->rhs = n->args ? n->args->next : NULL;
			return n;
		}
	}
	if (!strcmp(name, "@hist_linear") || !strcmp(name, "@hist_log")) {
		bool linear = name[6] == 'l' && name[7] == 'i';

		n = parse_args(p, new_node(N_HIST, t), name);
		n->name = name;
		if (n->nargs != (linear ? 4 : 1))
			perr(p, t->loc, "%s takes %s", name,
				 linear ? "four arguments (value, low, high, step)" : "one argument");
		n->lhs = n->args;
		n->args = n->args ? n->args->next : NULL;
		if (at(p, "["))
			return parse_bucket(p, n);
		return n;
	}
	if (!strcmp(name, "@defined") || !strcmp(name, "@entry")) {
		n = parse_args(p, new_node(!strcmp(name, "@defined") ? N_DEFINED : N_ENTRY, t),
			       name);
		if (n->nargs != 1)
			perr(p, t->loc, "%s takes one argument", name);
		n->lhs = n->args;
		/* @entry's operand is its lhs only: as an argument it would be resolved
		 * again as a plain target variable of the .return probe */
		if (n->kind == N_ENTRY)
			n->args = NULL;
		return n;
	}
	if (!strcmp(name, "@choose_defined")) {
		struct node *c = parse_args(p, new_node(N_TERNARY, t), name);

		if (c->nargs != 2) {
			perr(p, t->loc, "@choose_defined takes two arguments");
			return c;
		}
		c->cond = new_node(N_DEFINED, t);
		c->cond->lhs = c->args;
		c->then = c->args;
		c->els = c->args->next;
		return c;
	}
	if (!strcmp(name, "@cast") || !strcmp(name, "@var")) {
		struct node *call = parse_args(p, new_node(N_CALL, t), name);

		n = new_cast(t, call->args, call->nargs);
		n->name = name;
		return parse_target_suffix(p, n);
	}
	if (!strcmp(name, "@type_member_defined"))
		return parse_type_member_defined(p, t);
	if (!strcmp(name, "@probewrite"))
		return parse_probewrite(p, t);
	if (!strcmp(name, "@const"))
		return parse_const(p, t);
	if (!strcmp(name, "@task") || !strcmp(name, "@mm") || !strcmp(name, "@cast_sizeof") ||
	    !strcmp(name, "@cast_module_sizeof"))
		return parse_cast_macro(p, t, name);
	if (!strcmp(name, "@perf")) {
		struct node *call = parse_args(p, new_node(N_CALL, t), name);

		n = new_cast(t, call->args, call->nargs);
		n->name = name;
		return n;
	}
	perr(p, t->loc, "unknown operator '%s'", name);
	return new_node(N_NUM, t);
}

/* %{ C %} as a value (guru): a long, or a string when marked / * string * / */
static struct node *parse_embedded_expr(struct parser *p)
{
	struct token *t = advance(p);
	struct node *n = new_node(N_EMBED, t);

	n->str = t->str;
	n->type = strstr(t->str, "/* string */") ? TY_STRING : TY_LONG;
	n->near = "embedded-code";
	return n;
}

static struct node *parse_value(struct parser *p)
{
	struct token *t = peek(p);
	struct node *n;

	if (at(p, "(")) {
		advance(p);
		n = parse_expr(p);
		if (!accept(p, ")")) {
			perr(p, peek(p)->loc, "expected ')' to close the '(' at %d:%d, found %s",
				 t->loc.line, t->loc.col, tok_describe(peek(p)));
			sync_after_error(p);
		}
		/* (expr)->member: @choose_defined($a, $b)->f is this after expansion */
		return at(p, "->") ? parse_autocast(p, t, n) : n;
	}
	if (t->kind == TK_NUM) {
		advance(p);
		n = new_node(N_NUM, t);
		n->num = t->num;
		n->type = TY_LONG;
		return n;
	}
	if (t->kind == TK_STR)
		return parse_string_literal(p);
	if (t->kind == TK_TARGET)
		return parse_target(p, false);
	if (at(p, "&") && t->next->kind == TK_TARGET) {
		advance(p);
		return parse_target(p, true);
	}
	if (at(p, "&") && t->next->kind == TK_AT)
		return parse_cast_address(p);
	if (t->kind == TK_AT)
		return parse_at_op(p);
	if (t->kind == TK_EMBEDDED)
		return parse_embedded_expr(p);
	if (t->kind == TK_IDENT && !is_keyword(t)) {
		advance(p);
		if (at(p, "(")) {
			n = parse_call(p, t);
			return at(p, "->") ? parse_autocast(p, t, n) : n;
		}
		n = new_node(N_VAR, t);
		n->name = ident_text(t);
		if (at(p, "["))
			return parse_index(p, n);
		if (at(p, "->"))
			return parse_autocast(p, t, n);
		return n;
	}
	perr(p, t->loc, "expected an expression, found %s", tok_describe(t));
	if (t->kind != TK_EOF && !at(p, "}") && !at(p, ";") && !at(p, ")"))
		advance(p);
	n = new_node(N_NUM, t);
	n->type = TY_LONG;
	return n;
}

static bool is_lvalue(const struct node *n)
{
	return n->kind == N_VAR || n->kind == N_INDEX || n->kind == N_TARGET ||
	       n->kind == N_CAST;
}

static struct node *parse_postfix(struct parser *p)
{
	struct node *n = parse_value(p);

	if ((at(p, "++") || at(p, "--")) && is_lvalue(n)) {
		struct token *op = advance(p);
		struct node *inc = new_node(N_POSTINC, op);

		inc->op = arena_strndup(op->text, op->len);
		inc->lhs = n;
		return inc;
	}
	return n;
}

static struct node *parse_unary_inner(struct parser *p);

static struct node *parse_unary(struct parser *p)
{
	return parse_nested(p, parse_unary_inner);
}

static struct node *parse_unary_inner(struct parser *p)
{
	struct token *t = peek(p);

	if (at(p, "++") || at(p, "--")) {
		struct node *n = new_node(N_PREINC, advance(p));

		n->op = arena_strndup(t->text, t->len);
		n->lhs = parse_unary(p);
		if (!is_lvalue(n->lhs))
			perr(p, n->lhs->loc, "operand of '%s' must be a variable", n->op);
		return n;
	}
	if (at(p, "-") || at(p, "+") || at(p, "!") || at(p, "~")) {
		struct node *n;

		advance(p);
		/* fold -NUMBER so the most negative long is writable */
		if (tok_is(t, "-") && peek(p)->kind == TK_NUM) {
			struct token *num = advance(p);

			n = new_node(N_NUM, t);
			n->num = (int64_t)(0 - (uint64_t)num->num);
			n->type = TY_LONG;
			return n;
		}
		n = new_node(N_UNARY, t);
		n->op = arena_strndup(t->text, t->len);
		n->lhs = parse_unary(p);
		return n;
	}
	return parse_postfix(p);
}

static struct node *parse_multiplicative(struct parser *p)
{
	struct node *n = parse_unary(p);

	while (at(p, "*") || at(p, "/") || at(p, "%")) {
		struct token *op = advance(p);

		n = new_binary(p, N_BINARY, op, n, parse_unary(p));
	}
	return n;
}

static struct node *parse_additive(struct parser *p)
{
	struct node *n = parse_multiplicative(p);

	while (at(p, "+") || at(p, "-")) {
		struct token *op = advance(p);

		n = new_binary(p, N_BINARY, op, n, parse_multiplicative(p));
	}
	return n;
}

static struct node *parse_concat(struct parser *p)
{
	struct node *n = parse_additive(p);

	while (at(p, ".")) {
		struct token *op = advance(p);

		n = new_binary(p, N_CONCAT, op, n, parse_additive(p));
	}
	return n;
}

static struct node *parse_shift(struct parser *p)
{
	struct node *n = parse_concat(p);

	while (at(p, "<<") || at(p, ">>")) {
		struct token *op = advance(p);

		n = new_binary(p, N_BINARY, op, n, parse_concat(p));
	}
	return n;
}

static struct node *parse_comparison(struct parser *p)
{
	struct node *n = parse_shift(p);

	for (;;) {
		struct token *op = peek(p);

		if (at(p, "<") || at(p, ">") || at(p, "<=") || at(p, ">=") || at(p, "==") ||
		    at(p, "!=")) {
			advance(p);
			n = new_binary(p, N_COMPARE, op, n, parse_shift(p));
		} else if (at(p, "=~") || at(p, "!~")) {
			advance(p);
			n = new_binary(p, N_REGEX, op, n, parse_shift(p));
			if (n->rhs->kind != N_STR)
				perr(p, n->rhs->loc, "the right side of '%s' must be a string literal "
					 "(a regular expression)", n->op);
		} else {
			return n;
		}
	}
}

static struct node *parse_in_rhs(struct parser *p, struct node *n)
{
	struct token *arr = peek(p);

	/* i in @hist_log(x) is its bucket's count, as stap has it */
	if (tok_is(arr, "@hist_linear") || tok_is(arr, "@hist_log")) {
		if (n->nargs != 1)
			perr(p, n->loc, "a histogram bucket takes one number");
		return new_bucket(parse_at_op(p), n->args);
	}

	if (arr->kind != TK_IDENT || is_keyword(arr)) {
		perr(p, arr->loc, "expected an array name after 'in', found %s",
			 tok_describe(arr));
		return n;
	}
	advance(p);
	n->lhs = new_node(N_VAR, arr);
	n->lhs->name = ident_text(arr);
	return n;
}

static struct node *parse_array_in(struct parser *p)
{
	struct node *n;

	if (at(p, "[")) {
		struct token *open = advance(p);
		struct node head = { 0 }, *cur = &head;

		n = new_node(N_IN, open);
		while (!at(p, "]")) {
			if (at(p, "*"))
				cur = cur->next = new_node(N_NULL, advance(p));
			else
				cur = cur->next = parse_expr(p);
			n->nargs++;
			if (!accept(p, ","))
				break;
		}
		expect(p, "]", "after the keys of an 'in' test");
		if (!at_keyword(p, "in")) {
			perr(p, peek(p)->loc, "expected 'in' after a key list, found %s",
				 tok_describe(peek(p)));
			return n;
		}
		advance(p);
		n->args = head.next;
		return parse_in_rhs(p, n);
	}
	n = parse_comparison(p);
	while (at_keyword(p, "in")) {
		struct node *in = new_node(N_IN, advance(p));

		in->args = n;
		in->nargs = 1;
		n = parse_in_rhs(p, in);
	}
	return n;
}

#define BINARY_LEVEL(fn, next, kind, op1)					\
	static struct node *fn(struct parser *p)				\
	{									\
		struct node *n = next(p);					\
		while (at(p, op1)) {						\
			struct token *op = advance(p);				\
			n = new_binary(p, kind, op, n, next(p));			\
		}								\
		return n;							\
	}

BINARY_LEVEL(parse_bit_and, parse_array_in, N_BINARY, "&")
BINARY_LEVEL(parse_bit_xor, parse_bit_and, N_BINARY, "^")
BINARY_LEVEL(parse_bit_or, parse_bit_xor, N_BINARY, "|")
BINARY_LEVEL(parse_logical_and, parse_bit_or, N_LOGICAL, "&&")
BINARY_LEVEL(parse_logical_or, parse_logical_and, N_LOGICAL, "||")

static struct node *parse_ternary(struct parser *p)
{
	struct node *n = parse_logical_or(p);

	if (at(p, "?")) {
		struct node *t = new_node(N_TERNARY, advance(p));

		t->cond = n;
		t->then = parse_expr(p);
		expect(p, ":", "in a conditional expression");
		t->els = parse_expr(p);
		return t;
	}
	return n;
}

static bool at_assign_op(struct parser *p)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=",
					   "&=", "^=", "|=", ".=", "<<<" };

	for (size_t i = 0; i < ARRAY_LEN(ops); i++)
		if (at(p, ops[i]))
			return true;
	return false;
}

static struct node *parse_assignment(struct parser *p);

static struct node *parse_expr(struct parser *p)
{
	return parse_nested(p, parse_assignment);
}

static struct node *parse_assignment(struct parser *p)
{
	struct node *lhs = parse_ternary(p);

	if (at_assign_op(p)) {
		struct token *op = advance(p);
		struct node *n = new_binary(p, tok_is(op, "<<<") ? N_AGG_ADD : N_ASSIGN, op, lhs,
					    NULL);

		if (!is_lvalue(lhs))
			perr(p, lhs->loc, "left side of '%s' must be a variable or array element",
				 n->op);
		n->rhs = parse_expr(p);
		return n;
	}
	return lhs;
}

/* ---- statements ---- */

static struct node *parse_if(struct parser *p)
{
	struct node *n = new_node(N_IF, advance(p));

	expect(p, "(", "after 'if'");
	n->cond = parse_expr(p);
	expect(p, ")", "after the if condition");
	n->then = parse_stmt(p);
	if (at_keyword(p, "else")) {
		advance(p);
		n->els = parse_stmt(p);
	}
	return n;
}

static struct node *parse_while(struct parser *p)
{
	struct node *n = new_node(N_WHILE, advance(p));

	expect(p, "(", "after 'while'");
	n->cond = parse_expr(p);
	expect(p, ")", "after the while condition");
	n->body = parse_stmt(p);
	return n;
}

static struct node *parse_for(struct parser *p)
{
	struct node *n = new_node(N_FOR, advance(p));

	expect(p, "(", "after 'for'");
	if (!at(p, ";"))
		n->init = parse_expr(p);
	expect(p, ";", "after the for initializer");
	if (!at(p, ";"))
		n->cond = parse_expr(p);
	expect(p, ";", "after the for condition");
	if (!at(p, ")"))
		n->inc = parse_expr(p);
	expect(p, ")", "after the for increment");
	n->body = parse_stmt(p);
	return n;
}

static int parse_sort_mark(struct parser *p)
{
	if (accept(p, "+"))
		return 1;
	if (accept(p, "-"))
		return -1;
	return 0;
}

static struct symbol *foreach_var(struct parser *p)
{
	struct token *t = peek(p);

	if (t->kind != TK_IDENT || is_keyword(t)) {
		perr(p, t->loc, "expected a variable name in foreach, found %s", tok_describe(t));
		return NULL;
	}
	advance(p);
	return new_symbol(ident_text(t), SYM_LOCAL, t->loc);
}

static void set_sort(struct parser *p, struct node *n, int col, int dir, struct loc loc)
{
	if (!dir)
		return;
	if (n->fe_sort_dir)
		perr(p, loc, "only one sort order may be given in a foreach");
	n->fe_sort_col = col;
	n->fe_sort_dir = dir;
}

/* The value's variable and its sort mark: v = ..., v+ = ..., v- = ... */
static void parse_foreach_value(struct parser *p, struct node *n)
{
	struct token *t = peek(p), *after = t->next;
	struct loc loc;

	if (t->kind != TK_IDENT || is_keyword(t))
		return;
	if ((tok_is(after, "+") || tok_is(after, "-")) && tok_is(after->next, "="))
		after = after->next;
	if (!tok_is(after, "="))
		return;
	n->fe_value = foreach_var(p);
	loc = peek(p)->loc;
	set_sort(p, n, -1, parse_sort_mark(p), loc);
	advance(p);
}

static void parse_foreach_keys(struct parser *p, struct node *n)
{
	if (accept(p, "[")) {
		do {
			struct loc loc = peek(p)->loc;

			if (n->fe_nkeys == UTAP_MAX_KEYS) {
				perr(p, loc, "too many foreach keys; the limit is %d", UTAP_MAX_KEYS);
				break;
			}
			n->fe_keys[n->fe_nkeys++] = foreach_var(p);
			set_sort(p, n, n->fe_nkeys, parse_sort_mark(p), loc);
		} while (accept(p, ","));
		expect(p, "]", "after the foreach keys");
	} else {
		struct loc loc = peek(p)->loc;

		n->fe_keys[n->fe_nkeys++] = foreach_var(p);
		set_sort(p, n, 1, parse_sort_mark(p), loc);
	}
}

/* in arr, arr[k, *], @hist_log(x), then [@count..@variance] and a sort mark */
static bool parse_foreach_source(struct parser *p, struct node *n)
{
	struct token *arr = peek(p);
	struct loc loc;

	if (tok_is(arr, "@hist_linear") || tok_is(arr, "@hist_log")) {
		n->lhs = parse_at_op(p);
	} else if (arr->kind == TK_IDENT) {
		advance(p);
		n->lhs = new_node(N_VAR, arr);
		n->lhs->name = ident_text(arr);
		if (at(p, "["))
			n->lhs = parse_index(p, n->lhs);
	} else {
		perr(p, arr->loc, "expected an array name after 'in', found %s", tok_describe(arr));
		sync_after_error(p);
		return false;
	}
	loc = peek(p)->loc;
	if (peek(p)->kind == TK_AT && n->lhs->kind != N_HIST) {
		struct token *op = advance(p);
		static const char *const aggs[] = { "@count", "@sum", "@min", "@max", "@avg",
						    "@variance" };

		for (size_t i = 0; i < ARRAY_LEN(aggs); i++)
			if (tok_is(op, aggs[i]))
				n->fe_sort_agg = aggs[i];
		if (!n->fe_sort_agg)
			perr(p, op->loc, "expected @count, @sum, @min, @max, @avg or @variance, "
				 "found %s", tok_describe(op));
		if (!at(p, "+") && !at(p, "-"))
			perr(p, peek(p)->loc, "expected '+' or '-' after %s, found %s",
				 ident_text(op), tok_describe(peek(p)));
	}
	set_sort(p, n, -1, parse_sort_mark(p), loc);
	return true;
}

/* foreach ([v[+-] =] k[+-] | [k1, k2-] in arr[slice] [@agg][+-] [limit N]) stmt */
static struct node *parse_foreach(struct parser *p)
{
	struct node *n = new_node(N_FOREACH, advance(p));

	expect(p, "(", "after 'foreach'");
	parse_foreach_value(p, n);
	parse_foreach_keys(p, n);
	if (!at_keyword(p, "in")) {
		perr(p, peek(p)->loc, "expected 'in' in foreach, found %s", tok_describe(peek(p)));
		sync_after_error(p);
		return n;
	}
	advance(p);
	if (!parse_foreach_source(p, n))
		return n;
	if (at_keyword(p, "limit")) {
		advance(p);
		n->fe_limit = parse_expr(p);
	}
	expect(p, ")", "to close the foreach");
	n->body = parse_stmt(p);
	return n;
}

static struct node *parse_try(struct parser *p)
{
	struct node *n = new_node(N_TRY, advance(p));

	n->body = parse_block(p);
	if (!at_keyword(p, "catch")) {
		perr(p, peek(p)->loc, "expected 'catch' after a try block, found %s",
			 tok_describe(peek(p)));
		return n;
	}
	advance(p);
	if (accept(p, "(")) {
		n->catch_var = foreach_var(p);
		expect(p, ")", "after the catch variable");
	}
	n->catch_body = parse_block(p);
	return n;
}

/* stap makes ';' optional between statements; accept it if present */
static void expect_semicolon(struct parser *p)
{
	accept(p, ";");
}

static struct node *parse_stmt_inner(struct parser *p);

static struct node *parse_stmt(struct parser *p)
{
	struct token *start = peek(p);
	bool quiet_before = p->quiet;
	struct node *n;

	if (!nest_enter(p))
		return new_node(N_NULL, start);
	n = parse_stmt_inner(p);
	p->depth--;
	/* every statement consumes a token, even a broken one */
	if (peek(p) == start)
		advance(p);
	/* after its first error, resynchronise at the end of the statement */
	if (p->quiet && !quiet_before)
		sync_after_error(p);
	return n;
}

static struct node *parse_stmt_inner(struct parser *p)
{
	struct token *t = peek(p);
	struct node *n;

	if (at(p, "{"))
		return parse_block(p);
	if (at(p, ";"))
		return new_node(N_NULL, advance(p));
	if (t->kind == TK_EMBEDDED) {
		n = new_node(N_EMBED, advance(p));
		n->str = t->str;
		return n;
	}
	if (at_keyword(p, "if"))
		return parse_if(p);
	if (at_keyword(p, "while"))
		return parse_while(p);
	if (at_keyword(p, "for"))
		return parse_for(p);
	if (at_keyword(p, "foreach"))
		return parse_foreach(p);
	if (at_keyword(p, "try"))
		return parse_try(p);
	if (at_keyword(p, "break") || at_keyword(p, "continue") || at_keyword(p, "next")) {
		n = new_node(tok_is(t, "break") ? N_BREAK : tok_is(t, "continue") ? N_CONTINUE :
			     N_NEXT, advance(p));
		expect_semicolon(p);
		return n;
	}
	if (at_keyword(p, "return")) {
		n = new_node(N_RETURN, advance(p));
		if (!at(p, ";") && !at(p, "}"))
			n->lhs = parse_expr(p);
		expect_semicolon(p);
		return n;
	}
	if (at_keyword(p, "delete")) {
		n = new_node(N_DELETE, advance(p));
		n->lhs = parse_expr(p);
		if (!is_lvalue(n->lhs))
			perr(p, n->lhs->loc, "'delete' needs a variable, array or array element");
		expect_semicolon(p);
		return n;
	}
	if (is_keyword(t)) {
		perr(p, t->loc, "unexpected keyword '%.*s' here", (int)t->len, t->text);
		advance(p);
		sync_after_error(p);
		return new_node(N_NULL, t);
	}
	n = new_node(N_EXPR_STMT, t);
	n->lhs = parse_expr(p);
	expect_semicolon(p);
	return n;
}

static struct node *parse_block(struct parser *p)
{
	struct token *open = peek(p);
	struct node *n = new_node(N_BLOCK, open);
	struct node head = { 0 }, *cur = &head;

	bool quiet = p->quiet;

	if (!expect(p, "{", "to open a block"))
		return n;
	while (!at(p, "}")) {
		p->quiet = quiet;	/* each statement may report its own first error */
		if (peek(p)->kind == TK_EOF) {
			perr(p, peek(p)->loc, "expected '}' to close the block opened at %d:%d",
				 open->loc.line, open->loc.col);
			break;
		}
		cur = cur->next = parse_stmt(p);
	}
	accept(p, "}");
	n->body = head.next;
	return n;
}

/* ---- declarations ---- */

static struct node *parse_pp_literal(struct parser *p)
{
	struct token *t = peek(p);
	struct node *n;

	if (t->kind == TK_STR)
		return parse_string_literal(p);
	if (t->kind == TK_NUM || (at(p, "-") && t->next->kind == TK_NUM)) {
		bool neg = accept(p, "-");

		t = advance(p);
		n = new_node(N_NUM, t);
		n->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
		n->type = TY_LONG;
		return n;
	}
	perr(p, t->loc, "expected a number or a string as a probe point argument, found %s",
		 tok_describe(t));
	return NULL;
}

/* A component name is a run of adjacent identifier, number and '*' tokens: sys_*, *read* */
static const char *parse_component_name(struct parser *p)
{
	struct strbuf sb = { 0 };
	const char *name;
	bool first = true;

	while (peek(p)->kind == TK_IDENT || at(p, "*") ||
	       (!first && peek(p)->kind == TK_NUM)) {
		if (!first && peek(p)->space_before)
			break;
		sb_putn(&sb, peek(p)->text, peek(p)->len);
		advance(p);
		first = false;
	}
	if (first) {
		perr(p, peek(p)->loc, "expected a probe point, found %s", tok_describe(peek(p)));
		return NULL;
	}
	name = arena_strdup(sb.buf);
	sb_free(&sb);
	return name;
}

/*
 * Probe point sets: a component may be a brace set of whole points,
 * kernel.{function("a"), trace("b")}.return, nested to any depth. As in
 * stap, the parser expands them, so later passes see plain points in
 * the order written.
 */
#define PP_MAX_EXPANSION 4096

/* A fresh copy of the components of a followed by those of b */
static struct pp_component *concat_components(const struct pp_component *a,
					      const struct pp_component *b)
{
	struct pp_component head = { 0 }, *cur = &head;

	for (const struct pp_component *c = a; c || b; c = c->next) {
		if (!c) {
			c = b;
			b = NULL;
		}
		cur = cur->next = arena_alloc(sizeof(*cur));
		*cur = *c;
		cur->next = NULL;
	}
	return head.next;
}

/* Each point of prefixes followed by each point of tails, in that order. */
static struct probe_point *cross_points(struct parser *p, struct probe_point *prefixes,
					const struct probe_point *tails)
{
	struct probe_point head = { 0 }, *cur = &head;
	int n = 0;

	for (const struct probe_point *a = prefixes; a; a = a->next) {
		for (const struct probe_point *b = tails; b; b = b->next) {
			if (++n > PP_MAX_EXPANSION) {
				perr(p, a->loc, "probe point set expands to more than %d points",
				     PP_MAX_EXPANSION);
				return NULL;
			}
			cur = cur->next = arena_alloc(sizeof(*cur));
			*cur = *b;
			cur->loc = a->loc;
			cur->next = NULL;
			cur->comps = concat_components(a->comps, b->comps);
		}
	}
	return head.next;
}

static struct probe_point *parse_probe_point_list(struct parser *p);

/* { point, point, ... } as a list of points */
static struct probe_point *parse_point_set(struct parser *p)
{
	struct probe_point *set;

	if (!nest_enter(p))
		return NULL;
	advance(p);
	set = parse_probe_point_list(p);
	p->depth--;
	if (set && !expect(p, "}", "after a probe point set"))
		return NULL;
	return set;
}

static struct pp_component *parse_component(struct parser *p)
{
	struct pp_component *c = arena_alloc(sizeof(*c));

	c->name = parse_component_name(p);
	if (!c->name)
		return NULL;
	if (accept(p, "(")) {
		c->arg = parse_pp_literal(p);
		if (!c->arg || !expect(p, ")", "after a probe point argument"))
			return NULL;
	}
	return c;
}

/* A component or a set, appended to every point so far. */
static struct probe_point *parse_point_step(struct parser *p, struct probe_point *points)
{
	struct probe_point one = { .loc = points->loc };

	if (at(p, "{"))
		return cross_points(p, points, parse_point_set(p));
	one.comps = parse_component(p);
	if (!one.comps)
		return NULL;
	return cross_points(p, points, &one);
}

/* ? or ! after a point or a set; a point of the set may not have its own */
static bool parse_point_marker(struct parser *p, struct probe_point *points)
{
	struct token *t = peek(p);
	bool sufficient = at(p, "!");

	if (!at(p, "?") && !sufficient)
		return true;
	advance(p);
	for (struct probe_point *pp = points; pp; pp = pp->next) {
		if (pp->optional) {
			perr(p, t->loc, "'?' or '!' given twice for probe point '%s'",
			     pp_string(pp));
			return false;
		}
		pp->optional = true;
		pp->sufficient = sufficient;
	}
	return true;
}

static bool parse_point_cond(struct parser *p, struct probe_point *points)
{
	struct token *t = peek(p);
	struct node *cond;

	if (!at_keyword(p, "if"))
		return true;
	advance(p);
	expect(p, "(", "after 'if' in a probe condition");
	cond = parse_expr(p);
	expect(p, ")", "after the probe condition");
	for (struct probe_point *pp = points; pp; pp = pp->next) {
		if (pp->cond) {
			perr(p, t->loc, "a condition given twice for probe point '%s'",
			     pp_string(pp));
			return false;
		}
		pp->cond = cond;
	}
	return true;
}

/* One point as written, expanded to the list of points its sets stand for. */
static struct probe_point *parse_probe_point(struct parser *p)
{
	struct probe_point *points = arena_alloc(sizeof(*points));

	points->loc = peek(p)->loc;
	do {
		points = parse_point_step(p, points);
		if (!points)
			return NULL;
	} while (accept(p, "."));
	if (!parse_point_marker(p, points) || !parse_point_cond(p, points))
		return NULL;
	return points;
}

static struct probe_point *parse_probe_point_list(struct parser *p)
{
	struct probe_point head = { 0 }, *cur = &head;

	do {
		struct probe_point *pp = parse_probe_point(p);

		if (!pp)
			return NULL;
		cur->next = pp;
		while (cur->next)
			cur = cur->next;
	} while (accept(p, ","));
	return head.next;
}

/*
 * After a bad probe point the braces around it may not balance (a set left
 * open or closed twice): skip to the next declaration that starts a line.
 */
static void skip_to_declaration(struct parser *p)
{
	while (peek(p)->kind != TK_EOF) {
		advance(p);
		if (peek(p)->line_start && (at_keyword(p, "probe") || at_keyword(p, "function") ||
					    at_keyword(p, "global") || at_keyword(p, "private")))
			return;
	}
}

/* probe a = p { prologue }, { epilogue }: the second block runs after the body */
static void parse_epilogue(struct parser *p, struct probe *pr)
{
	struct token *comma = advance(p);

	if (pr->is_epilogue) {
		perr(p, comma->loc, "a '+=' alias has one block, run after the probe's body; "
			 "write 'probe NAME = POINT { before }, { after }' for both");
		parse_block(p);
		return;
	}
	pr->epilogue = parse_block(p);
}

static void parse_probe(struct parser *p)
{
	struct token *kw = advance(p);
	struct probe *pr = arena_alloc(sizeof(*pr));
	struct probe_point *points = parse_probe_point_list(p);

	pr->loc = kw->loc;
	pr->src = p->src;
	if (!points) {
		skip_to_declaration(p);
		return;
	}
	if (at(p, "=") || at(p, "+=")) {
		pr->is_alias = true;
		pr->is_epilogue = at(p, "+=");
		pr->alias_names = points;
		advance(p);
		points = parse_probe_point_list(p);
		if (!points) {
			sync_after_error(p);
			return;
		}
	}
	pr->points = points;
	pr->body = parse_block(p);
	if (pr->is_alias && at(p, ","))
		parse_epilogue(p, pr);
	pr->next = p->file->probes;
	p->file->probes = pr;
}

static enum type parse_type_suffix(struct parser *p)
{
	struct token *t;

	if (!accept(p, ":"))
		return TY_UNKNOWN;
	t = peek(p);
	if (at_keyword(p, "long")) {
		advance(p);
		return TY_LONG;
	}
	if (at_keyword(p, "string")) {
		advance(p);
		return TY_STRING;
	}
	perr(p, t->loc, "expected a type ('long' or 'string'), found %s", tok_describe(t));
	if (t->kind == TK_IDENT)
		advance(p);
	return TY_UNKNOWN;
}

/* function f() :N { }: the order same-arity overloads run in, lowest first */
static void parse_priority(struct parser *p, struct function *fn)
{
	struct token *t = peek(p);

	if (t->kind != TK_NUM) {
		perr(p, t->loc, "expected a function priority (a number) after ':', found %s",
			 tok_describe(t));
		return;
	}
	advance(p);
	fn->priority = (int)t->num;
}

static void parse_function(struct parser *p, bool is_private)
{
	struct token *kw = advance(p), *name = peek(p);
	struct function *fn = arena_alloc(sizeof(*fn));
	struct symbol head = { 0 }, *cur = &head;

	(void)kw;
	if (name->kind != TK_IDENT || is_keyword(name)) {
		perr(p, name->loc, "expected a function name, found %s", tok_describe(name));
		sync_after_error(p);
		return;
	}
	advance(p);
	fn->name = ident_text(name);
	fn->loc = name->loc;
	fn->src = p->src;
	fn->is_private = is_private;
	fn->ret = parse_type_suffix(p);
	if (!expect(p, "(", "after the function name")) {
		sync_after_error(p);
		return;
	}
	while (!at(p, ")")) {
		struct token *pt = peek(p);
		struct symbol *s;

		if (pt->kind != TK_IDENT || is_keyword(pt)) {
			perr(p, pt->loc, "expected a parameter name, found %s", tok_describe(pt));
			sync_after_error(p);
			return;
		}
		advance(p);
		s = new_symbol(ident_text(pt), SYM_PARAM, pt->loc);
		for (struct symbol *q = head.next; q; q = q->next)
			if (!strcmp(q->name, s->name))
				perr(p, pt->loc, "duplicate parameter name '%s'", s->name);
		s->type = parse_type_suffix(p);
		s->arity = 0;
		s->index = fn->nparams++;
		cur = cur->next = s;
		if (!accept(p, ","))
			break;
	}
	if (!expect(p, ")", "after the parameter list")) {
		sync_after_error(p);
		return;
	}
	fn->params = head.next;
	fn->priority = p->src->is_tapset;
	if (accept(p, ":"))
		parse_priority(p, fn);
	if (peek(p)->kind == TK_EMBEDDED) {
		struct token *e = advance(p);

		fn->embedded = e->str;
		fn->pure = strstr(e->str, "/* pure */") != NULL;
		fn->guru = strstr(e->str, "/* guru */") != NULL;
		fn->can_next = strstr(e->str, "STAP_NEXT") != NULL;
	} else {
		fn->body = parse_block(p);
	}
	fn->next = p->file->functions;
	p->file->functions = fn;
}

static void parse_global(struct parser *p, bool is_private)
{
	advance(p);
	do {
		struct token *name = peek(p);
		struct global *g;

		if (name->kind != TK_IDENT || is_keyword(name)) {
			perr(p, name->loc, "expected a global variable name, found %s",
				 tok_describe(name));
			sync_after_error(p);
			return;
		}
		advance(p);
		g = arena_alloc(sizeof(*g));
		g->sym = new_symbol(ident_text(name), SYM_GLOBAL, name->loc);
		g->sym->global = g;
		g->sym->is_private = is_private;
		g->src = p->src;
		if (accept(p, "%"))
			g->wrap = true;
		if (accept(p, "[")) {
			struct token *sz = peek(p);

			if (sz->kind != TK_NUM || sz->num <= 0) {
				perr(p, sz->loc, "expected a positive array size, found %s",
					 tok_describe(sz));
			} else {
				g->size = (long)sz->num;
				advance(p);
			}
			expect(p, "]", "after the array size");
			g->sym->arity = -1;	/* an array; keys are inferred */
		}
		if (accept(p, "%"))
			g->wrap = true;
		if (accept(p, "=")) {
			g->init = parse_pp_literal(p);
			if (g->init)
				g->sym->type = g->init->type;
		}
		g->next = p->file->globals;
		p->file->globals = g;
	} while (accept(p, ","));
	accept(p, ";");
}

static void reverse_lists(struct file *f)
{
#define REVERSE(type, head)					\
	do {							\
		type *prev = NULL, *cur = head, *nx;		\
		for (; cur; cur = nx) {				\
			nx = cur->next;				\
			cur->next = prev;			\
			prev = cur;				\
		}						\
		head = prev;					\
	} while (0)
	REVERSE(struct probe, f->probes);
	REVERSE(struct function, f->functions);
	REVERSE(struct global, f->globals);
	REVERSE(struct embed, f->embeds);
#undef REVERSE
}

struct file *parse_file(const struct source *src, struct token *tok)
{
	struct parser p = { .tok = tok, .src = src };

	p.file = arena_alloc(sizeof(*p.file));
	p.file->src = src;
	while (peek(&p)->kind != TK_EOF) {
		struct token *t = peek(&p);
		bool is_private = false;

		p.quiet = false;
		if (at_keyword(&p, "private")) {
			advance(&p);
			is_private = true;
			t = peek(&p);
			if (!at_keyword(&p, "global") && !at_keyword(&p, "function")) {
				perr(&p, t->loc, "expected 'global' or 'function' after 'private'");
				sync_after_error(&p);
				continue;
			}
		}
		if (at_keyword(&p, "probe")) {
			parse_probe(&p);
		} else if (at_keyword(&p, "function")) {
			parse_function(&p, is_private);
		} else if (at_keyword(&p, "global")) {
			parse_global(&p, is_private);
		} else if (t->kind == TK_EMBEDDED) {
			struct embed *e = arena_alloc(sizeof(*e));

			advance(&p);
			e->code = t->str;
			e->loc = t->loc;
			e->next = p.file->embeds;
			p.file->embeds = e;
		} else if (at(&p, ";")) {
			advance(&p);
		} else {
			perr(&p, t->loc, "expected 'probe', 'function' or 'global', found %s",
				 tok_describe(t));
			advance(&p);
			sync_after_error(&p);
		}
	}
	reverse_lists(p.file);
	return p.file;
}
