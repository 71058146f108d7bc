/*
 * dump.c - the tree as script text: -p1 prints the parsed user script with
 * it, -p2 (sema/listing.c) the pieces pass 2 kept, and messages name probe
 * points with it.
 */
#include "front/front.h"

#include <stdlib.h>
#include <string.h>

static void dump_stmt(struct strbuf *sb, const struct node *n, int indent);

static void dump_list(struct strbuf *sb, const struct node *n, const char *sep)
{
	for (; n; n = n->next) {
		dump_expr(sb, n);
		if (n->next)
			sb_puts(sb, sep);
	}
}

static void dump_string(struct strbuf *sb, const char *s, size_t len)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			sb_printf(sb, "\\%c", c);
		else if (c == '\n')
			sb_puts(sb, "\\n");
		else if (c == '\t')
			sb_puts(sb, "\\t");
		else if (c < 32 || c >= 127)
			sb_printf(sb, "\\%03o", c);
		else
			sb_putc(sb, (char)c);
	}
	sb_putc(sb, '"');
}

static void append_quoted(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(sb, '\\');
		sb_putc(sb, *s);
	}
	sb_putc(sb, '"');
}

void dump_probe_point(struct strbuf *sb, const struct probe_point *pp)
{
	for (const struct pp_component *c = pp->comps; c; c = c->next) {
		sb_puts(sb, c->name);
		if (c->arg) {
			sb_putc(sb, '(');
			if (c->arg->kind == N_STR)
				append_quoted(sb, c->arg->str);
			else
				sb_printf(sb, "%lld", (long long)c->arg->num);
			sb_putc(sb, ')');
		}
		if (c->next)
			sb_putc(sb, '.');
	}
}

/* The point as written in a probe: with its '?' or '!' and its condition */
void dump_probe_point_written(struct strbuf *sb, const struct probe_point *pp)
{
	dump_probe_point(sb, pp);
	if (pp->optional)
		sb_putc(sb, pp->sufficient ? '!' : '?');
	if (pp->cond) {
		sb_puts(sb, " if (");
		dump_expr(sb, pp->cond);
		sb_putc(sb, ')');
	}
}

void dump_probe_head(struct strbuf *sb, const struct probe *p)
{
	if (p->is_alias) {
		for (const struct probe_point *pp = p->alias_names; pp; pp = pp->next) {
			dump_probe_point(sb, pp);
			sb_puts(sb, pp->next ? ", " : "");
		}
		sb_puts(sb, p->is_epilogue ? " += " : " = ");
	}
	for (const struct probe_point *pp = p->points; pp; pp = pp->next) {
		dump_probe_point_written(sb, pp);
		sb_puts(sb, pp->next ? ", " : "");
	}
}

const char *pp_string(const struct probe_point *pp)
{
	struct strbuf sb = { 0 };
	const char *s;

	dump_probe_point(&sb, pp);
	s = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return s;
}

/* ->f and [i] after a target variable or a @cast */
static void dump_target_suffix(struct strbuf *sb, const struct node *a)
{
	for (; a; a = a->next) {
		if (a->op && !strcmp(a->op, "->")) {
			sb_printf(sb, "->%s", a->str);
			continue;
		}
		sb_putc(sb, '[');
		dump_expr(sb, a);
		sb_putc(sb, ']');
	}
}

void dump_expr(struct strbuf *sb, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_NUM:
		sb_printf(sb, "%lld", (long long)n->num);
		break;
	case N_STR:
		dump_string(sb, n->str, n->str_len);
		break;
	case N_VAR:
		sb_puts(sb, n->name);
		break;
	case N_NULL:
		sb_putc(sb, '*');
		break;
	case N_INDEX:
		dump_expr(sb, n->lhs);
		sb_putc(sb, '[');
		dump_list(sb, n->args, ", ");
		sb_putc(sb, ']');
		break;
	case N_CALL:
	case N_PRINT:
		sb_printf(sb, "%s(", n->name);
		dump_list(sb, n->args, ", ");
		sb_putc(sb, ')');
		break;
	case N_BINARY:
	case N_LOGICAL:
	case N_COMPARE:
	case N_REGEX:
	case N_CONCAT:
	case N_ASSIGN:
	case N_AGG_ADD:
		sb_putc(sb, '(');
		dump_expr(sb, n->lhs);
		sb_printf(sb, ") %s (", n->op);
		dump_expr(sb, n->rhs);
		sb_putc(sb, ')');
		break;
	case N_UNARY:
	case N_PREINC:
		sb_printf(sb, "%s(", n->op);
		dump_expr(sb, n->lhs);
		sb_putc(sb, ')');
		break;
	case N_POSTINC:
		sb_putc(sb, '(');
		dump_expr(sb, n->lhs);
		sb_printf(sb, ")%s", n->op);
		break;
	case N_TERNARY:
		sb_putc(sb, '(');
		dump_expr(sb, n->cond);
		sb_puts(sb, ") ? (");
		dump_expr(sb, n->then);
		sb_puts(sb, ") : (");
		dump_expr(sb, n->els);
		sb_putc(sb, ')');
		break;
	case N_IN:
		sb_putc(sb, '[');
		dump_list(sb, n->args, ", ");
		sb_puts(sb, "] in ");
		dump_expr(sb, n->lhs);
		break;
	case N_STATOP:
	case N_HIST:
		sb_printf(sb, "%s(", n->name);
		dump_expr(sb, n->lhs);
		for (const struct node *a = n->kind == N_HIST ? n->args : n->rhs; a; a = a->next) {
			sb_puts(sb, ", ");
			dump_expr(sb, a);
		}
		sb_putc(sb, ')');
		break;
	case N_TARGET:
		sb_printf(sb, "%s%s", n->op ? n->op : "", n->name);
		dump_target_suffix(sb, n->args);
		sb_printf(sb, "%.*s", n->pretty, "$$");
		break;
	case N_CAST:
		sb_printf(sb, "%s%s(", n->op ? n->op : "", n->name);
		dump_list(sb, n->lhs, ", ");
		sb_putc(sb, ')');
		dump_target_suffix(sb, n->args);
		sb_printf(sb, "%.*s", n->pretty, "$$");
		break;
	case N_DEFINED:
	case N_ENTRY:
		sb_printf(sb, "%s(", n->kind == N_DEFINED ? "@defined" : "@entry");
		dump_expr(sb, n->lhs);
		sb_putc(sb, ')');
		break;
	case N_PROBEWRITE:
		sb_printf(sb, "@probewrite(%s)", n->name);
		break;
	case N_EMBED:
		sb_printf(sb, "%%{%s%%}", n->str);
		break;
	case N_BUCKET:
		dump_expr(sb, n->lhs);
		sb_putc(sb, '[');
		dump_expr(sb, n->rhs);
		sb_putc(sb, ']');
		break;
	default:
		sb_puts(sb, "?");
		break;
	}
}

static void pad(struct strbuf *sb, int indent)
{
	for (int i = 0; i < indent; i++)
		sb_puts(sb, "  ");
}

static void dump_foreach_head(struct strbuf *sb, const struct node *n)
{
	sb_puts(sb, "foreach (");
	if (n->fe_value)
		sb_printf(sb, "%s = ", n->fe_value->name);
	sb_putc(sb, '[');
	for (int i = 0; i < n->fe_nkeys; i++) {
		sb_printf(sb, "%s%s", i ? ", " : "", n->fe_keys[i] ? n->fe_keys[i]->name : "?");
		if (n->fe_sort_col == i + 1)
			sb_putc(sb, n->fe_sort_dir > 0 ? '+' : '-');
	}
	sb_puts(sb, "] in ");
	dump_expr(sb, n->lhs);
	if (n->fe_sort_agg)
		sb_printf(sb, " %s", n->fe_sort_agg);
	if (n->fe_sort_col == -1)
		sb_putc(sb, n->fe_sort_dir > 0 ? '+' : '-');
	if (n->fe_limit) {
		sb_puts(sb, " limit ");
		dump_expr(sb, n->fe_limit);
	}
	sb_puts(sb, ") ");
}

static void dump_stmt(struct strbuf *sb, const struct node *n, int indent)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		sb_puts(sb, "{\n");
		for (const struct node *s = n->body; s; s = s->next) {
			pad(sb, indent + 1);
			dump_stmt(sb, s, indent + 1);
			sb_putc(sb, '\n');
		}
		pad(sb, indent);
		sb_putc(sb, '}');
		break;
	case N_EXPR_STMT:
		dump_expr(sb, n->lhs);
		break;
	case N_IF:
		sb_puts(sb, "if (");
		dump_expr(sb, n->cond);
		sb_puts(sb, ") ");
		dump_stmt(sb, n->then, indent);
		if (n->els) {
			sb_puts(sb, " else ");
			dump_stmt(sb, n->els, indent);
		}
		break;
	case N_WHILE:
		sb_puts(sb, "while (");
		dump_expr(sb, n->cond);
		sb_puts(sb, ") ");
		dump_stmt(sb, n->body, indent);
		break;
	case N_FOR:
		sb_puts(sb, "for (");
		dump_expr(sb, n->init);
		sb_puts(sb, "; ");
		dump_expr(sb, n->cond);
		sb_puts(sb, "; ");
		dump_expr(sb, n->inc);
		sb_puts(sb, ") ");
		dump_stmt(sb, n->body, indent);
		break;
	case N_FOREACH:
		dump_foreach_head(sb, n);
		dump_stmt(sb, n->body, indent);
		break;
	case N_BREAK:
		sb_puts(sb, "break");
		break;
	case N_CONTINUE:
		sb_puts(sb, "continue");
		break;
	case N_NEXT:
		sb_puts(sb, "next");
		break;
	case N_RETURN:
		sb_puts(sb, "return");
		if (n->lhs) {
			sb_putc(sb, ' ');
			dump_expr(sb, n->lhs);
		}
		break;
	case N_DELETE:
		sb_puts(sb, "delete ");
		dump_expr(sb, n->lhs);
		break;
	case N_TRY:
		sb_puts(sb, "try ");
		dump_stmt(sb, n->body, indent);
		sb_puts(sb, " catch");
		if (n->catch_var)
			sb_printf(sb, "(%s)", n->catch_var->name);
		sb_putc(sb, ' ');
		dump_stmt(sb, n->catch_body, indent);
		break;
	case N_EMBED:
		sb_printf(sb, "%%{%s%%}", n->str);
		break;
	case N_NULL:
		sb_putc(sb, ';');
		break;
	default:
		dump_expr(sb, n);
		break;
	}
}

/* Pass 1 shows types as written; pass 2 every inferred one, "unknown" for none. */
void dump_typed(struct strbuf *sb, const char *name, enum type t, bool inferred)
{
	sb_puts(sb, name);
	if (t == TY_STATS)
		sb_puts(sb, ":stats");
	else if (t != TY_UNKNOWN || inferred)
		sb_printf(sb, ":%s", type_name(t));
}

void dump_function_head(struct strbuf *sb, const struct function *fn, bool inferred)
{
	int i = 0;

	if (!inferred)
		sb_puts(sb, "function ");
	dump_typed(sb, fn->name, fn->ret, inferred);
	sb_puts(sb, inferred ? " (" : "(");
	for (const struct symbol *p = fn->params; p && i < fn->nparams; p = p->next, i++) {
		sb_puts(sb, i ? ", " : "");
		dump_typed(sb, p->name, p->type, inferred);
	}
	sb_putc(sb, ')');
}

static void dump_function(struct strbuf *sb, const struct function *fn)
{
	dump_function_head(sb, fn, false);
	if (fn->priority != fn->src->is_tapset)
		sb_printf(sb, ":%d", fn->priority);
	sb_putc(sb, ' ');
	if (fn->embedded)
		sb_puts(sb, "%{ /* embedded code */ %}");
	else
		dump_stmt(sb, fn->body, 0);
	sb_putc(sb, '\n');
}

void dump_file(FILE *out, const struct file *f)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "# parse tree dump\n# file %s\n", f->src->name);
	for (const struct global *g = f->globals; g; g = g->next) {
		sb_printf(&sb, "global %s", g->sym->name);
		if (g->size)
			sb_printf(&sb, "[%ld]", g->size);
		if (g->wrap)
			sb_putc(&sb, '%');
		if (g->init) {
			sb_puts(&sb, " = ");
			dump_expr(&sb, g->init);
		}
		sb_putc(&sb, '\n');
	}
	for (const struct function *fn = f->functions; fn; fn = fn->next)
		dump_function(&sb, fn);
	for (const struct probe *p = f->probes; p; p = p->next) {
		sb_puts(&sb, "probe ");
		dump_probe_head(&sb, p);
		sb_putc(&sb, ' ');
		/* an alias's epilogue is left out, as stap 4.8's -p1 leaves it out */
		dump_stmt(&sb, p->body, 0);
		sb_putc(&sb, '\n');
	}
	fputs(sb.buf ? sb.buf : "", out);
	sb_free(&sb);
}

void dump_locals(struct strbuf *sb, const struct symbol *l)
{
	bool any = false;

	for (; l; l = l->next) {
		if (l->kind != SYM_LOCAL)
			continue;
		sb_puts(sb, any ? "  " : "  # locals\n  ");
		dump_typed(sb, l->name, l->type, true);
		sb_putc(sb, '\n');
		any = true;
	}
}
