// SPDX-License-Identifier: GPL-2.0
/*
 * uwbuild.c - build a utap unwind table (runtime/unwind/uwtab_format.h)
 * from an ELF file's CFI.
 *
 *   1. collect the executable sections and the CFI sections;
 *   2. evaluate every FDE row of .eh_frame, and of .debug_frame (the
 *      file's own or its separate debuginfo's), keep the source covering
 *      more text (uwcfi.c, uwclass.c);
 *   3. give PLT sections without CFI their well-known rules, and an entry
 *      point without CFI (the dynamic loader's _start) an end of stack;
 *   4. sort, fill gaps with "no CFI" rows, let a function's last rule run
 *      over the few padding bytes before the next one, merge equal
 *      neighbours, intern the rules, and lay out the blob.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include "elf/debuginfo.h"
#include "elf/uwbuild_int.h"
#include "unwind/uwtab.h"

/* Padding between functions up to this size inherits the previous rule. */
#define GAP_MERGE	15
/* Text spans needing more blocks than this are refused (hostile CFI). */
#define MAX_BLOCKS	(1u << 24)

struct exec_scn {
	uint64_t addr, size;
	const char *name;
	Elf_Scn *scn;
};

struct elf_layout {
	struct exec_scn *exec;
	size_t nr_exec;
	uint64_t text_bytes;
	Elf_Scn *eh_frame, *debug_frame;
	size_t eh_frame_bytes;	/* .eh_frame + .eh_frame_hdr */
	bool has_plt_sec;	/* .plt.sec present: .plt uses the IBT layout */
	uint64_t entry;		/* e_entry, 0 if none */
};

/* A row of the final table before interning. */
struct out_row {
	uint64_t start;
	struct uwt_rule rule;
};

struct out_rows {
	struct out_row *v;
	size_t n, cap;
	uint64_t text_start, text_end, covered;
	unsigned int plt_synth, sigreturn_synth, entry_synth;
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (err && n) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int add_exec(struct elf_layout *lay, Elf_Scn *scn, const GElf_Shdr *sh,
		    const char *name)
{
	struct exec_scn *v = realloc(lay->exec, (lay->nr_exec + 1) * sizeof(*v));

	if (!v)
		return -1;
	lay->exec = v;
	v[lay->nr_exec++] = (struct exec_scn){ sh->sh_addr, sh->sh_size, name, scn };
	lay->text_bytes += sh->sh_size;
	return 0;
}

static int scan_sections(Elf *elf, struct elf_layout *lay)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;

	if (elf_getshdrstrndx(elf, &shstrndx) || !gelf_getehdr(elf, &eh))
		return -1;
	lay->entry = eh.e_type == ET_EXEC || eh.e_type == ET_DYN ? eh.e_entry : 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame") && sh.sh_type != SHT_NOBITS)
			lay->eh_frame = scn;
		if (!strcmp(name, ".debug_frame") && sh.sh_type != SHT_NOBITS)
			lay->debug_frame = scn;
		if ((!strcmp(name, ".eh_frame") || !strcmp(name, ".eh_frame_hdr")) &&
		    sh.sh_type != SHT_NOBITS)
			lay->eh_frame_bytes += sh.sh_size;
		if (!strcmp(name, ".plt.sec"))
			lay->has_plt_sec = true;
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    (sh.sh_flags & SHF_ALLOC) && sh.sh_size &&
		    add_exec(lay, scn, &sh, name))
			return -1;
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int rows_from_eh_frame(Elf *elf, Elf_Scn *scn, struct uwb_rows *rows)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	int ret;

	if (!cfi)
		return 0;
	ret = uwb_section_rows(elf, scn, true, cfi, rows);
	dwarf_cfi_end(cfi);
	return ret;
}

static int rows_from_debug_frame(Elf *elf, struct uwb_rows *rows)
{
	Elf_Scn *scn = find_section(elf, ".debug_frame");
	Dwarf *dbg;
	Dwarf_CFI *cfi;
	int ret = 0;

	if (!scn)
		return 0;
	dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dbg)
		return 0;
	cfi = dwarf_getcfi(dbg);
	if (cfi)
		ret = uwb_section_rows(elf, scn, false, cfi, rows);
	dwarf_end(dbg);
	return ret;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct uwb_row *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static bool covered_at(const struct uwb_rows *rows, uint64_t addr)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].start <= addr && addr < rows->v[i].end)
			return true;
	return false;
}

static void cfa_rsp_rule(struct uwt_rule *r, int32_t off)
{
	uwb_none_rule(r);
	r->kind = UWT_CFA_REG;
	r->cfa_reg = UWT_RSP;
	r->cfa_off = off;
	r->ra_how = UWT_RA_AT_CFA;
	r->ra_off = -8;
}

/*
 * .plt: a lazy entry pushes its index (CFA rsp+8, rsp+16 once the push is
 * done) and jumps to PLT0, which is only entered that way (rsp+16) and
 * pushes the link map (rsp+24 from byte 6). .plt.got and .plt.sec entries
 * only jump: CFA = rsp + 8 throughout. Same as binutils' own PLT CFI.
 */
static int synth_plt(const struct elf_layout *lay, const struct exec_scn *s,
		     struct uwb_rows *rows)
{
	uint64_t end = s->addr + s->size;
	struct uwt_rule r;

	if (strcmp(s->name, ".plt") || s->size <= 16) {
		cfa_rsp_rule(&r, 8);
		return uwb_rows_push(rows, s->addr, end, &r);
	}
	cfa_rsp_rule(&r, 16);
	if (uwb_rows_push(rows, s->addr, s->addr + 6, &r))
		return -1;
	cfa_rsp_rule(&r, 24);
	if (uwb_rows_push(rows, s->addr + 6, s->addr + 16, &r))
		return -1;
	cfa_rsp_rule(&r, 8);
	r.kind = UWT_PLT;
	r.cfa_off2 = lay->has_plt_sec ? 10 : 11;
	return uwb_rows_push(rows, s->addr + 16, end, &r);
}

static int add_plt_rows(const struct elf_layout *lay, struct uwb_rows *rows,
			unsigned int *synth)
{
	size_t i, n = rows->n;

	for (i = 0; i < lay->nr_exec; i++) {
		const struct exec_scn *s = &lay->exec[i];
		struct uwb_rows probe = { .v = rows->v, .n = n };

		if (strncmp(s->name, ".plt", 4) ||
		    (s->name[4] && strcmp(s->name, ".plt.got") &&
		     strcmp(s->name, ".plt.sec")))
			continue;
		if (covered_at(&probe, s->addr))
			continue;
		if (synth_plt(lay, s, rows))
			return -1;
		(*synth)++;
	}
	return 0;
}

/*
 * A signal trampoline without CFI (musl's __restore_rt) is recognised by
 * its code, "mov $15, %rax; syscall" (rt_sigreturn). Like glibc's FDE the
 * row starts one byte early when it can, so the return-address lookup at
 * pc - 1 finds it.
 */
static const uint8_t sigreturn_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05,
};

static int add_sigreturn_rows(const struct elf_layout *lay,
			      struct uwb_rows *rows, unsigned int *synth)
{
	size_t i, n = rows->n;
	struct uwt_rule sig;

	uwb_none_rule(&sig);
	sig.kind = UWT_SIGNAL;
	for (i = 0; i < lay->nr_exec; i++) {
		Elf_Data *d = elf_getdata(lay->exec[i].scn, NULL);
		const uint8_t *p, *base;
		size_t left;

		if (!d || !d->d_buf || d->d_size > lay->exec[i].size)
			continue;
		base = p = d->d_buf;
		left = d->d_size;
		while ((p = memmem(p, left, sigreturn_code, sizeof(sigreturn_code)))) {
			uint64_t addr = lay->exec[i].addr + (uint64_t)(p - base);
			struct uwb_rows probe = { .v = rows->v, .n = n };

			if (!covered_at(&probe, addr)) {
				uint64_t start = addr && !covered_at(&probe, addr - 1) ?
						 addr - 1 : addr;

				if (uwb_rows_push(rows, start,
						  addr + sizeof(sigreturn_code), &sig))
					return -1;
				(*synth)++;
			}
			p++;
			left = d->d_size - (size_t)(p - base);
		}
	}
	return 0;
}

/* The entry code without CFI is at most this long (glibc's RTLD_START: 64 bytes). */
#define ENTRY_SPAN_MAX	256

/*
 * The code at e_entry is where the kernel starts the process: nothing
 * called it, so a return address there (the dynamic loader's _start after
 * "call _dl_start", _dl_start_user after "call _dl_init") ends the stack.
 * glibc's own _start says so in its CFI; ld.so's RTLD_START has none, so
 * it gets an undefined return address up to the next CFI.
 */
static int add_entry_rows(const struct elf_layout *lay, struct uwb_rows *rows,
			  unsigned int *synth)
{
	uint64_t end = 0;
	struct uwt_rule r;
	size_t i;

	/* only beside real CFI: a file without any keeps its "no tables" */
	if (!lay->entry || !rows->fdes || covered_at(rows, lay->entry))
		return 0;
	for (i = 0; i < lay->nr_exec; i++)
		if (lay->exec[i].addr <= lay->entry &&
		    lay->entry < lay->exec[i].addr + lay->exec[i].size)
			end = lay->exec[i].addr + lay->exec[i].size;
	if (!end)
		return 0;	/* not in code we know */
	for (i = 0; i < rows->n; i++)
		if (rows->v[i].start > lay->entry && rows->v[i].start < end)
			end = rows->v[i].start;
	if (end - lay->entry > ENTRY_SPAN_MAX)
		end = lay->entry + ENTRY_SPAN_MAX;
	cfa_rsp_rule(&r, 8);
	r.ra_how = UWT_RA_UNDEF;
	(*synth)++;
	return uwb_rows_push(rows, lay->entry, end, &r);
}

static bool same_rule(const struct uwt_rule *a, const struct uwt_rule *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static int out_push(struct out_rows *out, uint64_t start,
		    const struct uwt_rule *rule)
{
	if (out->n && same_rule(&out->v[out->n - 1].rule, rule))
		return 0;
	if (uwb_grow((void **)&out->v, &out->cap, out->n, sizeof(*out->v)))
		return -1;
	out->v[out->n++] = (struct out_row){ start, *rule };
	return 0;
}

/* Bytes of [lo, hi) inside executable sections. */
static uint64_t exec_overlap(const struct elf_layout *lay, uint64_t lo,
			     uint64_t hi)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < lay->nr_exec; i++) {
		uint64_t a = lay->exec[i].addr, b = a + lay->exec[i].size;

		a = a > lo ? a : lo;
		b = b < hi ? b : hi;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* Sorted CFI rows -> final rows: clip overlaps, fill and merge gaps. */
static int merge_rows(const struct elf_layout *lay, struct uwb_rows *rows,
		      struct out_rows *out)
{
	uint64_t cur = 0;
	struct uwt_rule none;
	size_t i;

	uwb_none_rule(&none);
	if (rows->n)
		qsort(rows->v, rows->n, sizeof(*rows->v), cmp_rows);
	for (i = 0; i < rows->n; i++) {
		struct uwb_row *r = &rows->v[i];
		uint64_t start = out->n && r->start < cur ? cur : r->start;

		if (r->end <= start)
			continue;	/* overlapped by earlier CFI */
		if (!out->n) {
			out->text_start = start;
		} else if (start > cur) {
			bool pad = start - cur <= GAP_MERGE &&
				   out->v[out->n - 1].rule.kind != UWT_NONE;

			if (!pad && out_push(out, cur, &none))
				return -1;
		}
		if (out_push(out, start, &r->rule))
			return -1;
		if (r->rule.kind != UWT_NONE)
			out->covered += exec_overlap(lay, start, r->end);
		cur = r->end;
	}
	out->text_end = cur;
	return 0;
}

/* Rule interning: open addressing over the rule bytes. */
struct interner {
	struct uwt_rule *rules;
	uint32_t n;
	uint32_t *slots;	/* index + 1; 0 = empty */
	uint32_t mask;
};

static uint32_t rule_hash(const struct uwt_rule *r)
{
	const uint8_t *p = (const uint8_t *)r;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*r); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int intern(struct interner *in, const struct uwt_rule *r, uint32_t *idx)
{
	uint32_t h = rule_hash(r) & in->mask;

	while (in->slots[h]) {
		if (same_rule(&in->rules[in->slots[h] - 1], r)) {
			*idx = in->slots[h] - 1;
			return 0;
		}
		h = (h + 1) & in->mask;
	}
	if (in->n > UWT_MAX_RULES)
		return -1;
	in->rules[in->n] = *r;
	in->slots[h] = ++in->n;
	*idx = in->n - 1;
	return 0;
}

/*
 * Smallest block size >= the requested one with at most one block per two
 * groups: the index then costs a fraction of the rows, and a lookup still
 * binary-searches only a few groups.
 */
static unsigned int pick_block_shift(uint64_t span, size_t nr_groups,
				     unsigned int want)
{
	unsigned int shift = want;

	while (shift < UWT_MAX_BLOCK_SHIFT && (span >> shift) > nr_groups / 2 + 1)
		shift++;
	return shift;
}

/* Rules by use, most used first (ties in first-use order): most rows then name theirs in a nibble. */
struct rule_use {
	uint32_t idx, count;
};

static int cmp_use(const void *a, const void *b)
{
	const struct rule_use *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int rank_rules(struct interner *in, uint32_t *rule_idx, size_t n)
{
	struct rule_use *use = calloc(in->n, sizeof(*use));
	uint32_t *rank = calloc(in->n, sizeof(*rank));
	struct uwt_rule *sorted = calloc(in->n, sizeof(*sorted));
	uint32_t i;
	int ret = -1;

	if (!use || !rank || !sorted)
		goto out;
	for (i = 0; i < in->n; i++)
		use[i].idx = i;
	for (i = 0; i < n; i++)
		use[rule_idx[i]].count++;
	qsort(use, in->n, sizeof(*use), cmp_use);
	for (i = 0; i < in->n; i++) {
		rank[use[i].idx] = i;
		sorted[i] = in->rules[use[i].idx];
	}
	memcpy(in->rules, sorted, in->n * sizeof(*sorted));
	for (i = 0; i < n; i++)
		rule_idx[i] = rank[rule_idx[i]];
	ret = 0;
out:
	free(use);
	free(rank);
	free(sorted);
	return ret;
}

/* The packed rows, as the runtime's decoder (runtime/unwind/uwtab.c) reads them. */
struct packer {
	uint8_t *data;
	size_t len, cap;
};

static int put_byte(struct packer *pk, uint8_t b)
{
	if (uwb_grow((void **)&pk->data, &pk->cap, pk->len, 1))
		return -1;
	pk->data[pk->len++] = b;
	return 0;
}

static int put_uleb(struct packer *pk, uint32_t v)
{
	do {
		if (put_byte(pk, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0))))
			return -1;
		v >>= 7;
	} while (v);
	return 0;
}

/* One row: DELTA is start - previous start - 1 (0 for a group's first row). */
static int pack_row(struct packer *pk, uint32_t delta, uint32_t rule)
{
	uint32_t d = delta < UWT_DELTA_ESC ? delta : UWT_DELTA_ESC;
	uint32_t r = rule < UWT_RULE_ESC ? rule : UWT_RULE_ESC;

	if (put_byte(pk, (uint8_t)(d | r << UWT_DELTA_BITS)) ||
	    (delta >= UWT_DELTA_ESC && put_uleb(pk, delta - UWT_DELTA_ESC)) ||
	    (rule >= UWT_RULE_ESC && put_uleb(pk, rule - UWT_RULE_ESC)))
		return -1;
	return 0;
}

/* Row UWT_MID_ROW of group G, when its offsets fit the midpoint's fields. */
static void set_mid(struct uwt_group *g, uint32_t start, uint32_t data)
{
	bool fits = start - g->start < UWT_NO_MID && data - g->data < UWT_NO_MID;

	g->mid_start = fits ? (uint16_t)(start - g->start) : UWT_NO_MID;
	g->mid_data = fits ? (uint16_t)(data - g->data) : UWT_NO_MID;
}

static int pack_groups(const struct out_rows *rows, const uint32_t *rule_idx,
		       struct uwt_group *groups, struct packer *pk)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		uint32_t off = (uint32_t)(rows->v[i].start - rows->text_start);
		struct uwt_group *g = &groups[i / UWT_GROUP_ROWS];
		uint32_t delta = 0;

		if (i % UWT_GROUP_ROWS == 0)
			*g = (struct uwt_group){ off, (uint32_t)pk->len, UWT_NO_MID, UWT_NO_MID };
		else
			delta = off - (uint32_t)(rows->v[i - 1].start - rows->text_start) - 1;
		if (i % UWT_GROUP_ROWS == UWT_MID_ROW)
			set_mid(g, off, (uint32_t)pk->len);
		if (pack_row(pk, delta, rule_idx[i]))
			return -1;
	}
	return 0;
}

/* blocks[b]: the last group starting at or before block b (b = nr_blocks: the text end). */
static void fill_blocks(uint32_t *blocks, uint32_t nr_blocks, const struct uwt_group *groups,
			uint32_t nr_groups, unsigned int shift, uint64_t span)
{
	uint32_t b, g = 0;

	for (b = 0; b <= nr_blocks && nr_groups; b++) {
		uint64_t at = b < nr_blocks ? (uint64_t)b << shift : span;

		while (g + 1 < nr_groups && groups[g + 1].start <= at)
			g++;
		blocks[b] = g;
	}
}

struct layout_sizes {
	uint32_t nr_rules, nr_blocks, nr_rows, nr_groups;
	uint32_t rules_off, blocks_off, groups_off, data_off, data_size, total;
};

static void fill_header(struct uwt_header *h, const struct out_rows *rows,
			const struct layout_sizes *ls, unsigned int shift,
			uint32_t flags, Elf *elf)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &id);

	h->magic = UWT_MAGIC;
	h->version = UWT_VERSION;
	h->header_size = sizeof(*h);
	h->flags = flags;
	h->total_size = ls->total;
	h->text_start = rows->text_start;
	h->text_end = rows->text_end;
	h->nr_rules = ls->nr_rules;
	h->nr_blocks = ls->nr_blocks;
	h->nr_rows = ls->nr_rows;
	h->nr_groups = ls->nr_groups;
	h->rules_off = ls->rules_off;
	h->blocks_off = ls->blocks_off;
	h->groups_off = ls->groups_off;
	h->data_off = ls->data_off;
	h->data_size = ls->data_size;
	h->block_shift = shift;
	if (len > 0) {
		h->build_id_len = len > UWT_BUILD_ID_MAX ? UWT_BUILD_ID_MAX : len;
		memcpy(h->build_id, id, h->build_id_len);
	}
}

static void place(struct layout_sizes *ls)
{
	ls->rules_off = sizeof(struct uwt_header);
	ls->blocks_off = ls->rules_off + ls->nr_rules * sizeof(struct uwt_rule);
	ls->groups_off = ls->blocks_off + (ls->nr_blocks + 1) * sizeof(uint32_t);
	ls->data_off = ls->groups_off + ls->nr_groups * sizeof(struct uwt_group);
	ls->total = ls->data_off + ls->data_size;
}

static int emit_blob(const struct out_rows *rows, unsigned int want_shift,
		     uint32_t flags, Elf *elf, struct uw_blob *blob,
		     char *err, size_t n)
{
	uint64_t span = rows->text_end - rows->text_start;
	uint32_t nr_groups = (rows->n + UWT_GROUP_ROWS - 1) / UWT_GROUP_ROWS;
	unsigned int shift = pick_block_shift(span, nr_groups, want_shift);
	struct interner in = { 0 };
	struct layout_sizes ls = { 0 };
	struct packer pk = { 0 };
	struct uwt_group *groups = NULL;
	uint32_t *rule_idx = NULL, cap = 1, none_idx;
	struct uwt_rule none;
	size_t i;
	int ret = -1;

	while (cap < 2 * (rows->n + 1))
		cap <<= 1;
	in.rules = calloc(rows->n + 1, sizeof(*in.rules));
	in.slots = calloc(cap, sizeof(*in.slots));
	in.mask = cap - 1;
	rule_idx = calloc(rows->n + 1, sizeof(*rule_idx));
	groups = calloc(nr_groups + 1, sizeof(*groups));
	if (!in.rules || !in.slots || !rule_idx || !groups)
		goto out;
	uwb_none_rule(&none);
	if (intern(&in, &none, &none_idx))	/* "no CFI": the rule of an empty table */
		goto out;
	for (i = 0; i < rows->n; i++)
		if (intern(&in, &rows->v[i].rule, &rule_idx[i])) {
			fail(err, n, "more than %u distinct unwind rules",
			     UWT_MAX_RULES);
			goto out;
		}
	if ((span >> shift) >= MAX_BLOCKS || span > 0xffffffffull) {
		fail(err, n, "CFI text range too large (%#llx bytes)",
		     (unsigned long long)span);
		goto out;
	}
	if (rank_rules(&in, rule_idx, rows->n) || pack_groups(rows, rule_idx, groups, &pk))
		goto out;
	ls.nr_rules = in.n;
	ls.nr_rows = rows->n;
	ls.nr_groups = nr_groups;
	ls.nr_blocks = (span >> shift) + !!(span & ((1ull << shift) - 1));
	ls.data_size = pk.len;
	place(&ls);
	blob->data = calloc(1, ls.total);
	if (!blob->data)
		goto out;
	blob->len = ls.total;
	fill_header(blob->data, rows, &ls, shift, flags, elf);
	memcpy((char *)blob->data + ls.rules_off, in.rules,
	       ls.nr_rules * sizeof(struct uwt_rule));
	fill_blocks((uint32_t *)((char *)blob->data + ls.blocks_off), ls.nr_blocks, groups,
		    nr_groups, shift, span);
	memcpy((char *)blob->data + ls.groups_off, groups, nr_groups * sizeof(*groups));
	if (pk.len)
		memcpy((char *)blob->data + ls.data_off, pk.data, pk.len);
	ret = 0;
out:
	free(in.rules);
	free(in.slots);
	free(rule_idx);
	free(groups);
	free(pk.data);
	return ret;
}

/* Rows of one CFI source turned into final rows, PLT sections included. */
static int finish_source(const struct elf_layout *lay, struct uwb_rows *rows,
			 struct out_rows *out)
{
	if (add_plt_rows(lay, rows, &out->plt_synth) ||
	    add_sigreturn_rows(lay, rows, &out->sigreturn_synth) ||
	    add_entry_rows(lay, rows, &out->entry_synth))
		return -1;
	return merge_rows(lay, rows, out);
}

static void fill_stats(struct uw_build_stats *st, const struct elf_layout *lay,
		       const struct uwb_rows *src, const struct out_rows *out,
		       const struct uw_blob *blob, const char *source)
{
	const struct uwt_header *h = blob->data;

	memset(st, 0, sizeof(*st));
	st->fdes = src->fdes;
	st->bad_fdes = src->bad_fdes;
	st->cfi_rows = src->cfi_rows;
	st->unsupported_rows = src->unsupported_rows;
	st->unsupported_bytes = src->unsupported_bytes;
	st->partial_rows = src->partial_rows;
	st->plt_synth = out->plt_synth;
	st->sigreturn_synth = out->sigreturn_synth;
	st->entry_synth = out->entry_synth;
	st->rows = h->nr_rows;
	st->rules = h->nr_rules;
	st->text_bytes = lay->text_bytes;
	st->covered_bytes = out->covered;
	st->bytes = blob->len;
	st->eh_frame_bytes = lay->eh_frame_bytes;
	st->source = source;
}

static int check_elf(Elf *elf, char *err, size_t n)
{
	GElf_Ehdr eh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return fail(err, n, "not an ELF file");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return fail(err, n, "not an x86-64 ELF file");
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return fail(err, n, "not an executable or shared object");
	return 0;
}

struct source {
	struct uwb_rows rows;
	struct out_rows out;
	const char *name;
	uint32_t flags;
};

static void source_free(struct source *s)
{
	uwb_rows_free(&s->rows);
	free(s->out.v);
}

static int build_source(const struct elf_layout *lay, Elf *elf, bool eh,
			struct source *s)
{
	int ret;

	s->name = eh ? "eh_frame" : "debug_frame";
	s->flags = eh ? UWT_F_EH_FRAME : UWT_F_DEBUG_FRAME;
	if (eh)
		ret = lay->eh_frame ? rows_from_eh_frame(elf, lay->eh_frame,
							 &s->rows) : 0;
	else
		ret = elf ? rows_from_debug_frame(elf, &s->rows) : 0;
	return ret ? ret : finish_source(lay, &s->rows, &s->out);
}

int uw_build_elf(Elf *elf, Elf *debug, const struct uw_build_opts *opts,
		 struct uw_blob *out, struct uw_build_stats *st,
		 char *err, size_t n)
{
	struct elf_layout lay = { 0 };
	struct source src[3] = { 0 };
	struct uw_build_stats dummy;
	struct source *best;
	unsigned int shift = opts && opts->block_shift ? opts->block_shift :
							  UWB_DEFAULT_BLOCK_SHIFT;
	int i, ret = -1;

	memset(out, 0, sizeof(*out));
	if (shift < UWT_MIN_BLOCK_SHIFT || shift > UWT_MAX_BLOCK_SHIFT)
		return fail(err, n, "block shift %u out of range", shift);
	if (check_elf(elf, err, n))
		return -1;
	if (scan_sections(elf, &lay)) {
		fail(err, n, "cannot read section headers: %s", elf_errmsg(-1));
		goto done;
	}
	if (build_source(&lay, elf, true, &src[0]) ||
	    build_source(&lay, elf, false, &src[1]) ||
	    build_source(&lay, debug, false, &src[2])) {
		fail(err, n, "out of memory reading CFI");
		goto done;
	}
	best = &src[0];
	for (i = 1; i < 3; i++)
		if (src[i].out.covered > best->out.covered)
			best = &src[i];
	if (!best->rows.cfi_rows)
		best->name = "none";	/* at most synthesized PLT rows */
	ret = emit_blob(&best->out, shift,
			best->flags | (best->out.plt_synth ? UWT_F_SYNTH_PLT : 0) |
			(best->out.sigreturn_synth ? UWT_F_SYNTH_SIGNAL : 0) |
			(best->out.entry_synth ? UWT_F_SYNTH_ENTRY : 0),
			elf, out, err, n);
	if (!ret)
		fill_stats(st ? st : &dummy, &lay, &best->rows, &best->out,
			   out, best->name);
	if (!ret && uw_table_validate(out->data, out->len)) {
		uw_blob_free(out);
		ret = fail(err, n, "internal error: built table fails validation");
	}
done:
	for (i = 0; i < 3; i++)
		source_free(&src[i]);
	free(lay.exec);
	return ret;
}

int uw_build_file(const char *path, const struct uw_build_opts *opts,
		  struct uw_blob *out, struct uw_build_stats *st,
		  char *err, size_t n)
{
	struct utap_elf file, sep = { .fd = -1 };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = utap_elf_open(&file, path);
	if (ret)
		return fail(err, n, "%s: %s", path, ret == -EINVAL ?
			    "not an ELF file" : strerror(-ret));
	if (!(opts && opts->no_separate) &&
	    utap_elf_open_separate(path, file.elf, opts ? opts->debug_root : NULL,
				   &sep))
		memset(&sep, 0, sizeof(sep));
	ret = uw_build_elf(file.elf, sep.elf, opts, out, st, err, n);
	if (ret && err && n) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, n, "%s: %s", path, msg);
	}
	if (sep.elf)
		utap_elf_close(&sep);
	utap_elf_close(&file);
	return ret;
}

void uw_blob_free(struct uw_blob *blob)
{
	free(blob->data);
	blob->data = NULL;
	blob->len = 0;
}
