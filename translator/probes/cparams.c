/*
 * cparams.c - C parameter lists of kernel headers, and the C that reads a
 * target variable through them without faulting (runtime/probes/tvar.c).
 *
 * The parser only has to find each parameter's name and its declaration's
 * text: the types themselves are left to the C compiler, which sees the same
 * headers when the module is built.
 */
#include "cparams.h"
#include "codegen/emit.h"

#include <ctype.h>
#include <string.h>

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

char *c_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Words that end a declaration without naming it: "unsigned long", "struct foo *". */
static bool is_type_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"void", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
		"_Bool", "bool", "const", "volatile", "struct", "union", "enum", "__user",
		"__rcu", "__iomem", "__percpu", "__force",
	};

	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (strlen(words[i]) == n && !strncmp(words[i], w, n))
			return true;
	return false;
}

/* The name a declaration declares, or NULL; start and len locate it in decl. */
static const char *decl_name(const char *decl, size_t *start, size_t *len)
{
	const char *fp = strstr(decl, "(*");
	const char *end, *b;

	if (fp) {
		b = fp + 2;
		while (*b == ' ')
			b++;
		end = b;
		while (is_ident_char(*end))
			end++;
	} else {
		end = decl + strlen(decl);
		if (strchr(decl, '['))
			end = strchr(decl, '[');
		while (end > decl && isspace((unsigned char)end[-1]))
			end--;
		b = end;
		while (b > decl && is_ident_char(b[-1]))
			b--;
		/* a lone identifier is a type name (an unnamed parameter) */
		if (b == decl || is_type_word(b, (size_t)(end - b)))
			return NULL;
	}
	if (end == b || isdigit((unsigned char)*b))
		return NULL;
	*start = (size_t)(b - decl);
	*len = (size_t)(end - b);
	return arena_strndup(b, *len);
}

static bool is_annotation(const char *w, size_t n)
{
	static const char *const words[] = { "__user", "__rcu", "__iomem", "__percpu", "__force" };

	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (strlen(words[i]) == n && !strncmp(words[i], w, n))
			return true;
	return false;
}

/* "struct task_struct*", "const char* const*" for listings: annotations dropped. */
static const char *display_type(const char *decl, size_t name_at, size_t name_len)
{
	struct strbuf sb = { 0 };
	const char *text = arena_printf("%.*s %s", (int)name_at, decl, decl + name_at + name_len);
	const char *r;
	bool word_before = false;

	for (const char *p = text; *p;) {
		const char *e = p;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (!is_ident_char(*p)) {
			sb_putc(&sb, *p++);
			word_before = false;
			continue;
		}
		while (is_ident_char(*e))
			e++;
		if (!is_annotation(p, (size_t)(e - p))) {
			if (sb.len && (word_before || sb.buf[sb.len - 1] == '*'))
				sb_putc(&sb, ' ');
			sb_putn(&sb, p, (size_t)(e - p));
			word_before = true;
		}
		p = e;
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

static bool add_param(char *text, struct cparam *out)
{
	char *decl = c_trim(text);
	size_t at = 0, len = 0;

	out->decl = arena_strdup(decl);
	out->name = decl_name(out->decl, &at, &len);
	out->type = out->name ? display_type(out->decl, at, len) : display_type(out->decl, 0, 0);
	return true;
}

int cparams_parse(const char *text, struct cparam **out)
{
	char *buf = arena_strdup(text), *t = c_trim(buf), *start = t;
	int depth = 0, n = 0, cap = 8;
	struct cparam *p = arena_alloc(sizeof(*p) * cap);

	*out = p;
	if (!*t || !strcmp(t, "void"))
		return 0;
	for (char *q = t;; q++) {
		if (*q == '(' || *q == '[')
			depth++;
		else if (*q == ')' || *q == ']')
			depth--;
		if (depth < 0)
			return -1;
		if (*q && (*q != ',' || depth))
			continue;
		if (n == cap) {
			struct cparam *bigger = arena_alloc(sizeof(*bigger) * (cap *= 2));

			memcpy(bigger, p, sizeof(*p) * n);
			*out = p = bigger;
		}
		{
			char saved = *q;

			*q = 0;
			add_param(start, &p[n++]);
			if (!saved)
				break;
			start = q + 1;
		}
	}
	return depth ? -1 : n;
}

int cparams_find(const struct cparam *p, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (p[i].name && !strcmp(p[i].name, name))
			return i;
	return -1;
}

/* ---- target variables ---- */

int cparams_check_target(const struct node *n, bool quiet)
{
	if (n->name[strlen(n->name) - 1] == '$') {
		if (!quiet)
			error_at(n->loc, "pretty-printing '%s' is not supported for this probe", n->name);
		return -1;
	}
	return 0;
}

const char *cparams_var_text(const struct node *n)
{
	struct strbuf sb = { 0 };
	const char *r;

	dump_expr(&sb, n);
	r = arena_strdup(sb.buf ? sb.buf : n->name);
	sb_free(&sb);
	return r;
}

/* The variable's text as a C string literal, for run-time error messages. */
static const char *var_text(const struct node *n)
{
	const char *r = cparams_var_text(n);

	return c_string_literal(r, strlen(r));
}

/* Leaves utap_a at the address of the next lvalue; t is the current lvalue's type expression. */
static const char *emit_step(struct emitter *em, const struct node *a, const char *t,
			     const char *what, const char *near)
{
	emit_line(em, "if (UTAP_TV_IS_ARRAY(%s) || !UTAP_TV_SCALAR(%s))", t, t);
	emit_line(em, "\tutap_p = utap_a;");
	emit_line(em, "else if (utap_tv_read(c, utap_a, &utap_p, sizeof(utap_p), %s))", what);
	emit_line(em, "\tUTAP_ERROR(c, c->error_buf, %s, %s);", near, em->err_label);
	if (a->op && !strcmp(a->op, "->")) {
		emit_line(em, "utap_a = (unsigned long)&((typeof(&UTAP_TV_OBJ(%s)))utap_p)->%s;",
			  t, a->str);
		return arena_printf("UTAP_TV_OBJ(%s).%s", t, a->str);
	}
	emit_line(em, "utap_a = utap_p + (unsigned long)(%s) * sizeof((%s)[0]);",
		  a->kind == N_NUM ? arena_printf("%lldLL", (long long)a->num) :
		  emit_value(em, (struct node *)a).c, t);
	return arena_printf("(%s)[0]", t);
}

struct val cparams_emit_target(struct emitter *em, const struct node *n, const char *base)
{
	const char *t = arena_printf("(%s)", base), *res = emit_new_long(em);
	const char *what = var_text(n), *near = c_near(n);

	emit_need(em, "tvar");
	emit_line(em, "{");
	em->indent++;
	emit_line(em, "unsigned long utap_a = (unsigned long)&%s, utap_p = 0;", t);
	emit_line(em, "(void)utap_p;");
	for (const struct node *a = n->args; a; a = a->next)
		t = emit_step(em, a, t, what, near);
	if (n->op && !strcmp(n->op, "&")) {
		emit_line(em, "%s = (int64_t)utap_a;", res);
	} else {
		emit_line(em, "_Static_assert(UTAP_TV_SCALAR(%s), \"utap: \" %s \" is a struct or "
			  "union: name one of its members\");", t, what);
		emit_line(em, "if (UTAP_TV_IS_ARRAY(%s))", t);
		emit_line(em, "\t%s = (int64_t)utap_a;", res);
		emit_line(em, "else if (utap_tv_value(c, utap_a, sizeof(%s), UTAP_TV_SIGNED(%s), &%s, "
			  "%s))", t, t, res, what);
		emit_line(em, "\tUTAP_ERROR(c, c->error_buf, %s, %s);", near, em->err_label);
	}
	em->indent--;
	emit_line(em, "}");
	return (struct val){ .type = TY_LONG, .c = res };
}

struct val cparams_emit_parms(struct emitter *em, const struct cparam *p, int n,
			      const char *(*base)(void *ctx, int i), void *ctx)
{
	const char *s = emit_new_str(em);
	bool first = true;

	emit_need(em, "tvar");
	emit_line(em, "%s[0] = 0;", s);
	for (int i = 0; i < n; i++) {
		const char *b = base(ctx, i);

		if (!p[i].name)
			continue;
		emit_line(em, "snprintf(%s + strlen(%s), MAXSTRINGLEN - strlen(%s), \"%s%s=0x%%llx\", "
			  "(unsigned long long)utap_tv_local(&(%s), sizeof(%s), UTAP_TV_SIGNED(%s)));",
			  s, s, s, first ? "" : " ", p[i].name, b, b, b);
		first = false;
	}
	return (struct val){ .type = TY_STRING, .c = s, .str_temp = true };
}
