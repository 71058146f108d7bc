/*
 * dwarf_names.c - qualified C++ names from DWARF. See dwarf_names.h.
 *
 * libdw has no parent links, so one walk over every unit records the
 * scope of each subprogram DIE (declarations in classes included); a
 * function's definition then takes the scope of the last DIE its
 * DW_AT_specification / DW_AT_abstract_origin chain reaches.
 */
#include "probes/dwarf_names.h"
#include "probes/dwarf_vars.h"
#include "probes/cxxname.h"
#include "base/base.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct scope_ent {
	const void *die;	/* Dwarf_Die.addr: unique across units */
	size_t scope;		/* offset of "ns::C::" in the map's text */
};

struct scope_map {
	struct scope_ent *v;
	size_t n, cap;
	struct strbuf text;	/* NUL-terminated scopes, "" at offset 0 */
};

static void add_ent(struct scope_map *m, const void *die, size_t scope)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->v = realloc(m->v, m->cap * sizeof(*m->v));
		if (!m->v)
			fatal("out of memory");
	}
	m->v[m->n++] = (struct scope_ent){ die, scope };
}

/* The scope NAME opens inside SCOPE: "SCOPENAME::". */
static size_t push_scope(struct scope_map *m, size_t scope, const char *name)
{
	char *outer = strdup(m->text.buf + scope);
	size_t off = m->text.len;

	if (!outer)
		fatal("out of memory");
	sb_printf(&m->text, "%s%s::", outer, name);
	sb_putc(&m->text, 0);
	free(outer);
	return off;
}

static void walk(struct scope_map *m, Dwarf_Die *parent, size_t scope);

/* Classes in a function's body (a lambda's closure) are scoped from the global scope. */
static void walk_body(struct scope_map *m, Dwarf_Die *func)
{
	Dwarf_Die d;

	if (dwarf_child(func, &d) != 0)
		return;
	do {
		if (dwarf_tag(&d) == DW_TAG_lexical_block)
			walk_body(m, &d);
		else
			walk(m, &d, 0);
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* D and the subprograms inside it, in their scopes. */
static void walk(struct scope_map *m, Dwarf_Die *d, size_t scope)
{
	const char *name;
	Dwarf_Die c;

	switch (dwarf_tag(d)) {
	case DW_TAG_subprogram:
		add_ent(m, d->addr, scope);
		walk_body(m, d);
		return;
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (!dwarf_haschildren(d))
			return;
		name = dwarf_diename(d);
		scope = push_scope(m, scope, name ? name : "");	/* anonymous: "" */
		break;
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
		break;
	default:
		return;
	}
	if (dwarf_child(d, &c) != 0)
		return;
	do
		walk(m, &c, scope);
	while (dwarf_siblingof(&c, &c) == 0);
}

static int by_die(const void *a, const void *b)
{
	const struct scope_ent *x = a, *y = b;

	return x->die < y->die ? -1 : x->die > y->die;
}

static void build_map(struct scope_map *m, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	sb_putc(&m->text, 0);
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(m, &cu, 0);
		off = next;
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_die);
}

static const char *scope_of(const struct scope_map *m, const Dwarf_Die *die)
{
	struct scope_ent key = { die->addr, 0 };
	const struct scope_ent *e = bsearch(&key, m->v, m->n, sizeof(*m->v), by_die);

	return e ? m->text.buf + e->scope : NULL;
}

/* DIE's qualified name, SUFFIX (a part's ".cold") appended; NULL without a name. */
static const char *qualified(const struct scope_map *m, Dwarf_Die *die, const char *suffix)
{
	const char *base = dwarf_diename(die), *scope = "";
	Dwarf_Die cur = *die;

	if (!base)
		return NULL;
	for (int hops = 0; hops < 8; hops++) {
		const char *s = scope_of(m, &cur);
		Dwarf_Attribute a;

		if (s)
			scope = s;
		if (!(dwarf_attr(&cur, DW_AT_specification, &a) ||
		      dwarf_attr(&cur, DW_AT_abstract_origin, &a)) || !dwarf_formref_die(&a, &cur))
			break;
	}
	return arena_printf("%s%s%s", scope, base, suffix);
}

void dwarf_name_funcs(struct ubinary *b)
{
	struct scope_map m = { 0 };
	bool any = false;
	Dwarf *dw;

	if (b->dwnames_loaded)
		return;
	b->dwnames_loaded = true;
	for (size_t i = 0; i < b->nfuncs; i++)
		any |= b->funcs[i].demangled != NULL;
	if (!any || !(dw = dwarf_handle(b)))
		return;
	build_map(&m, dw);
	for (size_t i = 0; i < b->nfuncs; i++) {
		struct ufunc *f = &b->funcs[i];
		struct dwarf_func *df;

		if (f->demangled && (df = dwarf_func_find(b, f->name, f->vaddr)))
			f->dwname = qualified(&m, dwarf_func_die(df), cxx_kept_suffix(f->name));
	}
	free(m.v);
	sb_free(&m.text);
}
