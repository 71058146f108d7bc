// SPDX-License-Identifier: GPL-2.0
/*
 * pyline.c - CPython 3.11's location table, as Objects/locations.md
 * describes it: a sequence of entries, each a first byte with bit 7 set
 * (the code in bits 3-6, the number of code units it covers minus one in
 * bits 0-2) and bytes with bit 7 clear. An entry's start line is a delta
 * from the previous entry's (co_firstlineno for the first): 0 for the
 * short forms (codes 0-9), code - 10 for the one-line forms (10-12), a
 * signed varint right after the first byte for codes 13 and 14; code 15
 * has no location and leaves the line as it was. The other bytes are
 * columns and end lines, which a backtrace does not need.
 */
#include "unwind/pyline.h"

/* A varint: 6-bit chunks, least significant first, bit 6 set on all but the last. */
static int utap_pyline_varint(utap_pyline_next next, void *ctx, u32 *out)
{
	int shift = 0, v;

	*out = 0;
	do {
		v = next(ctx);
		if (v < 0 || (v & 0x80) || shift > 30)
			return -1;
		*out |= (u32)(v & 0x3f) << shift;
		shift += 6;
	} while (v & 0x40);
	return 0;
}

int utap_pyline_find(utap_pyline_next next, void *ctx, int first, s64 addr)
{
	s64 line = first, pos = 0;
	int b;

	if (addr < 0)
		return first;
	b = next(ctx);
	while (b >= 0 && (b & 0x80)) {
		int code = (b >> 3) & 15;
		u32 u;

		if (code == 13 || code == 14) {
			if (utap_pyline_varint(next, ctx, &u))
				return 0;
			line += (u & 1) ? -(s64)(u >> 1) : (s64)(u >> 1);
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		if (line < 0 || line > 0x7fffffff)
			return 0;	/* no source file has such lines: garbage */
		pos += (b & 7) + 1;
		if (addr < pos)
			return code == 15 ? -1 : (int)line;
		/* the rest of the entry: up to the next byte with bit 7 set */
		while ((b = next(ctx)) >= 0 && !(b & 0x80))
			;
	}
	return 0;
}
