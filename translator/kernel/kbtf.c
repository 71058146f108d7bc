/*
 * kbtf.c - reading BTF (include/uapi/linux/btf.h): a header, a type section
 * of variable-length records numbered from 1, and a string section. Every
 * offset and count is checked against the sections, so a damaged file is
 * rejected, never read out of bounds.
 *
 * A kernel module's .BTF is split BTF on top of vmlinux's (its base): its
 * type ids continue after the base's last, its string offsets after the
 * base's string section, and a record may name a type or string of either.
 * A split struct btf answers for both: ids and offsets below its own start
 * go to the base.
 */
#include "kernel/kbtf.h"
#include "kernel/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64,
};

struct btf_rec {
	uint32_t name_off;
	uint32_t info;
	uint32_t size_or_type;
};

struct btf_fn {
	const char *name;
	uint32_t id;
};

struct btf {
	const struct btf *base;	/* split BTF: the ids below start_id, strings below start_str */
	uint32_t start_id, start_str;
	unsigned char *data;
	const unsigned char *types;
	size_t types_len;
	const char *strs;
	size_t strs_len;
	uint32_t *offsets;	/* record offset of own type id start_id + i */
	uint32_t n;		/* highest type id */
	struct btf_fn *funcs;	/* sorted by name */
	size_t nfuncs;
};

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static unsigned kind_of(uint32_t info)
{
	return (info >> 24) & 0x1f;
}

static unsigned vlen_of(uint32_t info)
{
	return info & 0xffff;
}

/* Bytes that follow the fixed part of a record of this kind. */
static size_t extra_size(uint32_t info)
{
	switch (kind_of(info)) {
	case K_INT: case K_VAR: case K_DECL_TAG:
		return 4;
	case K_ARRAY:
		return 12;
	case K_STRUCT: case K_UNION: case K_DATASEC: case K_ENUM64:
		return 12 * (size_t)vlen_of(info);
	case K_ENUM: case K_FUNC_PROTO:
		return 8 * (size_t)vlen_of(info);
	default:
		return 0;
	}
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	if (off < b->start_str)
		return str_at(b->base, off);
	off -= b->start_str;
	return off < b->strs_len ? b->strs + off : "";
}

static bool rec(const struct btf *b, uint32_t id, struct btf_rec *r, const unsigned char **extra)
{
	const unsigned char *p;

	if (id == 0 || id > b->n)
		return false;
	if (id < b->start_id)
		return rec(b->base, id, r, extra);
	p = b->types + b->offsets[id - b->start_id];
	r->name_off = rd32(p);
	r->info = rd32(p + 4);
	r->size_or_type = rd32(p + 8);
	if (extra)
		*extra = p + 12;
	return true;
}

static int by_fn_name(const void *x, const void *y)
{
	return strcmp(((const struct btf_fn *)x)->name, ((const struct btf_fn *)y)->name);
}

static bool index_types(struct btf *b, const char **why)
{
	size_t off = 0, cap = 1024, fcap = 1024;

	b->n = b->start_id - 1;
	b->offsets = arena_alloc(sizeof(uint32_t) * cap);
	b->funcs = arena_alloc(sizeof(*b->funcs) * fcap);
	while (off + 12 <= b->types_len) {
		uint32_t info = rd32(b->types + off + 4);
		size_t len = 12 + extra_size(info);

		if (kind_of(info) == 0 || kind_of(info) > K_ENUM64 || off + len > b->types_len) {
			*why = "a damaged type record";
			return false;
		}
		if (b->n + 1 - b->start_id + 1 > cap) {
			uint32_t *bigger = arena_alloc(sizeof(uint32_t) * (cap *= 2));

			memcpy(bigger, b->offsets, sizeof(uint32_t) * (b->n + 1 - b->start_id));
			b->offsets = bigger;
		}
		b->offsets[++b->n - b->start_id] = (uint32_t)off;
		if (kind_of(info) == K_FUNC) {
			if (b->nfuncs == fcap) {
				struct btf_fn *bigger = arena_alloc(sizeof(*bigger) * (fcap *= 2));

				memcpy(bigger, b->funcs, sizeof(*bigger) * b->nfuncs);
				b->funcs = bigger;
			}
			b->funcs[b->nfuncs++] = (struct btf_fn){
				str_at(b, rd32(b->types + off)), b->n };
		}
		off += len;
	}
	qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), by_fn_name);
	return true;
}

struct btf *btf_parse_split(const void *data, size_t len, const struct btf *base,
			    const char **why)
{
	struct btf *b = arena_alloc(sizeof(*b));
	const unsigned char *d;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;

	if (len < 24 || ((const unsigned char *)data)[0] != 0x9f ||
	    ((const unsigned char *)data)[1] != 0xeb || ((const unsigned char *)data)[2] != 1) {
		*why = "not BTF (version 1, little-endian)";
		return NULL;
	}
	b->data = arena_alloc(len);
	memcpy(b->data, data, len);
	d = b->data;
	hdr_len = rd32(d + 4);
	type_off = rd32(d + 8);
	type_len = rd32(d + 12);
	str_off = rd32(d + 16);
	str_len = rd32(d + 20);
	if (hdr_len < 24 || hdr_len > len || (uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len || !str_len ||
	    d[hdr_len + str_off + str_len - 1] != 0) {
		*why = "its header does not fit the file";
		return NULL;
	}
	b->types = d + hdr_len + type_off;
	b->types_len = type_len;
	b->strs = (const char *)d + hdr_len + str_off;
	b->strs_len = str_len;
	b->base = base;
	b->start_id = base ? base->n + 1 : 1;
	b->start_str = base ? base->start_str + (uint32_t)base->strs_len : 0;
	return index_types(b, why) ? b : NULL;
}

struct btf *btf_parse(const void *data, size_t len, const char **why)
{
	return btf_parse_split(data, len, NULL, why);
}

/* ---- types ---- */

/* Skips typedefs and qualifiers; 0 for void or a loop. */
static uint32_t skip_mods(const struct btf *b, uint32_t id)
{
	struct btf_rec r;

	for (int i = 0; i < 64 && rec(b, id, &r, NULL); i++) {
		unsigned k = kind_of(r.info);

		if (k != K_TYPEDEF && k != K_VOLATILE && k != K_CONST && k != K_RESTRICT &&
		    k != K_TYPE_TAG)
			return id;
		id = r.size_or_type;
	}
	return 0;
}

/* Arrays of arrays nest at most this deep; a damaged file's may loop. */
#define BTF_MAX_DEPTH 32

static void resolve_at(const struct btf *b, uint32_t type, struct btf_info *out, int depth)
{
	uint32_t id = skip_mods(b, type);
	const unsigned char *x;
	struct btf_rec r;
	struct btf_info elem;

	memset(out, 0, sizeof(*out));
	if (depth > BTF_MAX_DEPTH || !rec(b, id, &r, &x))
		return;
	switch (kind_of(r.info)) {
	case K_INT:
		out->cls = BTF_C_INT;
		out->size = r.size_or_type;
		out->is_signed = (rd32(x) >> 24) & 1;
		/* pahole leaves BTF_INT_CHAR off: char is known by its name */
		out->is_char = ((rd32(x) >> 24) & 2) ||
			       (r.size_or_type == 1 && strstr(str_at(b, r.name_off), "char"));
		out->is_bool = (rd32(x) >> 24) & 4;
		break;
	case K_ENUM:
	case K_ENUM64:
		out->cls = BTF_C_INT;
		out->size = r.size_or_type;
		out->is_signed = r.info >> 31;
		out->is_enum = true;
		break;
	case K_PTR:
		out->cls = BTF_C_PTR;
		out->size = 8;
		out->target = r.size_or_type;
		break;
	case K_ARRAY:
		out->cls = BTF_C_ARRAY;
		out->target = rd32(x);
		out->nelems = rd32(x + 8);
		resolve_at(b, out->target, &elem, depth + 1);
		out->size = elem.size * out->nelems;
		break;
	case K_STRUCT:
	case K_UNION:
	case K_FWD:
		out->cls = BTF_C_STRUCT;
		out->size = kind_of(r.info) == K_FWD ? 0 : r.size_or_type;
		out->is_union = kind_of(r.info) == K_UNION;
		break;
	default:
		out->cls = BTF_C_OTHER;
		out->is_float = kind_of(r.info) == K_FLOAT;
		break;
	}
}

void btf_resolve(const struct btf *b, uint32_t type, struct btf_info *out)
{
	resolve_at(b, type, out, 0);
}

/*
 * Anonymous members are searched depth first; *budget bounds the members
 * looked at in all, as a damaged file's struct of many anonymous members
 * that are itself would otherwise cost vlen^depth.
 */
static bool member_at(const struct btf *b, uint32_t type, const char *name, uint32_t *mtype,
		      uint32_t *bit_offset, uint32_t *bit_size, int depth, long *budget)
{
	uint32_t id = skip_mods(b, type);
	const unsigned char *x;
	struct btf_rec r;

	if (depth > BTF_MAX_DEPTH || !rec(b, id, &r, &x) ||
	    (kind_of(r.info) != K_STRUCT && kind_of(r.info) != K_UNION))
		return false;
	for (unsigned i = 0; i < vlen_of(r.info) && --*budget > 0; i++, x += 12) {
		uint32_t off = rd32(x + 8), bits = 0;
		const char *mname = str_at(b, rd32(x));

		if (r.info >> 31) {
			bits = off >> 24;
			off &= 0xffffff;
		}
		if (!strcmp(mname, name)) {
			*mtype = rd32(x + 4);
			*bit_offset = off;
			*bit_size = bits;
			return true;
		}
		/* members of an anonymous struct or union are the outer one's */
		if (!*mname && member_at(b, rd32(x + 4), name, mtype, bit_offset, bit_size,
					 depth + 1, budget)) {
			*bit_offset += off;
			return true;
		}
	}
	return false;
}

bool btf_member(const struct btf *b, uint32_t type, const char *name, uint32_t *mtype,
		uint32_t *bit_offset, uint32_t *bit_size)
{
	long budget = 1L << 20;	/* task_struct, the largest, has a few hundred */

	return member_at(b, type, name, mtype, bit_offset, bit_size, 0, &budget);
}

bool btf_member_at(const struct btf *b, uint32_t type, unsigned i, const char **name,
		   uint32_t *mtype, uint32_t *bit_offset, uint32_t *bit_size)
{
	const unsigned char *x;
	struct btf_rec r;
	uint32_t off;

	if (!rec(b, skip_mods(b, type), &r, &x) ||
	    (kind_of(r.info) != K_STRUCT && kind_of(r.info) != K_UNION) || i >= vlen_of(r.info))
		return false;
	x += 12 * i;
	off = rd32(x + 8);
	*name = str_at(b, rd32(x));
	*mtype = rd32(x + 4);
	*bit_size = r.info >> 31 ? off >> 24 : 0;
	*bit_offset = r.info >> 31 ? off & 0xffffff : off;
	return true;
}

/* ---- functions ---- */

uint32_t btf_func_proto(const struct btf *b, const char *name)
{
	struct btf_fn key = { name, 0 }, *f;
	struct btf_rec r;
	uint32_t proto;

	if (!b)
		return 0;
	f = bsearch(&key, b->funcs, b->nfuncs, sizeof(*f), by_fn_name);
	if (!f || !rec(b, f->id, &r, NULL))
		return 0;
	proto = r.size_or_type;
	return rec(b, proto, &r, NULL) && kind_of(r.info) == K_FUNC_PROTO ? proto : 0;
}

/* Whether record kind k is a type @cast may name: "struct x" and "union x" only as such */
static bool kind_named(unsigned k, const char *tag)
{
	if (!strcmp(tag, "struct"))
		return k == K_STRUCT;
	if (!strcmp(tag, "union"))
		return k == K_UNION;
	return k == K_STRUCT || k == K_UNION || k == K_TYPEDEF || k == K_INT || k == K_ENUM ||
	       k == K_ENUM64;
}

uint32_t btf_find_type(const struct btf *b, const char *name)
{
	const char *tag = "", *full = name;
	struct btf_rec r;

	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6)) {
		tag = name[0] == 's' ? "struct" : "union";
		name += strlen(tag) + 1;
	}
	/* a linear scan: a script names a few types, once each; a module's own first */
	for (uint32_t id = b ? b->start_id : 1; b && id <= b->n; id++)
		if (rec(b, id, &r, NULL) && kind_named(kind_of(r.info), tag) &&
		    !strcmp(str_at(b, r.name_off), name))
			return id;
	return b && b->base ? btf_find_type(b->base, full) : 0;
}

uint32_t btf_find_pointer(const struct btf *b, uint32_t target)
{
	struct btf_rec r;

	for (uint32_t id = 1; b && id <= b->n; id++)
		if (rec(b, id, &r, NULL) && kind_of(r.info) == K_PTR &&
		    skip_mods(b, r.size_or_type) == skip_mods(b, target))
			return id;
	return 0;
}

int btf_proto_nparams(const struct btf *b, uint32_t proto)
{
	struct btf_rec r;

	if (!rec(b, proto, &r, NULL))
		return 0;
	return (int)vlen_of(r.info);
}

const char *btf_proto_param(const struct btf *b, uint32_t proto, int i, uint32_t *type)
{
	const unsigned char *x;
	struct btf_rec r;

	if (!rec(b, proto, &r, &x) || i < 0 || (unsigned)i >= vlen_of(r.info))
		return NULL;
	*type = rd32(x + 8 * i + 4);
	return str_at(b, rd32(x + 8 * i));
}

uint32_t btf_proto_return(const struct btf *b, uint32_t proto)
{
	struct btf_rec r;

	return rec(b, proto, &r, NULL) ? r.size_or_type : 0;
}

/* ---- names ---- */

static void name_into(const struct btf *b, uint32_t id, struct strbuf *sb, int depth)
{
	const unsigned char *x;
	struct btf_rec r;
	const char *n;

	if (depth > 16 || !rec(b, id, &r, &x)) {
		sb_puts(sb, "void");
		return;
	}
	n = str_at(b, r.name_off);
	switch (kind_of(r.info)) {
	case K_PTR:
		name_into(b, r.size_or_type, sb, depth + 1);
		sb_putc(sb, '*');
		break;
	case K_CONST:
	case K_VOLATILE:
		name_into(b, r.size_or_type, sb, depth + 1);
		sb_puts(sb, kind_of(r.info) == K_CONST ? " const" : " volatile");
		break;
	case K_RESTRICT:
	case K_TYPE_TAG:
		name_into(b, r.size_or_type, sb, depth + 1);
		break;
	case K_ARRAY:
		name_into(b, rd32(x), sb, depth + 1);
		sb_printf(sb, "[%u]", rd32(x + 8));
		break;
	case K_STRUCT:
	case K_UNION:
	case K_ENUM:
	case K_ENUM64:
	case K_FWD:
		sb_printf(sb, "%s %s", kind_of(r.info) == K_UNION ||
			  (kind_of(r.info) == K_FWD && (r.info >> 31)) ? "union" :
			  kind_of(r.info) == K_ENUM || kind_of(r.info) == K_ENUM64 ? "enum" : "struct",
			  *n ? n : "{...}");
		break;
	case K_FUNC_PROTO:
		name_into(b, r.size_or_type, sb, depth + 1);
		sb_puts(sb, "(...)");
		break;
	default:
		sb_puts(sb, *n ? n : "?");
		break;
	}
}

const char *btf_type_name(const struct btf *b, uint32_t type)
{
	struct strbuf sb = { 0 };
	const char *r;

	name_into(b, type, &sb, 0);
	r = arena_strdup(sb.buf ? sb.buf : "void");
	sb_free(&sb);
	return r;
}

/* ---- the target kernel's ---- */

const struct btf *btf_get(struct session *s)
{
	static const struct btf *cached;
	static bool tried;
	const char *why = NULL;
	const char *path;
	char *data;
	size_t len = 0;

	if (tried)
		return cached;
	tried = true;
	path = ksyms_btf_path(s);
	data = path ? read_file(path, &len) : NULL;
	if (!data)
		return NULL;
	cached = btf_parse(data, len, &why);
	if (!cached)
		warnf("ignoring the BTF of kernel %s in '%s': %s", s->krel, path, why);
	return cached;
}

/* ---- a module's, on top of the kernel's ---- */

/* The .BTF section of the ELF file at path, in the arena; NULL and *why if none. */
static void *read_btf_section(const char *path, size_t *len, const char **why)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	void *copy = NULL;

	if (fd < 0) {
		*why = arena_printf("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	*why = arena_printf("'%s' has no .BTF section (a kernel built without "
			    "CONFIG_DEBUG_INFO_BTF_MODULES?)", path);
	while (elf && elf_getshdrstrndx(elf, &shstrndx) == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF"))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && data->d_size) {
			copy = arena_alloc(data->d_size);
			memcpy(copy, data->d_buf, data->d_size);
			*len = data->d_size;
		}
		break;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return copy;
}

struct btf_module {
	const char *name;
	const struct btf *btf;
	const char *why;
	struct btf_module *next;
};

static const struct btf *load_module_btf(struct session *s, const char *module, const char **why)
{
	const struct btf *base = btf_get(s);
	struct kmodule *mods;
	int n = kmodules_matching(s, module, &mods);
	const char *reason;
	struct btf *b;
	size_t len = 0;
	void *data;

	if (!base) {
		*why = arena_printf("kernel %s has no BTF for the module's to build on", s->krel);
		return NULL;
	}
	if (n != 1 || strcmp(mods[0].name, module)) {
		*why = kmodule_missing(s, module);
		return NULL;
	}
	data = read_btf_section(mods[0].path, &len, why);
	if (!data)
		return NULL;
	b = btf_parse_split(data, len, base, &reason);
	if (!b)
		*why = arena_printf("the BTF of '%s' is damaged: %s", mods[0].path, reason);
	return b;
}

const struct btf *btf_get_module(struct session *s, const char *module, const char **why)
{
	static struct btf_module *cache;
	struct btf_module *m;

	if (!module)
		return btf_get(s);
	for (m = cache; m; m = m->next)
		if (!strcmp(m->name, module))
			break;
	if (!m) {
		m = arena_alloc(sizeof(*m));
		m->name = arena_strdup(module);
		m->btf = load_module_btf(s, module, &m->why);
		m->next = cache;
		cache = m;
	}
	if (why)
		*why = m->why;
	return m->btf;
}
