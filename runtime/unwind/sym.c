// SPDX-License-Identifier: GPL-2.0
/*
 * sym.c - validate symbol/line table blobs, look addresses up and print
 * them byte-for-byte like SystemTap's _stp_snprint_addr().
 *
 * Pure core (see core/port.h): runs in the kernel module and in user-space
 * tests alike.
 */
#include "unwind/sym.h"

_Static_assert(sizeof(struct utap_symtab_hdr) == 120, "symtab header layout");
_Static_assert(sizeof(struct utap_linetab_hdr) == 120, "linetab header layout");
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

static bool ascending(const u32 *a, u32 n)
{
	u32 i;

	for (i = 1; i < n; i++)
		if (a[i - 1] >= a[i])
			return false;
	return true;
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
	if (h->reserved || h->reserved2 || h->build_id_len > UTAP_SYMTAB_BUILD_ID_MAX)
		return false;
	if (h->elf_type != UTAP_SYMTAB_ET_NONE && h->elf_type != UTAP_SYMTAB_ET_EXEC &&
	    h->elf_type != UTAP_SYMTAB_ET_DYN)
		return false;
	if (h->nsegs > UTAP_SYMTAB_MAX_SEGS)
		return false;
	return array_ok(h->total_size, hs, h->segs_off, h->nsegs,
			sizeof(struct utap_symtab_seg), 8) &&
	       array_ok(h->total_size, hs, h->addr_off, h->nsyms, 4, 4) &&
	       array_ok(h->total_size, hs, h->name_off, h->nsyms, 4, 4);
}

int utap_symtab_init(struct utap_symtab *t, const void *blob, size_t size)
{
	const struct utap_symtab_hdr *h = blob;
	const u8 *b = blob;

	memset(t, 0, sizeof(*t));
	if (!blob_shape_ok(blob, size, sizeof(*h)) || !symtab_hdr_ok(h, size))
		return -EINVAL;
	if (!strtab_ok(b, h->total_size, h->hdr_size, h->str_off, h->str_size))
		return -EINVAL;
	t->segs = (const void *)(b + h->segs_off);
	t->addr = (const void *)(b + h->addr_off);
	t->name = (const void *)(b + h->name_off);
	if (!segs_ok(t->segs, h->nsegs) || !ascending(t->addr, h->nsyms) ||
	    !offsets_below(t->name, h->nsyms, h->str_size))
		return -EINVAL;
	/* base + the largest offset must not wrap around */
	if (h->nsyms && h->base + t->addr[h->nsyms - 1] < h->base)
		return -EINVAL;
	t->hdr = h;
	t->str = (const char *)(b + h->str_off);
	t->base = h->base;
	t->nsyms = h->nsyms;
	t->nsegs = h->nsegs;
	t->str_size = h->str_size;
	return 0;
}

static bool linetab_hdr_ok(const struct utap_linetab_hdr *h, size_t size)
{
	u32 hs = sizeof(*h);

	if (h->magic != UTAP_LINETAB_MAGIC || h->version != UTAP_SYMTAB_VERSION ||
	    h->hdr_size != hs || h->total_size != size)
		return false;
	if (h->reserved[0] || h->reserved[1] || h->reserved[2] ||
	    h->build_id_len > UTAP_SYMTAB_BUILD_ID_MAX || h->nfiles > UTAP_LINE_MAX_FILES)
		return false;
	return array_ok(h->total_size, hs, h->addr_off, h->nrows, 4, 4) &&
	       array_ok(h->total_size, hs, h->line_off, h->nrows, 4, 4) &&
	       array_ok(h->total_size, hs, h->file_off, h->nrows, 2, 2) &&
	       array_ok(h->total_size, hs, h->files_off, h->nfiles, 4, 4);
}

static bool file_indexes_ok(const u16 *file, u32 n, u32 nfiles)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (file[i] >= nfiles && file[i] != UTAP_LINE_GAP && file[i] != UTAP_LINE_NOFILE)
			return false;
	/* the table must end: its last row covers nothing */
	return n == 0 || file[n - 1] == UTAP_LINE_GAP;
}

int utap_linetab_init(struct utap_linetab *t, const void *blob, size_t size)
{
	const struct utap_linetab_hdr *h = blob;
	const u8 *b = blob;

	memset(t, 0, sizeof(*t));
	if (!blob_shape_ok(blob, size, sizeof(*h)) || !linetab_hdr_ok(h, size))
		return -EINVAL;
	if (!strtab_ok(b, h->total_size, h->hdr_size, h->str_off, h->str_size))
		return -EINVAL;
	t->addr = (const void *)(b + h->addr_off);
	t->line = (const void *)(b + h->line_off);
	t->file = (const void *)(b + h->file_off);
	t->files = (const void *)(b + h->files_off);
	if (!ascending(t->addr, h->nrows) || !file_indexes_ok(t->file, h->nrows, h->nfiles) ||
	    !offsets_below(t->files, h->nfiles, h->str_size))
		return -EINVAL;
	if (h->nrows && h->base + t->addr[h->nrows - 1] < h->base)
		return -EINVAL;
	t->hdr = h;
	t->str = (const char *)(b + h->str_off);
	t->base = h->base;
	t->nrows = h->nrows;
	t->nfiles = h->nfiles;
	t->str_size = h->str_size;
	return 0;
}

/* ---- lookup -------------------------------------------------------- */

/*
 * Index of the last entry <= KEY in the strictly ascending A[0..N), or -1.
 * At most 32 halvings.
 */
static s64 last_at_or_below(const u32 *a, u32 n, u32 key)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (a[mid] <= key)
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

bool utap_symtab_lookup(const struct utap_symtab *t, u64 rel, struct utap_sym_hit *hit)
{
	s64 i;
	u32 key;

	if (!t || !t->hdr || t->nsyms == 0 || !rel_key(t->base, rel, &key))
		return false;
	i = last_at_or_below(t->addr, t->nsyms, key);
	if (i < 0)
		return false;
	hit->index = (u32)i;
	hit->name = t->str + t->name[i];
	hit->offset = rel - (t->base + t->addr[i]);
	hit->size = (u32)i + 1 < t->nsyms ? (u64)(t->addr[i + 1] - t->addr[i]) : 0;
	return true;
}

bool utap_linetab_lookup(const struct utap_linetab *t, u64 rel, const char **file, u32 *line)
{
	s64 i;
	u32 key;
	u16 f;

	if (!t || !t->hdr || t->nrows == 0 || !rel_key(t->base, rel, &key))
		return false;
	/* beyond the last row's start there is only the final gap */
	if (rel - t->base > 0xffffffffull)
		return false;
	i = last_at_or_below(t->addr, t->nrows, key);
	if (i < 0 || t->file[i] == UTAP_LINE_GAP)
		return false;
	f = t->file[i];
	*file = f < t->nfiles ? t->str + t->files[f] : NULL;
	*line = t->line[i];
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
static void put_hex(struct sym_out *o, u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	put_mem(o, tmp + i, sizeof(tmp) - i);
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
	const char *mod;	/* module path (or basename) */
	const char *file;	/* source file */
	u64 offset;		/* from the symbol, else from the module start */
	u64 size;		/* of the symbol, else of the module */
	u32 line;		/* 0: unknown */
};

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
	if (ctx->syms && utap_symtab_lookup(ctx->syms, f->addr - ctx->bias, &hit)) {
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

int utap_sym_format(char *buf, size_t size, u64 addr, const struct utap_sym_ctx *ctx,
		    unsigned mode)
{
	static const struct utap_sym_ctx nothing;
	struct sym_out o = { buf, size, 0 };
	struct sym_facts f = { .addr = addr };
	bool inexact = (mode & UTAP_SYM_INEXACT) && (mode & UTAP_SYM_SYMBOL);

	/* SystemTap looks nothing up for address 0 */
	if (!ctx || addr == 0)
		ctx = &nothing;
	gather_symbol(&f, ctx, mode);
	gather_line(&f, ctx, mode);

	if (mode & UTAP_SYM_PRE_SPACE)
		put_str(&o, " ");
	/*
	 * Like SystemTap, only the exact flag sets of its modes have a
	 * symbolic form (INEXACT aside); any other set prints the address.
	 */
	if (!put_body(&o, &f, mode & ~UTAP_SYM_INEXACT))
		put_hex(&o, addr);
	if (inexact)
		put_str(&o, " (inexact)");
	if (mode & UTAP_SYM_POST_SPACE)
		put_str(&o, " ");
	else if (mode & UTAP_SYM_NEWLINE)
		put_str(&o, "\n");
	return out_finish(&o);
}

int utap_sym_modname(char *buf, size_t size, const struct utap_sym_ctx *ctx, bool *unknown)
{
	struct sym_out o = { buf, size, 0 };

	*unknown = !ctx || !ctx->path;
	put_str(&o, *unknown ? "<unknown>" : ctx->path);
	return out_finish(&o);
}

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
