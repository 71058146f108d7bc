/*
 * lexer.c - pass 1, part 1: source text to a token list.
 *
 * The whole file is tokenized up front (chibicc style); the preprocessor and
 * the parser then walk the list. Strings are unescaped here so later passes
 * see the bytes the script means.
 */
#include "front/front.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lexer {
	const struct source *src;
	const char *p;
	int line;
	const char *line_start;
	bool space;
	bool at_line_start;
};

static struct loc lex_loc(const struct lexer *lx, const char *at)
{
	struct loc loc = {
		.src = lx->src,
		.line = lx->line,
		.col = (int)(at - lx->line_start) + 1,
		.off = (size_t)(at - lx->src->text),
	};
	return loc;
}

static struct token *new_token(struct lexer *lx, enum token_kind kind, const char *start,
			       const char *end)
{
	struct token *t = arena_alloc(sizeof(*t));

	t->kind = kind;
	t->text = start;
	t->len = (size_t)(end - start);
	t->loc = lex_loc(lx, start);
	t->space_before = lx->space;
	t->line_start = lx->at_line_start;
	lx->space = false;
	lx->at_line_start = false;
	return t;
}

bool tok_is(const struct token *t, const char *s)
{
	size_t n = strlen(s);

	return (t->kind == TK_PUNCT || t->kind == TK_IDENT || t->kind == TK_PP ||
		t->kind == TK_AT || t->kind == TK_TARGET) &&
	       t->len == n && memcmp(t->text, s, n) == 0;
}

const char *tok_describe(const struct token *t)
{
	switch (t->kind) {
	case TK_IDENT:
		return arena_printf("identifier '%.*s'", (int)t->len, t->text);
	case TK_NUM:
		return arena_printf("number '%.*s'", (int)t->len, t->text);
	case TK_STR:
		return arena_printf("string %.*s", (int)(t->len > 40 ? 40 : t->len), t->text);
	case TK_PUNCT:
		return arena_printf("operator '%.*s'", (int)t->len, t->text);
	case TK_EMBEDDED:
		return "embedded code";
	case TK_TARGET:
	case TK_AT:
		return arena_printf("'%.*s'", (int)t->len, t->text);
	case TK_PP:
		return arena_printf("preprocessor operator '%.*s'", (int)t->len, t->text);
	case TK_EOF:
		return "end of input";
	}
	return "token";
}

static void newline(struct lexer *lx, const char *after)
{
	lx->line++;
	lx->line_start = after;
	lx->at_line_start = true;
}

/* Skips blanks and the three comment forms; returns false on an unterminated comment. */
static bool skip_space(struct lexer *lx)
{
	for (;;) {
		const char *p = lx->p;

		if (*p == '\n') {
			lx->p++;
			newline(lx, lx->p);
			lx->space = true;
		} else if (isspace((unsigned char)*p)) {
			lx->p++;
			lx->space = true;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
			lx->space = true;
		} else if (p[0] == '/' && p[1] == '*') {
			struct loc at = lex_loc(lx, p);

			lx->p += 2;
			while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					newline(lx, lx->p + 1);
				lx->p++;
			}
			if (!*lx->p) {
				error_at(at, "unterminated comment");
				return false;
			}
			lx->p += 2;
			lx->space = true;
		} else {
			return true;
		}
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape after the backslash at *pp; stores the byte and advances. */
static bool read_escape(struct lexer *lx, const char **pp, char *out)
{
	const char *p = *pp;
	int v, n;

	switch (*p) {
	case 'n': *out = '\n'; break;
	case 't': *out = '\t'; break;
	case 'r': *out = '\r'; break;
	case 'a': *out = '\a'; break;
	case 'b': *out = '\b'; break;
	case 'f': *out = '\f'; break;
	case 'v': *out = '\v'; break;
	case '\\': *out = '\\'; break;
	case 'x':
		/* as C reads it (stap leaves \x to the C compiler): every hex digit, low byte kept */
		v = 0;
		for (n = 0; hexval(p[1]) >= 0; n++, p++)
			v = (v * 16 + hexval(p[1])) & 0xff;
		if (n == 0) {
			error_at(lex_loc(lx, p - 1), "\\x used with no following hex digits");
			return false;
		}
		*out = (char)v;
		break;
	default:
		if (*p >= '0' && *p <= '7') {
			v = 0;
			for (n = 0; n < 3 && p[0] >= '0' && p[0] <= '7'; n++, p++)
				v = v * 8 + (*p - '0');
			p--;
			*out = (char)v;
			break;
		}
		/* stap 4.8 drops the backslash of any other escape: "\q" is "q" */
		*out = *p;
		break;
	}
	*pp = p + 1;
	return true;
}

static struct token *read_string(struct lexer *lx)
{
	const char *start = lx->p, *p = lx->p + 1;
	struct strbuf sb = { 0 };
	struct token *t;

	while (*p != '"') {
		if (*p == 0 || *p == '\n') {
			error_at(lex_loc(lx, start), "unterminated string literal");
			sb_free(&sb);
			lx->p = p;
			return NULL;
		}
		/* stap passes a backslash-newline to C, which rejects it; read on */
		if (*p == '\\' && p[1] == '\n') {
			error_at(lex_loc(lx, p), "backslash-newline in a string literal");
			p += 2;
			continue;
		}
		if (*p == '\\' && p[1]) {
			char c;

			p++;
			if (!read_escape(lx, &p, &c))
				c = '?';
			sb_putc(&sb, c);
			continue;
		}
		sb_putc(&sb, *p++);
	}
	p++;
	t = new_token(lx, TK_STR, start, p);
	t->str = arena_strndup(sb.buf ? sb.buf : "", sb.len);
	t->str_len = sb.len;
	sb_free(&sb);
	lx->p = p;
	return t;
}

static struct token *read_number(struct lexer *lx)
{
	const char *start = lx->p;
	char *end;
	unsigned long long v;
	struct token *t;

	errno = 0;
	v = strtoull(start, &end, 0);
	if (isalnum((unsigned char)*end) || *end == '_') {
		while (isalnum((unsigned char)*end) || *end == '_')
			end++;
		error_at(lex_loc(lx, start), "invalid number '%.*s'", (int)(end - start), start);
	} else if (errno == ERANGE) {
		error_at(lex_loc(lx, start), "number '%.*s' does not fit in 64 bits",
			 (int)(end - start), start);
	}
	t = new_token(lx, TK_NUM, start, end);
	t->num = (int64_t)v;
	lx->p = end;
	return t;
}

static struct token *read_embedded(struct lexer *lx)
{
	const char *start = lx->p, *p = lx->p + 2;
	struct token *t;
	int line = lx->line;
	const char *ls = lx->line_start;

	while (*p && !(p[0] == '%' && p[1] == '}')) {
		if (*p == '\n')
			newline(lx, p + 1);
		p++;
	}
	if (!*p) {
		lx->line = line;
		lx->line_start = ls;
		error_at(lex_loc(lx, start), "unterminated embedded C code: missing '%%}'");
		lx->p = p;
		return NULL;
	}
	/* the token's location is its start, so restore the line for it */
	{
		int end_line = lx->line;
		const char *end_ls = lx->line_start;

		lx->line = line;
		lx->line_start = ls;
		t = new_token(lx, TK_EMBEDDED, start, p + 2);
		lx->line = end_line;
		lx->line_start = end_ls;
	}
	t->str = arena_strndup(start + 2, (size_t)(p - start - 2));
	t->str_len = (size_t)(p - start - 2);
	lx->p = p + 2;
	return t;
}

static bool is_ident1(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* $name, $$vars, $1, $#, $name$, $name$$, and a suffix '$' or '$$' right after a name, ']' or ')' */
static struct token *read_dollar(struct lexer *lx)
{
	const char *p = lx->p + 1;
	struct token *t;

	if (*p == '#') {
		p++;
	} else if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p))
			p++;
	} else if (lx->p > lx->src->text && (lx->p[-1] == ']' || lx->p[-1] == ')' ||
					      is_ident((unsigned char)lx->p[-1]))) {
		/* $p->field$, $a[1]$$, @cast(...)$: a pretty-printing suffix */
		if (*p == '$')
			p++;
	} else {
		if (*p == '$')
			p++;
		if (!is_ident1((unsigned char)*p)) {
			error_at(lex_loc(lx, lx->p), "expected a name after '$'");
			lx->p = p;
			return NULL;
		}
		while (is_ident((unsigned char)*p))
			p++;
		while (*p == '$')
			p++;
	}
	t = new_token(lx, TK_TARGET, lx->p, p);
	lx->p = p;
	return t;
}

/* @count, @cast, @define, @1, @# */
static struct token *read_at(struct lexer *lx)
{
	const char *p = lx->p + 1;
	struct token *t;

	if (*p == '#')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else if (is_ident1((unsigned char)*p))
		while (is_ident((unsigned char)*p))
			p++;
	else {
		error_at(lex_loc(lx, lx->p), "expected a name after '@'");
		lx->p = p;
		return NULL;
	}
	t = new_token(lx, TK_AT, lx->p, p);
	lx->p = p;
	return t;
}

static const char *const puncts[] = {
	"<<<", "<<=", ">>=",
	"<<", ">>", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=",
	"/=", "%=", "&=", "|=", "^=", ".=", "->", "=~", "!~",
	"+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", ".", ",", ";",
	":", "?", "(", ")", "[", "]", "{", "}",
};

static struct token *read_punct(struct lexer *lx)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(puncts); i++) {
		size_t n = strlen(puncts[i]);

		if (strncmp(lx->p, puncts[i], n) == 0) {
			struct token *t = new_token(lx, TK_PUNCT, lx->p, lx->p + n);

			lx->p += n;
			return t;
		}
	}
	return NULL;
}

static struct token *read_token(struct lexer *lx)
{
	const char *p = lx->p;
	struct token *t;

	if (*p == '"')
		return read_string(lx);
	if (isdigit((unsigned char)*p))
		return read_number(lx);
	if (is_ident1((unsigned char)*p)) {
		while (is_ident((unsigned char)*p))
			p++;
		t = new_token(lx, TK_IDENT, lx->p, p);
		lx->p = p;
		return t;
	}
	if (p[0] == '%' && p[1] == '{')
		return read_embedded(lx);
	if (p[0] == '%' && (p[1] == '(' || p[1] == '?' || p[1] == ':' || p[1] == ')')) {
		t = new_token(lx, TK_PP, p, p + 2);
		lx->p += 2;
		return t;
	}
	if (*p == '$')
		return read_dollar(lx);
	if (*p == '@')
		return read_at(lx);
	t = read_punct(lx);
	if (t)
		return t;
	if (isprint((unsigned char)*p))
		error_at(lex_loc(lx, p), "unexpected character '%c'", *p);
	else
		error_at(lex_loc(lx, p), "unexpected byte 0x%02x", (unsigned char)*p);
	lx->p++;
	return NULL;
}

struct token *tokenize(const struct source *src)
{
	struct lexer lx = {
		.src = src,
		.p = src->text,
		.line = 1,
		.line_start = src->text,
		.at_line_start = true,
	};
	struct token head = { 0 }, *cur = &head;

	/* a "#!" interpreter line is a comment by the '#' rule already */
	for (;;) {
		struct token *t;

		if (!skip_space(&lx))
			break;
		if (!*lx.p)
			break;
		if ((size_t)(lx.p - src->text) >= src->len) {
			error_at(lex_loc(&lx, lx.p), "unexpected NUL byte in script");
			break;
		}
		t = read_token(&lx);
		if (t) {
			cur->next = t;
			cur = t;
		}
	}
	cur->next = new_token(&lx, TK_EOF, lx.p, lx.p);
	return head.next;
}

struct source *source_from_string(const char *name, const char *text)
{
	struct source *s = arena_alloc(sizeof(*s));

	s->name = name;
	s->text = text;
	s->len = strlen(text);
	return s;
}

struct source *source_from_file(const char *path, bool is_tapset)
{
	size_t len;
	char *text = read_file(path, &len);
	struct source *s;

	if (!text)
		return NULL;
	s = arena_alloc(sizeof(*s));
	s->name = arena_strdup(path);
	s->text = text;
	s->len = len;
	s->is_tapset = is_tapset;
	return s;
}
