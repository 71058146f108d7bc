/*
 * btf_pretty.c - pretty-printing kernel values through BTF. See
 * btf_pretty.h; the rules are dwarf_pretty.c's: signed integers in
 * decimal, unsigned ones and enums unsigned, chars as 'c', bool as 0/1,
 * floating point '?', char pointers as the quoted string (the pointer if
 * unreadable), other pointers in hex, char arrays as strings, other arrays
 * as "[first, ...]", anonymous members as <class> and <union>; $x$ shows
 * nested structs as {...} and arrays as [...].
 */
#include "probes/btf_pretty.h"
#include "base/base.h"

#include <string.h>

static void object(struct pretty_out *out, const struct btf *b, uint32_t type,
		   const struct uaccess *acc, bool is_addr, bool all, int depth);

static void integer(struct pretty_out *out, const struct btf_info *i, const struct uaccess *acc,
		    bool is_addr, enum piece_fmt fmt)
{
	struct scalar sc = { (int)i->size, i->is_signed && !i->is_enum && fmt != PIECE_HEX &&
			     fmt != PIECE_STRING };
	struct uaccess v;

	if (i->size != 1 && i->size != 2 && i->size != 4 && i->size != 8) {
		pretty_text(out, "?");
		return;
	}
	v = access_plus(acc, (struct step){ .op = is_addr ? STEP_LOAD : STEP_CONV, .sc = sc });
	pretty_value(out, fmt, &v, 0);
}

static void member(struct pretty_out *out, const struct btf *b, uint32_t holder, unsigned k,
		   const struct uaccess *acc, bool all, int depth)
{
	const char *name;
	uint32_t mtype, off, bits;
	struct btf_info mi;
	struct uaccess at;

	btf_member_at(b, holder, k, &name, &mtype, &off, &bits);
	btf_resolve(b, mtype, &mi);
	if (*name)
		pretty_text(out, arena_printf(".%s=", name));
	else
		pretty_text(out, mi.is_union ? "<union>=" : "<class>=");
	at = access_plus(acc, (struct step){ .op = STEP_ADD, .k = off / 8 });
	if (bits) {
		struct scalar unit = { (int)mi.size, false };

		if ((mi.size != 1 && mi.size != 2 && mi.size != 4 && mi.size != 8) ||
		    off % 8 + bits > mi.size * 8) {
			pretty_text(out, "?");
			return;
		}
		at = access_plus(&at, (struct step){ .op = STEP_LOAD, .sc = unit });
		at = access_plus(&at, (struct step){ .op = STEP_BITS, .k = off % 8, .bits = (int)bits,
					      .sc = { 8, mi.is_signed && !mi.is_enum } });
		pretty_value(out, mi.is_signed && !mi.is_enum ? PIECE_DEC : PIECE_UDEC, &at, 0);
		return;
	}
	object(out, b, mtype, &at, true, all, depth + 1);
}

static void aggregate(struct pretty_out *out, const struct btf *b, uint32_t type,
		      const struct uaccess *acc, bool is_addr, bool all, int depth)
{
	const char *name;
	uint32_t mtype, off, bits;

	if (pretty_elided(out, depth, all, is_addr, "{...}"))
		return;
	pretty_text(out, "{");
	for (unsigned k = 0; btf_member_at(b, type, k, &name, &mtype, &off, &bits); k++) {
		if (k)
			pretty_text(out, ", ");
		member(out, b, type, k, acc, all, depth);
	}
	pretty_text(out, "}");
}

static void array(struct pretty_out *out, const struct btf *b, const struct btf_info *i,
		  const struct uaccess *acc, bool is_addr, bool all, int depth)
{
	struct btf_info elem;

	if (pretty_elided(out, depth, all, is_addr, "[...]"))
		return;
	if (!i->nelems) {
		pretty_text(out, "?");	/* a flexible array member */
		return;
	}
	btf_resolve(b, i->target, &elem);
	if (elem.cls == BTF_C_INT && elem.size == 1 && elem.is_char) {
		pretty_value(out, PIECE_CHARS, acc, (int)(i->nelems < 4096 ? i->nelems : 4096));
		return;
	}
	pretty_text(out, "[");
	object(out, b, i->target, acc, true, all, depth + 1);
	pretty_text(out, ", ...]");
}

static void object(struct pretty_out *out, const struct btf *b, uint32_t type,
		   const struct uaccess *acc, bool is_addr, bool all, int depth)
{
	struct btf_info i, target;

	btf_resolve(b, type, &i);
	switch (i.cls) {
	case BTF_C_STRUCT:
		aggregate(out, b, type, acc, is_addr, all, depth);
		break;
	case BTF_C_ARRAY:
		array(out, b, &i, acc, is_addr, all, depth);
		break;
	case BTF_C_PTR:
		btf_resolve(b, i.target, &target);
		integer(out, &i, acc, is_addr, target.cls == BTF_C_INT && target.size == 1 &&
			target.is_char ? PIECE_STRING : PIECE_HEX);
		break;
	case BTF_C_INT:
		integer(out, &i, acc, is_addr, i.is_char && i.size == 1 ? PIECE_CHAR :
			i.is_signed && !i.is_enum ? PIECE_DEC : PIECE_UDEC);
		break;
	default:
		pretty_text(out, "?");
		break;
	}
}

void btf_pretty(struct pretty_out *out, const struct btf *b, uint32_t type,
		const struct uaccess *acc, bool is_addr, bool all, bool top)
{
	struct btf_info i, target;

	btf_resolve(b, type, &i);
	if (top && i.cls == BTF_C_PTR) {
		btf_resolve(b, i.target, &target);
		if (target.cls == BTF_C_STRUCT) {
			struct uaccess ptr = is_addr ?
				access_plus(acc, (struct step){ .op = STEP_LOAD, .sc = { 8, false } }) : *acc;

			aggregate(out, b, i.target, &ptr, true, all, 0);
			return;
		}
	}
	object(out, b, type, acc, is_addr, all, 0);
}
