/*
 * dwarf_inline.c - inlined copies, labels and call sites from the DIE
 * tree. See dwarf_inline.h.
 */
#include "probes/dwarf_inline.h"
#include "base/base.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <string.h>

struct site_list {
	struct dwarf_site *v;
	size_t n, cap;
};

struct call_list {
	struct dwarf_call *v;
	size_t n, cap;
};

static void push_site(struct site_list *l, struct dwarf_site s)
{
	if (l->n == l->cap) {
		struct dwarf_site *grown = arena_alloc(sizeof(*grown) * (l->cap = l->cap * 2 + 16));

		if (l->n)
			memcpy(grown, l->v, sizeof(*grown) * l->n);
		l->v = grown;
	}
	l->v[l->n++] = s;
}

/* Where code starts: entry_pc, low_pc, or the first range's start. */
static bool die_start(Dwarf_Die *die, uint64_t *pc)
{
	Dwarf_Addr a, base, end;

	if (dwarf_entrypc(die, &a) == 0 || dwarf_lowpc(die, &a) == 0 ||
	    dwarf_ranges(die, 0, &base, &a, &end) > 0) {
		*pc = a;
		return true;
	}
	return false;
}

static const char *die_where(Dwarf_Die *die)
{
	const char *file = dwarf_decl_file(die);
	int line;

	if (!file)
		return NULL;
	return dwarf_decl_line(die, &line) == 0 ? arena_printf("%s:%d", file, line) :
						  arena_strdup(file);
}

static struct dwarf_site make_site(Dwarf_Die *die, Dwarf_Off func_off, uint64_t pc)
{
	return (struct dwarf_site){ arena_strdup(dwarf_diename(die)), pc, die_where(die),
				    dwarf_dieoffset(die), func_off };
}

/* The inlined copies under DIE; FUNC is the concrete function around them, or NULL. */
static void walk_inlines(Dwarf_Die *die, Dwarf_Die *func, struct site_list *l, int depth)
{
	Dwarf_Die child;
	uint64_t pc;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			/* an abstract instance (DW_AT_inline) has no code; its copies are elsewhere */
			if (die_start(&child, &pc))
				walk_inlines(&child, &child, l, depth + 1);
			break;
		case DW_TAG_inlined_subroutine:
			if (func && dwarf_diename(&child) && die_start(&child, &pc))
				push_site(l, make_site(&child, dwarf_dieoffset(func), pc));
			walk_inlines(&child, func, l, depth + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			walk_inlines(&child, func, l, depth + 1);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/*
 * Is there an abstract instance root (a subprogram with DW_AT_inline) that
 * PATTERN names under DIE? Such roots sit at a unit's top level or in its
 * namespaces, so this is a quick look that spares the whole walk of a big
 * library's DWARF when no inlined function matches.
 */
static bool has_abstract_root(Dwarf_Die *die, const char *pattern, int depth)
{
	Dwarf_Die child;
	const char *name;

	if (depth > 16 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram && dwarf_hasattr(&child, DW_AT_inline) &&
		    (name = dwarf_diename(&child)) && !fnmatch(pattern, name, 0))
			return true;
		if (tag == DW_TAG_namespace && has_abstract_root(&child, pattern, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Calls FN on the DIE of each unit of DW until it returns true. */
static bool any_unit(Dwarf *dw, bool (*fn)(Dwarf_Die *cu, void *arg), void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu) && fn(&cu, arg))
			return true;
		off = next;
	}
	return false;
}

static bool unit_has_root(Dwarf_Die *cu, void *pattern)
{
	return has_abstract_root(cu, pattern, 0);
}

static bool unit_inlines(Dwarf_Die *cu, void *list)
{
	walk_inlines(cu, NULL, list, 0);
	return false;
}

size_t dwarf_inlines(struct ubinary *b, const char *pattern, const struct dwarf_site **out)
{
	Dwarf *dw = dwarf_handle(b);
	struct site_list l = { 0 };

	*out = NULL;
	if (!b->inlines_loaded) {
		if (!any_unit(dw, unit_has_root, (void *)pattern))
			return 0;
		b->inlines_loaded = true;
		any_unit(dw, unit_inlines, &l);
		b->inlines = l.v;
		b->ninlines = l.n;
	}
	*out = b->inlines;
	return b->ninlines;
}

static void walk_labels(Dwarf_Die *die, Dwarf_Off func_off, struct site_list *l, int depth)
{
	Dwarf_Die child;
	Dwarf_Addr pc;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_label && dwarf_diename(&child) && dwarf_lowpc(&child, &pc) == 0)
			push_site(l, make_site(&child, func_off, pc));
		else if (tag == DW_TAG_lexical_block)
			walk_labels(&child, func_off, l, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

size_t dwarf_labels(struct dwarf_func *f, struct dwarf_site **out)
{
	struct site_list l = { 0 };
	Dwarf_Die *func = dwarf_func_die(f);

	walk_labels(func, dwarf_dieoffset(func), &l, 0);
	*out = l.v;
	return l.n;
}

/*
 * A call site's return address: DWARF 5's DW_AT_call_return_pc, or the
 * GNU extension's DW_AT_low_pc (gcc -gdwarf-4), which is the same address.
 */
static bool call_return_pc(Dwarf_Die *site, uint64_t *pc)
{
	Dwarf_Attribute a;
	Dwarf_Addr v;

	if (dwarf_attr(site, DW_AT_call_return_pc, &a) && dwarf_formaddr(&a, &v) == 0) {
		*pc = v;
		return true;
	}
	if (dwarf_lowpc(site, &v) != 0)
		return false;
	*pc = v;
	return true;
}

/* The function a call site calls, by its origin (a declaration or the definition). */
static bool call_origin(Dwarf_Die *site, Dwarf_Die *callee)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(site, DW_AT_call_origin, &a) && !dwarf_attr(site, DW_AT_abstract_origin, &a))
		return false;
	if (!dwarf_formref_die(&a, callee))
		return false;
	/* an inlined copy's origin is the abstract instance: its own name */
	if (dwarf_attr(callee, DW_AT_specification, &a) || dwarf_attr(callee, DW_AT_abstract_origin, &a))
		return dwarf_formref_die(&a, callee) != NULL;
	return true;
}

static void walk_calls(Dwarf_Die *die, struct call_list *l, int depth)
{
	Dwarf_Die child, callee;
	Dwarf_Addr entry;
	uint64_t pc;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			/* a tail call returns to F's caller: never from F */
			if (dwarf_hasattr(&child, DW_AT_call_tail_call) ||
			    dwarf_hasattr(&child, DW_AT_GNU_tail_call) ||
			    !call_origin(&child, &callee) || !dwarf_diename(&callee) ||
			    !call_return_pc(&child, &pc))
				continue;
			if (l->n == l->cap) {
				struct dwarf_call *grown = arena_alloc(sizeof(*grown) *
								       (l->cap = l->cap * 2 + 16));

				if (l->n)
					memcpy(grown, l->v, sizeof(*grown) * l->n);
				l->v = grown;
			}
			l->v[l->n] = (struct dwarf_call){ arena_strdup(dwarf_diename(&callee)), pc, 0 };
			if (dwarf_lowpc(&callee, &entry) == 0)
				l->v[l->n].entry = entry;
			l->n++;
		} else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			walk_calls(&child, l, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

size_t dwarf_calls(struct dwarf_func *f, struct dwarf_call **out)
{
	struct call_list l = { 0 };

	walk_calls(dwarf_func_die(f), &l, 0);
	*out = l.v;
	return l.n;
}

struct dwarf_func *dwarf_site_func(struct ubinary *b, const struct dwarf_site *site,
				   bool is_label)
{
	Dwarf *dw = dwarf_handle(b);
	Dwarf_Die func, scope;

	if (!dw || !dwarf_offdie(dw, site->func_off, &func) ||
	    !dwarf_offdie(dw, is_label ? site->func_off : site->off, &scope))
		return NULL;
	return dwarf_func_scope(b, &func, &scope, site->pc, site->where, is_label);
}
