/*
 * kbtf.c - reading BTF (include/uapi/linux/btf.h): a header, a type section
 * of variable-length records numbered from 1, and a string section. Every
 * offset and count is checked against the sections, so a damaged file is
 * rejected, never read out of bounds.
 */
#include "kernel/kbtf.h"
#include "kernel/ksyms.h"

#include <stdlib.h>
#include <string.h>

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
	unsigned char *data;
	const unsigned char *types;
	size_t types_len;
	const char *strs;
	size_t strs_len;
	uint32_t *offsets;	/* record offset of type id i, i >= 1 */
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
	return off < b->strs_len ? b->strs + off : "";
}

static bool rec(const struct btf *b, uint32_t id, struct btf_rec *r, const unsigned char **extra)
{
	const unsigned char *p;

	if (id == 0 || id > b->n)
		return false;
	p = b->types + b->offsets[id];
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

	b->offsets = arena_alloc(sizeof(uint32_t) * cap);
	b->funcs = arena_alloc(sizeof(*b->funcs) * fcap);
	while (off + 12 <= b->types_len) {
		uint32_t info = rd32(b->types + off + 4);
		size_t len = 12 + extra_size(info);

		if (kind_of(info) == 0 || kind_of(info) > K_ENUM64 || off + len > b->types_len) {
			*why = "a damaged type record";
			return false;
		}
		if (b->n + 2 > cap) {
			uint32_t *bigger = arena_alloc(sizeof(uint32_t) * (cap *= 2));

			memcpy(bigger, b->offsets, sizeof(uint32_t) * (b->n + 1));
			b->offsets = bigger;
		}
		b->offsets[++b->n] = (uint32_t)off;
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

struct btf *btf_parse(const void *data, size_t len, const char **why)
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
	return index_types(b, why) ? b : NULL;
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

void btf_resolve(const struct btf *b, uint32_t type, struct btf_info *out)
{
	uint32_t id = skip_mods(b, type);
	const unsigned char *x;
	struct btf_rec r;
	struct btf_info elem;

	memset(out, 0, sizeof(*out));
	if (!rec(b, id, &r, &x))
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
		btf_resolve(b, out->target, &elem);
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

bool btf_member(const struct btf *b, uint32_t type, const char *name, uint32_t *mtype,
		uint32_t *bit_offset, uint32_t *bit_size)
{
	uint32_t id = skip_mods(b, type);
	const unsigned char *x;
	struct btf_rec r;

	if (!rec(b, id, &r, &x) || (kind_of(r.info) != K_STRUCT && kind_of(r.info) != K_UNION))
		return false;
	for (unsigned i = 0; i < vlen_of(r.info); i++, x += 12) {
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
		if (!*mname && btf_member(b, rd32(x + 4), name, mtype, bit_offset, bit_size)) {
			*bit_offset += off;
			return true;
		}
	}
	return false;
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

	if (!b)
		return 0;
	f = bsearch(&key, b->funcs, b->nfuncs, sizeof(*f), by_fn_name);
	if (!f || !rec(b, f->id, &r, NULL) || !rec(b, r.size_or_type, &r, NULL) ||
	    kind_of(r.info) != K_FUNC_PROTO)
		return 0;
	return f->id ? rd32(b->types + b->offsets[f->id] + 8) : 0;
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
	const char *tag = "";
	struct btf_rec r;

	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6)) {
		tag = name[0] == 's' ? "struct" : "union";
		name += strlen(tag) + 1;
	}
	/* a linear scan: a script names a few types, once each */
	for (uint32_t id = 1; b && id <= b->n; id++)
		if (rec(b, id, &r, NULL) && kind_named(kind_of(r.info), tag) &&
		    !strcmp(str_at(b, r.name_off), name))
			return id;
	return 0;
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
