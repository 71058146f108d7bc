/*
 * preproc.c - pass 1, part 2: the token-level preprocessor.
 *
 *   %( kernel_v >= "5.10" && CONFIG_UPROBES == "y" %? A %: B %)
 *   @define NAME(a, b) %( body using @a @b %)   ...   @NAME(x, y)
 *   $1 (re-lexed argument text)   @1 (argument as a string)   $# @#
 *
 * Runs on the token list before the parser sees it, as stap's does.
 */
#include "front/front.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct macro {
	const char *name;
	const char **params;
	int nparams;
	struct token *body;	/* list ending in TK_EOF */
	struct macro *next;
};

struct pp {
	const struct pp_env *env;
	struct macro *macros;
	char *kconfig;		/* the target kernel's .config text */
	bool kconfig_loaded;
	size_t expanded;	/* tokens produced by macro expansion so far */
	bool runaway;		/* a limit was hit: expand no more macros (one error) */
	int cond_depth;		/* '(' and '!' nesting in the condition being read */
};

/* Condition atoms recurse per '(' and '!': a bound keeps the C stack safe. */
#define PP_MAX_COND_DEPTH	256

/*
 * An expansion is rescanned, so a macro that names itself expands again:
 * each token counts the expansions behind it, and the whole script gets a
 * token budget, so "@define F %( @F @F %)" ends with an error, not all memory.
 */
#define PP_MAX_EXPANSION_DEPTH	64
#define PP_MAX_EXPANDED_TOKENS	1000000

static struct token *copy_token(const struct token *t)
{
	struct token *c = arena_alloc(sizeof(*c));

	*c = *t;
	c->next = NULL;
	return c;
}

static struct token *expanded_copy(const struct token *t, int depth)
{
	struct token *c = copy_token(t);

	if (c->expansion < depth)
		c->expansion = (unsigned short)depth;
	return c;
}

static struct token *eof_after(const struct token *t)
{
	struct token *e = copy_token(t);

	e->kind = TK_EOF;
	e->len = 0;
	return e;
}

/* Version comparison for kernel_v: numeric fields compare as numbers. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

static const char *kconfig_value(struct pp *pp, const char *name)
{
	const char *p;
	size_t n = strlen(name);

	if (!pp->kconfig_loaded) {
		pp->kconfig_loaded = true;
		if (pp->env->kconfig_path)
			pp->kconfig = read_file(pp->env->kconfig_path, NULL);
	}
	if (!pp->kconfig)
		return "";
	for (p = pp->kconfig; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			const char *v = p + n + 1, *e = strchr(v, '\n');
			size_t len = e ? (size_t)(e - v) : strlen(v);

			if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
				return arena_strndup(v + 1, len - 2);
			return arena_strndup(v, len);
		}
	}
	return "";
}

static bool compare_result(int cmp, const char *op)
{
	if (!strcmp(op, "=="))
		return cmp == 0;
	if (!strcmp(op, "!="))
		return cmp != 0;
	if (!strcmp(op, "<"))
		return cmp < 0;
	if (!strcmp(op, "<="))
		return cmp <= 0;
	if (!strcmp(op, ">"))
		return cmp > 0;
	return cmp >= 0;
}

static bool is_compare_op(const struct token *t)
{
	return tok_is(t, "==") || tok_is(t, "!=") || tok_is(t, "<") || tok_is(t, "<=") ||
	       tok_is(t, ">") || tok_is(t, ">=");
}

static bool cond_or(struct pp *pp, struct token **rest, struct token *tok);

/* How a condition's left side compares, as stap's preprocessor has it. */
enum pp_cmp {
	CMP_NUM,	/* $#, $N that is a number, a number */
	CMP_VERSION,	/* kernel_v, kernel_vr, systemtap_v: any operator; == and != glob */
	CMP_GLOB,	/* arch, runtime, CONFIG_*: only == and !=, globs */
	CMP_EXACT,	/* systemtap_privilege: only == and !=, as written */
	CMP_STRING,	/* a string, @N, @#: any operator, byte order */
};

static bool compare_strings(const char *have, const char *op, const char *want,
			    enum pp_cmp how)
{
	bool equality = !strcmp(op, "==") || !strcmp(op, "!=");

	if (equality && (how == CMP_VERSION || how == CMP_GLOB)) {
		bool eq = fnmatch(want, have, 0) == 0;

		return !strcmp(op, "==") ? eq : !eq;
	}
	return compare_result(how == CMP_VERSION ? version_cmp(have, want) : strcmp(have, want),
			      op);
}

/* An operator the left side does not take: one error at the operator. */
static bool bad_operator(enum pp_cmp how, const struct token *op, const struct token *rhs)
{
	bool equality = tok_is(op, "==") || tok_is(op, "!=");

	if ((how == CMP_GLOB || how == CMP_EXACT) && !equality) {
		error_at(op->loc, "expected '==' or '!='");
		return true;
	}
	if (how == CMP_VERSION && !equality && rhs->kind == TK_STR &&
	    strpbrk(rhs->str, "*?[")) {
		error_at(op->loc, "wildcard not allowed with order comparison operators");
		return true;
	}
	return false;
}

/* A named condition's value (kernel_v, arch, CONFIG_* ...), or NULL with numeric set. */
static const char *named_condition(struct pp *pp, const struct token *tok, enum pp_cmp *how,
				   int64_t *num)
{
	char *name = arena_strndup(tok->text, tok->len);
	static const struct {
		const char *name;
		enum pp_cmp how;
	} names[] = {
		{ "kernel_v", CMP_VERSION }, { "kernel_vr", CMP_VERSION },
		{ "systemtap_v", CMP_VERSION }, { "arch", CMP_GLOB }, { "runtime", CMP_GLOB },
		{ "systemtap_privilege", CMP_EXACT }, { "guru_mode", CMP_NUM },
	};
	const char *values[] = {
		pp->env->kernel_v, pp->env->kernel_vr,
		"4.8",	/* the stap language level utap implements */
		pp->env->arch, "kernel", "stapdev", NULL,
	};

	if (!strncmp(name, "CONFIG_", 7)) {
		*how = CMP_GLOB;
		return kconfig_value(pp, name);
	}
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (!strcmp(name, names[i].name)) {
			*how = names[i].how;
			*num = pp->env->guru;
			return values[i];
		}
	error_at(tok->loc, "unknown preprocessor condition '%s' (expected kernel_v, "
		 "kernel_vr, arch, runtime, systemtap_v, guru_mode, CONFIG_*, $# or @#)", name);
	*how = CMP_STRING;
	return "";
}

static bool cond_atom_inner(struct pp *pp, struct token **rest, struct token *tok);

static bool cond_atom(struct pp *pp, struct token **rest, struct token *tok)
{
	bool v;

	if (pp->cond_depth >= PP_MAX_COND_DEPTH) {
		if (!pp->runaway)
			error_at(tok->loc, "preprocessor condition nests too deeply");
		pp->runaway = true;
		*rest = tok;
		return false;
	}
	pp->cond_depth++;
	v = cond_atom_inner(pp, rest, tok);
	pp->cond_depth--;
	return v;
}

static bool cond_atom_inner(struct pp *pp, struct token **rest, struct token *tok)
{
	const char *have = NULL, *op;
	struct token *rhs;
	enum pp_cmp how = CMP_STRING;
	int64_t nhave = 0;

	if (tok_is(tok, "(")) {
		bool v = cond_or(pp, &tok, tok->next);

		if (tok_is(tok, ")"))
			tok = tok->next;
		else if (!pp->runaway)
			error_at(tok->loc, "expected ')' in preprocessor condition, found %s",
				 tok_describe(tok));
		*rest = tok;
		return v;
	}
	if (tok_is(tok, "!")) {
		bool v = cond_atom(pp, rest, tok->next);

		return !v;
	}
	if (tok->kind == TK_IDENT) {
		have = named_condition(pp, tok, &how, &nhave);
	} else if (tok_is(tok, "$#")) {
		how = CMP_NUM;
		nhave = pp->env->nargs;
	} else if (tok_is(tok, "@#")) {
		/* @# is the count as a string, as @N is the argument as one */
		have = arena_printf("%d", pp->env->nargs);
	} else if ((tok->kind == TK_TARGET || tok->kind == TK_AT) && tok->len > 1 &&
		   tok->text[1] >= '0' && tok->text[1] <= '9') {
		/* $N compares as a number when it is one, @N always as a string */
		int idx = atoi(tok->text + 1);
		const char *arg = idx >= 1 && idx <= pp->env->nargs ? pp->env->args[idx - 1] : NULL;
		char *end;

		if (!arg) {
			error_at(tok->loc, "command line argument index %d out of range [1-%d]", idx,
				 pp->env->nargs);
			arg = "";
		}
		nhave = strtoll(arg, &end, 0);
		if (tok->text[0] == '$' && *arg && !*end)
			how = CMP_NUM;
		have = arg;
	} else if (tok->kind == TK_NUM) {
		how = CMP_NUM;
		nhave = tok->num;
	} else if (tok->kind == TK_STR) {
		have = tok->str;
	} else {
		error_at(tok->loc, "expected a preprocessor condition, found %s", tok_describe(tok));
		*rest = tok->kind == TK_EOF ? tok : tok->next;
		return false;
	}
	tok = tok->next;
	if (!is_compare_op(tok)) {
		error_at(tok->loc, "expected a comparison operator in preprocessor condition, found %s",
			 tok_describe(tok));
		*rest = tok;
		return false;
	}
	op = arena_strndup(tok->text, tok->len);
	rhs = tok->next;
	*rest = rhs->kind == TK_EOF ? rhs : rhs->next;
	if (how == CMP_NUM) {
		if (rhs->kind != TK_NUM) {
			error_at(rhs->loc, "expected a number, found %s", tok_describe(rhs));
			return false;
		}
		return compare_result(nhave < rhs->num ? -1 : nhave > rhs->num, op);
	}
	if (rhs->kind != TK_STR) {
		error_at(rhs->loc, "expected a string, found %s", tok_describe(rhs));
		return false;
	}
	if (bad_operator(how, tok, rhs))
		return false;
	return compare_strings(have, op, rhs->str, how);
}

static bool cond_and(struct pp *pp, struct token **rest, struct token *tok)
{
	bool v = cond_atom(pp, &tok, tok);

	while (tok_is(tok, "&&")) {
		bool w = cond_atom(pp, &tok, tok->next);

		v = v && w;
	}
	*rest = tok;
	return v;
}

static bool cond_or(struct pp *pp, struct token **rest, struct token *tok)
{
	bool v = cond_and(pp, &tok, tok);

	while (tok_is(tok, "||")) {
		bool w = cond_and(pp, &tok, tok->next);

		v = v || w;
	}
	*rest = tok;
	return v;
}

/*
 * Copies tokens from tok up to (not including) the first of the stop
 * markers at nesting depth 0, into a new list ending in TK_EOF.
 */
static struct token *collect_until(struct token **rest, struct token *tok, const char *stop1,
				   const char *stop2, struct loc open)
{
	struct token head = { 0 }, *cur = &head;
	int depth = 0;

	for (;; tok = tok->next) {
		if (tok->kind == TK_EOF) {
			error_at(open, "unterminated preprocessor conditional: missing '%%)'");
			break;
		}
		if (tok->kind == TK_PP && depth == 0 &&
		    (tok_is(tok, stop1) || (stop2 && tok_is(tok, stop2))))
			break;
		if (tok_is(tok, "%("))
			depth++;
		else if (tok_is(tok, "%)"))
			depth--;
		cur = cur->next = copy_token(tok);
	}
	cur->next = eof_after(tok);
	*rest = tok;
	return head.next;
}

/* Splices list (ending in TK_EOF) in front of after; returns the new head. */
static struct token *splice(struct token *list, struct token *after)
{
	struct token head = { .next = list }, *t = &head;

	while (t->next && t->next->kind != TK_EOF)
		t = t->next;
	t->next = after;
	return head.next;
}

static struct token *expand_conditional(struct pp *pp, struct token *tok)
{
	struct loc open = tok->loc;
	struct token *then, *els = NULL;
	bool v;

	v = cond_or(pp, &tok, tok->next);
	if (!tok_is(tok, "%?")) {
		error_at(tok->loc, "expected '%%?' after preprocessor condition, found %s",
			 tok_describe(tok));
		/* skip the whole conditional so its '%)' is not reported again */
		collect_until(&tok, tok, "%)", NULL, open);
		return tok->kind == TK_EOF ? tok : tok->next;
	}
	then = collect_until(&tok, tok->next, "%:", "%)", open);
	if (tok_is(tok, "%:"))
		els = collect_until(&tok, tok->next, "%)", NULL, open);
	if (tok->kind == TK_EOF)
		return tok;
	tok = tok->next;	/* past %) */
	if (v)
		return splice(then, tok);
	return els ? splice(els, tok) : tok;
}

static struct token *argument_tokens(struct pp *pp, struct token *tok)
{
	int idx;
	const char *arg;
	struct source *src;
	struct token *t;

	idx = atoi(tok->text + 1);
	if (idx < 1 || idx > pp->env->nargs) {
		error_at(tok->loc, "command line argument index %d out of range [1-%d]", idx,
			 pp->env->nargs);
		return NULL;
	}
	arg = pp->env->args[idx - 1];
	if (tok->text[0] == '@') {
		t = copy_token(tok);
		t->kind = TK_STR;
		t->str = arg;
		t->str_len = strlen(arg);
		return t;
	}
	/* $N: the argument's text is re-lexed, so "$1" can be a number, a name or a probe point */
	src = source_from_string(arena_printf("<argument $%d>", idx), arg);
	t = tokenize(src);
	for (struct token *u = t; u; u = u->next)
		u->space_before = u == t ? tok->space_before : u->space_before;
	return t;
}

static struct token *define_macro(struct pp *pp, struct token *tok)
{
	struct macro *m = arena_alloc(sizeof(*m));
	struct token *name = tok->next;
	const char *params[32];

	if (name->kind != TK_IDENT) {
		error_at(name->loc, "expected a macro name after @define, found %s",
			 tok_describe(name));
		return name;
	}
	m->name = arena_strndup(name->text, name->len);
	tok = name->next;
	if (tok_is(tok, "(")) {
		tok = tok->next;
		while (!tok_is(tok, ")")) {
			if (tok->kind != TK_IDENT || m->nparams == 32) {
				error_at(tok->loc, "expected a macro parameter name, found %s",
					 tok_describe(tok));
				return tok;
			}
			params[m->nparams++] = arena_strndup(tok->text, tok->len);
			tok = tok->next;
			if (tok_is(tok, ","))
				tok = tok->next;
		}
		tok = tok->next;
	}
	m->params = arena_alloc(sizeof(char *) * (m->nparams + 1));
	memcpy(m->params, params, sizeof(char *) * m->nparams);
	if (!tok_is(tok, "%(")) {
		error_at(tok->loc, "expected '%%(' to open the body of macro '%s'", m->name);
		return tok;
	}
	m->body = collect_until(&tok, tok->next, "%)", NULL, tok->loc);
	m->next = pp->macros;
	pp->macros = m;
	return tok->kind == TK_EOF ? tok : tok->next;
}

static struct macro *find_in(struct macro *m, const struct token *tok)
{
	for (; m; m = m->next)
		if (strlen(m->name) == tok->len - 1 && !memcmp(m->name, tok->text + 1, tok->len - 1))
			return m;
	return NULL;
}

/* the file's own macros first, then the tapsets' .stpm ones */
static struct macro *find_macro(struct pp *pp, const struct token *tok)
{
	struct macro *m = find_in(pp->macros, tok);

	return m ? m : find_in(pp->env->library, tok);
}

/* The actual argument a parameter reference B of M stands for, or NULL. */
static struct token *macro_actual(const struct macro *m, const struct token *b,
				  struct token **actuals)
{
	for (int i = 0; i < m->nparams; i++)
		if (b->kind == TK_AT && strlen(m->params[i]) == b->len - 1 &&
		    !memcmp(m->params[i], b->text + 1, b->len - 1))
			return actuals[i];
	return NULL;
}

/* Appends a copy of T after *CUR; false once the script's token budget is spent. */
static bool append_expanded(struct pp *pp, struct token **cur, const struct token *t,
			    int depth)
{
	*cur = (*cur)->next = expanded_copy(t, depth);
	return ++pp->expanded <= PP_MAX_EXPANDED_TOKENS;
}

static struct token *expand_macro(struct pp *pp, struct macro *m, struct token *tok,
				  struct token **rest)
{
	struct token *actuals[32] = { 0 };
	struct token head = { 0 }, *cur = &head;
	struct loc at = tok->loc;
	int depth = tok->expansion, n = 0;

	tok = tok->next;
	if (m->nparams) {
		if (!tok_is(tok, "(")) {
			error_at(tok->loc, "macro '%s' takes %d argument%s", m->name, m->nparams,
				 m->nparams == 1 ? "" : "s");
			*rest = tok;
			return NULL;
		}
		tok = tok->next;
		while (n < m->nparams) {
			struct token ah = { 0 }, *ac = &ah;
			int depth = 0;

			while (tok->kind != TK_EOF &&
			       !(depth == 0 && (tok_is(tok, ",") || tok_is(tok, ")")))) {
				if (tok_is(tok, "(") || tok_is(tok, "[") || tok_is(tok, "{"))
					depth++;
				if (tok_is(tok, ")") || tok_is(tok, "]") || tok_is(tok, "}"))
					depth--;
				ac = ac->next = copy_token(tok);
				tok = tok->next;
			}
			ac->next = eof_after(tok);
			actuals[n++] = ah.next ? ah.next : ac->next;
			if (!tok_is(tok, ","))
				break;
			tok = tok->next;
		}
		if (n != m->nparams || !tok_is(tok, ")")) {
			error_at(at, "macro '%s' takes %d argument%s", m->name, m->nparams,
				 m->nparams == 1 ? "" : "s");
			*rest = tok;
			return NULL;
		}
		tok = tok->next;
	}
	*rest = tok;
	if (pp->runaway)
		return NULL;
	if (depth >= PP_MAX_EXPANSION_DEPTH) {
		error_at(at, "macro '%s' expands recursively too deep", m->name);
		pp->runaway = true;
		return NULL;
	}
	for (struct token *b = m->body; b->kind != TK_EOF; b = b->next) {
		struct token *arg = macro_actual(m, b, actuals);
		bool ok = true;

		if (arg)
			for (; ok && arg->kind != TK_EOF; arg = arg->next)
				ok = append_expanded(pp, &cur, arg, depth + 1);
		else
			ok = append_expanded(pp, &cur, b, depth + 1);
		if (!ok) {
			error_at(at, "macro '%s' expands to more than %d tokens", m->name,
				 PP_MAX_EXPANDED_TOKENS);
			pp->runaway = true;
			return NULL;
		}
	}
	cur->next = eof_after(tok);
	return head.next;
}

/*
 * A tapset macro file (.stpm) holds @define macros, inside conditionals or
 * not, and nothing else; they join env->library, which is returned.
 */
struct macro *preprocess_macros(struct token *tok, const struct pp_env *env)
{
	struct pp pp = { .env = env, .macros = env->library };

	while (tok->kind != TK_EOF) {
		if (tok_is(tok, "%(")) {
			tok = expand_conditional(&pp, tok);
			continue;
		}
		if (!tok_is(tok, "@define")) {
			error_at(tok->loc, "a macro file (.stpm) holds only @define macros, found %s",
				 tok_describe(tok));
			return pp.macros;
		}
		tok = define_macro(&pp, tok);
	}
	return pp.macros;
}

struct token *preprocess(struct token *tok, const struct pp_env *env)
{
	struct pp pp = { .env = env };
	struct token head = { 0 }, *cur = &head;

	while (tok->kind != TK_EOF) {
		if (tok_is(tok, "%(")) {
			tok = expand_conditional(&pp, tok);
			continue;
		}
		if (tok->kind == TK_PP) {
			error_at(tok->loc, "'%.*s' outside a preprocessor conditional", (int)tok->len,
				 tok->text);
			tok = tok->next;
			continue;
		}
		if (tok_is(tok, "@define")) {
			tok = define_macro(&pp, tok);
			continue;
		}
		if (tok_is(tok, "$#") || tok_is(tok, "@#")) {
			struct token *n = copy_token(tok);

			n->kind = TK_NUM;
			n->num = env->nargs;
			n->next = tok->next;
			cur = cur->next = n;
			tok = tok->next;
			continue;
		}
		if ((tok->kind == TK_TARGET || tok->kind == TK_AT) && tok->len > 1 &&
		    tok->text[1] >= '0' && tok->text[1] <= '9') {
			struct token *a = argument_tokens(&pp, tok);

			tok = tok->next;
			if (a)
				tok = splice(a, tok);
			continue;
		}
		if (tok->kind == TK_AT) {
			struct macro *m = find_macro(&pp, tok);

			if (m) {
				struct token *rest, *x = expand_macro(&pp, m, tok, &rest);

				tok = x ? splice(x, rest) : rest;
				continue;
			}
		}
		cur = cur->next = tok;
		tok = tok->next;
	}
	cur->next = tok;
	return head.next;
}
