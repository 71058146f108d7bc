/*
 * tapsetdoc - writes utap-tapsets(7) from the tapset sources.
 *
 *   tapsetdoc [-V VERSION] FILE.stp...        the man page, on stdout
 *   tapsetdoc --list FILE.stp...              "NAME documented|undocumented",
 *                                             one public function a line
 *
 * Every function that is not private is documented: with its doc comment
 * when it has one, else with its signature and a note. A doc comment is
 * the kernel-doc form SystemTap's tapsets use:
 *
 *   / **
 *    * sfunction NAME - One-line summary
 *    * @arg: what the argument is
 *    *
 *    * Description: paragraphs; "Label: text" starts a labelled paragraph,
 *    * a line indented further is kept as it is (an example).
 *    * /
 *
 * Probe aliases (probe NAME = POINT) are listed with what they expand to.
 * The scanner knows enough of the stap language to skip strings, comments,
 * embedded C (%{ %}) and bodies.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	bool is_alias;
	char *name;		/* function or alias name */
	char *sig;		/* function: ":type (params)"; alias: what it expands to */
	char *doc;		/* the doc comment's text, or NULL */
	int line;
};

struct tapset {
	const char *path;
	char *intro;		/* the leading // comment block */
	struct entry *e;
	int n, cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "tapsetdoc: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "tapsetdoc: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	do {
		if (len + 4096 > cap) {
			cap = cap * 2 + 8192;
			buf = xrealloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* ---- scanning a tapset ---- */

struct scan {
	const char *s;
	int line;
};

static void advance(struct scan *sc, size_t n)
{
	for (size_t i = 0; i < n && *sc->s; i++, sc->s++)
		if (*sc->s == '\n')
			sc->line++;
}

/* Skips what cannot hold code: blanks, comments, strings, embedded C. Returns true if it did. */
static bool skip_noise(struct scan *sc, char **doc)
{
	const char *s = sc->s;

	if (isspace((unsigned char)*s)) {
		advance(sc, 1);
		return true;
	}
	if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
		advance(sc, strcspn(s, "\n"));
		return true;
	}
	if (s[0] == '/' && s[1] == '*') {
		const char *end = strstr(s + 2, "*/");
		size_t n = end ? (size_t)(end - s) + 2 : strlen(s);

		if (s[2] == '*' && s[3] != '/' && doc) {
			free(*doc);
			*doc = xstrndup(s + 3, end ? (size_t)(end - s) - 3 : strlen(s + 3));
		}
		advance(sc, n);
		return true;
	}
	if (s[0] == '%' && s[1] == '{') {
		const char *end = strstr(s + 2, "%}");

		advance(sc, end ? (size_t)(end - s) + 2 : strlen(s));
		return true;
	}
	if (*s == '"') {
		size_t i = 1;

		while (s[i] && s[i] != '"')
			i += s[i] == '\\' && s[i + 1] ? 2 : 1;
		advance(sc, s[i] ? i + 1 : i);
		return true;
	}
	return false;
}

/* Skips a { } body (sc at the '{'). */
static void skip_block(struct scan *sc)
{
	int depth = 0;

	while (*sc->s) {
		if (skip_noise(sc, NULL))
			continue;
		if (*sc->s == '{')
			depth++;
		else if (*sc->s == '}' && --depth == 0) {
			advance(sc, 1);
			return;
		}
		advance(sc, 1);
	}
}

static bool word_at(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

/* Collapses runs of blanks (newlines included) into one space, trims the ends. */
static char *squeeze(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1), *p = d;

	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			if (p > d && p[-1] != ' ')
				*p++ = ' ';
		} else {
			*p++ = s[i];
		}
	}
	while (p > d && p[-1] == ' ')
		p--;
	*p = 0;
	return d;
}

static void add(struct tapset *t, struct entry e)
{
	if (t->n == t->cap) {
		t->cap = t->cap * 2 + 16;
		t->e = xrealloc(t->e, sizeof(*t->e) * t->cap);
	}
	t->e[t->n++] = e;
}

/* "function NAME[:type] (params)" then the body; sc just past "function". */
static void scan_function(struct scan *sc, struct tapset *t, bool private, char **doc)
{
	const char *s, *name, *sig;
	size_t nlen;
	int line = sc->line;

	while (*sc->s && isspace((unsigned char)*sc->s))
		advance(sc, 1);
	name = sc->s;
	while (isalnum((unsigned char)*sc->s) || *sc->s == '_')
		advance(sc, 1);
	nlen = sc->s - name;
	sig = sc->s;
	s = strchr(sc->s, ')');
	if (!nlen || !s)
		return;
	advance(sc, s + 1 - sc->s);
	if (!private)
		add(t, (struct entry){ .name = xstrndup(name, nlen), .sig = squeeze(sig, s + 1 - sig),
				       .doc = *doc, .line = line });
	else
		free(*doc);
	*doc = NULL;
	while (*sc->s && isspace((unsigned char)*sc->s))
		advance(sc, 1);
	if (*sc->s == '{')
		skip_block(sc);
	/* an embedded-C body (%{ %}) is skipped by the caller as noise */
}

/* "probe POINT[, POINT] = POINTS [{...}]": aliases; other probes are skipped. */
static void scan_probe(struct scan *sc, struct tapset *t, bool private, char **doc)
{
	const char *start = sc->s, *eq = NULL;
	int line = sc->line, paren = 0;

	while (*sc->s) {
		char ch = *sc->s;

		if (ch == '"') {
			skip_noise(sc, NULL);
			continue;
		}
		if (ch == '(')
			paren++;
		else if (ch == ')')
			paren--;
		else if (!paren && ch == '=' && !eq)
			eq = sc->s;
		else if (!paren && ch == '{')
			break;
		advance(sc, 1);
	}
	if (eq && !private) {
		const char *lhs_end = eq > start && eq[-1] == '+' ? eq - 1 : eq;

		add(t, (struct entry){ .is_alias = true, .name = squeeze(start, lhs_end - start),
				       .sig = squeeze(eq + 1, sc->s - eq - 1), .doc = *doc,
				       .line = line });
	} else {
		free(*doc);
	}
	*doc = NULL;
	if (*sc->s == '{')
		skip_block(sc);
}

static void scan_tapset(struct tapset *t)
{
	char *text = slurp(t->path), *doc = NULL;
	struct scan sc = { text, 1 };
	bool private = false;

	/* the file's introduction: the // lines it starts with */
	{
		const char *p = text;
		char *intro = xrealloc(NULL, strlen(text) + 1);
		size_t n = 0;

		while (p[0] == '/' && p[1] == '/') {
			size_t len = strcspn(p, "\n");
			const char *l = p + 2 + (p[2] == ' ');
			size_t k = len - (l - p);

			memcpy(intro + n, l, k);
			n += k;
			intro[n++] = '\n';
			p += len + (p[len] == '\n');
		}
		intro[n] = 0;
		t->intro = intro;
	}
	while (*sc.s) {
		if (skip_noise(&sc, &doc))
			continue;
		if (word_at(sc.s, "private")) {
			private = true;
			advance(&sc, 7);
			continue;
		}
		if (word_at(sc.s, "function")) {
			advance(&sc, 8);
			scan_function(&sc, t, private, &doc);
			private = false;
			continue;
		}
		if (word_at(sc.s, "probe")) {
			advance(&sc, 5);
			scan_probe(&sc, t, private, &doc);
			private = false;
			continue;
		}
		if (*sc.s == '{') {
			skip_block(&sc);
			continue;
		}
		private = false;
		advance(&sc, 1);
	}
	free(doc);
	free(text);
}

/* ---- roff ---- */

/* Text for a roff text line: backslashes escaped, @arg in italics. */
static void roff_text(FILE *out, const char *s, size_t n, bool args)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", out);
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '\\') {
			fputs("\\e", out);
		} else if (args && ch == '@' && i + 1 < n &&
			   (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_')) {
			size_t j = i + 1;

			while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
				j++;
			fputs("\\fI", out);
			fwrite(s + i + 1, 1, j - i - 1, out);
			fputs("\\fR", out);
			i = j - 1;
		} else if (ch == '-' && i + 1 < n && s[i + 1] == '-') {
			fputs("\\-\\-", out);
			i++;
		} else {
			fputc(ch, out);
		}
	}
	fputc('\n', out);
}

static void roff_line(FILE *out, const char *s, bool args)
{
	roff_text(out, s, strlen(s), args);
}

/* The doc comment as lines without the " * " margin. */
static char **doc_lines(const char *doc, int *np)
{
	char **v = NULL;
	int n = 0;

	while (*doc) {
		size_t len = strcspn(doc, "\n");
		const char *l = doc, *e = doc + len;

		while (l < e && (*l == ' ' || *l == '\t'))
			l++;
		if (l < e && *l == '*')
			l++;
		if (l < e && *l == ' ')
			l++;
		while (e > l && isspace((unsigned char)e[-1]))
			e--;
		v = xrealloc(v, sizeof(*v) * (n + 1));
		v[n++] = xstrndup(l, e - l);
		doc += len + (doc[len] == '\n');
	}
	while (n && !v[n - 1][0])
		free(v[--n]);
	*np = n;
	return v;
}

static bool is_label(const char *l, size_t *len)
{
	size_t i = 0;

	while (isalpha((unsigned char)l[i]))
		i++;
	if (i < 3 || l[i] != ':' || l[i + 1] != ' ' || !isupper((unsigned char)l[0]))
		return false;
	*len = i;
	return true;
}

static void roff_doc(FILE *out, const char *doc)
{
	int n, i = 0;
	char **v = doc_lines(doc, &n);
	bool para = false, pre = false;

	while (i < n && !v[i][0])
		i++;
	/* "sfunction NAME - summary" (the summary may go on) */
	if (i < n) {
		const char *dash = strstr(v[i], " - ");

		fputs(".PP\n", out);
		roff_line(out, dash ? dash + 3 : v[i], true);
		for (i++; i < n && v[i][0] && v[i][0] != '@'; i++)
			roff_line(out, v[i], true);
	}
	/* @arg: text, each with its continuation lines */
	while (i < n && v[i][0] == '@') {
		const char *colon = strchr(v[i], ':');

		fputs(".TP\n", out);
		if (colon) {
			fputs("\\fI", out);
			fwrite(v[i] + 1, 1, colon - v[i] - 1, out);
			fputs("\\fR\n", out);
			colon++;
			while (*colon == ' ')
				colon++;
			roff_line(out, colon, true);
		} else {
			roff_line(out, v[i], true);
		}
		for (i++; i < n && v[i][0] && v[i][0] != '@'; i++)
			roff_line(out, v[i], true);
	}
	for (; i < n; i++) {
		const char *l = v[i];
		size_t lab;

		if (!l[0]) {
			if (pre)
				fputs(".fi\n", out);
			pre = para = false;
			continue;
		}
		if (l[0] == ' ' || l[0] == '\t') {
			if (!pre)
				fputs(para ? ".nf\n" : ".PP\n.nf\n", out);
			pre = para = true;
			roff_line(out, l + strspn(l, " \t"), false);
			continue;
		}
		if (pre) {
			fputs(".fi\n", out);
			pre = false;
		}
		if (!para) {
			fputs(".PP\n", out);
			para = true;
			if (is_label(l, &lab)) {
				if (strncmp(l, "Description", lab))
					fprintf(out, "\\fB%.*s:\\fR\n", (int)lab, l);
				l += lab + 2;
			}
		}
		roff_line(out, l, true);
	}
	if (pre)
		fputs(".fi\n", out);
	for (int k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

static void roff_title(FILE *out, const char *path)
{
	const char *base = strrchr(path, '/');
	char *t = xstrndup(base ? base + 1 : path, strlen(base ? base + 1 : path));
	char *dot = strstr(t, ".stp");

	if (dot)
		*dot = 0;
	for (char *p = t; *p; p++)
		*p = *p == '-' || *p == '_' ? ' ' : (char)toupper((unsigned char)*p);
	fprintf(out, ".SH %s\n", t);
	free(t);
}

/* "NAME:type (param:type, ...)": the name in bold, the parameters in italics. */
static void roff_signature(FILE *out, const struct entry *e)
{
	const char *s = e->sig;
	bool in_parens = false;
	char before = 0;

	fputs(".PP\n\\fB", out);
	fputs(e->name, out);
	fputs("\\fR", out);
	for (; *s; s++) {
		size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (k && (isalpha((unsigned char)*s) || *s == '_')) {
			if (in_parens && (before == '(' || before == ' ' || before == ','))
				fprintf(out, "\\fI%.*s\\fR", (int)k, s);
			else
				fprintf(out, "%.*s", (int)k, s);
			s += k - 1;
			before = 'a';
			continue;
		}
		if (*s == '(')
			in_parens = true;
		else if (*s == ')')
			in_parens = false;
		fputc(*s, out);
		before = *s;
	}
	fputc('\n', out);
}

static void write_page(FILE *out, struct tapset *ts, int nts, const char *version)
{
	int nfn = 0, nalias = 0;

	/* overloads count once: they follow each other */
	for (int i = 0; i < nts; i++)
		for (int k = 0; k < ts[i].n; k++) {
			const struct entry *e = &ts[i].e[k];

			if (e->is_alias)
				nalias++;
			else if (!k || strcmp(ts[i].e[k - 1].name, e->name))
				nfn++;
		}
	fputs(".\\\" Generated by docs/man/tapsetdoc from the tapsets; edit those instead.\n", out);
	fprintf(out, ".TH UTAP-TAPSETS 7 \"\" \"utap %s\" \"utap\"\n", version);
	fputs(".SH NAME\nutap-tapsets \\- the functions and probe aliases of utap's script library\n",
	      out);
	fputs(".SH DESCRIPTION\n"
	      "A tapset is a file of the stap language that scripts use without naming it:\n"
	      "a script that calls a function or uses a probe alias gets the tapset that\n"
	      "defines it, and nothing else.\n"
	      "utap reads its tapsets from the \\fItapsets\\fR directory of its data directory\n"
	      "(\\fIPREFIX\\fR/share/utap/tapsets when installed) and from each \\fB\\-I\\fR\n"
	      "directory.\n"
	      "Names, arguments and output formats follow SystemTap's tapsets where both\n"
	      "have a function.\n", out);
	fprintf(out, ".PP\nThis page lists the %d public functions and %d probe aliases, tapset by\n"
		"tapset, from the doc comments in the sources.\n"
		"A function is shown with its return type and its parameters\n"
		"(\\fBname\\fR:type (\\fIparam\\fR:type, ...));\n"
		"one without a return type returns nothing.\n"
		"Private functions and names starting with an underscore are helpers of\n"
		"the tapsets themselves.\n", nfn, nalias);
	for (int i = 0; i < nts; i++) {
		struct tapset *t = &ts[i];
		const char *base = strrchr(t->path, '/');
		const char *prev = NULL;
		bool any_alias = false;

		roff_title(out, t->path);
		fprintf(out, ".PP\nFrom \\fI%s\\fR.\n", base ? base + 1 : t->path);
		if (t->intro[0]) {
			int n;
			char **v = doc_lines(t->intro, &n);
			bool para = false;

			for (int k = 0; k < n; k++) {
				if (!v[k][0]) {
					para = false;
					continue;
				}
				if (v[k][0] == ' ') {
					fputs(".PP\n.nf\n", out);
					for (; k < n && v[k][0] == ' '; k++)
						roff_line(out, v[k] + strspn(v[k], " "), false);
					fputs(".fi\n", out);
					para = false;
					k--;
					continue;
				}
				if (!para)
					fputs(".PP\n", out);
				para = true;
				roff_line(out, v[k], false);
			}
			for (int k = 0; k < n; k++)
				free(v[k]);
			free(v);
		}
		for (int k = 0; k < t->n; k++) {
			struct entry *e = &t->e[k];

			if (e->is_alias) {
				any_alias = true;
				continue;
			}
			if (!prev || strcmp(prev, e->name))
				fprintf(out, ".SS %s\n", e->name);
			prev = e->name;
			roff_signature(out, e);
			if (e->doc)
				roff_doc(out, e->doc);
			else if (k + 1 >= t->n || strcmp(t->e[k + 1].name, e->name))
				fputs(".PP\n(not documented yet)\n", out);
		}
		/* aliases with a doc comment: an entry each, like functions */
		for (int k = 0; k < t->n; k++) {
			struct entry *e = &t->e[k];

			if (!e->is_alias || !e->doc)
				continue;
			fputs(".SS ", out);
			roff_text(out, e->name, strlen(e->name), false);
			/* names and points hold no backslash nor a leading dot */
			fprintf(out, ".PP\nprobe \\fB%s\\fR = %s\n", e->name, e->sig);
			roff_doc(out, e->doc);
		}
		/* the others in one list */
		any_alias = false;
		for (int k = 0; k < t->n; k++) {
			struct entry *e = &t->e[k];

			if (!e->is_alias || e->doc)
				continue;
			if (!any_alias)
				fputs(".SS Probe aliases\n", out);
			any_alias = true;
			fputs(".TP\n\\fB", out);
			roff_text(out, e->name, strlen(e->name), false);
			fputs("\\fR\n", out);
			fputs("expands to ", out);
			roff_text(out, e->sig, strlen(e->sig), false);
		}
	}
	fputs(".SH SEE ALSO\n.BR utap (1),\n.BR utap-probes (7),\n.BR utap-formats (5)\n", out);
}

int main(int argc, char **argv)
{
	const char *version = "";
	bool list = false;
	struct tapset *ts = NULL;
	int nts = 0, i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--list"))
			list = true;
		else if (!strcmp(argv[i], "-V") && i + 1 < argc)
			version = argv[++i];
		else {
			fprintf(stderr, "usage: tapsetdoc [-V VERSION] [--list] FILE.stp...\n");
			return 2;
		}
	}
	for (; i < argc; i++) {
		ts = xrealloc(ts, sizeof(*ts) * (nts + 1));
		ts[nts] = (struct tapset){ .path = argv[i] };
		scan_tapset(&ts[nts++]);
	}
	if (list) {
		/* a name is documented when one of its definitions has a doc comment */
		for (int k = 0; k < nts; k++)
			for (int j = 0; j < ts[k].n; j++) {
				const struct entry *e = &ts[k].e[j];
				bool doc = false, first = true;

				if (e->is_alias)
					continue;
				for (int m = 0; m < ts[k].n; m++)
					if (!ts[k].e[m].is_alias && !strcmp(ts[k].e[m].name, e->name)) {
						doc |= ts[k].e[m].doc != NULL;
						first &= m >= j;
					}
				if (first)
					printf("%s %s\n", e->name, doc ? "documented" : "undocumented");
			}
		return 0;
	}
	write_page(stdout, ts, nts, version);
	return ferror(stdout) ? 1 : 0;
}
