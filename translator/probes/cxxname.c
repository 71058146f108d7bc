/*
 * cxxname.c - demangled C++ names, and patterns matched against them
 * component by component. See cxxname.h.
 */
#include "probes/cxxname.h"
#include "base/base.h"

#include <fnmatch.h>
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMPONENTS 64

/* GCC's names for a whole copy of a function: a probe on the name covers them. */
static const char *const copy_suffixes[] = { "isra", "constprop", "lto_priv", "llvm",
					     "localalias" };

static bool is_copy_suffix(const char *seg, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(copy_suffixes); i++)
		if (strlen(copy_suffixes[i]) == len && !strncmp(seg, copy_suffixes[i], len))
			return true;
	return false;
}

const char *cxx_kept_suffix(const char *sym)
{
	const char *p = strchr(sym, '.');
	struct strbuf sb = { 0 };
	const char *out;

	while (p && *p) {
		const char *word = p + 1, *end = word + strcspn(word, ".");
		bool copy = is_copy_suffix(word, (size_t)(end - word));

		/* a number after a word belongs to it: ".isra.0", ".part.1" */
		while (*end == '.' && end[1] >= '0' && end[1] <= '9')
			end += 1 + strspn(end + 1, "0123456789");
		if (!copy)
			sb_putn(&sb, p, (size_t)(end - p));
		p = end;
	}
	out = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return out;
}

const char *cxx_demangle(const char *sym)
{
	const char *dot = strchr(sym, '.');
	const char *out;
	char *d;

	/* _ZT: thunks (and tables), _ZG: guards and transaction clones */
	if (strncmp(sym, "_Z", 2) || sym[2] == 'T' || sym[2] == 'G')
		return NULL;
	/* no DMGL_PARAMS: "ns::C<T>::f", without parameters or return type */
	d = cplus_demangle_v3(dot ? arena_strndup(sym, (size_t)(dot - sym)) : sym, DMGL_ANSI);
	if (!d)
		return NULL;
	out = arena_printf("%s%s", d, cxx_kept_suffix(sym));
	free(d);
	return out;
}

/* Operators spelled with a bracket, longest first: their brackets do not nest. */
static const char *const bracket_ops[] = {
	"<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "->", "()", "[]", "<", ">",
};

static size_t operator_len(const char *s)
{
	if (strncmp(s, "operator", 8))
		return 0;
	for (size_t i = 0; i < ARRAY_LEN(bracket_ops); i++)
		if (!strncmp(s + 8, bracket_ops[i], strlen(bracket_ops[i])))
			return 8 + strlen(bracket_ops[i]);
	return 0;
}

/* The length of the component at S: up to a "::" outside <>, (), [] and {}. */
static size_t component_len(const char *s)
{
	size_t i = operator_len(s);
	int depth = 0;

	for (; s[i]; i++) {
		if (strchr("<([{", s[i]))
			depth++;
		else if (strchr(">)]}", s[i]))
			depth -= depth > 0;
		else if (!depth && s[i] == ':' && s[i + 1] == ':')
			break;
	}
	return i;
}

struct span {
	const char *s;
	size_t n;
};

/* The components of QUAL into OUT; -1 if there are more than MAX. */
static int split(const char *qual, struct span *out, int max)
{
	int n = 0;

	for (const char *p = qual;; p += out[n - 1].n + 2) {
		if (n == max)
			return -1;
		out[n] = (struct span){ p, component_len(p) };
		if (!p[out[n++].n])
			return n;
	}
}

/* SP as a C string: in BUF when it fits, else malloc'd. */
static char *span_str(const struct span *sp, char *buf, size_t size)
{
	char *s = sp->n < size ? buf : malloc(sp->n + 1);

	if (!s)
		fatal("out of memory");
	memcpy(s, sp->s, sp->n);
	s[sp->n] = 0;
	return s;
}

static bool span_match(const struct span *pat, const struct span *name)
{
	char pbuf[256], nbuf[512];
	char *p = span_str(pat, pbuf, sizeof(pbuf)), *n = span_str(name, nbuf, sizeof(nbuf));
	bool ok = fnmatch(p, n, 0) == 0;

	if (p != pbuf)
		free(p);
	if (n != nbuf)
		free(n);
	return ok;
}

const char *cxx_scoped_match(const char *pattern, const char *qual)
{
	struct span p[MAX_COMPONENTS], q[MAX_COMPONENTS + 1];
	int np = split(pattern, p, MAX_COMPONENTS);
	int nq = split(qual, q + 1, MAX_COMPONENTS);
	int first;

	if (np < 0 || nq < 0 || np > nq + 1)
		return NULL;
	q[0] = (struct span){ "", 0 };	/* the global scope */
	first = nq + 1 - np;
	for (int i = 0; i < np; i++)
		if (!span_match(&p[i], &q[first + i]))
			return NULL;
	return first ? q[first].s : arena_printf("::%s", qual);
}

const char *cxx_base_name(const char *qual)
{
	const char *p = qual;
	size_t len;

	while (p[len = component_len(p)])
		p += len + 2;
	return p;
}

const char *cxx_param_list(const char *name)
{
	int depth = 0;

	for (const char *p = name; *p; p++) {
		size_t op = operator_len(p);

		if (op) {
			p += op - 1;
			continue;
		}
		if (*p == '(' && !depth)
			return p;
		if (strchr("<[{(", *p))
			depth++;
		else if (strchr(">]})", *p))
			depth -= depth > 0;
	}
	return NULL;
}
