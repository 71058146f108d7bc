// SPDX-License-Identifier: GPL-2.0
/*
 * uwtab.c - validation of untrusted unwind tables and pc lookup.
 *
 * Rows are packed in groups (uwtab_format.h); one small decoder serves
 * the validator, which runs it over every group once, and the lookup,
 * which runs it over half a group at most (from its start or midpoint).
 *
 * Pure core: port.h only, bounded loops, no allocation.
 */
#ifndef UTAP_UNWIND_UWTAB_C
#define UTAP_UNWIND_UWTAB_C

#include "unwind/uwtab.h"

_Static_assert(sizeof(struct uwt_header) == 104, "uwt_header layout");
_Static_assert(sizeof(struct uwt_rule) == 24, "uwt_rule layout");
_Static_assert(sizeof(struct uwt_group) == 12, "uwt_group layout");

static const struct uwt_rule *tab_rules(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->rules_off);
}

static const u32 *tab_blocks(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->blocks_off);
}

static const struct uwt_group *tab_groups(const struct uwt_header *h)
{
	return (const void *)((const u8 *)h + h->groups_off);
}

/* ---- the row decoder ---- */

struct row_cursor {
	const u8 *p, *end;	/* the group's bytes */
	u32 left;		/* rows not decoded yet */
	u32 nr_rules;
	u32 start;		/* the current row: start (from text_start), rule */
	u32 rule;
};

static u32 group_rows(const struct uwt_header *h, u32 g)
{
	u32 done = g * UWT_GROUP_ROWS;

	return h->nr_rows - done < UWT_GROUP_ROWS ? h->nr_rows - done : UWT_GROUP_ROWS;
}

static void cursor_init(struct row_cursor *c, const struct uwt_header *h, u32 g)
{
	const struct uwt_group *gr = tab_groups(h);
	const u8 *data = (const u8 *)h + h->data_off;
	u32 stop = g + 1 < h->nr_groups ? gr[g + 1].data : h->data_size;

	/* the validator checked the offsets; the lookup trusts them */
	c->p = data + gr[g].data;
	c->end = data + (stop >= gr[g].data ? stop : gr[g].data);
	c->left = group_rows(h, g);
	c->nr_rules = h->nr_rules;
	c->start = gr[g].start;
}

/* ULEB128 of at most 32 bits; false past the end or when too long. */
static bool get_uleb(const u8 **p, const u8 *end, u32 *v)
{
	u32 x = 0;
	int shift;

	for (shift = 0; shift < 35; shift += 7) {
		u8 b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		if (shift == 28 && (b & 0x70))
			return false;
		x |= (u32)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* The next row of the group into c->start/c->rule; false when malformed. */
static bool cursor_next(struct row_cursor *c, bool first)
{
	u32 nib, ext = 0, rule;
	u64 start;
	u8 b;

	if (!c->left || c->p >= c->end)
		return false;
	b = *c->p++;
	nib = b & UWT_DELTA_ESC;
	rule = b >> UWT_DELTA_BITS;
	if (first && nib)
		return false;	/* a group's first start is the group's */
	if (nib == UWT_DELTA_ESC && !get_uleb(&c->p, c->end, &ext))
		return false;
	if (!first) {
		start = (u64)c->start + nib + ext + 1;
		if (start > 0xffffffffull)
			return false;
		c->start = (u32)start;
	}
	if (rule == UWT_RULE_ESC) {
		if (!get_uleb(&c->p, c->end, &ext) || ext > UWT_MAX_RULES)
			return false;
		rule += ext;
	}
	if (rule >= c->nr_rules)
		return false;
	c->rule = rule;
	c->left--;
	return true;
}

/* ---- validation ---- */

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
	    (h->flags & ~UWT_F_ALL) || h->reserved ||
	    h->build_id_len > UWT_BUILD_ID_MAX)
		return -EINVAL;
	if (h->block_shift < UWT_MIN_BLOCK_SHIFT ||
	    h->block_shift > UWT_MAX_BLOCK_SHIFT ||
	    h->text_end < h->text_start || h->text_end - h->text_start > 0xffffffffull)
		return -EINVAL;
	bs = 1ull << h->block_shift;
	span = h->text_end - h->text_start;
	if ((span >> h->block_shift) + !!(span & (bs - 1)) != h->nr_blocks)
		return -EINVAL;
	if (h->nr_rules == 0 || h->nr_rules > UWT_MAX_RULES + 1)
		return -EINVAL;
	if ((h->nr_blocks == 0) != (h->nr_rows == 0) ||
	    h->nr_groups != h->nr_rows / UWT_GROUP_ROWS + !!(h->nr_rows % UWT_GROUP_ROWS))
		return -EINVAL;
	if (check_array(h->rules_off, h->nr_rules, sizeof(struct uwt_rule), 4,
			&pos, len) ||
	    check_array(h->blocks_off, (u64)h->nr_blocks + 1, sizeof(u32), 4,
			&pos, len) ||
	    check_array(h->groups_off, h->nr_groups, sizeof(struct uwt_group), 4,
			&pos, len) ||
	    check_array(h->data_off, h->data_size, 1, 1, &pos, len))
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
	    r->cfa_reg >= UWT_RIP || r->ra_reg >= UWT_NR_REGS)
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

/*
 * A group's midpoint names its row UWT_MID_ROW, which starts MID_START
 * bytes after the group at byte MID_DATA of its bytes; or it is absent.
 */
static bool mid_ok(const struct uwt_group *gr, u32 rows, u32 mid_start, u32 mid_data)
{
	if (gr->mid_start == UWT_NO_MID || gr->mid_data == UWT_NO_MID)
		return gr->mid_start == gr->mid_data;
	return rows > UWT_MID_ROW && gr->mid_start == mid_start && gr->mid_data == mid_data;
}

/*
 * Decode every group: its bytes in order and exactly used up, starts
 * strictly ascending across the table and inside the text range, the
 * first at 0, every rule valid, the midpoint where it says.
 */
static int check_groups(const struct uwt_header *h)
{
	const struct uwt_group *gr = tab_groups(h);
	u64 span = h->text_end - h->text_start;
	struct row_cursor c;
	u32 g, i, prev = 0, mid_start = 0, mid_data = 0;

	if (h->nr_groups && (gr[0].start != 0 || gr[0].data != 0))
		return -EINVAL;
	for (g = 0; g < h->nr_groups; g++) {
		if (gr[g].data > h->data_size ||
		    (g && (gr[g].data < gr[g - 1].data || gr[g].start <= prev)))
			return -EINVAL;
		cursor_init(&c, h, g);
		for (i = 0; c.left; i++) {
			const u8 *at = c.p;

			if (!cursor_next(&c, i == 0))
				return -EINVAL;
			if (i == UWT_MID_ROW) {
				mid_start = c.start - gr[g].start;
				mid_data = (u32)(at - ((const u8 *)h + h->data_off)) - gr[g].data;
			}
		}
		if (c.p != c.end || c.start >= span ||
		    !mid_ok(&gr[g], group_rows(h, g), mid_start, mid_data))
			return -EINVAL;
		prev = c.start;
	}
	return 0;
}

/* blocks[b] must be the last group starting at or before block b. */
static int check_blocks(const struct uwt_header *h)
{
	const u32 *blocks = tab_blocks(h);
	const struct uwt_group *gr = tab_groups(h);
	u32 b;

	for (b = 0; b <= h->nr_blocks && h->nr_groups; b++) {
		u64 at = b < h->nr_blocks ? (u64)b << h->block_shift :
					     h->text_end - h->text_start;
		u32 g = blocks[b];

		if (g >= h->nr_groups || gr[g].start > at ||
		    (g + 1 < h->nr_groups && gr[g + 1].start <= at))
			return -EINVAL;
	}
	return 0;
}

UTAP_UNWIND_API
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
	if (check_groups(h) || check_blocks(h))
		return -EINVAL;
	return 0;
}

/* ---- lookup ---- */

/* The group holding the row that covers OFF (OFF < span). */
static u32 find_group(const struct uwt_header *h, u32 off)
{
	const u32 *blocks = tab_blocks(h);
	const struct uwt_group *gr = tab_groups(h);
	u32 b = off >> h->block_shift;
	u32 lo = blocks[b], hi = blocks[b + 1] + 1;

	if (hi > h->nr_groups)
		hi = h->nr_groups;
	/* largest g in [lo, hi) with gr[g].start <= off; gr[lo].start <= off */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (gr[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A ULEB128 of a validated table: no bounds to check. */
static u32 read_uleb(const u8 **p)
{
	u32 v = 0;
	int shift = 0;
	u8 b;

	do {
		b = *(*p)++;
		v |= (u32)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/* Past a ULEB128 of a validated table. */
static const u8 *skip_uleb(const u8 *p)
{
	while (*p++ & 0x80)
		;
	return p;
}

/* The value of the ULEB128 at P: most take one byte. */
static u32 uleb_at(const u8 *p)
{
	return *p & 0x80 ? read_uleb(&p) : *p;
}

/* The row after the one at P (a validated table's). */
static const u8 *skip_row(const u8 *p)
{
	u8 b = *p++;

	if ((b & UWT_DELTA_ESC) == UWT_DELTA_ESC)
		p = skip_uleb(p);
	if (b >> UWT_DELTA_BITS == UWT_RULE_ESC)
		p = skip_uleb(p);
	return p;
}

/*
 * The rule of the row covering OFF, and the row's [start, end). Decoding
 * starts at the group's first row or its midpoint, whichever is the last
 * at or before OFF; the rows before OFF's are only skipped (deltas summed,
 * rule escapes stepped over): a few instructions per row, at most half a
 * group of them.
 */
static const struct uwt_rule *find_row(const struct uwt_header *h, u32 off,
				       u64 *start, u64 *end)
{
	u32 g = find_group(h, off);
	const struct uwt_group *gr = &tab_groups(h)[g];
	const u8 *p = (const u8 *)h + h->data_off + gr->data;
	u32 left = group_rows(h, g), at = gr->start, next, rule;

	if (gr->mid_start != UWT_NO_MID && off - at >= gr->mid_start) {
		p += gr->mid_data;
		at += gr->mid_start;
		left -= UWT_MID_ROW;
	}
	for (;;) {		/* p: the row starting at AT */
		u8 b = *p;
		const u8 *q = p + 1;	/* the next row, unless this one has escapes */
		u32 d;

		if (unlikely(((b & UWT_DELTA_ESC) == UWT_DELTA_ESC) |
			     (b >> UWT_DELTA_BITS == UWT_RULE_ESC)))
			q = skip_row(p);
		if (!--left) {
			next = g + 1 < h->nr_groups ? gr[1].start :
			       (u32)(h->text_end - h->text_start);
			break;
		}
		d = *q & UWT_DELTA_ESC;
		if (unlikely(d == UWT_DELTA_ESC))
			d += uleb_at(q + 1);
		next = at + d + 1;
		if (next > off)
			break;
		at = next;
		p = q;
	}
	rule = *p >> UWT_DELTA_BITS;
	if (rule == UWT_RULE_ESC)
		rule += uleb_at((*p & UWT_DELTA_ESC) == UWT_DELTA_ESC ? skip_uleb(p + 1) : p + 1);
	*start = at;
	*end = next;
	return &tab_rules(h)[rule];
}

const struct uwt_rule *uw_table_lookup(const void *blob, u64 pc)
{
	u64 s, e;

	return uw_table_lookup_range(blob, pc, &s, &e);
}

const struct uwt_rule *uw_table_lookup_range(const void *blob, u64 pc,
					     u64 *start, u64 *end)
{
	const struct uwt_header *h = blob;
	const struct uwt_rule *r;

	if (pc < h->text_start || pc >= h->text_end)
		return NULL;
	r = find_row(h, (u32)(pc - h->text_start), start, end);
	*start += h->text_start;
	*end += h->text_start;
	return r;
}

#endif /* UTAP_UNWIND_UWTAB_C */
