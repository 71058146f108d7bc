// SPDX-License-Identifier: GPL-2.0
/*
 * test_pyline - CPython 3.11 location tables (runtime/unwind/pyline.c)
 * against CPython's own reading of them: for every code unit of every
 * code object in the vectors pyline_vectors.py wrote (real standard
 * library code), the line utap_pyline_find() gives must be the one
 * co_lines() gives. Hand-made tables check each entry form, a line going
 * backwards, and tables that end early or are malformed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "unwind/pyline.h"

struct bytes {
	const unsigned char *p;
	size_t n, i;
};

static int next_byte(void *ctx)
{
	struct bytes *b = ctx;

	return b->i < b->n ? b->p[b->i++] : -1;
}

static int line_at(const unsigned char *t, size_t n, int first, long addr)
{
	struct bytes b = { t, n, 0 };

	return utap_pyline_find(next_byte, &b, first, addr);
}

static size_t unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;

	if (!strcmp(s, "-"))
		return 0;
	for (; s[0] && s[1] && n < max; s += 2) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = v;
	}
	return n;
}

TEST(stdlib_code_objects)
{
	static char line[1 << 20];
	static unsigned char table[1 << 18];
	FILE *f = fopen(PYLINE_VECTORS, "r");
	long objects = 0, units = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *save, *tok;
		int first = atoi(strtok_r(line, " \n", &save));
		size_t n = unhex(strtok_r(NULL, " \n", &save), table, sizeof(table));

		objects++;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			long start, end;
			char want[16];

			if (sscanf(tok, "%ld:%ld:%15s", &start, &end, want) != 3)
				continue;
			for (long a = start / 2; a < end / 2; a++, units++) {
				int got = line_at(table, n, first, a);
				int w = want[0] == '-' ? -1 : atoi(want);

				if (got != w) {
					CHECK_INT(got, w);
					fprintf(stderr, "  code object %ld (first line %d), unit %ld\n",
						objects, first, a);
					fclose(f);
					return;
				}
			}
		}
	}
	fclose(f);
	printf("# %ld code objects, %ld code units\n", objects, units);
	CHECK(objects > 500 && units > 50000);
}

TEST(entry_forms)
{
	/* short form (code 0, 2 units), one-line +2 (code 12, 1 unit), no location (15, 1),
	 * no-column -3 (13, svarint 7), long form +1 (14, svarint 2, three varints) */
	static const unsigned char t[] = {
		0x80 | (0 << 3) | 1, 0x05,
		0x80 | (12 << 3) | 0, 0x04, 0x09,
		0x80 | (15 << 3) | 0,
		0x80 | (13 << 3) | 0, 0x07,
		0x80 | (14 << 3) | 2, 0x02, 0x00, 0x05, 0x09,
	};

	CHECK_INT(line_at(t, sizeof(t), 10, -1), 10);	/* not started */
	CHECK_INT(line_at(t, sizeof(t), 10, 0), 10);
	CHECK_INT(line_at(t, sizeof(t), 10, 1), 10);
	CHECK_INT(line_at(t, sizeof(t), 10, 2), 12);
	CHECK_INT(line_at(t, sizeof(t), 10, 3), -1);
	CHECK_INT(line_at(t, sizeof(t), 10, 4), 9);	/* backwards */
	CHECK_INT(line_at(t, sizeof(t), 10, 5), 10);
	CHECK_INT(line_at(t, sizeof(t), 10, 7), 10);
	CHECK_INT(line_at(t, sizeof(t), 10, 8), 0);	/* past the end */
}

TEST(varint_chunks)
{
	/* +100: svarint 200 = 0x48 0x03 (6-bit chunks, bit 6 continues) */
	static const unsigned char t[] = { 0x80 | (13 << 3), 0x48, 0x03 };

	CHECK_INT(line_at(t, sizeof(t), 1, 0), 101);
}

TEST(malformed)
{
	static const unsigned char no_entry[] = { 0x05, 0x80 };
	static const unsigned char cut_varint[] = { 0x80 | (13 << 3), 0x48 };
	static const unsigned char long_varint[] = { 0x80 | (13 << 3), 0x40, 0x40, 0x40, 0x40,
						     0x40, 0x40, 0x01 };

	CHECK_INT(line_at(no_entry, sizeof(no_entry), 3, 0), 0);
	CHECK_INT(line_at(cut_varint, sizeof(cut_varint), 3, 0), 0);
	CHECK_INT(line_at(long_varint, sizeof(long_varint), 3, 0), 0);
	CHECK_INT(line_at(NULL, 0, 3, 0), 0);
}

int main(void)
{
	unit_prog = "test_pyline";
	RUN(stdlib_code_objects);
	RUN(entry_forms);
	RUN(varint_chunks);
	RUN(malformed);
	return unit_done();
}
