/*
 * tphdr.c - tracepoint declarations read from the kernel's trace headers.
 *
 * What is parsed, and how far it is trusted:
 *   - comments, line continuations and string literals are handled;
 *   - #if/#ifdef/#ifndef/#elif/#else are evaluated when they test CONFIG_
 *     symbols (from the build tree's .config), header guards or macros the
 *     header itself defined; any other condition counts as true;
 *   - #define'd function-like wrappers (DEFINE_RPC_RUNNING_EVENT(name) ...)
 *     and object-like aliases (TRACE_EVENT_RCU -> TRACE_EVENT) are expanded,
 *     with ## pasting and __VA_ARGS__;
 *   - TRACE_EVENT*, DEFINE_EVENT*, DECLARE_TRACE* give a name and TP_PROTO.
 * A mistake cannot go unnoticed: the generated module asserts at compile
 * time that its probe function has exactly the type of the header's own
 * trace_NAME(), and registration looks the tracepoint up by name.
 */
#include "tphdr.h"
#include "cparams.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- .config ---- */

struct kconfig {
	char **names, **values;
	int n;
};

struct kconfig *kconfig_read(const char *path)
{
	char *text = path ? read_file(path, NULL) : NULL, *save = NULL;
	struct kconfig *k;
	int cap = 0;

	if (!text)
		return NULL;
	k = arena_alloc(sizeof(*k));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (line[0] == '#' || !eq)
			continue;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 4096;
			k->names = realloc(k->names, sizeof(char *) * cap);
			k->values = realloc(k->values, sizeof(char *) * cap);
			if (!k->names || !k->values)
				fatal("out of memory");
		}
		*eq = 0;
		k->names[k->n] = line;
		k->values[k->n++] = eq + 1;
	}
	return k;
}

static const char *kconfig_get(const struct kconfig *k, const char *name, size_t len)
{
	for (int i = 0; k && i < k->n; i++)
		if (strlen(k->names[i]) == len && !strncmp(k->names[i], name, len))
			return k->values[i];
	return NULL;
}

/* ---- the header's own macros ---- */

struct macro {
	const char *name;
	const char *body;
	const char **params;	/* function-like only */
	int nparams;
	bool function_like;
	bool variadic;
};

struct scan {
	const struct kconfig *cfg;
	struct macro *macros;
	int nmacros, cap;
	const char *system;
	const struct tp_header *header;
	struct tp_events *out;
};

static struct macro *find_macro(struct scan *sc, const char *name, size_t len)
{
	for (int i = sc->nmacros - 1; i >= 0; i--)
		if (strlen(sc->macros[i].name) == len && !strncmp(sc->macros[i].name, name, len))
			return &sc->macros[i];
	return NULL;
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *ident_end(const char *p)
{
	while (is_ident_char(*p))
		p++;
	return p;
}

/* "#define NAME(a, b) body" or "#define NAME body"; p is after "define". */
static void define_macro(struct scan *sc, const char *p)
{
	struct macro m = { 0 };
	const char *e;

	p = skip_space(p);
	e = ident_end(p);
	if (e == p)
		return;
	m.name = arena_strndup(p, (size_t)(e - p));
	p = e;
	if (*p == '(') {
		const char *close = strchr(p, ')');
		char *list, *save = NULL;

		if (!close)
			return;
		m.function_like = true;
		list = arena_strndup(p + 1, (size_t)(close - p - 1));
		m.params = arena_alloc(sizeof(char *) * 32);
		for (char *a = strtok_r(list, ", \t", &save); a && m.nparams < 32;
		     a = strtok_r(NULL, ", \t", &save)) {
			if (!strcmp(a, "...")) {
				m.variadic = true;
				continue;
			}
			m.params[m.nparams++] = a;
		}
		p = close + 1;
	}
	m.body = arena_strdup(skip_space(p));
	if (!strcmp(m.name, "TRACE_SYSTEM")) {
		sc->system = arena_strndup(m.body, (size_t)(ident_end(m.body) - m.body));
		return;
	}
	if (sc->nmacros == sc->cap) {
		struct macro *bigger = arena_alloc(sizeof(*bigger) * (sc->cap = sc->cap ? sc->cap * 2 : 64));

		if (sc->nmacros)
			memcpy(bigger, sc->macros, sizeof(*bigger) * sc->nmacros);
		sc->macros = bigger;
	}
	sc->macros[sc->nmacros++] = m;
}

static void undef_macro(struct scan *sc, const char *p)
{
	const char *e;
	struct macro *m;

	p = skip_space(p);
	e = ident_end(p);
	m = find_macro(sc, p, (size_t)(e - p));
	if (m)
		m->name = "";
}

/* ---- #if conditions: 1 true, 0 false, -1 unknown ---- */

struct cond {
	const char *p;
	struct scan *sc;
};

static int cond_or(struct cond *c);

static const char *cond_ident(struct cond *c, size_t *len)
{
	const char *s;

	c->p = skip_space(c->p);
	s = c->p;
	c->p = ident_end(c->p);
	*len = (size_t)(c->p - s);
	return *len ? s : NULL;
}

static int defined_value(struct cond *c, const char *name, size_t len)
{
	const char *v;

	if (len > 7 && !strncmp(name, "CONFIG_", 7)) {
		if (!c->sc->cfg)
			return -1;
		if (len > 14 && !strncmp(name + len - 7, "_MODULE", 7)) {
			v = kconfig_get(c->sc->cfg, name, len - 7);
			return v && !strcmp(v, "m");
		}
		v = kconfig_get(c->sc->cfg, name, len);
		return v && strcmp(v, "m") && strcmp(v, "n");
	}
	if (find_macro(c->sc, name, len))
		return 1;
	/* the first read of a header: its guard and TRACE_HEADER_MULTI_READ are unset */
	if ((len > 8 && !strncmp(name, "_TRACE_", 7)) || (len == 23 &&
	    !strncmp(name, "TRACE_HEADER_MULTI_READ", len)) || (len == 18 &&
	    !strncmp(name, "CREATE_TRACE_POINTS", len)))
		return 0;
	return -1;
}

static int cond_primary(struct cond *c)
{
	size_t len;
	const char *id;
	int v;

	c->p = skip_space(c->p);
	if (*c->p == '!') {
		c->p++;
		v = cond_primary(c);
		return v < 0 ? -1 : !v;
	}
	if (*c->p == '(') {
		c->p++;
		v = cond_or(c);
		c->p = skip_space(c->p);
		if (*c->p != ')')
			return -1;
		c->p++;
		return v;
	}
	if (isdigit((unsigned char)*c->p)) {
		v = atoi(c->p) != 0;
		while (isalnum((unsigned char)*c->p))
			c->p++;
		return v;
	}
	id = cond_ident(c, &len);
	if (!id)
		return -1;
	if ((len == 7 && !strncmp(id, "defined", 7)) || (len == 10 && !strncmp(id, "IS_ENABLED", 10)) ||
	    (len == 10 && !strncmp(id, "IS_BUILTIN", 10)) || (len == 9 && !strncmp(id, "IS_MODULE", 9))) {
		bool paren, enabled = id[3] == 'E', module = id[3] == 'M';
		int builtin, mod;

		c->p = skip_space(c->p);
		paren = *c->p == '(';
		if (paren)
			c->p++;
		id = cond_ident(c, &len);
		if (!id)
			return -1;
		c->p = skip_space(c->p);
		if (paren && *c->p++ != ')')
			return -1;
		builtin = defined_value(c, id, len);
		if (!enabled && !module)
			return builtin;
		/* IS_ENABLED is true for =m too, IS_MODULE only for =m */
		mod = defined_value(c, arena_printf("%.*s_MODULE", (int)len, id), len + 7);
		if (module)
			return mod;
		return builtin == 1 || mod == 1 ? 1 : builtin < 0 || mod < 0 ? -1 : 0;
	}
	/* a CONFIG_ symbol used as a number is 1 when set */
	if (len > 7 && !strncmp(id, "CONFIG_", 7))
		return defined_value(c, id, len);
	return -1;
}

static int cond_and(struct cond *c)
{
	int v = cond_primary(c);

	for (;;) {
		int w;

		c->p = skip_space(c->p);
		if (strncmp(c->p, "&&", 2))
			return v;
		c->p += 2;
		w = cond_primary(c);
		v = (v == 0 || w == 0) ? 0 : (v < 0 || w < 0) ? -1 : 1;
	}
}

static int cond_or(struct cond *c)
{
	int v = cond_and(c);

	for (;;) {
		int w;

		c->p = skip_space(c->p);
		if (strncmp(c->p, "||", 2))
			return v;
		c->p += 2;
		w = cond_and(c);
		v = (v == 1 || w == 1) ? 1 : (v < 0 || w < 0) ? -1 : 0;
	}
}

static int eval_condition(struct scan *sc, const char *expr)
{
	struct cond c = { expr, sc };
	int v = cond_or(&c);

	/* anything left (a comparison, arithmetic): unknown */
	return *skip_space(c.p) ? -1 : v;
}

/* ---- finding invocations ---- */

static const char *skip_literal(const char *p)
{
	char q = *p++;

	while (*p && *p != q) {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return *p ? p + 1 : p;
}

/* Splits the arguments of an invocation; p is at '('. Returns the end (after ')') or NULL. */
static const char *split_args(const char *p, char ***args, int *nargs)
{
	int depth = 0, cap = 8;
	const char *start = p + 1;

	*nargs = 0;
	*args = arena_alloc(sizeof(char *) * cap);
	for (; *p; p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p) - 1;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		if ((*p == ',' && depth == 1) || depth == 0) {
			if (*nargs == cap) {
				char **bigger = arena_alloc(sizeof(char *) * (cap *= 2));

				memcpy(bigger, *args, sizeof(char *) * *nargs);
				*args = bigger;
			}
			(*args)[(*nargs)++] = arena_strndup(start, (size_t)(p - start));
			start = p + 1;
			if (depth == 0)
				return p + 1;
		}
	}
	return NULL;
}

/* "TP_PROTO(a, b)", "PARAMS(TP_PROTO(a, b))" ... -> "a, b" */
static const char *proto_text(char *arg)
{
	char *t = c_trim(arg);

	for (;;) {
		char *open = strchr(t, '('), *close = strrchr(t, ')');
		size_t len = open ? (size_t)(open - t) : 0;

		while (len && isspace((unsigned char)t[len - 1]))
			len--;
		if (!open || close < open || !((len == 8 && !strncmp(t, "TP_PROTO", 8)) ||
					       (len == 6 && !strncmp(t, "PARAMS", 6))))
			return t;
		*close = 0;
		t = c_trim(open + 1);
	}
}

struct form {
	const char *macro;
	int name_arg, proto_arg;
};

static const struct form forms[] = {
	{ "TRACE_EVENT", 0, 1 }, { "TRACE_EVENT_FN", 0, 1 }, { "TRACE_EVENT_FN_COND", 0, 1 },
	{ "TRACE_EVENT_CONDITION", 0, 1 }, { "DECLARE_TRACE", 0, 1 },
	{ "DECLARE_TRACE_CONDITION", 0, 1 }, { "DEFINE_EVENT", 1, 2 }, { "DEFINE_EVENT_FN", 1, 2 },
	{ "DEFINE_EVENT_PRINT", 1, 2 }, { "DEFINE_EVENT_CONDITION", 1, 2 },
};

static const struct form *find_form(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(forms); i++)
		if (strlen(forms[i].macro) == len && !strncmp(forms[i].macro, name, len))
			return &forms[i];
	return NULL;
}

static bool is_identifier(const char *s)
{
	return is_ident_start(*s) && !*ident_end(s);
}

/* Runs of white space as one space: headers spread prototypes over lines. */
static const char *one_line(const char *text)
{
	struct strbuf sb = { 0 };
	const char *r;

	for (const char *p = text; *p; p++) {
		if (!isspace((unsigned char)*p))
			sb_putc(&sb, *p);
		else if (sb.len && !isspace((unsigned char)p[1]) && p[1])
			sb_putc(&sb, ' ');
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

static void add_event(struct scan *sc, const struct form *f, char **args, int nargs)
{
	struct tp_event *e;
	const char *name;

	if (nargs <= f->proto_arg)
		return;
	name = c_trim(args[f->name_arg]);
	if (!is_identifier(name))
		return;
	for (int i = 0; i < sc->out->n; i++)
		if (!strcmp(sc->out->ev[i].name, name))
			return;
	if (sc->out->n == sc->out->cap) {
		struct tp_event *bigger = arena_alloc(sizeof(*bigger) *
						      (sc->out->cap = sc->out->cap ? sc->out->cap * 2 : 64));

		if (sc->out->n)
			memcpy(bigger, sc->out->ev, sizeof(*bigger) * sc->out->n);
		sc->out->ev = bigger;
	}
	e = &sc->out->ev[sc->out->n];
	e->system = sc->system;
	e->name = arena_strdup(name);
	e->header = sc->header;
	e->proto = one_line(proto_text(args[f->proto_arg]));
	e->nparams = cparams_parse(e->proto, &e->params);
	if (e->nparams < 0)
		return;
	/* the probe's argument struct needs every parameter's name */
	for (int i = 0; i < e->nparams; i++)
		if (!e->params[i].name)
			return;
	sc->out->n++;
}

/* The body of macro m with the arguments substituted, ## pasted and # stringized. */
static char *substitute(const struct macro *m, char **args, int nargs)
{
	struct strbuf sb = { 0 };
	char *r;

	for (const char *p = m->body; *p;) {
		if (*p == '"' || *p == '\'') {
			const char *e = skip_literal(p);

			sb_putn(&sb, p, (size_t)(e - p));
			p = e;
		} else if (is_ident_start(*p)) {
			const char *e = ident_end(p);
			int i;

			for (i = 0; i < m->nparams; i++)
				if (strlen(m->params[i]) == (size_t)(e - p) &&
				    !strncmp(m->params[i], p, (size_t)(e - p)))
					break;
			if (i < m->nparams && i < nargs) {
				sb_puts(&sb, c_trim(args[i]));
			} else if (m->variadic && e - p == 11 && !strncmp(p, "__VA_ARGS__", 11)) {
				for (int j = m->nparams; j < nargs; j++)
					sb_printf(&sb, "%s%s", j > m->nparams ? "," : "", args[j]);
			} else {
				sb_putn(&sb, p, (size_t)(e - p));
			}
			p = e;
		} else if (p[0] == '#' && p[1] == '#') {
			while (sb.len && isspace((unsigned char)sb.buf[sb.len - 1]))
				sb.len--;
			p += 2;
			while (isspace((unsigned char)*p))
				p++;
		} else {
			sb_putc(&sb, *p++);
		}
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

static void scan_code(struct scan *sc, const char *p, int depth);

/* An identifier followed by '(' at p: a trace form, or a macro to expand. Returns the end. */
static const char *invocation(struct scan *sc, const char *name, size_t len, const char *p,
			      int depth)
{
	const struct form *f = NULL;
	struct macro *m = NULL;
	char **args;
	int nargs;
	const char *end;

	/* object-like aliases: TRACE_EVENT_RCU -> TRACE_EVENT */
	for (int i = 0; i < 8 && !(f = find_form(name, len)); i++) {
		m = find_macro(sc, name, len);
		if (!m || m->function_like || !is_ident_start(m->body[0]))
			break;
		name = m->body;
		len = (size_t)(ident_end(m->body) - m->body);
		m = NULL;
	}
	if (!f) {
		m = find_macro(sc, name, len);
		if (!m || !m->function_like)
			return p;
	}
	end = split_args(p, &args, &nargs);
	if (!end)
		return p + strlen(p);
	if (f)
		add_event(sc, f, args, nargs);
	else if (depth < 8)
		scan_code(sc, substitute(m, args, nargs), depth + 1);
	return end;
}

static void scan_code(struct scan *sc, const char *p, int depth)
{
	while (*p) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p);
		} else if (is_ident_start(*p)) {
			const char *e = ident_end(p), *q = skip_space(e);

			while (*q == '\n' || *q == ' ' || *q == '\t')
				q++;
			p = *q == '(' ? invocation(sc, p, (size_t)(e - p), q, depth) : e;
		} else {
			p++;
		}
	}
}

/* ---- lines and directives ---- */

/* Comments removed, continuation lines joined; newlines kept between lines. */
static char *clean(const char *text)
{
	struct strbuf sb = { 0 };
	char *r;

	for (const char *p = text; *p;) {
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			sb_putc(&sb, ' ');
			p = e ? e + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
		} else if (p[0] == '\\' && p[1] == '\n') {
			p += 2;
		} else if (*p == '"' || *p == '\'') {
			const char *e = skip_literal(p);

			sb_putn(&sb, p, (size_t)(e - p));
			p = e;
		} else {
			sb_putc(&sb, *p++);
		}
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

/* Parenthesis depth of code, literals skipped: code is scanned only when balanced. */
static int paren_depth(const char *p)
{
	int d = 0;

	while (*p) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p);
			continue;
		}
		d += *p == '(';
		d -= *p == ')';
		p++;
	}
	return d;
}

struct ifstate {
	bool parent_active, active, taken;
};

static bool directive(struct scan *sc, const char *line, struct ifstate *st, int *nst)
{
	const char *p = skip_space(line + 1), *e = ident_end(p);
	size_t n = (size_t)(e - p);
	bool active = *nst ? st[*nst - 1].active : true;
	int v;

	if ((n == 2 && !strncmp(p, "if", 2)) || (n == 5 && !strncmp(p, "ifdef", 5)) ||
	    (n == 6 && !strncmp(p, "ifndef", 6))) {
		if (n == 2)
			v = eval_condition(sc, e);
		else
			v = eval_condition(sc, arena_printf("defined(%s)", c_trim(arena_strdup(e))));
		if (n == 6)
			v = v < 0 ? -1 : !v;
		if (*nst < 64)
			st[(*nst)++] = (struct ifstate){ active, active && v != 0, v == 1 };
	} else if (n == 4 && !strncmp(p, "elif", 4) && *nst) {
		struct ifstate *s = &st[*nst - 1];

		v = eval_condition(sc, e);
		s->active = s->parent_active && !s->taken && v != 0;
		s->taken = s->taken || v == 1;
	} else if (n == 4 && !strncmp(p, "else", 4) && *nst) {
		struct ifstate *s = &st[*nst - 1];

		s->active = s->parent_active && !s->taken;
	} else if (n == 5 && !strncmp(p, "endif", 5) && *nst) {
		(*nst)--;
	} else if (active && n == 6 && !strncmp(p, "define", 6)) {
		define_macro(sc, e);
	} else if (active && n == 5 && !strncmp(p, "undef", 5)) {
		undef_macro(sc, e);
	}
	return *nst ? st[*nst - 1].active : true;
}

/* Attribute macros that may follow "struct" without naming it. */
static bool is_attribute(const char *w, size_t n)
{
	static const char *const attrs[] = {
		"__packed", "__aligned", "__attribute__", "__randomize_layout", "__user",
		"__rcu", "__iomem", "__percpu",
	};

	for (size_t i = 0; i < ARRAY_LEN(attrs); i++)
		if (strlen(attrs[i]) == n && !strncmp(attrs[i], w, n))
			return true;
	return false;
}

/* "struct a; union b; " for every struct and union named in the text. */
static const char *forward_declarations(const char *text)
{
	struct strbuf sb = { 0 };
	const char *r;

	for (const char *p = text; (p = strpbrk(p, "su"));) {
		size_t kw = !strncmp(p, "struct", 6) ? 6 : !strncmp(p, "union", 5) ? 5 : 0;
		const char *name, *e;
		char *decl;

		if (!kw || (p > text && is_ident_char(p[-1])) || !isspace((unsigned char)p[kw])) {
			p = ident_end(p) + (is_ident_char(*p) ? 0 : 1);
			continue;
		}
		name = p + kw;
		while (isspace((unsigned char)*name))
			name++;
		e = ident_end(name);
		p = e;
		if (e == name || !is_ident_start(*name) || is_attribute(name, (size_t)(e - name)))
			continue;
		decl = arena_printf("%s %.*s;", kw == 6 ? "struct" : "union", (int)(e - name), name);
		if (!sb.buf || !strstr(sb.buf, decl))
			sb_printf(&sb, "%s\n", decl);
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

void tphdr_scan(const char *text, const char *header, const char *default_system,
		const struct kconfig *cfg, struct tp_events *out)
{
	struct tp_header *h = arena_alloc(sizeof(*h));
	struct scan sc = { .cfg = cfg, .system = default_system, .header = h, .out = out };
	struct ifstate st[64];
	int nst = 0;
	bool active = true;
	struct strbuf code = { 0 };
	char *save = NULL;

	char *cleaned = clean(text);

	h->path = header;
	h->forward = forward_declarations(cleaned);
	h->private = strstr(cleaned, "#include \"") != NULL;
	for (char *line = strtok_r(cleaned, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (*skip_space(line) != '#') {
			if (active) {
				sb_puts(&code, line);
				sb_putc(&code, '\n');
			}
			continue;
		}
		/* scan what came before the directive, unless it is inside an invocation */
		if (code.len && paren_depth(code.buf) <= 0) {
			scan_code(&sc, code.buf, 0);
			code.len = 0;
			code.buf[0] = 0;
		}
		active = directive(&sc, skip_space(line), st, &nst);
	}
	if (code.len)
		scan_code(&sc, code.buf, 0);
	sb_free(&code);
}

/* ---- the target kernel's headers ---- */

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The tree with include/trace/events: the build tree's "source" sibling on Debian. */
const char *tphdr_source_tree(struct session *s)
{
	const char *cands[] = {
		arena_printf("/lib/modules/%s/source", s->krel),
		arena_printf("%s/source", s->kbuild),
		s->kbuild,
	};

	for (size_t i = 0; i < ARRAY_LEN(cands); i++)
		if (is_dir(arena_printf("%s/include/trace/events", cands[i])))
			return cands[i];
	return NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_header(const char *dir, const char *include_prefix, const char *file,
			const struct kconfig *cfg, struct tp_events *out)
{
	char *text = read_file(arena_printf("%s/%s", dir, file), NULL);

	if (text)
		tphdr_scan(text, arena_printf("%s/%s", include_prefix, file),
			   arena_strndup(file, strlen(file) - 2), cfg, out);
}

static void scan_dir(const char *dir, const char *include_prefix, const struct kconfig *cfg,
		     struct tp_events *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 3 || strcmp(de->d_name + len - 2, ".h"))
			continue;
		names = realloc(names, sizeof(char *) * (n + 1));
		if (!names)
			fatal("out of memory");
		names[n++] = arena_strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_names);
	for (size_t i = 0; i < n; i++)
		scan_header(dir, include_prefix, names[i], cfg, out);
	free(names);
}

const struct tp_events *tphdr_events(struct session *s)
{
	static struct tp_events all;
	static bool done;
	const char *src;
	struct kconfig *cfg;

	if (done)
		return &all;
	done = true;
	src = tphdr_source_tree(s);
	if (!src)
		return &all;
	cfg = kconfig_read(arena_printf("%s/.config", s->kbuild));
	scan_dir(arena_printf("%s/include/trace/events", src), "trace/events", cfg, &all);
	scan_dir(arena_printf("%s/arch/x86/include/asm/trace", src), "asm/trace", cfg, &all);
	scan_dir(arena_printf("%s/include/ras", src), "ras", cfg, &all);
	scan_header(arena_printf("%s/arch/x86/include/asm", src), "asm", "msr-trace.h", cfg, &all);
	return &all;
}

/* ---- where an enum is defined ---- */

/* True if text defines "enum name {". */
static bool defines_enum(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, name)); p += n) {
		const char *b = p, *a = p + n;

		if (is_ident_char(*a) || b - text < 5)
			continue;
		while (b > text && isspace((unsigned char)b[-1]))
			b--;
		if (b - text < 4 || strncmp(b - 4, "enum", 4) || (b - text > 4 && is_ident_char(b[-5])))
			continue;
		while (isspace((unsigned char)*a))
			a++;
		if (*a == '{')
			return true;
	}
	return false;
}

/*
 * The first header under DIR (RELative include path, depth-limited) whose
 * text MATCH accepts for NAME; MATCH may note what it found in *found.
 */
typedef bool (*header_match)(const char *text, const char *name, const char **found);

static const char *find_header_in(const char *dir, const char *rel, const char *name, int depth,
				  header_match match, const char **found)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	const char *hit = NULL;

	if (!d)
		return NULL;
	while (!hit && (de = readdir(d))) {
		const char *path, *sub;
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		path = arena_printf("%s/%s", dir, de->d_name);
		/* <linux/x.h> finds include/uapi/linux/x.h too */
		sub = rel ? arena_printf("%s/%s", rel, de->d_name) :
		      !strcmp(de->d_name, "uapi") ? NULL : de->d_name;
		if (len > 2 && !strcmp(de->d_name + len - 2, ".h")) {
			char *text = read_file(path, NULL);

			if (text && strstr(text, name) && match(text, name, found))
				hit = sub;
		} else if (depth < 4 && is_dir(path)) {
			hit = find_header_in(path, sub, name, depth + 1, match, found);
		}
	}
	closedir(d);
	return hit;
}

/* x86's own headers first; the generic include/ tree skips other architectures' directories. */
static const char *find_header(struct session *s, const char *name, header_match match,
			       const char **found)
{
	static const char *const dirs[] = { "linux", "net", "sound", "scsi", "rdma", "ufs", "trace",
					     "uapi" };
	const char *src = tphdr_source_tree(s), *hit;

	if (!src)
		return NULL;
	hit = find_header_in(arena_printf("%s/arch/x86/include/asm", src), "asm", name, 1, match,
			     found);
	for (size_t i = 0; !hit && i < ARRAY_LEN(dirs); i++)
		hit = find_header_in(arena_printf("%s/include/%s", src, dirs[i]),
				     strcmp(dirs[i], "uapi") ? dirs[i] : NULL, name, 1, match, found);
	return hit;
}

static bool enum_match(const char *text, const char *name, const char **found)
{
	(void)found;
	return defines_enum(text, name);
}

const char *tphdr_enum_header(struct session *s, const char *name)
{
	return find_header(s, name, enum_match, NULL);
}

/* ---- where a variable is declared ---- */

/* The type words of a declaration from P to END: identifiers and '*', without macros. */
static const char *decl_type(const char *p, const char *end)
{
	static const char *const dropped[] = { "extern", "static", "const", "volatile", "register",
					       "inline", NULL };
	struct strbuf sb = { 0 };
	const char *r;

	while (p < end) {
		const char *w = p;
		bool drop = false;

		if (*p == '*') {
			sb_puts(&sb, sb.buf && sb.buf[0] ? " *" : "*");
			p++;
			continue;
		}
		if (!is_ident_char(*p)) {
			p++;
			continue;
		}
		while (p < end && is_ident_char(*p))
			p++;
		for (int i = 0; dropped[i]; i++)
			drop |= (size_t)(p - w) == strlen(dropped[i]) && !strncmp(w, dropped[i], p - w);
		/* __read_mostly, __aligned(8), ____cacheline_aligned: the kernel's attributes */
		if (!strncmp(w, "__", 2)) {
			drop = true;
			while (p < end && isspace((unsigned char)*p))
				p++;
			if (p < end && *p == '(') {
				int depth = 0;

				do
					depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
				while (++p < end && depth);
			}
		}
		if (!drop)
			sb_printf(&sb, "%s%.*s", sb.buf && sb.buf[0] ? " " : "", (int)(p - w), w);
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

/* The start of the statement around P: after the last ';', '{', '}' or a preprocessor line. */
static const char *statement_start(const char *text, const char *p)
{
	while (p > text && !strchr(";{}", p[-1]) && !(p[-1] == '\n' && p[0] == '#'))
		p--;
	return p;
}

/*
 * The type of "extern TYPE NAME;" (or NAME[...];) in TEXT, with the
 * kernel's attribute macros (__read_mostly, __aligned(8), ...), storage
 * classes and qualifiers left out: "unsigned long", "struct net",
 * "struct task_struct *", "char []".
 */
static bool extern_match(const char *text, const char *name, const char **found)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, name)); p += n) {
		const char *a = p + n, *st;
		bool array;

		if ((p > text && is_ident_char(p[-1])) || is_ident_char(*a))
			continue;
		while (isspace((unsigned char)*a))
			a++;
		array = *a == '[';
		if (array)
			a = strchr(a, ']') ? strchr(a, ']') + 1 : a;
		while (isspace((unsigned char)*a))
			a++;
		st = statement_start(text, p);
		st += strspn(st, " \t\n");
		if ((*a != ';' && strncmp(a, "__", 2)) || strncmp(st, "extern", 6) || !isspace((unsigned char)st[6]))
			continue;
		*found = arena_printf("%s%s", decl_type(st + 6, p), array ? " []" : "");
		return true;
	}
	return false;
}

const char *tphdr_extern_type(struct session *s, const char *name, const char **header)
{
	const char *type = NULL;

	*header = find_header(s, name, extern_match, &type);
	return *header ? type : NULL;
}

