/*
 * dwarf_pretty.c - stap's pretty-printing of DWARF-typed values. See
 * dwarf_pretty.h. What stap 4.8 prints, as its modules print it:
 * signed integers in decimal, unsigned ones and enums unsigned (stap's
 * %u, even for an enum's negative values), chars as 'c' with C escapes,
 * floating point as '?', char pointers as the quoted string (the pointer
 * if NULL or unreadable), other pointers in hex, char arrays as quoted
 * strings, other arrays as their first element and ", ...", anonymous
 * members as <class> and <union>; $x$ shows nested structs as {...} and
 * arrays as [...]. Bit-fields print their value (stap 4.8 prints 0).
 */
#include "probes/dwarf_pretty.h"
#include "base/base.h"

#include <dwarf.h>
#include <string.h>


/* ---- types ---------------------------------------------------------------- */

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	       dwarf_peel_type(&t, out) == 0;
}

static Dwarf_Word udata(Dwarf_Die *die, int attr, Dwarf_Word dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	return dwarf_attr_integrate(die, attr, &a) && dwarf_formudata(&a, &v) == 0 ? v : dflt;
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* A one-byte character type: its elements print as chars, its arrays as strings. */
static bool is_char(Dwarf_Die *t)
{
	Dwarf_Word enc = udata(t, DW_AT_encoding, 0);

	return dwarf_tag(t) == DW_TAG_base_type && udata(t, DW_AT_byte_size, 0) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

/* The integer of TYPE at ACC, loaded (IS_ADDR) or narrowed, as FMT. */
static void integer(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		    bool is_addr, enum piece_fmt fmt)
{
	int size = (int)udata(type, DW_AT_byte_size, 8);
	Dwarf_Word enc = udata(type, DW_AT_encoding, DW_ATE_unsigned);
	struct scalar sc = { size, enc == DW_ATE_signed || enc == DW_ATE_signed_char };
	struct uaccess v;

	if (dwarf_tag(type) == DW_TAG_enumeration_type || dwarf_tag(type) == DW_TAG_pointer_type)
		sc.is_signed = false;
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		pretty_text(out, "?");
		return;
	}
	v = access_plus(acc, (struct step){ .op = is_addr ? STEP_LOAD : STEP_CONV, .sc = sc });
	pretty_value(out, fmt, &v, 0);
}

static void base_value(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		       bool is_addr)
{
	Dwarf_Word enc = udata(type, DW_AT_encoding, DW_ATE_unsigned);

	if (is_char(type))
		integer(out, type, acc, is_addr, PIECE_CHAR);
	else if (enc == DW_ATE_signed)
		integer(out, type, acc, is_addr, PIECE_DEC);
	else if (enc == DW_ATE_unsigned || enc == DW_ATE_boolean)
		integer(out, type, acc, is_addr, PIECE_UDEC);
	else
		pretty_text(out, "?");	/* floating point, decimal float, ... */
}

static void pointer_value(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
			  bool is_addr)
{
	Dwarf_Die target;
	bool to_char = type_of(type, &target) && is_char(&target);

	integer(out, type, acc, is_addr, to_char ? PIECE_STRING : PIECE_HEX);
}

static void object(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		   bool is_addr, bool all, int depth);

/* A bit-field member at byte offset BYTE of ACC (an address). */
static void bitfield(struct pretty_out *out, Dwarf_Die *member, Dwarf_Die *type,
		     const struct uaccess *acc)
{
	Dwarf_Word size = udata(type, DW_AT_byte_size, 4), bits = udata(member, DW_AT_bit_size, 0);
	Dwarf_Word bit_off = udata(member, DW_AT_data_bit_offset, ~0ULL);
	Dwarf_Word enc = udata(type, DW_AT_encoding, DW_ATE_unsigned);
	Dwarf_Word unit = size * 8, first;
	struct uaccess v;

	if (bit_off == ~0ULL || (size != 1 && size != 2 && size != 4 && size != 8) || !bits ||
	    (bit_off % unit) + bits > unit) {
		pretty_text(out, "?");
		return;
	}
	first = bit_off / unit * size;
	v = access_plus(acc, (struct step){ .op = STEP_ADD, .k = (int64_t)first });
	v = access_plus(&v, (struct step){ .op = STEP_LOAD, .sc = { (int)size, false } });
	v = access_plus(&v, (struct step){ .op = STEP_BITS, .k = (int64_t)(bit_off % unit),
				     .bits = (int)bits, .sc = { 8, enc == DW_ATE_signed } });
	pretty_value(out, dwarf_tag(type) == DW_TAG_enumeration_type || enc != DW_ATE_signed ?
			  PIECE_UDEC : PIECE_DEC, &v, 0);
}

static void member(struct pretty_out *out, Dwarf_Die *m, const struct uaccess *acc, bool all,
		   int depth)
{
	Dwarf_Die type;
	bool typed = type_of(m, &type);
	const char *name = dwarf_diename(m);
	Dwarf_Attribute a;
	Dwarf_Word off = 0;
	struct uaccess at;

	if (name)
		pretty_text(out, arena_printf(".%s=", name));
	else
		pretty_text(out, typed && dwarf_tag(&type) == DW_TAG_union_type ? "<union>=" :
			    "<class>=");
	if (dwarf_attr(m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &off)) {
		pretty_text(out, "?");	/* a location expression, not an offset */
		return;
	}
	if (typed && dwarf_hasattr(m, DW_AT_bit_size)) {
		bitfield(out, m, &type, acc);
		return;
	}
	at = access_plus(acc, (struct step){ .op = STEP_ADD, .k = (int64_t)off });
	object(out, typed ? &type : NULL, &at, true, all, depth + 1);
}

static void aggregate(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		      bool is_addr, bool all, int depth)
{
	Dwarf_Die m;
	bool first = true;

	if (pretty_elided(out, depth, all, is_addr, "{...}"))
		return;
	pretty_text(out, "{");
	if (dwarf_child(type, &m) == 0) {
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			if (!first)
				pretty_text(out, ", ");
			first = false;
			member(out, &m, acc, all, depth);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	pretty_text(out, "}");
}

/* Elements of an array type: the product of its dimensions (0 if one is unknown). */
static Dwarf_Word array_count(Dwarf_Die *type)
{
	Dwarf_Word count = 1;
	Dwarf_Die sub;

	if (dwarf_child(type, &sub) != 0)
		return 0;
	do {
		Dwarf_Word n;

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		n = udata(&sub, DW_AT_count, 0);
		if (!n && dwarf_hasattr(&sub, DW_AT_upper_bound))
			n = udata(&sub, DW_AT_upper_bound, 0) + 1 - udata(&sub, DW_AT_lower_bound, 0);
		count *= n;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return count;
}

static void array(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		  bool is_addr, bool all, int depth)
{
	Dwarf_Die elem;
	bool typed = type_of(type, &elem);
	Dwarf_Word count = array_count(type);

	if (pretty_elided(out, depth, all, is_addr, "[...]"))
		return;
	if (!count) {
		pretty_text(out, "?");	/* a flexible array member */
		return;
	}
	if (typed && is_char(&elem)) {
		pretty_value(out, PIECE_CHARS, acc, (int)(count < 4096 ? count : 4096));
		return;
	}
	pretty_text(out, "[");
	object(out, typed ? &elem : NULL, acc, true, all, depth + 1);
	pretty_text(out, ", ...]");
}

static void object(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		   bool is_addr, bool all, int depth)
{
	int tag = type ? dwarf_tag(type) : 0;

	if (is_aggregate(tag))
		aggregate(out, type, acc, is_addr, all, depth);
	else if (tag == DW_TAG_array_type)
		array(out, type, acc, is_addr, all, depth);
	else if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		 tag == DW_TAG_rvalue_reference_type)
		pointer_value(out, type, acc, is_addr);
	else if (tag == DW_TAG_base_type)
		base_value(out, type, acc, is_addr);
	else if (tag == DW_TAG_enumeration_type)
		integer(out, type, acc, is_addr, PIECE_UDEC);
	else
		pretty_text(out, "?");
}

void dwarf_pretty(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		  bool is_addr, bool all, bool top)
{
	Dwarf_Die target;
	int tag = type ? dwarf_tag(type) : 0;

	/* $p$ of a struct pointer shows the struct */
	if (top && (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type) &&
	    type_of(type, &target) && is_aggregate(dwarf_tag(&target))) {
		struct uaccess ptr = is_addr ?
			access_plus(acc, (struct step){ .op = STEP_LOAD, .sc = { 8, false } }) : *acc;

		aggregate(out, &target, &ptr, true, all, 0);
		return;
	}
	object(out, type, acc, is_addr, all, 0);
}
