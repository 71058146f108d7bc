// SPDX-License-Identifier: GPL-2.0
/*
 * test_uwtab - table validation and lookup.
 *
 * Lookup is compared with a linear reference on hand-made tables with
 * empty blocks, rows on block starts and a partial last block. The
 * validator must accept what the builder and uwmk.h write, reject every
 * truncation and each specific corruption, and never let an accepted
 * bit-flipped table make a lookup read outside the blob (ASan watches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "unwind/uwtab.h"
#include "elf/uwbuild.h"
#include "uwprogs/uwmk.h"

static u64 buf[1 << 14];

/*
 * 16-byte blocks; rows at 0x1000, 0x1005, 0x1010 (a block start), 0x1100
 * (after empty blocks), 0x1108 and 0x1131 (in the partial last block).
 */
static size_t sample(void)
{
	struct uwmk_row rows[6];
	struct uwt_rule none = uwmk_rule(UWT_NONE, 0, 0);

	rows[0] = (struct uwmk_row){ 0x1000, uwmk_cfa(UWT_RSP, 8) };
	rows[1] = (struct uwmk_row){ 0x1005, uwmk_cfa(UWT_RSP, 16) };
	rows[2] = (struct uwmk_row){ 0x1010, uwmk_cfa(UWT_RBP, 16) };
	rows[3] = (struct uwmk_row){ 0x1100, none };
	rows[4] = (struct uwmk_row){ 0x1108, uwmk_cfa(UWT_RSP, 8) };
	rows[5] = (struct uwmk_row){ 0x1131, uwmk_cfa(UWT_RSP, 24) };
	return uwmk_table(buf, sizeof(buf), rows, 6, 0x1133, 4);
}

static const struct uwt_rule *rules_of(const void *blob)
{
	const struct uwt_header *h = blob;

	return (const void *)((const u8 *)blob + h->rules_off);
}

static void lookup_matches_reference(void)
{
	static const u64 starts[] = { 0x1000, 0x1005, 0x1010, 0x1100, 0x1108,
				      0x1131 };
	size_t len = sample();
	u64 pc, s, e;
	int i;

	CHECK(len > 0);
	CHECK_INT(uw_table_validate(buf, len), 0);
	CHECK(uw_table_lookup(buf, 0xfff) == NULL);
	CHECK(uw_table_lookup(buf, 0x1133) == NULL);
	CHECK(uw_table_lookup(buf, ~0ull) == NULL);
	for (pc = 0x1000; pc < 0x1133; pc++) {
		const struct uwt_rule *r = uw_table_lookup_range(buf, pc, &s, &e);

		for (i = 5; starts[i] > pc; i--)
			;
		CHECK(r != NULL);
		if (!r)
			break;
		CHECK_HEX(s, starts[i]);
		CHECK_HEX(e, i < 5 ? starts[i + 1] : 0x1133);
		CHECK(r == uw_table_lookup(buf, pc));
		if (unit_failed_checks) {
			fprintf(stderr, "  at pc %#llx\n", (unsigned long long)pc);
			break;
		}
	}
	CHECK_INT(uw_table_lookup(buf, 0x1004)->cfa_off, 8);
	CHECK_INT(uw_table_lookup(buf, 0x1005)->cfa_off, 16);
	CHECK_INT(uw_table_lookup(buf, 0x10ff)->cfa_reg, UWT_RBP);
	CHECK_INT(uw_table_lookup(buf, 0x1107)->kind, UWT_NONE);
}

/*
 * Rows N (100: three full groups and a short one) at irregular starts,
 * every third row's start GAP further on, each row with its own CFA
 * offset: the row a lookup returns is the one a linear search of ROWS
 * finds, on both sides of every group's midpoint.
 */
static size_t many_rows(struct uwmk_row *rows, u32 n, u32 gap)
{
	u64 at = 0x40000;
	u32 i;

	for (i = 0; i < n; i++) {
		rows[i] = (struct uwmk_row){ at, uwmk_cfa(UWT_RSP, 8 * (i + 1)) };
		at += 1 + (i * 7) % 23 + (i % 3 == 2 ? gap : 0);
	}
	return uwmk_table(buf, sizeof(buf), rows, n, at + 5, 8);
}

static void check_every_pc(const struct uwmk_row *rows, u32 n)
{
	const struct uwt_header *h = (const void *)buf;
	u64 pc, s, e;
	u32 i = 0;

	for (pc = rows[0].start; pc < h->text_end && !unit_failed_checks; pc++) {
		const struct uwt_rule *r = uw_table_lookup_range(buf, pc, &s, &e);

		while (i + 1 < n && rows[i + 1].start <= pc)
			i++;
		CHECK(r && r->cfa_off == rows[i].rule.cfa_off);
		CHECK_HEX(s, rows[i].start);
		CHECK_HEX(e, i + 1 < n ? rows[i + 1].start : h->text_end);
		if (unit_failed_checks)
			fprintf(stderr, "  at pc %#llx, row %u\n", (unsigned long long)pc, i);
	}
}

static void midpoints_find_the_row(void)
{
	static struct uwmk_row rows[100];
	const struct uwt_header *h = (const void *)buf;
	struct uwt_group *gr;
	size_t len = many_rows(rows, 100, 0);

	CHECK(len > 0);
	CHECK_INT(uw_table_validate(buf, len), 0);
	CHECK_INT(h->nr_groups, 4);
	gr = (void *)((u8 *)buf + h->groups_off);
	/* the three full groups have a midpoint, the 4-row one has none */
	CHECK_HEX(gr[1].start + gr[1].mid_start, rows[UWT_GROUP_ROWS + UWT_MID_ROW].start - rows[0].start);
	CHECK(gr[2].mid_data != UWT_NO_MID && gr[2].mid_data > 0);
	CHECK_INT(gr[3].mid_start, UWT_NO_MID);
	check_every_pc(rows, 100);
	/* a midpoint one row off is refused, not followed */
	gr[1].mid_start++;
	CHECK_INT(uw_table_validate(buf, len), -EINVAL);
	gr[1].mid_start--;
	gr[1].mid_data--;
	CHECK_INT(uw_table_validate(buf, len), -EINVAL);
	gr[1].mid_data++;
	/* without midpoints (as a builder may leave them) the same rows come back */
	for (u32 g = 0; g < h->nr_groups; g++)
		gr[g].mid_start = gr[g].mid_data = UWT_NO_MID;
	CHECK_INT(uw_table_validate(buf, len), 0);
	check_every_pc(rows, 100);
}

/* Midpoints more than 64 KiB into their group do not fit: left out, still found. */
static void far_midpoints_left_out(void)
{
	static struct uwmk_row rows[40];
	const struct uwt_header *h = (const void *)buf;
	const struct uwt_group *gr;
	size_t len = many_rows(rows, 40, 0x4000);

	CHECK(len > 0);
	CHECK_INT(uw_table_validate(buf, len), 0);
	gr = (const void *)((const u8 *)buf + h->groups_off);
	CHECK(rows[UWT_MID_ROW].start - rows[0].start > 0xffff);
	CHECK_INT(gr[0].mid_start, UWT_NO_MID);
	check_every_pc(rows, 40);
}

static void empty_table(void)
{
	size_t len = uwmk_table(buf, sizeof(buf), NULL, 0, 0x5000, 8);

	CHECK_INT(len, sizeof(struct uwt_header) + sizeof(struct uwt_rule) + 4);
	CHECK_INT(uw_table_validate(buf, len), 0);
	CHECK(uw_table_lookup(buf, 0x5000) == NULL);
}

static int validate_copy(const void *src, size_t len)
{
	static u64 copy[1 << 16];

	if (len > sizeof(copy))
		return -E2BIG;
	memcpy(copy, src, len);
	return uw_table_validate(copy, len);
}

/* Cut the table at every length, with total_size told the truth. */
static void truncation_rejected(void)
{
	size_t len = sample(), cut;
	struct uwt_header *h = (void *)buf;

	for (cut = 0; cut < len; cut++) {
		u32 saved = h->total_size;

		h->total_size = cut;
		CHECK_INT(uw_table_validate(buf, cut), -EINVAL);
		h->total_size = saved;
		CHECK_INT(uw_table_validate(buf, cut), -EINVAL);
		if (unit_failed_checks) {
			fprintf(stderr, "  accepted at length %zu\n", cut);
			break;
		}
	}
	CHECK_INT(uw_table_validate(buf, len), 0);
}

#define CORRUPT(what, stmt) do {				\
	size_t len_ = sample();					\
	struct uwt_header *h = (void *)buf;			\
	struct uwt_rule *rules = (void *)((u8 *)buf + h->rules_off); \
	u32 *blocks = (void *)((u8 *)buf + h->blocks_off);	\
	struct uwt_group *groups = (void *)((u8 *)buf + h->groups_off); \
	u8 *data = (u8 *)buf + h->data_off;			\
	(void)rules; (void)blocks; (void)groups; (void)data;	\
	stmt;							\
	if (uw_table_validate(buf, len_) != -EINVAL)		\
		CHECK(!"accepted: " what);			\
} while (0)

static void corruptions_rejected(void)
{
	sample();
	CHECK_INT(((struct uwt_header *)buf)->data_size, 11);	/* the bytes below */
	CORRUPT("magic", h->magic ^= 1);
	CORRUPT("version", h->version = 1);
	CORRUPT("header size", h->header_size = 64);
	CORRUPT("unknown flag", h->flags = 0x80);
	CORRUPT("reserved", h->reserved = 1);
	CORRUPT("build-id length", h->build_id_len = 33);
	CORRUPT("block shift small", h->block_shift = 3);
	CORRUPT("block shift large", h->block_shift = 17);
	CORRUPT("block count", h->nr_blocks++);
	CORRUPT("text range reversed", h->text_end = h->text_start - 1);
	CORRUPT("no rules", h->nr_rules = 0);
	CORRUPT("rules past end", h->nr_rules = 1000);
	CORRUPT("rules overlap header", h->rules_off = 8);
	CORRUPT("rules misaligned", h->rules_off += 2);
	CORRUPT("rows count", h->nr_rows++);
	CORRUPT("rule kind", rules[0].kind = UWT_NR_KINDS);
	CORRUPT("cfa register", rules[0].cfa_reg = UWT_RIP);
	CORRUPT("ra mode", rules[0].ra_how = UWT_NR_RA);
	CORRUPT("ra register", rules[0].ra_reg = UWT_NR_REGS);
	CORRUPT("sp register", rules[0].sp_reg = UWT_RIP);
	CORRUPT("save kind", rules[0].save_how[1] = UWT_NR_SAVE);
	CORRUPT("save register on SAME", rules[0].save_how[1] = 0x30);
	CORRUPT("plt threshold", (rules[0].kind = UWT_PLT, rules[0].cfa_off2 = 16));
	CORRUPT("block index start", blocks[0] = 1);
	CORRUPT("block index end", blocks[h->nr_blocks] = 3);
	CORRUPT("block index order", (blocks[1] = 3, blocks[2] = 2));
	CORRUPT("group count", h->nr_groups++);
	CORRUPT("first group start", groups[0].start = 1);
	CORRUPT("first group bytes", groups[0].data = 1);
	CORRUPT("data cut short", h->data_size--);
	/* the rows: 00, 0c, 17 03, 1f e8 01, 07 00, 27 21 */
	CORRUPT("first row delta", data[0] = 0x01);
	CORRUPT("row rule index", data[1] = 0x2c);
	CORRUPT("escaped rule index", data[1] = 0xfc);
	CORRUPT("row past text end", data[10] = 0x7f);
	CORRUPT("long ULEB", (data[5] = 0xff, data[6] = 0xff));
	CORRUPT("midpoint in a short group", groups[0].mid_start = groups[0].mid_data = 1);
	CORRUPT("half a midpoint", groups[0].mid_start = 1);
	/* a misaligned blob pointer is refused before anything is read */
	CHECK_INT(uw_table_validate((u8 *)buf + 4, sample()), -EINVAL);
	CHECK_INT(uw_table_validate(NULL, 100), -EINVAL);
}

/* Every lookup in an accepted table stays inside it (ASan checks). */
static void lookups_in_bounds(const void *blob, size_t len)
{
	const struct uwt_header *h = blob;
	const struct uwt_rule *rules = rules_of(blob);
	u64 pc, step = (h->text_end - h->text_start) / 4096 + 1;

	for (pc = h->text_start; pc < h->text_end && pc >= h->text_start; pc += step) {
		const struct uwt_rule *r = uw_table_lookup(blob, pc);

		CHECK(r >= rules && r < rules + h->nr_rules);
		if (unit_failed_checks)
			return;
	}
	(void)len;
}

static void single_bit_flips(void)
{
	static u64 copy[1 << 14];
	size_t len = sample(), bit;
	unsigned long accepted = 0;

	for (bit = 0; bit < len * 8; bit++) {
		memcpy(copy, buf, len);
		((u8 *)copy)[bit / 8] ^= 1u << (bit % 8);
		if (uw_table_validate(copy, len))
			continue;
		accepted++;
		lookups_in_bounds(copy, len);
	}
	printf("# %zu single-bit flips, %lu still valid tables\n", len * 8, accepted);
}

/* A real table: valid as built, then random multi-bit damage. */
static void real_table_damage(void)
{
	struct uw_build_stats st;
	struct uw_blob b;
	char err[256];
	static u64 copy[1 << 16];
	unsigned int seed = 7, i, k, accepted = 0;

	if (uw_build_file("/lib64/ld-linux-x86-64.so.2", NULL, &b, &st, err,
			  sizeof(err))) {
		CHECK(!"cannot build ld.so table");
		return;
	}
	CHECK_INT(validate_copy(b.data, b.len), 0);
	CHECK(b.len <= sizeof(copy));
	for (i = 0; i < 2000 && b.len <= sizeof(copy); i++) {
		memcpy(copy, b.data, b.len);
		for (k = 0; k < 1 + i % 4; k++) {
			size_t at = rand_r(&seed) % b.len;

			((u8 *)copy)[at] ^= 1u << (rand_r(&seed) % 8);
		}
		if (uw_table_validate(copy, b.len))
			continue;
		accepted++;
		lookups_in_bounds(copy, b.len);
	}
	printf("# ld.so table: %zu bytes, %u of 2000 damaged copies still valid\n",
	       b.len, accepted);
	uw_blob_free(&b);
}

/*
 * The builder's rows (rules sorted by use) against uwmk.h's of the same
 * table (rules in first-use order): the ranges the builder's table gives,
 * rewritten by uwmk, must look up the same rule everywhere (libc: 700+
 * groups, 300+ rules).
 */
static void builder_matches_simple_writer(void)
{
	static struct uwmk_row rows[1 << 15];
	static u64 copy[1 << 18];
	struct uw_build_stats st;
	struct uw_blob b;
	char err[256];
	const struct uwt_header *h;
	u64 pc, s, e;
	u32 n = 0;
	size_t len;

	if (uw_build_file("/lib/x86_64-linux-gnu/libc.so.6", NULL, &b, &st, err,
			  sizeof(err))) {
		CHECK(!"cannot build libc's table");
		return;
	}
	h = b.data;
	CHECK_INT(uw_table_validate(b.data, b.len), 0);
	for (pc = h->text_start; pc < h->text_end && n < sizeof(rows) / sizeof(rows[0]); pc = e) {
		const struct uwt_rule *r = uw_table_lookup_range(b.data, pc, &s, &e);

		CHECK(r && s == pc && e > pc);
		if (!r || s != pc || e <= pc)
			break;
		rows[n++] = (struct uwmk_row){ s, *r };
	}
	CHECK_INT(n, h->nr_rows);
	len = uwmk_table(copy, sizeof(copy), rows, n, h->text_end, 12);
	CHECK(len > 0);
	CHECK_INT(uw_table_validate(copy, len), 0);
	for (u32 i = 0; i < n && !unit_failed_checks; i++)
		for (pc = rows[i].start - (i > 0); pc <= rows[i].start; pc++)
			CHECK(!memcmp(uw_table_lookup(copy, pc), uw_table_lookup(b.data, pc),
				      sizeof(struct uwt_rule)));
	printf("# libc: %u rows, %u rules, %zu bytes packed, %zu unsorted\n", n,
	       h->nr_rules, b.len, len);
	uw_blob_free(&b);
}

int main(void)
{
	unit_prog = "test_uwtab";
	RUN(lookup_matches_reference);
	RUN(midpoints_find_the_row);
	RUN(far_midpoints_left_out);
	RUN(empty_table);
	RUN(truncation_rejected);
	RUN(corruptions_rejected);
	RUN(single_bit_flips);
	RUN(real_table_damage);
	RUN(builder_matches_simple_writer);
	return unit_done();
}
