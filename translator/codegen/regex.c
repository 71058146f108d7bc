/*
 * regex.c - a regular expression literal, compiled at translate time.
 *
 * The dialect is stap's: POSIX extended syntax (. [] [^] [[:class:]] ()
 * | * + ? {m} {m,} {m,n} ^ $) plus (?:...) groups and [[:d:]] [[:s:]]
 * [[:l:]] [[:u:]]; a backslash makes the next byte literal (also inside
 * brackets); ^ and $ anchor at the subject's start and end wherever they
 * appear. The pattern is parsed into a small tree, which is then laid out as
 * a Thompson NFA program (runtime/core/regex.h):
 *
 *	e1 e2		code(e1) code(e2)
 *	e1 | e2		SPLIT L1, L2; L1: code(e1); JMP L3; L2: code(e2); L3:
 *	e*		L1: SPLIT L2, L3; L2: code(e); JMP L1; L3:
 *	e+		L1: code(e); SPLIT L1, L2; L2:
 *	e?		SPLIT L1, L2; L1: code(e); L2:
 *	(e)		SAVE 2k; code(e); SAVE 2k + 1
 *
 * wrapped in SAVE 0 ... SAVE 1 MATCH. {m,n} repeats the code of e. The
 * first choice of a SPLIT has priority, which makes loops greedy and
 * alternatives ordered for the groups' sake.
 */
#include "regex_compile.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RX_MAXDEPTH 200		/* nesting of groups and repetitions */
#define RX_MAXREPEAT 12345	/* stap's bound on {m,n} */

enum rxn_kind {
	RXN_EMPTY,
	RXN_CHAR,
	RXN_ANY,
	RXN_SET,
	RXN_BOL,
	RXN_EOL,
	RXN_CAT,	/* kid, kid->next, ... in order */
	RXN_ALT,	/* kid, kid->next, ... in priority order */
	RXN_GROUP,	/* (kid); group -1: (?:kid) */
	RXN_REPEAT,	/* kid{min,max}; max -1: no bound */
};

struct rxn {
	enum rxn_kind kind;
	int pos;		/* where it starts in the pattern */
	int height;		/* 1 + its tallest kid's */
	int c;			/* RXN_CHAR */
	int set;		/* RXN_SET */
	int group;		/* RXN_GROUP */
	int min, max;		/* RXN_REPEAT */
	struct rxn *kid;
	struct rxn *next;
};

struct rx_state {
	const unsigned char *re;
	size_t len, pos;
	int depth;		/* open groups */
	int ngroups;
	struct rxn *nodes;
	size_t nnodes, maxnodes;
	struct utap_rx_set *sets;
	int nsets, maxsets;
	struct utap_rx_insn *insn;
	int ninsn;
	struct rx_error *err;
	bool failed;
};

static void rx_fail(struct rx_state *st, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void rx_fail(struct rx_state *st, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (st->failed)
		return;
	st->failed = true;
	st->err->pos = (int)pos;
	va_start(ap, fmt);
	vsnprintf(st->err->msg, sizeof(st->err->msg), fmt, ap);
	va_end(ap);
}

/* A byte as a message shows it: 'x', or '\xNN' when unprintable. */
static const char *rx_byte(char *buf, int c)
{
	if (c > 32 && c < 127)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "'\\x%02x'", c);
	return buf;
}

static struct rxn *rx_node(struct rx_state *st, enum rxn_kind kind, size_t pos)
{
	struct rxn *n;

	if (st->nnodes == st->maxnodes) {
		rx_fail(st, pos, "regex too complex");
		return NULL;
	}
	n = &st->nodes[st->nnodes++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->pos = (int)pos;
	n->height = 1;
	return n;
}

static bool rx_at_end(const struct rx_state *st)
{
	return st->pos >= st->len;
}

static int rx_peek(const struct rx_state *st)
{
	return rx_at_end(st) ? -1 : st->re[st->pos];
}

/* ---- bracket expressions ---- */

static void set_range(struct utap_rx_set *set, int lo, int hi)
{
	for (int b = lo; b <= hi; b++)
		set->bits[b >> 5] |= 1u << (b & 31);
}

static void set_chars(struct utap_rx_set *set, const char *chars)
{
	for (; *chars; chars++)
		set_range(set, (unsigned char)*chars, (unsigned char)*chars);
}

/* [:name:], with stap's names and its (C locale) contents. */
static bool named_class(struct utap_rx_set *set, const char *name, size_t n)
{
#define IS(s) (n == strlen(s) && !memcmp(name, s, n))
	if (IS("alpha") || IS("alnum")) {
		set_range(set, 'A', 'Z');
		set_range(set, 'a', 'z');
		if (IS("alnum"))
			set_range(set, '0', '9');
	} else if (IS("blank")) {
		set_chars(set, " \t");
	} else if (IS("cntrl")) {
		set_range(set, 1, 31);
		set_range(set, 127, 127);
	} else if (IS("digit") || IS("d")) {
		set_range(set, '0', '9');
	} else if (IS("xdigit")) {
		set_range(set, '0', '9');
		set_range(set, 'a', 'f');
		set_range(set, 'A', 'F');
	} else if (IS("graph")) {
		set_range(set, 33, 126);
	} else if (IS("print")) {
		set_range(set, 32, 126);
	} else if (IS("lower") || IS("l")) {
		set_range(set, 'a', 'z');
	} else if (IS("upper") || IS("u")) {
		set_range(set, 'A', 'Z');
	} else if (IS("punct")) {
		set_chars(set, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
	} else if (IS("space") || IS("s")) {
		set_chars(set, " \t\r\n\v\f");
	} else {
		return false;
	}
	return true;
#undef IS
}

/* The set index of set, shared with an identical one already made. */
static int rx_add_set(struct rx_state *st, const struct utap_rx_set *set)
{
	for (int i = 0; i < st->nsets; i++)
		if (!memcmp(&st->sets[i], set, sizeof(*set)))
			return i;
	if (st->nsets == st->maxsets) {
		int max = st->maxsets ? 2 * st->maxsets : 8;
		struct utap_rx_set *s = realloc(st->sets, max * sizeof(*s));

		if (!s) {
			rx_fail(st, st->pos, "out of memory");
			return 0;
		}
		st->sets = s;
		st->maxsets = max;
	}
	st->sets[st->nsets] = *set;
	return st->nsets++;
}

/* After '[': items up to the closing ']' (a ']' first is an item). */
static struct rxn *parse_bracket(struct rx_state *st, size_t start)
{
	struct utap_rx_set set = { { 0 } };
	bool negate = false, first = true;
	struct rxn *n;
	char b1[8], b2[8];

	if (rx_peek(st) == '^') {
		negate = true;
		st->pos++;
	}
	for (;;) {
		int lo, hi;

		if (rx_at_end(st)) {
			rx_fail(st, start, "unclosed character class");
			return NULL;
		}
		if (!first && rx_peek(st) == ']') {
			st->pos++;
			break;
		}
		first = false;
		lo = rx_peek(st);
		if (lo == '[' && st->pos + 1 < st->len && st->re[st->pos + 1] == ':') {
			size_t name = st->pos + 2, end = name;

			while (end + 1 < st->len && !(st->re[end] == ':' && st->re[end + 1] == ']'))
				end++;
			if (end + 1 >= st->len) {
				rx_fail(st, st->pos, "unclosed character class '[:%.*s'",
					(int)(st->len - name), (const char *)st->re + name);
				return NULL;
			}
			if (!named_class(&set, (const char *)st->re + name, end - name)) {
				rx_fail(st, st->pos, "unknown character class '%.*s'",
					(int)(end - name), (const char *)st->re + name);
				return NULL;
			}
			st->pos = end + 2;
			continue;
		}
		if (lo == '\\') {
			st->pos++;
			if (rx_at_end(st))
				continue;	/* reported as unclosed */
			lo = rx_peek(st);
		}
		st->pos++;
		hi = lo;
		if (rx_peek(st) == '-' && st->pos + 1 < st->len && st->re[st->pos + 1] != ']') {
			hi = st->re[st->pos + 1];
			if (hi < lo) {
				rx_fail(st, st->pos + 1, "inverted character range %s-%s",
					rx_byte(b1, lo), rx_byte(b2, hi));
				return NULL;
			}
			st->pos += 2;
		}
		set_range(&set, lo, hi);
	}
	if (negate) {
		for (int i = 0; i < 8; i++)
			set.bits[i] = ~set.bits[i];
		set.bits[0] &= ~1u;	/* never NUL */
	}
	n = rx_node(st, RXN_SET, start);
	if (n)
		n->set = rx_add_set(st, &set);
	return n;
}

/* ---- the tree ---- */

static struct rxn *parse_alt(struct rx_state *st);

static int parse_number(struct rx_state *st)
{
	size_t start = st->pos;
	long v = 0;

	while (rx_peek(st) >= '0' && rx_peek(st) <= '9') {
		if (v < RX_MAXREPEAT)
			v = v * 10 + (rx_peek(st) - '0');
		st->pos++;
	}
	if (st->pos == start) {
		rx_fail(st, start, "expected a number");
		return 0;
	}
	if (v >= RX_MAXREPEAT) {
		rx_fail(st, start, "%.*s is too large", (int)(st->pos - start),
			(const char *)st->re + start);
		return 0;
	}
	return (int)v;
}

/* After '{': m}, m,} or m,n} */
static void parse_interval(struct rx_state *st, int *min, int *max)
{
	*min = *max = parse_number(st);
	if (st->failed)
		return;
	if (rx_peek(st) == ',') {
		st->pos++;
		if (rx_peek(st) == '}') {
			*max = -1;
		} else if (rx_peek(st) >= '0' && rx_peek(st) <= '9') {
			*max = parse_number(st);
			if (st->failed)
				return;
			if (*max < *min) {
				rx_fail(st, st->pos, "the maximum repetition count %d is below the "
					"minimum %d", *max, *min);
				return;
			}
		} else {
			rx_fail(st, st->pos, "expected '}' or a number");
			return;
		}
	}
	if (rx_peek(st) != '}') {
		rx_fail(st, st->pos, rx_at_end(st) ? "expected '}', found end of regex" :
			"expected ',' or '}'");
		return;
	}
	st->pos++;
}

static bool rx_height(struct rx_state *st, struct rxn *n, int kid_height)
{
	if (kid_height + 1 > n->height)
		n->height = kid_height + 1;
	if (n->height > RX_MAXDEPTH) {
		rx_fail(st, n->pos, "regex nested too deeply");
		return false;
	}
	return true;
}

/* After '(': a group, up to and including its ')'. */
static struct rxn *parse_group(struct rx_state *st, size_t start)
{
	struct rxn *n = rx_node(st, RXN_GROUP, start), *kid;
	char b[8];

	if (!n)
		return NULL;
	n->group = -1;
	if (rx_peek(st) == '?') {
		st->pos++;
		if (rx_peek(st) != ':') {
			if (rx_at_end(st))
				rx_fail(st, st->pos, "unexpected end of regex");
			else
				rx_fail(st, st->pos, "unexpected '(?' followed by %s",
					rx_byte(b, rx_peek(st)));
			return NULL;
		}
		st->pos++;
	} else {
		if (st->ngroups == UTAP_RX_MAXGROUPS) {
			rx_fail(st, start, "more than %d subexpressions", UTAP_RX_MAXGROUPS);
			return NULL;
		}
		n->group = ++st->ngroups;
	}
	if (++st->depth > RX_MAXDEPTH) {
		rx_fail(st, start, "regex nested too deeply");
		return NULL;
	}
	kid = parse_alt(st);
	st->depth--;
	if (!kid)
		return NULL;
	if (rx_peek(st) != ')') {
		rx_fail(st, st->pos, "expected ')', found end of regex");
		return NULL;
	}
	st->pos++;
	n->kid = kid;
	return rx_height(st, n, kid->height) ? n : NULL;
}

/* An atom and the repetition operators after it. */
static struct rxn *parse_factor(struct rx_state *st)
{
	size_t start = st->pos;
	int c = rx_peek(st);
	struct rxn *n;
	char b[8];

	if (c == '*' || c == '+' || c == '?' || c == '{') {
		rx_fail(st, start, "unexpected '%c'", c);
		return NULL;
	}
	st->pos++;
	switch (c) {
	case '.':
		n = rx_node(st, RXN_ANY, start);
		break;
	case '[':
		n = parse_bracket(st, start);
		break;
	case '(':
		n = parse_group(st, start);
		break;
	case '^':
		n = rx_node(st, RXN_BOL, start);
		break;
	case '$':
		n = rx_node(st, RXN_EOL, start);
		break;
	case '\\':
		if (rx_at_end(st)) {
			rx_fail(st, start, "unexpected end of regex after '\\'");
			return NULL;
		}
		c = st->re[st->pos++];
		/* fall through */
	default:
		if (c == 0) {
			rx_fail(st, start, "NUL byte in regex");
			return NULL;
		}
		n = rx_node(st, RXN_CHAR, start);
		if (n)
			n->c = c;
		break;
	}
	while (n && !st->failed) {
		struct rxn *r;

		c = rx_peek(st);
		if (c != '*' && c != '+' && c != '?' && c != '{')
			break;
		if (n->kind == RXN_BOL || n->kind == RXN_EOL) {
			rx_fail(st, st->pos, "%s applied to an anchor", rx_byte(b, c));
			return NULL;
		}
		r = rx_node(st, RXN_REPEAT, start);
		if (!r)
			return NULL;
		st->pos++;
		r->min = c == '+' ? 1 : 0;
		r->max = c == '?' ? 1 : -1;
		if (c == '{')
			parse_interval(st, &r->min, &r->max);
		r->kid = n;
		if (!rx_height(st, r, n->height))
			return NULL;
		n = r;
	}
	return st->failed ? NULL : n;
}

/* A list of nodes as one: nothing, the one, or a CAT/ALT over them. */
static struct rxn *rx_list(struct rx_state *st, enum rxn_kind kind, struct rxn *first,
			   size_t pos)
{
	struct rxn *n;

	if (!first)
		return rx_node(st, RXN_EMPTY, pos);
	if (!first->next)
		return first;
	n = rx_node(st, kind, pos);
	if (!n)
		return NULL;
	n->kid = first;
	for (struct rxn *k = first; k; k = k->next)
		if (!rx_height(st, n, k->height))
			return NULL;
	return n;
}

static struct rxn *parse_cat(struct rx_state *st)
{
	struct rxn *first = NULL, **tail = &first;
	size_t start = st->pos;

	while (!rx_at_end(st) && rx_peek(st) != '|' && rx_peek(st) != ')') {
		struct rxn *f = parse_factor(st);

		if (!f)
			return NULL;
		*tail = f;
		tail = &f->next;
	}
	return rx_list(st, RXN_CAT, first, start);
}

static struct rxn *parse_alt(struct rx_state *st)
{
	struct rxn *first, **tail;
	size_t start = st->pos;

	first = parse_cat(st);
	if (!first)
		return NULL;
	tail = &first->next;
	while (rx_peek(st) == '|') {
		struct rxn *b;

		st->pos++;
		b = parse_cat(st);
		if (!b)
			return NULL;
		*tail = b;
		tail = &b->next;
	}
	return rx_list(st, RXN_ALT, first, start);
}

/* ---- the program ---- */

static int rx_emit(struct rx_state *st, const struct rxn *n, int op, int c, int x, int y)
{
	struct utap_rx_insn *in;

	if (st->ninsn >= UTAP_RX_MAXINSN) {
		rx_fail(st, n->pos, "regex too large (more than %d instructions)",
			UTAP_RX_MAXINSN);
		return 0;
	}
	in = &st->insn[st->ninsn];
	in->op = op;
	in->c = c;
	in->x = x;
	in->y = y;
	return st->ninsn++;
}

static void gen(struct rx_state *st, const struct rxn *n);

/* Links of a chain of instructions to patch end at this value. */
#define RX_NOLINK 0xffff

/* n{min,max}: the code of its kid, repeated */
static void gen_repeat(struct rx_state *st, const struct rxn *n)
{
	int loop, skip = RX_NOLINK, i;

	if (n->max < 0 && n->min == 0) {
		loop = rx_emit(st, n, UTAP_RX_SPLIT, 0, st->ninsn + 1, 0);
		gen(st, n->kid);
		rx_emit(st, n, UTAP_RX_JMP, 0, loop, 0);
		if (!st->failed)
			st->insn[loop].y = st->ninsn;
		return;
	}
	if (n->max < 0) {
		for (i = 0; i < n->min - 1 && !st->failed; i++)
			gen(st, n->kid);
		loop = st->ninsn;
		gen(st, n->kid);
		rx_emit(st, n, UTAP_RX_SPLIT, 0, loop, st->ninsn + 1);
		return;
	}
	for (i = 0; i < n->min && !st->failed; i++)
		gen(st, n->kid);
	/* each optional copy may be skipped to the end: chained through y */
	for (i = n->min; i < n->max && !st->failed; i++) {
		skip = rx_emit(st, n, UTAP_RX_SPLIT, 0, st->ninsn + 1, skip);
		gen(st, n->kid);
	}
	while (skip != RX_NOLINK && !st->failed) {
		int next = st->insn[skip].y;

		st->insn[skip].y = st->ninsn;
		skip = next;
	}
}

static void gen(struct rx_state *st, const struct rxn *n)
{
	const struct rxn *k;
	int split, jmp;

	if (st->failed)
		return;
	switch (n->kind) {
	case RXN_EMPTY:
		break;
	case RXN_CHAR:
		rx_emit(st, n, UTAP_RX_CHAR, n->c, 0, 0);
		break;
	case RXN_ANY:
		rx_emit(st, n, UTAP_RX_ANY, 0, 0, 0);
		break;
	case RXN_SET:
		rx_emit(st, n, UTAP_RX_CLASS, 0, n->set, 0);
		break;
	case RXN_BOL:
		rx_emit(st, n, UTAP_RX_BOL, 0, 0, 0);
		break;
	case RXN_EOL:
		rx_emit(st, n, UTAP_RX_EOL, 0, 0, 0);
		break;
	case RXN_CAT:
		for (k = n->kid; k; k = k->next)
			gen(st, k);
		break;
	case RXN_ALT:
		/* SPLIT to each alternative but the last; each JMPs to the end */
		jmp = RX_NOLINK;
		for (k = n->kid; k && !st->failed; k = k->next) {
			split = -1;
			if (k->next)
				split = rx_emit(st, n, UTAP_RX_SPLIT, 0, st->ninsn + 1, 0);
			gen(st, k);
			if (k->next) {
				/* the JMPs form a chain through x until patched */
				jmp = rx_emit(st, n, UTAP_RX_JMP, 0, jmp, 0);
				if (!st->failed)
					st->insn[split].y = st->ninsn;
			}
		}
		while (jmp != RX_NOLINK && !st->failed) {
			int next = st->insn[jmp].x;

			st->insn[jmp].x = st->ninsn;
			jmp = next;
		}
		break;
	case RXN_GROUP:
		if (n->group >= 0)
			rx_emit(st, n, UTAP_RX_SAVE, 0, 2 * n->group, 0);
		gen(st, n->kid);
		if (n->group >= 0)
			rx_emit(st, n, UTAP_RX_SAVE, 0, 2 * n->group + 1, 0);
		break;
	case RXN_REPEAT:
		gen_repeat(st, n);
		break;
	}
}

struct rx_compiled *rx_compile(const char *pattern, size_t len, struct rx_error *err)
{
	struct rx_state st = {
		.re = (const unsigned char *)pattern,
		.len = len,
		.err = err,
		.maxnodes = 3 * len + 8,
	};
	struct rx_compiled *rx = NULL;
	struct rxn *root;
	size_t work;

	err->pos = 0;
	err->msg[0] = 0;
	st.nodes = malloc(st.maxnodes * sizeof(*st.nodes));
	st.insn = malloc(UTAP_RX_MAXINSN * sizeof(*st.insn));
	if (!st.nodes || !st.insn) {
		rx_fail(&st, 0, "out of memory");
		goto out;
	}
	root = parse_alt(&st);
	if (root && !rx_at_end(&st))
		rx_fail(&st, st.pos, "unbalanced ')'");
	if (st.failed)
		goto out;
	rx_emit(&st, root, UTAP_RX_SAVE, 0, 0, 0);
	gen(&st, root);
	rx_emit(&st, root, UTAP_RX_SAVE, 0, 1, 0);
	rx_emit(&st, root, UTAP_RX_MATCH, 0, 0, 0);
	if (st.failed)
		goto out;

	rx = calloc(1, sizeof(*rx));
	if (!rx) {
		rx_fail(&st, 0, "out of memory");
		goto out;
	}
	rx->insn = st.insn;
	rx->sets = st.sets;
	rx->nsets = st.nsets;
	st.insn = NULL;
	st.sets = NULL;
	rx->prog.insn = rx->insn;
	rx->prog.sets = rx->sets;
	rx->prog.ninsn = st.ninsn;
	rx->prog.ngroups = st.ngroups;
	for (int i = 0; i < st.ninsn; i++) {
		int op = rx->insn[i].op;

		if (op == UTAP_RX_CHAR || op == UTAP_RX_ANY || op == UTAP_RX_CLASS ||
		    op == UTAP_RX_MATCH)
			rx->prog.nthreads++;
	}
	work = utap_rx_work_size(&rx->prog, 2 * (st.ngroups + 1));
	if (work > UTAP_RX_MAXWORK) {
		rx_fail(&st, 0, "regex too large (its matcher needs %zu bytes, at most %d)", work,
			UTAP_RX_MAXWORK);
		rx_free(rx);
		rx = NULL;
	}
out:
	free(st.nodes);
	free(st.insn);
	free(st.sets);
	return rx;
}

void rx_free(struct rx_compiled *rx)
{
	if (!rx)
		return;
	free(rx->insn);
	free(rx->sets);
	free(rx);
}
