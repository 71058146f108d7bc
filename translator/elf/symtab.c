// SPDX-License-Identifier: GPL-2.0
/*
 * symtab.c - symbol table blobs from ELF files. The rules (which table,
 * which symbols, which alias) are in symtab.h; they reproduce the names
 * and sizes SystemTap prints.
 */
#include "elf/symtab.h"
#include "elf/symbuild.h"
#include "elf/plt.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void utap_blob_free(struct utap_blob *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}

/* ---- packing -------------------------------------------------------- */

/* A symbol with its position in the input, so later ones win ties. */
struct ordered_sym {
	uint64_t addr;
	size_t seq;
	const char *name;
};

static int by_addr_then_seq(const void *a, const void *b)
{
	const struct ordered_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort SYMS by address and keep the last-given name at each address. */
static struct ordered_sym *resolve_aliases(const struct utap_sym_in *syms, size_t n,
					   size_t *count)
{
	struct ordered_sym *v = malloc((n ? n : 1) * sizeof(*v));
	size_t i, kept = 0;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		v[i] = (struct ordered_sym){ syms[i].addr, i, syms[i].name };
	qsort(v, n, sizeof(*v), by_addr_then_seq);
	for (i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1].addr == v[i].addr)
			continue;	/* a later alias follows */
		v[kept++] = v[i];
	}
	*count = kept;
	return v;
}

/*
 * Names as token codes (symtab_format.h). Tokens start as the characters
 * the names use; each free code then becomes the pair of tokens seen most
 * often, and the pair is replaced everywhere, until no code is free or no
 * pair repeats (byte-pair encoding, as kallsyms compresses the kernel's).
 */
struct name_codes {
	uint8_t **v;		/* per name: its codes */
	uint32_t *len;
	size_t n;
	char *tok[256];		/* each code's bytes (NULL: unused) */
};

#define TOKEN_MAX 64		/* longest token: decoding stays a short copy */

static int codes_init(struct name_codes *nc, const struct ordered_sym *v, size_t n)
{
	size_t i;

	memset(nc, 0, sizeof(*nc));
	nc->n = n;
	nc->v = calloc(n ? n : 1, sizeof(*nc->v));
	nc->len = calloc(n ? n : 1, sizeof(*nc->len));
	if (!nc->v || !nc->len)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		size_t k, len = strlen(v[i].name);

		nc->v[i] = malloc(len ? len : 1);
		if (!nc->v[i])
			return -ENOMEM;
		memcpy(nc->v[i], v[i].name, len);
		nc->len[i] = (uint32_t)len;
		for (k = 0; k < len; k++) {
			uint8_t c = nc->v[i][k];

			if (!nc->tok[c] && !(nc->tok[c] = strndup((char *)&c, 1)))
				return -ENOMEM;
		}
	}
	return 0;
}

static void codes_free(struct name_codes *nc)
{
	size_t i;

	for (i = 0; nc->v && i < nc->n; i++)
		free(nc->v[i]);
	free(nc->v);
	free(nc->len);
	for (i = 0; i < 256; i++)
		free(nc->tok[i]);
}

/* The most frequent pair of codes whose joined token is not too long; count 0: none. */
static uint32_t best_pair(const struct name_codes *nc, uint32_t *counts, uint32_t *best)
{
	uint32_t top = 0;
	size_t i, k;

	memset(counts, 0, 65536 * sizeof(*counts));
	for (i = 0; i < nc->n; i++)
		for (k = 0; k + 1 < nc->len[i]; k++)
			counts[nc->v[i][k] << 8 | nc->v[i][k + 1]]++;
	for (i = 0; i < 65536; i++)
		if (counts[i] > top &&
		    strlen(nc->tok[i >> 8]) + strlen(nc->tok[i & 255]) <= TOKEN_MAX) {
			top = counts[i];
			*best = (uint32_t)i;
		}
	return top;
}

static void replace_pair(struct name_codes *nc, uint32_t pair, uint8_t code)
{
	size_t i, k, o;

	for (i = 0; i < nc->n; i++) {
		for (k = o = 0; k < nc->len[i]; k++, o++) {
			if (k + 1 < nc->len[i] && (uint32_t)(nc->v[i][k] << 8 | nc->v[i][k + 1]) == pair) {
				nc->v[i][o] = code;
				k++;
			} else {
				nc->v[i][o] = nc->v[i][k];
			}
		}
		nc->len[i] = (uint32_t)o;
	}
}

static int train_tokens(struct name_codes *nc)
{
	uint32_t *counts = malloc(65536 * sizeof(*counts)), pair = 0;
	int code;

	if (!counts)
		return -ENOMEM;
	for (code = 1; code < 256; code++) {
		if (nc->tok[code])
			continue;
		/* a pair met only twice saves nothing once its token is stored */
		if (best_pair(nc, counts, &pair) < 4)
			break;
		nc->tok[code] = malloc(TOKEN_MAX + 1);
		if (!nc->tok[code]) {
			free(counts);
			return -ENOMEM;
		}
		snprintf(nc->tok[code], TOKEN_MAX + 1, "%s%s", nc->tok[pair >> 8], nc->tok[pair & 255]);
		replace_pair(nc, pair, (uint8_t)code);
	}
	free(counts);
	return 0;
}

/* A growable byte buffer for the packed groups. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static int put_bytes(struct bytes *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
	return 0;
}

static int put_uleb(struct bytes *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return put_bytes(b, buf, n);
}

static int pack_groups(const struct ordered_sym *v, size_t n, uint64_t base,
		       const struct name_codes *nc, struct utap_sym_group *groups,
		       struct bytes *data)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		uint32_t off = (uint32_t)(v[i].addr - base);

		if (i % UTAP_SYM_GROUP == 0)
			groups[i / UTAP_SYM_GROUP] = (struct utap_sym_group){ off, (uint32_t)data->len };
		else
			err = put_uleb(data, off - (uint32_t)(v[i - 1].addr - base) - 1);
		if (!err)
			err = put_uleb(data, nc->len[i]);
		if (!err && nc->len[i])
			err = put_bytes(data, nc->v[i], nc->len[i]);
	}
	return err;
}

struct symtab_layout {
	uint64_t segs_off, groups_off, data_off, tok_off, tok_str_off, total;
};

static void lay_out(struct symtab_layout *l, size_t nsegs, size_t ngroups, size_t data_size,
		    size_t tok_size)
{
	uint64_t cursor = sizeof(struct utap_symtab_hdr);

	l->segs_off = layout_take(&cursor, nsegs * sizeof(struct utap_symtab_seg), 8);
	l->groups_off = layout_take(&cursor, ngroups * sizeof(struct utap_sym_group), 4);
	l->tok_off = layout_take(&cursor, 257 * 2, 2);
	l->data_off = layout_take(&cursor, data_size, 1);
	l->tok_str_off = layout_take(&cursor, tok_size, 1);
	l->total = layout_take(&cursor, 0, 8);
}

static void fill_header(struct utap_symtab_hdr *h, const struct symtab_layout *l,
			const struct utap_symtab_info *info, size_t nsyms, size_t data_size,
			size_t tok_size, uint64_t base)
{
	h->magic = UTAP_SYMTAB_MAGIC;
	h->version = UTAP_SYMTAB_VERSION;
	h->hdr_size = sizeof(*h);
	h->total_size = (uint32_t)l->total;
	h->elf_type = (uint8_t)info->elf_type;
	h->base = base;
	h->nsegs = (uint32_t)info->nsegs;
	h->segs_off = (uint32_t)l->segs_off;
	h->nsyms = (uint32_t)nsyms;
	h->ngroups = (uint32_t)((nsyms + UTAP_SYM_GROUP - 1) / UTAP_SYM_GROUP);
	h->groups_off = (uint32_t)l->groups_off;
	h->data_off = (uint32_t)l->data_off;
	h->data_size = (uint32_t)data_size;
	h->tok_off = (uint32_t)l->tok_off;
	h->tok_str_off = (uint32_t)l->tok_str_off;
	h->tok_size = (uint32_t)tok_size;
	if (info->build_id && info->build_id->len <= UTAP_SYMTAB_BUILD_ID_MAX) {
		h->build_id_len = (uint8_t)info->build_id->len;
		memcpy(h->build_id, info->build_id->bytes, info->build_id->len);
	}
}

static bool seg_sane(const struct utap_symtab_seg *s)
{
	return s->filesz <= s->memsz && s->vaddr + s->memsz >= s->vaddr &&
	       s->offset + s->filesz >= s->offset;
}

/* The token table: offsets, then the bytes. */
static int pack_tokens(const struct name_codes *nc, uint16_t *tok, struct bytes *str)
{
	int c, err = 0;

	for (c = 0; c < 256 && !err; c++) {
		tok[c] = (uint16_t)str->len;
		if (nc->tok[c])
			err = put_bytes(str, nc->tok[c], strlen(nc->tok[c]));
	}
	tok[256] = (uint16_t)str->len;
	return err;
}

static int pack_sorted(const struct ordered_sym *v, size_t n,
		       const struct utap_symtab_info *info, struct utap_blob *out)
{
	uint64_t base = n ? v[0].addr : 0;
	size_t ngroups = (n + UTAP_SYM_GROUP - 1) / UTAP_SYM_GROUP, i;
	struct utap_sym_group *groups = NULL;
	struct bytes data = { 0 }, tokstr = { 0 };
	struct symtab_layout l;
	struct name_codes nc;
	uint16_t tok[257];
	char *blob;
	int err;

	if ((n && v[n - 1].addr - base > 0xffffffffu) || info->nsegs > UTAP_SYMTAB_MAX_SEGS)
		return -E2BIG;
	for (i = 0; i < info->nsegs; i++)
		if (!seg_sane(&info->segs[i]))
			return -EINVAL;
	groups = calloc(ngroups + 1, sizeof(*groups));
	err = groups ? codes_init(&nc, v, n) : -ENOMEM;
	if (!err)
		err = train_tokens(&nc);
	if (!err)
		err = pack_groups(v, n, base, &nc, groups, &data);
	if (!err)
		err = pack_tokens(&nc, tok, &tokstr);
	lay_out(&l, info->nsegs, ngroups, data.len, tokstr.len);
	if (!err && l.total > 0xffffffffu)
		err = -E2BIG;
	blob = err ? NULL : calloc(1, l.total);
	if (!err && !blob)
		err = -ENOMEM;
	if (!err) {
		fill_header((struct utap_symtab_hdr *)blob, &l, info, n, data.len, tokstr.len, base);
		for (i = 0; i < info->nsegs; i++) {
			struct utap_symtab_seg seg = info->segs[i];

			seg.reserved = 0;
			memcpy(blob + l.segs_off + i * sizeof(seg), &seg, sizeof(seg));
		}
		memcpy(blob + l.groups_off, groups, ngroups * sizeof(*groups));
		memcpy(blob + l.tok_off, tok, sizeof(tok));
		if (data.len)
			memcpy(blob + l.data_off, data.p, data.len);
		if (tokstr.len)
			memcpy(blob + l.tok_str_off, tokstr.p, tokstr.len);
		out->data = blob;
		out->size = l.total;
	}
	if (groups)
		codes_free(&nc);
	free(groups);
	free(data.p);
	free(tokstr.p);
	return err;
}

/* Does [lo, hi) hold a byte of an executable segment? */
static bool touches_code(const struct utap_symtab_info *info, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < info->nsegs; i++) {
		const struct utap_symtab_seg *g = &info->segs[i];

		if ((g->flags & UTAP_SEG_X) && lo < g->vaddr + g->memsz && hi > g->vaddr)
			return true;
	}
	return false;
}

/* UTAP_SYMTAB_CODE_ONLY on sorted, alias-free V: returns the new count. */
static size_t keep_code(struct ordered_sym *v, size_t n, const struct utap_symtab_info *info)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++) {
		uint64_t hi = i + 1 < n ? v[i + 1].addr : UINT64_MAX;

		if (touches_code(info, v[i].addr, hi)) {
			v[out++] = v[i];
		} else if (out && v[out - 1].name[0]) {
			/* the end of the symbol before: a gap from here on */
			v[out] = v[i];
			v[out++].name = "";
		}
	}
	return out;
}

int utap_symtab_pack(const struct utap_sym_in *syms, size_t n,
		     const struct utap_symtab_info *info, struct utap_blob *out)
{
	struct ordered_sym *v;
	size_t count;
	int err;

	out->data = NULL;
	out->size = 0;
	v = resolve_aliases(syms, n, &count);
	if (!v)
		return -ENOMEM;
	if (info->code_only)
		count = keep_code(v, count, info);
	err = pack_sorted(v, count, info, out);
	free(v);
	return err;
}

/* ---- reading ELF symbol tables ---------------------------------------- */

/* One ELF symbol table and what is needed to read its entries. */
struct symsrc {
	Elf *elf;
	Elf_Data *data;
	Elf_Data *xndx;		/* SHT_SYMTAB_SHNDX, or NULL */
	size_t strndx;
	size_t count;
	size_t first_global;	/* sh_info */
};

static Elf_Data *shndx_table_for(Elf *elf, size_t symscn_index)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB_SHNDX &&
		    shdr.sh_link == symscn_index)
			return elf_getdata(scn, NULL);
	return NULL;
}

/* Find the table of TYPE (SHT_SYMTAB or SHT_DYNSYM) in ELF. */
static bool symsrc_open(struct symsrc *s, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	memset(s, 0, sizeof(*s));
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type || shdr.sh_entsize == 0)
			continue;
		s->data = elf_getdata(scn, NULL);
		if (!s->data || !s->data->d_buf)
			return false;
		s->elf = elf;
		s->strndx = shdr.sh_link;
		s->count = s->data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		s->first_global = shdr.sh_info < s->count ? shdr.sh_info : s->count;
		s->xndx = shndx_table_for(elf, elf_ndxscn(scn));
		return true;
	}
	return false;
}

/* The address range symbols must fall in: libdwfl's module start and end. */
struct load_range {
	uint64_t lo, hi;
	bool any;
};

/* What the builder gathers from one ELF file. */
struct sym_collect {
	struct utap_sym_in *v;
	size_t n, cap;
	struct load_range range;
	unsigned flags;
};

static bool type_wanted(unsigned char type, unsigned flags)
{
	if (type == STT_FUNC || type == STT_OBJECT)
		return true;
	return type == STT_NOTYPE && (flags & UTAP_SYMTAB_NOTYPE);
}

/* Defined, and (for a real section index) in an allocated section. */
static bool defined_in_memory(const struct symsrc *s, const GElf_Sym *sym, Elf32_Word xshndx)
{
	Elf32_Word shndx = sym->st_shndx;
	GElf_Shdr shdr;
	Elf_Scn *scn;

	if (shndx == SHN_XINDEX)
		shndx = xshndx;
	else if (shndx == SHN_UNDEF)
		return false;
	else if (shndx >= SHN_LORESERVE)
		return true;	/* SHN_ABS and friends: kept as values */
	scn = elf_getscn(s->elf, shndx);
	return scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_ALLOC);
}

static int collect_push(struct sym_collect *c, uint64_t addr, const char *name)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct utap_sym_in *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n++] = (struct utap_sym_in){ addr, name };
	return 0;
}

/* Add entries [from, to) of S that SystemTap would keep. */
static int collect_range(struct sym_collect *c, const struct symsrc *s, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to && i < s->count; i++) {
		Elf32_Word xshndx = 0;
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsymshndx(s->data, s->xndx, (int)i, &sym, &xshndx))
			continue;
		if (!type_wanted(GELF_ST_TYPE(sym.st_info), c->flags) ||
		    !defined_in_memory(s, &sym, xshndx))
			continue;
		if (sym.st_shndx == SHN_ABS && (c->flags & UTAP_SYMTAB_NO_ABS))
			continue;
		if (!c->range.any || sym.st_value < c->range.lo || sym.st_value >= c->range.hi)
			continue;
		name = elf_strptr(s->elf, s->strndx, sym.st_name);
		if (name && collect_push(c, sym.st_value, name))
			return -ENOMEM;
	}
	return 0;
}

/* .dynsym plus minidebuginfo, interleaved the way libdwfl numbers them. */
static int collect_dynsym_and_mini(struct sym_collect *c, const struct symsrc *dyn,
				   const struct symsrc *mini)
{
	size_t mini_first_global = mini->first_global ? mini->first_global : 1;
	int err = 0;

	err = err ? err : collect_range(c, dyn, 0, dyn->first_global);
	err = err ? err : collect_range(c, mini, 1, mini_first_global);
	err = err ? err : collect_range(c, dyn, dyn->first_global, dyn->count);
	err = err ? err : collect_range(c, mini, mini_first_global, mini->count);
	return err;
}

static int collect_loaded(struct sym_collect *c, uint64_t addr, const char *name)
{
	if (!c->range.any || addr < c->range.lo || addr >= c->range.hi)
		return 0;
	return collect_push(c, addr, name);
}

/*
 * PLT stubs, which no symbol table covers, as "sym@plt" (perf and gdb name
 * them so), and a gap ("") at each PLT section's start and end, so PLT0,
 * unnamed stubs and what follows are not charged to the symbol before the
 * PLT. Pushed before the ELF symbols: a real symbol at the same address wins.
 */
static int collect_plt(struct sym_collect *c, const struct elf_plt *plt)
{
	int err = 0;

	for (size_t i = 0; !err && i < plt->nsections; i++) {
		err = collect_loaded(c, plt->sections[i].start, "");
		if (!err)
			err = collect_loaded(c, plt->sections[i].end, "");
	}
	for (size_t i = 0; !err && i < plt->nstubs; i++)
		err = collect_loaded(c, plt->stubs[i].start, plt->stubs[i].name);
	return err;
}

static int collect_symbols(struct sym_collect *c, const struct utap_debuginfo *di)
{
	struct symsrc main_tab, dyn, mini;

	if (symsrc_open(&main_tab, di->file.elf, SHT_SYMTAB) ||
	    symsrc_open(&main_tab, di->separate.elf, SHT_SYMTAB))
		return collect_range(c, &main_tab, 0, main_tab.count);
	symsrc_open(&dyn, di->file.elf, SHT_DYNSYM);
	symsrc_open(&mini, di->mini.elf, SHT_SYMTAB);
	return collect_dynsym_and_mini(c, &dyn, &mini);
}

/* ---- segments and header facts ---------------------------------------- */

/* The PT_LOAD segments into SEGS[MAX] and their extent; -EINVAL, -E2BIG. */
static int read_segments(Elf *elf, struct utap_symtab_seg *segs, size_t max, size_t *count,
			 struct load_range *range)
{
	size_t i, nphdr, n = 0;
	GElf_Phdr ph;

	memset(range, 0, sizeof(*range));
	*count = 0;
	if (elf_getphdrnum(elf, &nphdr) != 0)
		return 0;
	for (i = 0; i < nphdr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (n == max)
			return -E2BIG;
		segs[n] = (struct utap_symtab_seg){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.flags = ph.p_flags & (PF_X | PF_W | PF_R),
		};
		if (!seg_sane(&segs[n++]))
			return -EINVAL;	/* no kernel would map this file */
		if (!range->any || ph.p_vaddr < range->lo)
			range->lo = ph.p_vaddr;
		if (!range->any || ph.p_vaddr + ph.p_memsz > range->hi)
			range->hi = ph.p_vaddr + ph.p_memsz;
		range->any = true;
	}
	*count = n;
	return 0;
}

static int elf_type_of(Elf *elf)
{
	GElf_Ehdr ehdr;

	if (!gelf_getehdr(elf, &ehdr))
		return -1;
	if (ehdr.e_type == ET_EXEC)
		return UTAP_SYMTAB_ET_EXEC;
	if (ehdr.e_type == ET_DYN)
		return UTAP_SYMTAB_ET_DYN;
	return -1;
}

int utap_symtab_build(const struct utap_debuginfo *di, unsigned flags, struct utap_blob *out)
{
	struct utap_symtab_seg segs[UTAP_SYMTAB_MAX_SEGS];
	struct sym_collect c = { .flags = flags };
	struct utap_symtab_info info = { 0 };
	struct elf_plt plt = { 0 };
	int err;

	out->data = NULL;
	out->size = 0;
	info.elf_type = di->file.elf ? elf_type_of(di->file.elf) : -1;
	if (info.elf_type < 0)
		return -EINVAL;
	err = read_segments(di->file.elf, segs, UTAP_SYMTAB_MAX_SEGS, &info.nsegs, &c.range);
	if (err)
		return err;
	info.segs = segs;
	info.build_id = &di->build_id;
	info.code_only = flags & UTAP_SYMTAB_CODE_ONLY;
	err = elf_plt_read(di->file.elf, di->separate.elf, &plt);
	if (!err)
		err = collect_plt(&c, &plt);
	if (!err)
		err = collect_symbols(&c, di);
	if (!err)
		err = utap_symtab_pack(c.v, c.n, &info, out);
	free(c.v);
	elf_plt_free(&plt);
	return err;
}

int utap_symtab_build_path(const char *path, const char *root, struct utap_blob *out)
{
	return utap_symtab_build_path_flags(path, root, 0, out);
}

int utap_symtab_build_path_flags(const char *path, const char *root, unsigned flags,
				 struct utap_blob *out)
{
	struct utap_debuginfo di;
	int err;

	out->data = NULL;
	out->size = 0;
	err = utap_debuginfo_open(&di, path, root, UTAP_DI_ALL);
	if (err)
		return err;
	err = utap_symtab_build(&di, flags, out);
	utap_debuginfo_close(&di);
	return err;
}
