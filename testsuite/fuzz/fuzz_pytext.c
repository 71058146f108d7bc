// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pytext - the pybacktrace() string reader on arbitrary bytes: the
 * runner reads the strings a module sends with each Python sample, and a
 * script may hand pyfolded() any string. Every field must lie inside the
 * string, and the groups' frames are whole lines of it, at most as many
 * as it has newlines.
 */
#include <stdlib.h>
#include <string.h>
#include "unwind/pytext.h"

static int inside(const char *s, size_t n, const char *p, size_t len)
{
	return p >= s && p + len <= s + n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1);
	size_t lines = 0, frames = 0;
	int groups, g;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	for (size_t i = 0; i < size; i++)
		lines += s[i] == '\n';
	groups = utap_py_ngroups(s);
	for (g = 0; g <= groups; g++) {
		struct utap_py_line l;
		int n = utap_py_group_frame(s, g, 0, &l);

		for (int j = 0; j < n; j++) {
			memset(&l, 0, sizeof(l));
			if (utap_py_group_frame(s, g, j, &l) != n || l.marker ||
			    !inside(s, size, l.name, l.name_len) ||
			    !inside(s, size, l.file, l.file_len) ||
			    !inside(s, size, l.line, l.line_len) || (j == n - 1) != l.entry)
				abort();
		}
		frames += n;
	}
	if (utap_py_group_frame(s, groups, 0, &(struct utap_py_line){ 0 }) != 0 ||
	    frames > lines)
		abort();
	free(s);
	return 0;
}
