// SPDX-License-Identifier: GPL-2.0
/*
 * pytext.c - the compact form of a Python stack, read back (pytext.h).
 * Lines that are neither a frame (three or four tab-separated fields) nor
 * a marker are skipped; a last line without its '\n' is a piece of one
 * that was cut, and ends the string.
 */
#include "unwind/pytext.h"

/* Splits one line (without its '\n'); false for a malformed one. */
static bool utap_py_parse(const char *p, size_t len, struct utap_py_line *l)
{
	const char *end = p + len, *t1, *t2, *t3;

	memset(l, 0, sizeof(*l));
	t1 = memchr(p, '\t', len);
	if (!t1 && len && p[0] == '<') {	/* a marker: frames have tabs (<module> too) */
		l->marker = true;
		l->name = p;
		l->name_len = len;
		return true;
	}
	t2 = t1 ? memchr(t1 + 1, '\t', end - t1 - 1) : NULL;
	if (!t2)
		return false;
	t3 = memchr(t2 + 1, '\t', end - t2 - 1);
	l->name = p;
	l->name_len = t1 - p;
	l->file = t1 + 1;
	l->file_len = t2 - t1 - 1;
	l->line = t2 + 1;
	l->line_len = (t3 ? t3 : end) - t2 - 1;
	l->entry = t3 && end - t3 == 2 && t3[1] == 'E';
	return true;
}

bool utap_py_next(const char **p, struct utap_py_line *l)
{
	while (**p) {
		const char *nl = strchr(*p, '\n');
		const char *line = *p;

		if (!nl)
			return false;	/* a cut piece of a line */
		*p = nl + 1;
		if (utap_py_parse(line, nl - line, l))
			return true;
	}
	return false;
}

int utap_py_ngroups(const char *s)
{
	struct utap_py_line l;
	int n = 0;

	while (utap_py_next(&s, &l))
		n += l.entry;
	return n;
}

int utap_py_group_frame(const char *s, int g, int j, struct utap_py_line *out)
{
	struct utap_py_line l;
	int gi = 0, k = 0;

	while (utap_py_next(&s, &l)) {
		if (l.marker)
			return 0;
		if (gi == g && k == j)
			*out = l;
		k++;
		if (!l.entry)
			continue;
		if (gi == g)
			return k;
		gi++;
		k = 0;
	}
	return 0;
}
