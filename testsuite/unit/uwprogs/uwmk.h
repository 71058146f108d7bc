/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwmk.h - hand-made unwind tables for tests and fuzzers.
 *
 * An independent, deliberately simple writer of the table format: rows
 * given as (start, rule), rules interned by linear search, blocks filled by
 * a linear scan. Header-only so the fuzzers can use it without the builder.
 */
#ifndef UWMK_H
#define UWMK_H

#include <string.h>
#include "unwind/uwtab_format.h"

struct uwmk_row {
	u64 start;
	struct uwt_rule rule;
};

static inline struct uwt_rule uwmk_rule(u8 kind, u8 reg, s32 off)
{
	struct uwt_rule r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.cfa_reg = reg;
	r.cfa_off = off;
	r.ra_how = UWT_RA_AT_CFA;
	r.ra_off = -8;
	r.sp_reg = UWT_SP_IS_CFA;
	return r;
}

static inline struct uwt_rule uwmk_cfa(u8 reg, s32 off)
{
	return uwmk_rule(UWT_CFA_REG, reg, off);
}

static inline void uwmk_save(struct uwt_rule *r, int slot, u8 kind, u8 reg,
			     s16 off)
{
	r->save_how[slot] = UWT_SAVE_HOW(kind, reg);
	r->save_off[slot] = off;
}

/*
 * Write a table for ROWS (sorted, distinct starts, rows[0].start is the
 * text start) ending at TEXT_END into BUF (8-byte aligned, CAP bytes).
 * Returns its length, or 0 when it does not fit or the input is bad.
 */
static inline size_t uwmk_table(void *buf, size_t cap,
				const struct uwmk_row *rows, u32 n,
				u64 text_end, unsigned int shift)
{
	struct uwt_header *h = buf;
	struct uwt_rule *rules = (struct uwt_rule *)(h + 1);
	u32 nr_rules = 0, i, j, b, nr_blocks;
	u64 start = n ? rows[0].start : text_end, span = text_end - start;
	u64 bs = 1ull << shift;
	u32 *blocks;
	struct uwt_row *out;
	size_t need;

	if (text_end < start || (span >> shift) > (1u << 20))
		return 0;
	nr_blocks = (span + bs - 1) >> shift;
	/* worst case: every row has its own rule */
	need = sizeof(*h) + (size_t)(n + 1) * sizeof(*rules) +
	       (nr_blocks + 1) * 4 + n * sizeof(*out);
	if (need > cap)
		return 0;
	memset(buf, 0, need);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nr_rules; j++)
			if (!memcmp(&rules[j], &rows[i].rule, sizeof(rules[j])))
				break;
		if (j == nr_rules)
			rules[nr_rules++] = rows[i].rule;
	}
	if (!nr_rules)
		rules[nr_rules++] = uwmk_rule(UWT_NONE, 0, 0);
	blocks = (u32 *)(rules + nr_rules);
	out = (struct uwt_row *)(blocks + nr_blocks + 1);
	for (b = 0, i = 0; b < nr_blocks; b++) {
		while (i < n && rows[i].start < start + b * bs)
			i++;
		blocks[b] = i;
	}
	blocks[nr_blocks] = n;
	for (i = 0; i < n; i++) {
		for (j = 0; memcmp(&rules[j], &rows[i].rule, sizeof(rules[j])); j++)
			;
		out[i].off = (rows[i].start - start) & (bs - 1);
		out[i].rule = j;
	}
	h->magic = UWT_MAGIC;
	h->version = UWT_VERSION;
	h->header_size = sizeof(*h);
	h->text_start = start;
	h->text_end = text_end;
	h->nr_rules = nr_rules;
	h->nr_blocks = nr_blocks;
	h->nr_rows = n;
	h->rules_off = sizeof(*h);
	h->blocks_off = h->rules_off + nr_rules * sizeof(*rules);
	h->rows_off = h->blocks_off + (nr_blocks + 1) * 4;
	h->total_size = h->rows_off + n * sizeof(*out);
	h->block_shift = shift;
	return h->total_size;
}

#endif
