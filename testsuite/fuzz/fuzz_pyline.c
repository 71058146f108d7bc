// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pyline - the location table decoder on arbitrary bytes: a table
 * in a traced program's memory can be anything. Every lookup must stay
 * inside the bytes it is given and end (ASan and the timeout watch);
 * a line is -1, 0 or what the deltas add up to.
 */
#include <stddef.h>
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

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	long addr;

	if (size < 2)
		return 0;
	/* the first two bytes pick the first line, the rest is the table */
	for (addr = -1; addr < 64; addr++) {
		struct bytes b = { data + 2, size - 2, 0 };

		utap_pyline_find(next_byte, &b, data[0] | data[1] << 8, addr * (1 + data[1] % 5));
	}
	return 0;
}
