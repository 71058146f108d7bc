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
	r->save_off8[slot] = off / 8;	/* tests give whole words */
}

/* ULEB128 of V at P; returns the bytes written. */
static inline size_t uwmk_uleb(u8 *p, u32 v)
{
	size_t n = 0;

	do {
		p[n++] = (u8)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/*
 * Write a table for ROWS (sorted, distinct starts, rows[0].start is the
 * text start) ending at TEXT_END into BUF (8-byte aligned, CAP bytes).
 * Returns its length, or 0 when it does not fit or the input is bad.
 * Rules keep their first-use order (the builder sorts them by use).
 */
static inline size_t uwmk_table(void *buf, size_t cap,
				const struct uwmk_row *rows, u32 n,
				u64 text_end, unsigned int shift)
{
	struct uwt_header *h = buf;
	struct uwt_rule *rules = (struct uwt_rule *)(h + 1);
	u32 nr_rules = 0, i, j, b, g, nr_blocks, nr_groups;
	u64 start = n ? rows[0].start : text_end, span = text_end - start;
	u64 bs = 1ull << shift;
	u32 *blocks;
	struct uwt_group *groups;
	u8 *data;
	size_t need, len = 0;

	if (text_end < start || (span >> shift) > (1u << 20))
		return 0;
	nr_blocks = (span + bs - 1) >> shift;
	nr_groups = (n + UWT_GROUP_ROWS - 1) / UWT_GROUP_ROWS;
	/* worst case: every row has its own rule, 11 bytes per row */
	need = sizeof(*h) + (size_t)(n + 1) * sizeof(*rules) +
	       (nr_blocks + 1) * 4 + nr_groups * sizeof(*groups) + (size_t)n * 11;
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
	groups = (struct uwt_group *)(blocks + nr_blocks + 1);
	data = (u8 *)(groups + nr_groups);
	for (i = 0; i < n; i++) {
		u32 off = (u32)(rows[i].start - start);
		u32 delta = i % UWT_GROUP_ROWS ? off - (u32)(rows[i - 1].start - start) - 1 : 0;

		struct uwt_group *gr = &groups[i / UWT_GROUP_ROWS];

		if (i % UWT_GROUP_ROWS == 0)
			*gr = (struct uwt_group){ off, (u32)len, UWT_NO_MID, UWT_NO_MID };
		/* a midpoint when both offsets fit in 16 bits */
		if (i % UWT_GROUP_ROWS == UWT_MID_ROW && off - gr->start < 0xffff &&
		    len - gr->data < 0xffff) {
			gr->mid_start = (u16)(off - gr->start);
			gr->mid_data = (u16)(len - gr->data);
		}
		for (j = 0; memcmp(&rules[j], &rows[i].rule, sizeof(rules[j])); j++)
			;
		data[len++] = (u8)((delta < 7 ? delta : 7) | (j < 31 ? j : 31) << 3);
		if (delta >= 7)
			len += uwmk_uleb(data + len, delta - 7);
		if (j >= 31)
			len += uwmk_uleb(data + len, j - 31);
	}
	for (b = 0, g = 0; b <= nr_blocks && nr_groups; b++) {
		u64 at = b < nr_blocks ? b * bs : span;

		while (g + 1 < nr_groups && groups[g + 1].start <= at)
			g++;
		blocks[b] = g;
	}
	h->magic = UWT_MAGIC;
	h->version = UWT_VERSION;
	h->header_size = sizeof(*h);
	h->text_start = start;
	h->text_end = text_end;
	h->nr_rules = nr_rules;
	h->nr_blocks = nr_blocks;
	h->nr_rows = n;
	h->nr_groups = nr_groups;
	h->rules_off = sizeof(*h);
	h->blocks_off = h->rules_off + nr_rules * sizeof(*rules);
	h->groups_off = h->blocks_off + (nr_blocks + 1) * 4;
	h->data_off = h->groups_off + nr_groups * sizeof(*groups);
	h->data_size = (u32)len;
	h->total_size = h->data_off + (u32)len;
	h->block_shift = shift;
	return h->total_size;
}

#endif
