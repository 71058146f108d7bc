// SPDX-License-Identifier: GPL-2.0
/*
 * uwtab.c - validation of untrusted unwind tables and pc lookup.
 *
 * Pure core: port.h only, bounded loops, no allocation.
 */
#ifndef UTAP_UNWIND_UWTAB_C
#define UTAP_UNWIND_UWTAB_C

#include "unwind/uwtab.h"

_Static_assert(sizeof(struct uwt_header) == 96, "uwt_header layout");
_Static_assert(sizeof(struct uwt_rule) == 36, "uwt_rule layout");
_Static_assert(sizeof(struct uwt_row) == 4, "uwt_row layout");

static const struct uwt_rule *tab_rules(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->rules_off);
}

static const u32 *tab_blocks(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->blocks_off);
}

static const struct uwt_row *tab_rows(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->rows_off);
}

/* An array of COUNT items of SIZE bytes at OFF must lie in [*pos, total). */
static int check_array(u32 off, u64 count, u32 size, u32 align,
		       u64 *pos, u64 total)
{
	u64 end = (u64)off + count * size;

	if (off < *pos || off % align || end > total)
		return -EINVAL;
	*pos = end;
	return 0;
}

static int check_header(const struct uwt_header *h, size_t len)
{
	u64 span, bs, pos = sizeof(*h);

	if (h->magic != UWT_MAGIC || h->version != UWT_VERSION ||
	    h->header_size != sizeof(*h) || h->total_size != len ||
	    (h->flags & ~UWT_F_ALL) || h->reserved || h->reserved2 ||
	    h->build_id_len > UWT_BUILD_ID_MAX)
		return -EINVAL;
	if (h->block_shift < UWT_MIN_BLOCK_SHIFT ||
	    h->block_shift > UWT_MAX_BLOCK_SHIFT ||
	    h->text_end < h->text_start)
		return -EINVAL;
	bs = 1ull << h->block_shift;
	span = h->text_end - h->text_start;
	if ((span >> h->block_shift) + !!(span & (bs - 1)) != h->nr_blocks)
		return -EINVAL;
	if (h->nr_rules == 0 || h->nr_rules > UWT_MAX_RULES + 1)
		return -EINVAL;
	if ((h->nr_blocks == 0) != (h->nr_rows == 0))
		return -EINVAL;
	if (check_array(h->rules_off, h->nr_rules, sizeof(struct uwt_rule), 4,
			&pos, len) ||
	    check_array(h->blocks_off, (u64)h->nr_blocks + 1, sizeof(u32), 4,
			&pos, len) ||
	    check_array(h->rows_off, h->nr_rows, sizeof(struct uwt_row), 4,
			&pos, len))
		return -EINVAL;
	return 0;
}

static int check_save(u8 how)
{
	u8 kind = UWT_SAVE_KIND(how);

	if (kind >= UWT_NR_SAVE)
		return -EINVAL;
	/* the register nibble only means something for the REG kinds */
	if (kind != UWT_SAVE_IN_REG && kind != UWT_SAVE_AT_REG &&
	    UWT_SAVE_REG(how))
		return -EINVAL;
	return 0;
}

static int check_rule(const struct uwt_rule *r)
{
	int i;

	if (r->kind >= UWT_NR_KINDS || r->ra_how >= UWT_NR_RA ||
	    r->cfa_reg >= UWT_RIP || r->ra_reg >= UWT_NR_REGS || r->reserved)
		return -EINVAL;
	if (r->sp_reg != UWT_SP_IS_CFA && r->sp_reg >= UWT_RIP)
		return -EINVAL;
	if (r->kind == UWT_PLT && (r->cfa_off2 < 0 || r->cfa_off2 > 15))
		return -EINVAL;
	for (i = 0; i < UWT_NR_SAVED; i++)
		if (check_save(r->save_how[i]))
			return -EINVAL;
	return 0;
}

/* Rows of each block: inside the block and the text range, sorted, valid rule. */
static int check_rows(const struct uwt_header *h)
{
	const u32 *blocks = tab_blocks(h);
	const struct uwt_row *rows = tab_rows(h);
	u64 span = h->text_end - h->text_start;
	u64 bs = 1ull << h->block_shift;
	u32 b, i;

	if (blocks[0] != 0 || blocks[h->nr_blocks] != h->nr_rows)
		return -EINVAL;
	if (h->nr_rows && (blocks[1] == 0 || rows[0].off != 0))
		return -EINVAL;
	for (b = 0; b < h->nr_blocks; b++) {
		u64 limit = span - b * bs < bs ? span - b * bs : bs;

		if (blocks[b + 1] < blocks[b])
			return -EINVAL;
		for (i = blocks[b]; i < blocks[b + 1]; i++) {
			if (rows[i].off >= limit || rows[i].rule >= h->nr_rules)
				return -EINVAL;
			if (i > blocks[b] && rows[i].off <= rows[i - 1].off)
				return -EINVAL;
		}
	}
	return 0;
}

int uw_table_validate(const void *blob, size_t len)
{
	const struct uwt_header *h = blob;
	u32 i;

	if (!blob || len < sizeof(*h) || len > UWT_MAX_SIZE ||
	    ((unsigned long)blob & 7))
		return -EINVAL;
	if (check_header(h, len))
		return -EINVAL;
	for (i = 0; i < h->nr_rules; i++)
		if (check_rule(&tab_rules(h)[i]))
			return -EINVAL;
	return check_rows(h);
}

/* Index of the row covering OFF (bytes from text_start; OFF < span). */
static u32 find_row(const struct uwt_header *h, u64 off)
{
	const u32 *blocks = tab_blocks(h);
	const struct uwt_row *rows = tab_rows(h);
	u32 b = off >> h->block_shift;
	u16 in = off & ((1u << h->block_shift) - 1);
	u32 lo = blocks[b], hi = blocks[b + 1];

	/* no row starts in this block before OFF: the previous one covers it */
	if (lo == hi || rows[lo].off > in)
		return lo - 1;
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (rows[mid].off <= in)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct uwt_rule *uw_table_lookup(const void *blob, u64 pc)
{
	const struct uwt_header *h = blob;

	if (pc < h->text_start || pc >= h->text_end)
		return NULL;
	return &tab_rules(h)[tab_rows(h)[find_row(h, pc - h->text_start)].rule];
}

/* Start of row I (bytes from text_start): find the block it starts in. */
static u64 row_start(const struct uwt_header *h, u32 i)
{
	const u32 *blocks = tab_blocks(h);
	u32 lo = 0, hi = h->nr_blocks;

	/* largest b with blocks[b] <= i; rows of b are blocks[b]..blocks[b+1]-1 */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (blocks[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return ((u64)lo << h->block_shift) + tab_rows(h)[i].off;
}

const struct uwt_rule *uw_table_lookup_range(const void *blob, u64 pc,
					     u64 *start, u64 *end)
{
	const struct uwt_header *h = blob;
	u32 i;

	if (pc < h->text_start || pc >= h->text_end)
		return NULL;
	i = find_row(h, pc - h->text_start);
	*start = h->text_start + row_start(h, i);
	*end = i + 1 < h->nr_rows ? h->text_start + row_start(h, i + 1) :
				    h->text_end;
	return &tab_rules(h)[tab_rows(h)[i].rule];
}

#endif /* UTAP_UNWIND_UWTAB_C */
