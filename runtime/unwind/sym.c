// SPDX-License-Identifier: GPL-2.0
/*
 * sym.c - validate symbol/line table blobs, look addresses up and print
 * them byte-for-byte like SystemTap's _stp_snprint_addr().
 *
 * Pure core (see core/port.h): runs in the kernel module and in user-space
 * tests alike.
 */
#include "unwind/sym.h"

_Static_assert(sizeof(struct utap_symtab_hdr) == 128, "symtab header layout");
_Static_assert(sizeof(struct utap_linetab_hdr) == 128, "linetab header layout");
_Static_assert(sizeof(struct utap_symtab_seg) == 40, "segment layout");

#define SYM_PAGE_SIZE 4096ull

/* ---- validation ---------------------------------------------------- */

/* Is the array [off, off + count * elem) inside the blob, aligned, after the header? */
static bool array_ok(u32 total, u32 hdr_size, u32 off, u32 count, u32 elem, u32 align)
{
	u64 end = (u64)off + (u64)count * elem;

	if (count == 0)
		return true;
	return off >= hdr_size && (off & (align - 1)) == 0 && end <= total;
}

static bool strtab_ok(const u8 *blob, u32 total, u32 hdr_size, u32 off, u32 size)
{
	if (size == 0 || !array_ok(total, hdr_size, off, size, 1, 1))
		return false;
	return blob[off + size - 1] == '\0';
}

static bool offsets_below(const u32 *a, u32 n, u32 limit)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (a[i] >= limit)
			return false;
	return true;
}

static bool blob_shape_ok(const void *blob, size_t size, size_t hdr_size)
{
	if (!blob || ((unsigned long)blob & 7) != 0)
		return false;
	return size >= hdr_size && size <= 0xffffffffu;
}

static bool segs_ok(const struct utap_symtab_seg *segs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct utap_symtab_seg *s = &segs[i];

		if (s->reserved || s->filesz > s->memsz ||
		    s->vaddr + s->memsz < s->vaddr || s->offset + s->filesz < s->offset)
			return false;
	}
	return true;
}

static bool symtab_hdr_ok(const struct utap_symtab_hdr *h, size_t size)
{
	u32 hs = sizeof(*h);

	if (h->magic != UTAP_SYMTAB_MAGIC || h->version != UTAP_SYMTAB_VERSION ||
	    h->hdr_size != hs || h->total_size != size)
		return false;
	if (h->reserved || h->build_id_len > UTAP_SYMTAB_BUILD_ID_MAX)
		return false;
	if (h->elf_type != UTAP_SYMTAB_ET_NONE && h->elf_type != UTAP_SYMTAB_ET_EXEC &&
	    h->elf_type != UTAP_SYMTAB_ET_DYN)
		return false;
	if (h->nsegs > UTAP_SYMTAB_MAX_SEGS ||
	    h->ngroups != h->nsyms / UTAP_SYM_GROUP + (h->nsyms % UTAP_SYM_GROUP != 0))
		return false;
	return array_ok(h->total_size, hs, h->segs_off, h->nsegs,
			sizeof(struct utap_symtab_seg), 8) &&
	       array_ok(h->total_size, hs, h->groups_off, h->ngroups,
			sizeof(struct utap_sym_group), 4) &&
	       array_ok(h->total_size, hs, h->data_off, h->data_size, 1, 1) &&
	       array_ok(h->total_size, hs, h->tok_off, 257, 2, 2) &&
	       array_ok(h->total_size, hs, h->tok_str_off, h->tok_size, 1, 1);
}

/* Tokens in order inside the token bytes, and no NUL in a name. */
static bool tokens_ok(const struct utap_symtab *t, u32 tok_size)
{
	u32 c, i;

	if (t->tok[0] != 0 || t->tok[256] != tok_size)
		return false;
	for (c = 0; c < 256; c++)
		if (t->tok[c] > t->tok[c + 1])
			return false;
	for (i = 0; i < tok_size; i++)
		if (!t->tok_str[i])
			return false;
	return true;
}

static bool get_leb(const u8 **p, const u8 *end, bool is_signed, u64 *v);

static u32 group_syms(const struct utap_symtab *t, u32 g)
{
	u32 left = t->nsyms - g * UTAP_SYM_GROUP;

	return left < UTAP_SYM_GROUP ? left : UTAP_SYM_GROUP;
}

/* One packed symbol: its address (*addr holds the previous one) and its codes. */
struct sym_code {
	u64 addr;
	const u8 *codes;
	u32 ncodes;
};

static bool next_sym(const u8 **p, const u8 *end, bool first, struct sym_code *s)
{
	u64 delta = 0, n;

	if (!first && (!get_leb(p, end, false, &delta) || delta > 0xfffffffeull))
		return false;
	if (!get_leb(p, end, false, &n) || n > (u64)(end - *p))
		return false;
	s->addr += first ? 0 : delta + 1;
	s->codes = *p;
	s->ncodes = (u32)n;
	*p += n;
	return s->addr <= 0xffffffffull;
}

static void group_bytes(const struct utap_symtab *t, u32 g, const u8 **p, const u8 **end)
{
	u32 start = t->groups[g].data;
	u32 stop = g + 1 < t->ngroups ? t->groups[g + 1].data : t->data_size;

	*p = t->data + start;
	*end = t->data + (stop > start ? stop : start);
}

/* Every group decodes, fills its bytes exactly, and addresses ascend strictly up to *last. */
static bool sym_groups_ok(const struct utap_symtab *t, u64 *last)
{
	struct sym_code s = { 0 };
	const u8 *p, *end;
	u32 g, k;

	for (g = 0; g < t->ngroups; g++) {
		const struct utap_sym_group *gr = &t->groups[g];

		if (gr->data > t->data_size || (g == 0 && gr->data) ||
		    (g && (gr->data < gr[-1].data || gr->addr <= s.addr)))
			return false;
		group_bytes(t, g, &p, &end);
		s.addr = gr->addr;
		for (k = 0; k < group_syms(t, g); k++)
			if (!next_sym(&p, end, k == 0, &s))
				return false;
		if (p != end)
			return false;
	}
	*last = s.addr;
	return true;
}

UTAP_UNWIND_API
int utap_symtab_init(struct utap_symtab *t, const void *blob, size_t size)
{
	const struct utap_symtab_hdr *h = blob;
	const u8 *b = blob;
	u64 last = 0;

	memset(t, 0, sizeof(*t));
	if (!blob_shape_ok(blob, size, sizeof(*h)) || !symtab_hdr_ok(h, size))
		return -EINVAL;
	t->segs = (const void *)(b + h->segs_off);
	t->groups = (const void *)(b + h->groups_off);
	t->data = b + h->data_off;
	t->tok = (const void *)(b + h->tok_off);
	t->tok_str = (const char *)(b + h->tok_str_off);
	t->nsyms = h->nsyms;
	t->ngroups = h->ngroups;
	t->data_size = h->data_size;
	if (!segs_ok(t->segs, h->nsegs) || !tokens_ok(t, h->tok_size) || !sym_groups_ok(t, &last) ||
	    h->base + last < h->base) {	/* base + the largest offset must not wrap */
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	t->hdr = h;
	t->base = h->base;
	t->nsegs = h->nsegs;
	return 0;
}

static bool linetab_hdr_ok(const struct utap_linetab_hdr *h, size_t size)
{
	u32 hs = sizeof(*h);

	if (h->magic != UTAP_LINETAB_MAGIC || h->version != UTAP_LINETAB_VERSION ||
	    h->hdr_size != hs || h->total_size != size)
		return false;
	if (h->reserved[0] || h->reserved[1] || h->reserved[2] || h->reserved2 ||
	    h->build_id_len > UTAP_SYMTAB_BUILD_ID_MAX || h->nfiles > UTAP_LINE_MAX_FILES)
		return false;
	if (h->nblocks != h->nrows / UTAP_LINE_BLOCK + (h->nrows % UTAP_LINE_BLOCK != 0))
		return false;
	return array_ok(h->total_size, hs, h->blocks_off, h->nblocks,
			sizeof(struct utap_line_block), 4) &&
	       array_ok(h->total_size, hs, h->data_off, h->data_size, 1, 1) &&
	       array_ok(h->total_size, hs, h->files_off, h->nfiles, 4, 4);
}

/* ---- line rows: the block encoding (see symtab_format.h) -------------- */

/* LEB128 in [*p, end); false when it runs off the end or beyond 64 bits. */
static bool get_leb(const u8 **p, const u8 *end, bool is_signed, u64 *v)
{
	unsigned shift = 0;
	u64 x = 0;
	u8 b;

	do {
		if (*p >= end || shift >= 64)
			return false;
		b = *(*p)++;
		x |= (u64)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		x |= ~0ull << shift;
	*v = x;
	return true;
}

/* Decode row K of a block (PREV is row K-1, or the block's start state). */
static bool decode_row(const u8 **p, const u8 *end, u32 k, const struct utap_line_row *prev,
		       struct utap_line_row *row)
{
	u64 delta = 0, code, file = prev->file;
	s64 line;

	if (k > 0 && (!get_leb(p, end, false, &delta) || delta > 0xfffffffeull))
		return false;
	if (!get_leb(p, end, true, &code))
		return false;
	line = (s64)prev->line + ((s64)code - (s64)(code & 1)) / 2;
	if ((code & 1) && !get_leb(p, end, false, &file))
		return false;
	row->addr = prev->addr + (k > 0 ? delta + 1 : 0);
	if (row->addr > 0xffffffffull || line < 0 || line > 0xffffffffll || file > 0xffff)
		return false;
	row->line = (u32)line;
	row->file = (u16)file;
	return true;
}

static u32 rows_in_block(const struct utap_linetab *t, u32 b)
{
	u32 left = t->nrows - b * UTAP_LINE_BLOCK;

	return left < UTAP_LINE_BLOCK ? left : UTAP_LINE_BLOCK;
}

/* The bytes of block B, if its offsets make sense. */
static bool block_bytes(const struct utap_linetab *t, u32 b, const u8 **p, const u8 **end)
{
	u32 start = t->blocks[b].data;
	u32 stop = b + 1 < t->nblocks ? t->blocks[b + 1].data : t->data_size;

	if (start > stop || stop > t->data_size)
		return false;
	*p = t->data + start;
	*end = t->data + stop;
	return true;
}

/* Row "-1" of block B: its address, line 0, no file. */
static struct utap_line_row block_start(const struct utap_linetab *t, u32 b)
{
	return (struct utap_line_row){ t->blocks[b].addr, 0, UTAP_LINE_GAP };
}

static bool file_ok(const struct utap_linetab *t, u16 file)
{
	return file < t->nfiles || file == UTAP_LINE_GAP || file == UTAP_LINE_NOFILE;
}

/*
 * Decode every row once: the blocks exactly fill the data, addresses ascend
 * strictly across blocks, files exist, and the last row is a gap.
 */
static bool line_rows_ok(const struct utap_linetab *t, u64 base)
{
	struct utap_line_row prev = { 0, 0, UTAP_LINE_GAP }, row;
	const u8 *p, *end;
	u32 b, k;

	for (b = 0; b < t->nblocks; b++) {
		if (!block_bytes(t, b, &p, &end) || (b && t->blocks[b].addr <= prev.addr) ||
		    (!b && t->blocks[0].data != 0))
			return false;
		prev = block_start(t, b);
		for (k = 0; k < rows_in_block(t, b); k++) {
			if (!decode_row(&p, end, k, &prev, &row) || !file_ok(t, row.file))
				return false;
			prev = row;
		}
		if (p != end)
			return false;
	}
	/* the last row's address must not wrap around past the base */
	return prev.file == UTAP_LINE_GAP && base + prev.addr >= base;
}

UTAP_UNWIND_API
int utap_linetab_init(struct utap_linetab *t, const void *blob, size_t size)
{
	const struct utap_linetab_hdr *h = blob;
	const u8 *b = blob;

	memset(t, 0, sizeof(*t));
	if (!blob_shape_ok(blob, size, sizeof(*h)) || !linetab_hdr_ok(h, size))
		return -EINVAL;
	if (!strtab_ok(b, h->total_size, h->hdr_size, h->str_off, h->str_size))
		return -EINVAL;
	t->blocks = (const void *)(b + h->blocks_off);
	t->data = b + h->data_off;
	t->files = (const void *)(b + h->files_off);
	t->nrows = h->nrows;
	t->nblocks = h->nblocks;
	t->data_size = h->data_size;
	t->nfiles = h->nfiles;
	if (!offsets_below(t->files, h->nfiles, h->str_size) || !line_rows_ok(t, h->base)) {
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	t->hdr = h;
	t->str = (const char *)(b + h->str_off);
	t->base = h->base;
	t->str_size = h->str_size;
	return 0;
}

/* ---- lookup -------------------------------------------------------- */

/*
 * Index of the last entry <= KEY among the strictly ascending A[0],
 * A[STRIDE], ... A[(N - 1) * STRIDE], or -1. At most 32 halvings.
 */
static s64 last_at_or_below(const u32 *a, u32 n, u32 stride, u32 key)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (a[(size_t)mid * stride] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (s64)lo - 1;
}

/* REL relative to BASE, clamped to the 32-bit range the arrays use. */
static bool rel_key(u64 base, u64 rel, u32 *key)
{
	if (rel < base)
		return false;
	*key = rel - base > 0xffffffffull ? 0xffffffffu : (u32)(rel - base);
	return true;
}

/* The codes of a name as text, cut to SIZE - 1 bytes. */
static void decode_name(const struct utap_symtab *t, const struct sym_code *s, char *buf,
			size_t size)
{
	size_t n = 0;
	u32 i, j;

	if (!size)
		return;
	for (i = 0; i < s->ncodes; i++) {
		u8 c = s->codes[i];

		for (j = t->tok[c]; j < t->tok[c + 1] && n + 1 < size; j++)
			buf[n++] = t->tok_str[j];
	}
	buf[n] = 0;
}

/* The last group whose first symbol is at or below KEY, or -1. */
static s64 group_at_or_below(const struct utap_symtab *t, u32 key)
{
	u32 lo = 0, hi = t->ngroups;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t->groups[mid].addr <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (s64)lo - 1;
}

UTAP_UNWIND_API
bool utap_symtab_lookup(const struct utap_symtab *t, u64 rel, struct utap_sym_hit *hit,
			char *buf, size_t size)
{
	struct sym_code s, found;
	const u8 *p, *end;
	u32 key, k, n;
	bool have_next = false;
	s64 g;

	if (!t || !t->hdr || t->nsyms == 0 || !rel_key(t->base, rel, &key))
		return false;
	g = group_at_or_below(t, key);
	if (g < 0)
		return false;	/* before the first symbol */
	group_bytes(t, (u32)g, &p, &end);
	s.addr = t->groups[g].addr;
	n = group_syms(t, (u32)g);
	next_sym(&p, end, true, &s);
	found = s;
	for (k = 1; k < n; k++) {
		next_sym(&p, end, false, &s);
		if (s.addr > key) {
			have_next = true;
			break;
		}
		found = s;
	}
	if (!have_next && (u32)g + 1 < t->ngroups) {
		s.addr = t->groups[g + 1].addr;
		have_next = true;
	}
	if (!found.ncodes)
		return false;	/* in a gap */
	decode_name(t, &found, buf, size);
	hit->index = (u32)g * UTAP_SYM_GROUP + k - 1;
	hit->name = buf;
	hit->offset = rel - (t->base + found.addr);
	hit->size = have_next ? s.addr - found.addr : 0;
	return true;
}

UTAP_UNWIND_API
void utap_symtab_entry(const struct utap_symtab *t, u32 i, u64 *addr, char *buf, size_t size)
{
	struct sym_code s;
	const u8 *p, *end;
	u32 g = i / UTAP_SYM_GROUP, k;

	group_bytes(t, g, &p, &end);
	s.addr = t->groups[g].addr;
	next_sym(&p, end, true, &s);
	for (k = 1; k <= i % UTAP_SYM_GROUP; k++)
		next_sym(&p, end, false, &s);
	*addr = t->base + s.addr;
	decode_name(t, &s, buf, size);
}

UTAP_UNWIND_API
bool utap_linetab_lookup(const struct utap_linetab *t, u64 rel, const char **file, u32 *line)
{
	struct utap_line_row prev, row, hit;
	const u8 *p, *end;
	u32 key, k;
	s64 b;

	/* beyond 4 GiB past the base there is only the final gap */
	if (!t || !t->hdr || t->nrows == 0 || !rel_key(t->base, rel, &key) ||
	    rel - t->base > 0xffffffffull)
		return false;
	/* struct utap_line_block is two u32s, the address first */
	b = last_at_or_below((const u32 *)t->blocks, t->nblocks, 2, key);
	if (b < 0 || !block_bytes(t, (u32)b, &p, &end))
		return false;
	hit = prev = block_start(t, (u32)b);
	for (k = 0; k < rows_in_block(t, (u32)b); k++) {
		if (!decode_row(&p, end, k, &prev, &row) || row.addr > key)
			break;
		hit = prev = row;
	}
	if (hit.file == UTAP_LINE_GAP)
		return false;
	*file = utap_linetab_file(t, hit.file);
	*line = hit.line;
	return true;
}

const char *utap_linetab_file(const struct utap_linetab *t, u16 file)
{
	return t && t->hdr && file < t->nfiles ? t->str + t->files[file] : NULL;
}

static void iter_enter_block(struct utap_line_iter *it, u32 b)
{
	it->block = b;
	it->row = 0;
	it->prev = block_start(it->t, b);
	if (!block_bytes(it->t, b, &it->p, &it->end))
		it->block = it->t->nblocks;
}

UTAP_UNWIND_API
void utap_linetab_iter(struct utap_line_iter *it, const struct utap_linetab *t)
{
	memset(it, 0, sizeof(*it));
	it->t = t;
	if (t && t->hdr && t->nblocks)
		iter_enter_block(it, 0);
}

UTAP_UNWIND_API
bool utap_linetab_next(struct utap_line_iter *it, struct utap_line_row *row)
{
	const struct utap_linetab *t = it->t;

	if (!t || !t->hdr || it->block >= t->nblocks)
		return false;
	if (it->row == rows_in_block(t, it->block)) {
		if (it->block + 1 >= t->nblocks) {
			it->block = t->nblocks;
			return false;
		}
		iter_enter_block(it, it->block + 1);
		if (it->block >= t->nblocks)
			return false;
	}
	if (!decode_row(&it->p, it->end, it->row, &it->prev, row)) {
		it->block = t->nblocks;
		return false;
	}
	it->row++;
	it->prev = *row;
	row->addr += t->base;
	return true;
}

/*
 * The segment a mapping at FILE_OFFSET comes from: the loader maps each
 * PT_LOAD from its page-aligned offset, so prefer an exact match of that,
 * then any segment whose file bytes contain the offset.
 */
static const struct utap_symtab_seg *segment_at(const struct utap_symtab *t, u64 file_offset)
{
	u32 i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < t->nsegs; i++) {
			const struct utap_symtab_seg *s = &t->segs[i];
			u64 first = s->offset & ~(SYM_PAGE_SIZE - 1);

			if (s->filesz == 0)
				continue;
			if (pass == 0 ? file_offset == first :
			    file_offset >= first && file_offset < s->offset + s->filesz)
				return s;
		}
	}
	return NULL;
}

UTAP_UNWIND_API
int utap_symtab_load_bias(const struct utap_symtab *t, u64 vm_start, u64 file_offset,
			  u64 *bias)
{
	const struct utap_symtab_seg *s;

	if (!t || !t->hdr || !(s = segment_at(t, file_offset)))
		return -ENOENT;
	/* VM_START holds the byte at FILE_OFFSET, whose vaddr is this: */
	*bias = vm_start - (s->vaddr + file_offset - s->offset);
	return 0;
}

UTAP_UNWIND_API
void utap_symtab_extent(const struct utap_symtab *t, u64 bias, u64 *start, u64 *end)
{
	u64 lo = ~0ull, hi = 0;
	u32 i;

	for (i = 0; t && t->hdr && i < t->nsegs; i++) {
		const struct utap_symtab_seg *s = &t->segs[i];

		if (s->vaddr < lo)
			lo = s->vaddr;
		if (s->vaddr + s->memsz > hi)
			hi = s->vaddr + s->memsz;
	}
	if (lo > hi)
		lo = hi = 0;
	lo &= ~(SYM_PAGE_SIZE - 1);
	if (hi + SYM_PAGE_SIZE - 1 > hi)
		hi = (hi + SYM_PAGE_SIZE - 1) & ~(SYM_PAGE_SIZE - 1);
	*start = bias + lo;
	*end = bias + hi;
}

/* ---- formatting ---------------------------------------------------- */

/* An snprintf-like sink: counts everything, stores what fits. */
struct sym_out {
	char *buf;
	size_t size;
	size_t len;
};

static void put_mem(struct sym_out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void put_str(struct sym_out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

/* SystemTap's %p and %#lx: "0x" and lowercase digits, "0x0" for zero. */
UTAP_UNWIND_API
int utap_sym_hex(char *out, u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[UTAP_SYM_HEX_MAX] UTAP_NOINIT;
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	memcpy(out, tmp + i, sizeof(tmp) - i);
	return sizeof(tmp) - i;
}

static void put_hex(struct sym_out *o, u64 v)
{
	char tmp[UTAP_SYM_HEX_MAX] UTAP_NOINIT;

	put_mem(o, tmp, utap_sym_hex(tmp, v));
}

static void put_dec(struct sym_out *o, u64 v)
{
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = '0' + (char)(v % 10);
		v /= 10;
	} while (v);
	put_mem(o, tmp + i, sizeof(tmp) - i);
}

static int out_finish(struct sym_out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len > 0x7fffffff ? 0x7fffffff : (int)o->len;
}

/* What is known about one address, gathered before choosing a form. */
struct sym_facts {
	u64 addr;
	const char *name;	/* symbol, without a leading '.' */
	char name_buf[UTAP_SYM_NAME_MAX];
	const char *mod;	/* module path (or basename) */
	const char *file;	/* source file */
	u64 offset;		/* from the symbol, else from the module start */
	u64 size;		/* of the symbol, else of the module */
	u32 line;		/* 0: unknown */
};

/*
 * Facts about ADDR, none known yet. Field by field: the name buffer is
 * only read after a lookup wrote it, and clearing its 512 bytes for every
 * address cost a hex backtrace more than its digits.
 */
static void facts_init(struct sym_facts *f, u64 addr)
{
	f->addr = addr;
	f->name = NULL;
	f->name_buf[0] = 0;
	f->mod = NULL;
	f->file = NULL;
	f->offset = 0;
	f->size = 0;
	f->line = 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void gather_symbol(struct sym_facts *f, const struct utap_sym_ctx *ctx, unsigned mode)
{
	struct utap_sym_hit hit;

	if (!(mode & (UTAP_SYM_SYMBOL | UTAP_SYM_MODULE)))
		return;
	if (ctx->path) {
		/* module-only fallback numbers, replaced when a symbol is found */
		f->mod = ctx->path;
		f->offset = f->addr - ctx->start;
		f->size = ctx->end - ctx->start;
	}
	if (ctx->syms && utap_symtab_lookup(ctx->syms, f->addr - ctx->bias, &hit, f->name_buf,
					    sizeof(f->name_buf))) {
		f->name = hit.name[0] == '.' ? hit.name + 1 : hit.name;
		f->offset = hit.offset;
		f->size = hit.size;
	}
	if (f->mod && (mode & UTAP_SYM_MODULE_BASENAME))
		f->mod = basename_of(f->mod);
}

static void gather_line(struct sym_facts *f, const struct utap_sym_ctx *ctx, unsigned mode)
{
	const char *file;
	u32 line;

	if (!(mode & (UTAP_SYM_LINENUMBER | UTAP_SYM_FILENAME)) || !ctx->lines)
		return;
	if (!utap_linetab_lookup(ctx->lines, f->addr - ctx->bias, &file, &line))
		return;
	f->line = line;
	if (mode & UTAP_SYM_FILENAME)
		f->file = file;
}

/* "SYM+OFF", with "/SIZE" when asked */
static void put_sym_off(struct sym_out *o, const struct sym_facts *f, bool size)
{
	put_str(o, f->name);
	put_str(o, "+");
	put_hex(o, f->offset);
	if (size) {
		put_str(o, "/");
		put_hex(o, f->size);
	}
}

/* "ADDR [MOD+OFF]" or "ADDR [MOD+OFF/SIZE]" */
static void put_mod_only(struct sym_out *o, const struct sym_facts *f, bool size)
{
	put_hex(o, f->addr);
	put_str(o, " [");
	put_str(o, f->mod);
	put_str(o, "+");
	put_hex(o, f->offset);
	if (size) {
		put_str(o, "/");
		put_hex(o, f->size);
	}
	put_str(o, "]");
}

static void put_bracket_mod(struct sym_out *o, const struct sym_facts *f)
{
	if (f->mod) {
		put_str(o, " [");
		put_str(o, f->mod);
		put_str(o, "]");
	}
}

static void put_at_file(struct sym_out *o, const struct sym_facts *f)
{
	put_str(o, " at ");
	put_str(o, f->file);
	if (f->line) {
		put_str(o, ":");
		put_dec(o, f->line);
	}
}

/* "FILE:LINE", "FILE" or "??:LINE" */
static bool put_file_line(struct sym_out *o, const struct sym_facts *f)
{
	if (f->file) {
		put_str(o, f->file);
		if (f->line) {
			put_str(o, ":");
			put_dec(o, f->line);
		}
	} else if (f->line) {
		put_str(o, "??:");
		put_dec(o, f->line);
	} else {
		return false;
	}
	return true;
}

/* SIMPLE and DATA: "SYM+OFF [MOD]", "SYM+OFF", "ADDR [MOD+OFF]" (+ sizes for DATA) */
static bool put_sym_mod(struct sym_out *o, const struct sym_facts *f, bool size)
{
	if (f->name) {
		put_sym_off(o, f, size);
		put_bracket_mod(o, f);
	} else if (f->mod) {
		put_mod_only(o, f, size);
	} else {
		return false;
	}
	return true;
}

/* FULL and FULLER */
static bool put_full(struct sym_out *o, const struct sym_facts *f, bool fileline)
{
	bool with_file = fileline && f->file;

	if (f->name) {
		put_hex(o, f->addr);
		put_str(o, " : ");
		put_sym_off(o, f, true);
		if (with_file)
			put_at_file(o, f);
		put_bracket_mod(o, f);
	} else if (f->mod) {
		put_mod_only(o, f, true);
		if (with_file)
			put_at_file(o, f);
	} else {
		return false;
	}
	return true;
}

/* The body of MODE; false when nothing is known and hex must do. */
static bool put_body(struct sym_out *o, const struct sym_facts *f, unsigned mode)
{
	switch (mode) {
	case UTAP_SYM_SYMBOL:
		if (!f->name)
			return false;
		put_str(o, f->name);
		return true;
	case UTAP_SYM_FILENAME:
		if (!f->file)
			return false;
		put_str(o, f->file);
		return true;
	case UTAP_SYM_LINENUMBER:
		if (!f->line)
			return false;
		put_dec(o, f->line);
		return true;
	case UTAP_SYM_FILELINE:
		return put_file_line(o, f);
	case UTAP_SYM_BRIEF:
		if (!f->name)
			return false;
		put_sym_off(o, f, false);
		return true;
	case UTAP_SYM_SIMPLE:
		return put_sym_mod(o, f, false);
	case UTAP_SYM_DATA:
		return put_sym_mod(o, f, true);
	case UTAP_SYM_FULL:
		return put_full(o, f, false);
	case UTAP_SYM_FULLER:
		return put_full(o, f, true);
	}
	return false;
}

static int format_facts(char *buf, size_t size, const struct sym_facts *f, unsigned mode)
{
	struct sym_out o = { buf, size, 0 };
	bool inexact = (mode & UTAP_SYM_INEXACT) && (mode & UTAP_SYM_SYMBOL);
	u64 addr = f->addr;

	if (mode & UTAP_SYM_PRE_SPACE)
		put_str(&o, " ");
	/*
	 * Like SystemTap, only the exact flag sets of its modes have a
	 * symbolic form (INEXACT aside); any other set prints the address.
	 */
	if (!put_body(&o, f, mode & ~UTAP_SYM_INEXACT))
		put_hex(&o, addr);
	if (inexact)
		put_str(&o, " (inexact)");
	if (mode & UTAP_SYM_POST_SPACE)
		put_str(&o, " ");
	else if (mode & UTAP_SYM_NEWLINE)
		put_str(&o, "\n");
	return out_finish(&o);
}

UTAP_UNWIND_API
int utap_sym_format(char *buf, size_t size, u64 addr, const struct utap_sym_ctx *ctx,
		    unsigned mode)
{
	static const struct utap_sym_ctx nothing;
	struct sym_facts f UTAP_NOINIT;

	facts_init(&f, addr);
	/* SystemTap looks nothing up for address 0 */
	if (!ctx || addr == 0)
		ctx = &nothing;
	gather_symbol(&f, ctx, mode);
	gather_line(&f, ctx, mode);
	return format_facts(buf, size, &f, mode);
}

UTAP_UNWIND_API
int utap_sym_format_known(char *buf, size_t size, u64 addr, const char *name, u64 offset,
			  u64 symsize, const char *mod, unsigned mode)
{
	struct sym_facts f UTAP_NOINIT;

	facts_init(&f, addr);
	if (addr && name && (mode & (UTAP_SYM_SYMBOL | UTAP_SYM_MODULE))) {
		f.name = name[0] == '.' ? name + 1 : name;
		f.offset = offset;
		f.size = symsize;
		f.mod = mod;
	}
	return format_facts(buf, size, &f, mode);
}

UTAP_UNWIND_API
int utap_sym_modname(char *buf, size_t size, const struct utap_sym_ctx *ctx, bool *unknown)
{
	struct sym_out o = { buf, size, 0 };

	*unknown = !ctx || !ctx->path;
	put_str(&o, *unknown ? "<unknown>" : ctx->path);
	return out_finish(&o);
}

UTAP_UNWIND_API
int utap_sym_no_backtrace(char *buf, size_t size, const char *pp, unsigned mode, bool kernel)
{
	struct sym_out o = { buf, size, 0 };

	if (mode & UTAP_SYM_SYMBOL) {
		put_str(&o, kernel ? "<no kernel backtrace at " : "<no user backtrace at ");
		put_str(&o, pp ? pp : "");
		put_str(&o, ">");
	}
	put_str(&o, "\n");
	return out_finish(&o);
}
