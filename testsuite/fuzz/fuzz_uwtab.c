// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uwtab - the table validator on arbitrary bytes, then lookups.
 *
 * A table the validator accepts must be safe to search at any pc: every
 * lookup returns NULL (outside the text range) or a rule inside the blob.
 */
#include <stdlib.h>
#include <string.h>
#include "unwind/uwtab.h"

static unsigned long long buf[(1u << 20) / 8];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const struct uwt_header *h = (const void *)buf;
	const unsigned char *end = (const unsigned char *)buf + size;
	u64 pc, s, e;
	int i;

	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	if (uw_table_validate(buf, size))
		return 0;
	for (i = 0; i < 512; i++) {
		const struct uwt_rule *r;
		u64 span = h->text_end - h->text_start;

		pc = h->text_start + (span ? (span / 512) * i + i % 7 : 0) - (i & 1);
		r = uw_table_lookup_range(buf, pc, &s, &e);
		if (!r)
			continue;
		if ((const unsigned char *)r < (const unsigned char *)buf ||
		    (const unsigned char *)(r + 1) > end || s > pc || e <= pc)
			abort();
	}
	return 0;
}
