/*
 * dwarf_vars.c - target variables of user-space functions from DWARF.
 * See dwarf_vars.h for what is supported.
 *
 * Pass 2 turns each target variable into a plan: a C expression for a
 * starting value over the probe's registers (c->regs), then steps (add an
 * offset, add a scaled script index, load from user memory, narrow to the
 * type's width). Pass 3 emits the steps; a failing load raises stap's
 * "read fault" error, catchable with try/catch.
 */
#include "probes/dwarf_vars.h"
#include "probes/cast_header.h"
#include "probes/dwarf_pretty.h"
#include "probes/providers.h"
#include "probes/uvars.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the DWARF of one binary ---------------------------------------------- */

struct func_entry {
	uint64_t entry;
	Dwarf_Off off;
};

struct cu_info {
	Dwarf_Off off;			/* of the CU's DIE */
	signed char valid_locs;		/* see cu_valid_locs(); -1: not known yet */
};

struct dwarf_file {
	Dwarf *dw;
	struct func_entry *funcs;	/* sorted by entry */
	size_t n, cap;
	struct cu_info *cus;		/* in file order */
	size_t ncus;
	Elf *elf;			/* the binary itself: its .eh_frame */
	Dwarf_CFI *cfi[2];		/* .eh_frame, .debug_frame; NULL if absent */
	bool cfi_loaded;
};

struct dwarf_func {
	struct dwarf_file *df;
	struct ubinary *bin;		/* the binary it is in */
	Dwarf_Die die;			/* the concrete (out-of-line) subprogram */
	Dwarf_Die scope;		/* whose variables: die, or an inlined copy in it */
	uint64_t entry;
	const char *where;		/* "file:line" or NULL */
	bool blocks;			/* a statement's: the blocks around it have variables too */
};

static bool has_debug_info(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			return true;
	}
	return false;
}

/* Room for one more element in the array *V of *N elements of SIZE bytes (capacity *CAP). */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 256;
	v = realloc(v, *cap * size);
	if (!v)
		fatal("out of memory");
	return v;
}

/* The first index in [0, N) whose key is KEY or more; KEY_AT gives V's keys, ascending. */
static size_t lower_bound(const void *v, size_t n, uint64_t key,
			  uint64_t (*key_at)(const void *v, size_t i))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at(v, mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t func_key(const void *v, size_t i)
{
	return ((const struct func_entry *)v)[i].entry;
}

static uint64_t cu_key(const void *v, size_t i)
{
	return ((const struct cu_info *)v)[i].off;
}

static void add_entry(struct dwarf_file *df, uint64_t entry, Dwarf_Off off)
{
	df->funcs = grow(df->funcs, df->n, &df->cap, sizeof(*df->funcs));
	df->funcs[df->n++] = (struct func_entry){ entry, off };
}

/*
 * A function's entry is its entry_pc/low_pc; a function split into hot
 * and cold parts has only ranges, and any range start may be the entry
 * (the symbol decides which).
 */
static int collect_func(Dwarf_Die *func, void *arg)
{
	struct dwarf_file *df = arg;
	Dwarf_Addr pc, base, start, end;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(func, &pc) == 0) {
		add_entry(df, pc, dwarf_dieoffset(func));
		return DWARF_CB_OK;
	}
	while ((off = dwarf_ranges(func, off, &base, &start, &end)) > 0)
		add_entry(df, start, dwarf_dieoffset(func));
	return DWARF_CB_OK;
}

static int by_entry(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static struct dwarf_file *dwarf_load(struct ubinary *b)
{
	struct dwarf_file *df;
	Dwarf_Off off = 0, next;
	size_t hsize, capcus = 0;
	Elf *elf;

	if (b->dwarf_loaded)
		return b->dwarf;
	b->dwarf_loaded = true;
	elf = has_debug_info(b->di.file.elf) ? b->di.file.elf :
	      has_debug_info(b->di.separate.elf) ? b->di.separate.elf : NULL;
	if (!elf)
		return NULL;
	df = arena_alloc(sizeof(*df));
	df->elf = b->di.file.elf;
	df->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!df->dw)
		return NULL;
	while (dwarf_nextcu(df->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(df->dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, collect_func, df, 0);
		df->cus = grow(df->cus, df->ncus, &capcus, sizeof(*df->cus));
		df->cus[df->ncus++] = (struct cu_info){ off + hsize, -1 };
		off = next;
	}
	if (df->n)
		qsort(df->funcs, df->n, sizeof(*df->funcs), by_entry);
	b->dwarf = df;
	return df;
}

static int by_line_addr(const void *a, const void *b)
{
	const struct line_addr *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The function's source file; libdw reads DWARF 5's file 0 (clang's
 * DW_AT_decl_file) as none, and then, as stap, the line table's file at
 * the entry names it.
 */
static const char *func_file(Dwarf_Die *die, uint64_t entry)
{
	const char *file = dwarf_decl_file(die);
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (file || !dwarf_diecu(die, &cu, NULL, NULL) || !(l = dwarf_getsrc_die(&cu, entry)))
		return file;
	return dwarf_linesrc(l, NULL, NULL);
}

/* Where DIE is declared; a compiler-made one (a lambda's operator()) is where its code is. */
static const char *decl_where(Dwarf_Die *die, uint64_t entry)
{
	const char *file = func_file(die, entry);
	Dwarf_Die cu;
	Dwarf_Line *l;
	int line;

	if (!file)
		return NULL;
	if (dwarf_decl_line(die, &line) == 0)
		return arena_printf("%s:%d", file, line);
	if (dwarf_diecu(die, &cu, NULL, NULL) && (l = dwarf_getsrc_die(&cu, entry)) &&
	    dwarf_lineno(l, &line) == 0)
		return arena_printf("%s:%d", file, line);
	return arena_strdup(file);
}

struct dwarf_func *dwarf_func_find(struct ubinary *b, const char *name, uint64_t entry)
{
	struct dwarf_file *df = dwarf_load(b);
	struct dwarf_func *best = NULL;
	size_t lo;

	if (!df)
		return NULL;
	lo = lower_bound(df->funcs, df->n, entry, func_key);
	/* several DIEs may start here (aliases): prefer the one with the symbol's name */
	for (; lo < df->n && df->funcs[lo].entry == entry; lo++) {
		Dwarf_Die die;
		const char *dn;

		if (!dwarf_offdie(df->dw, df->funcs[lo].off, &die))
			continue;
		dn = dwarf_diename(&die);
		if (best && !(dn && !strcmp(dn, name)))
			continue;
		if (!best)
			best = arena_alloc(sizeof(*best));
		best->df = df;
		best->bin = b;
		best->die = die;
		best->scope = die;
		best->entry = entry;
		best->where = decl_where(&die, entry);
		if (dn && !strcmp(dn, name))
			break;
	}
	return best;
}

struct dwarf_func *dwarf_func_at(struct ubinary *b, uint64_t pc)
{
	struct dwarf_file *df = dwarf_load(b);
	size_t i;

	if (!df)
		return NULL;
	/* the nearest entries at or below pc first: nested functions are rare in C */
	for (i = df->n; i > 0 && df->funcs[i - 1].entry > pc; i--)
		;
	for (; i > 0; i--) {
		Dwarf_Die die;
		struct dwarf_func *f;

		if (!dwarf_offdie(df->dw, df->funcs[i - 1].off, &die) || dwarf_haspc(&die, pc) != 1)
			continue;
		f = arena_alloc(sizeof(*f));
		f->df = df;
		f->bin = b;
		f->die = die;
		f->scope = die;
		f->entry = df->funcs[i - 1].entry;
		f->where = decl_where(&die, f->entry);
		f->blocks = true;
		return f;
	}
	return NULL;
}

struct dwarf_func *dwarf_func_scope(struct ubinary *b, Dwarf_Die *func, Dwarf_Die *scope,
				    uint64_t pc, const char *where, bool blocks)
{
	struct dwarf_file *df = dwarf_load(b);
	struct dwarf_func *f;

	if (!df)
		return NULL;
	f = arena_alloc(sizeof(*f));
	f->df = df;
	f->bin = b;
	f->die = *func;
	f->scope = *scope;
	f->entry = pc;
	f->where = where;
	f->blocks = blocks;
	return f;
}

const char *dwarf_func_where(const struct dwarf_func *f)
{
	return f ? f->where : NULL;
}

Dwarf *dwarf_handle(struct ubinary *b)
{
	struct dwarf_file *df = dwarf_load(b);

	return df ? df->dw : NULL;
}

Dwarf_Die *dwarf_func_die(struct dwarf_func *f)
{
	return &f->die;
}

static bool file_matches(const char *pattern, const char *file)
{
	const char *base = strrchr(file, '/');
	size_t pl = strlen(pattern), fl = strlen(file);

	if (!fnmatch(pattern, file, 0) || (base && !fnmatch(pattern, base + 1, 0)))
		return true;
	/* a relative path matches the tail of the recorded one */
	return pl < fl && file[fl - pl - 1] == '/' && !strcmp(file + fl - pl, pattern);
}

bool dwarf_where_matches(const char *where, const char *spec)
{
	const char *colon = strrchr(spec, ':'), *wcolon = where ? strrchr(where, ':') : NULL;
	const char *file_pat = colon ? arena_strndup(spec, (size_t)(colon - spec)) : spec;

	if (!wcolon || !file_matches(file_pat, arena_strndup(where, (size_t)(wcolon - where))))
		return false;
	return !colon || atoi(colon + 1) == atoi(wcolon + 1);
}

bool dwarf_func_in_file(struct ubinary *b, const char *name, uint64_t entry, const char *spec)
{
	struct dwarf_func *f = dwarf_func_find(b, name, entry);
	const char *colon = strrchr(spec, ':');
	const char *file_pat = colon ? arena_strndup(spec, (size_t)(colon - spec)) : spec;
	const char *file;
	int line;

	if (!f || !(file = func_file(&f->die, f->entry)) || !file_matches(file_pat, file))
		return false;
	if (!colon)
		return true;
	return dwarf_decl_line(&f->die, &line) == 0 && line == atoi(colon + 1);
}

static bool have_addr(const struct line_addr *v, int n, uint64_t a)
{
	for (int i = 0; i < n; i++)
		if (v[i].addr == a)
			return true;
	return false;
}

/* Rows of one CU's line table at FILE:LINE that start a statement. */
static int cu_line_addrs(Dwarf_Die *cu, const char *file_pat, int line, struct line_addr *out,
			 int n, int max)
{
	Dwarf_Lines *lines;
	size_t nlines;

	if (dwarf_getsrclines(cu, &lines, &nlines))
		return n;
	for (size_t i = 0; i < nlines && n < max; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		const char *file;
		bool stmt;
		int lno;

		if (!l || dwarf_lineno(l, &lno) || lno != line || dwarf_linebeginstatement(l, &stmt) ||
		    !stmt || dwarf_lineaddr(l, &addr) || !(file = dwarf_linesrc(l, NULL, NULL)) ||
		    !file_matches(file_pat, file) || have_addr(out, n, addr))
			continue;
		out[n++] = (struct line_addr){ .addr = addr, .file = file };
	}
	return n;
}

int dwarf_line_addrs(struct ubinary *b, const char *func_pat, const char *file_pat, int line,
		     struct line_addr *out, int max)
{
	struct dwarf_file *df = dwarf_load(b);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int n = 0, kept = 0;

	if (!df)
		return -1;
	while (dwarf_nextcu(df->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(df->dw, off + hsize, &cu))
			n = cu_line_addrs(&cu, file_pat, line, out, n, max);
		off = next;
	}
	/* the first (lowest) address of the line in each function FUNC_PAT names */
	qsort(out, n, sizeof(*out), by_line_addr);
	for (int i = 0; i < n; i++) {
		struct dwarf_func *f = dwarf_func_at(b, out[i].addr);
		const char *name = f ? dwarf_diename(&f->die) : NULL;
		bool dup = false;

		if (!name || fnmatch(func_pat, name, 0))
			continue;
		for (int k = 0; k < kept; k++)
			dup |= out[k].func == f->entry;
		if (dup)
			continue;
		out[kept] = out[i];
		out[kept].func = f->entry;
		out[kept].func_name = arena_strdup(name);
		kept++;
	}
	return kept;
}

/* ---- where a .function probe sits ------------------------------------------ */

/* gcc before 4.5 could describe the prologue wrongly even when optimizing. */
static bool old_gcc(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p, *ver;
	size_t n;

	if (!dwarf_attr_integrate(cu, DW_AT_producer, &a) || !(p = dwarf_formstring(&a)) ||
	    strncmp(p, "GNU ", 4))
		return false;
	/* "GNU C17 12.2.0 -O2 ...": the version is the third word */
	ver = p + 4 + strcspn(p + 4, " ");
	ver += strspn(ver, " ");
	n = strcspn(ver, " ");
	if (!n || strspn(ver, ".0123456789") < n)
		return false;
	return strverscmp(arena_strndup(ver, n), "4.5") < 0;
}

/* A variable or parameter under SCOPE whose location is a location list. */
static bool has_loclist(Dwarf_Die *scope)
{
	Dwarf_Die d;
	Dwarf_Attribute a;

	if (dwarf_child(scope, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d), form;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
			form = dwarf_attr_integrate(&d, DW_AT_location, &a) ? dwarf_whatform(&a) : 0;
			if (form == DW_FORM_sec_offset)	/* stap counts no loclistx (clang) */
				return true;
		} else if (dwarf_haschildren(&d) && has_loclist(&d)) {
			return true;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/*
 * As stap (and gdb) decide: a CU describes its variables from each
 * function's first instruction on when it has location lists - gcc and
 * clang only emit them when optimizing - unless it is from gcc before
 * 4.5. Unoptimized code's locations hold only after the prologue.
 */
static bool locs_valid(Dwarf_Die *cu)
{
	return !old_gcc(cu) && has_loclist(cu);
}

/* The same for FUNC's CU, which is walked once. */
static bool cu_valid_locs(struct dwarf_file *df, Dwarf_Die *func)
{
	Dwarf_Die cu;
	Dwarf_Off off;
	size_t lo;

	if (!dwarf_diecu(func, &cu, NULL, NULL))
		return false;
	off = dwarf_dieoffset(&cu);
	lo = lower_bound(df->cus, df->ncus, off, cu_key);
	if (lo == df->ncus || df->cus[lo].off != off)
		return locs_valid(&cu);
	if (df->cus[lo].valid_locs < 0)
		df->cus[lo].valid_locs = locs_valid(&cu);
	return df->cus[lo].valid_locs;
}

static uint64_t line_key(const void *v, size_t i)
{
	Dwarf_Addr a = 0;

	dwarf_lineaddr(dwarf_onesrcline((Dwarf_Lines *)v, i), &a);
	return a;
}

/*
 * The end of the prologue as stap finds it: the line-table row after the
 * entry's (gcc -O0 starts one where the parameters are in their stack
 * slots, clang marks it prologue_end), unless the entry's row is itself
 * marked or is in another file than the function, or the next row is
 * past the function.
 */
static uint64_t prologue_end(Dwarf_Die *func, uint64_t entry)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Line *l;
	Dwarf_Addr a;
	const char *file = func_file(func, entry), *src;
	size_t nlines, k;
	bool flag;

	if (!file || !dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &nlines))
		return entry;
	k = lower_bound(lines, nlines, entry, line_key);	/* rows are sorted by address */
	/* the end of the code before may share the entry's address */
	while (k < nlines && !dwarf_lineendsequence(dwarf_onesrcline(lines, k), &flag) && flag)
		k++;
	if (k + 1 >= nlines || !(l = dwarf_onesrcline(lines, k)) || dwarf_lineaddr(l, &a) ||
	    a != entry || (dwarf_lineprologueend(l, &flag) == 0 && flag) ||
	    !(src = dwarf_linesrc(l, NULL, NULL)) || strcmp(src, file))
		return entry;
	l = dwarf_onesrcline(lines, k + 1);
	if (dwarf_lineaddr(l, &a) || dwarf_lineendsequence(l, &flag) || flag ||
	    dwarf_haspc(func, a) != 1)
		return entry;
	return a;
}

/*
 * A function without a frame base (an assembler's DW_TAG_subprogram) has
 * no prologue storing parameters: its probe stays on the entry, so a
 * .call probe sees its first instruction (stap would take the second row).
 */
uint64_t dwarf_func_probe_pc(struct dwarf_func *f)
{
	Dwarf_Attribute a;

	if (cu_valid_locs(f->df, &f->die) ||
	    !dwarf_attr_integrate(&f->die, DW_AT_frame_base, &a))
		return f->entry;
	return prologue_end(&f->die, f->entry);
}

/* ---- types ------------------------------------------------------------------- */

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}

/* The type with typedefs and qualifiers taken off; false for void. */
static bool peeled_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die t;

	if (!die_type(die, &t))
		return false;
	return dwarf_peel_type(&t, out) == 0;
}

static bool is_pointer_tag(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

/* An integer-like type a long can hold; NULL, or why it is not one. */
static const char *scalar_of(Dwarf_Die *t, struct scalar *sc)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned, size = 0;
	int tag = dwarf_tag(t);

	if (is_pointer_tag(tag)) {
		*sc = (struct scalar){ 8, false };
		return NULL;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return "not an integer or pointer";
	if (dwarf_attr(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if (!dwarf_attr(t, DW_AT_byte_size, &a) || dwarf_formudata(&a, &size))
		return "a type of unknown size";
	if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
		return "floating point";
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return "wider than a long";
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die under;

		enc = DW_ATE_unsigned;
		if (peeled_type(t, &under) && dwarf_attr(&under, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
	}
	sc->size = (int)size;
	sc->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return NULL;
}

static void type_name_into(struct strbuf *sb, Dwarf_Die *type, int depth);

/* The name stap's -L prints for the type of DIE ("int", "char const*", "struct s*"). */
static const char *dw_type_name(Dwarf_Die *die)
{
	struct strbuf sb = { 0 };
	Dwarf_Die t;
	const char *r;

	if (!die_type(die, &t))
		return "void";
	type_name_into(&sb, &t, 0);
	r = arena_strdup(sb.buf ? sb.buf : "?");
	sb_free(&sb);
	return r;
}

static void inner_name(struct strbuf *sb, Dwarf_Die *type, int depth)
{
	Dwarf_Die t;

	if (die_type(type, &t))
		type_name_into(sb, &t, depth + 1);
	else
		sb_puts(sb, "void");
}

/* "int (**) (long int, char const*)": NPTR pointers to function type FN, as stap writes them. */
static void fn_pointer_name(struct strbuf *sb, Dwarf_Die *fn, int nptr, int depth)
{
	Dwarf_Die child, t;
	bool any = false, proto = dwarf_hasattr(fn, DW_AT_prototyped);

	inner_name(sb, fn, depth);
	sb_printf(sb, " (%.*s) (", nptr, "****************");
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters)
				continue;
			sb_puts(sb, any ? ", " : "");
			if (tag == DW_TAG_unspecified_parameters)
				sb_puts(sb, "...");
			else if (die_type(&child, &t))
				type_name_into(sb, &t, depth + 1);
			any = true;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	sb_puts(sb, any ? ")" : proto ? "void)" : "...)");
}

/* Pointers to a function type: their count, with *fn set; 0 for anything else. */
static int fn_pointers(Dwarf_Die *type, Dwarf_Die *fn)
{
	int n = 0;

	*fn = *type;
	while (n < 16 && dwarf_tag(fn) == DW_TAG_pointer_type && die_type(fn, fn))
		n++;
	return dwarf_tag(fn) == DW_TAG_subroutine_type ? n : 0;
}

static void type_name_into(struct strbuf *sb, Dwarf_Die *type, int depth)
{
	const char *name = dwarf_diename(type);
	Dwarf_Die fn;
	int nptr;

	if (depth > 16) {
		sb_puts(sb, "?");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
		nptr = fn_pointers(type, &fn);
		if (nptr) {
			fn_pointer_name(sb, &fn, nptr, depth);
			return;
		}
		/* fallthrough */
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		inner_name(sb, type, depth);
		sb_puts(sb, dwarf_tag(type) == DW_TAG_pointer_type ? "*" : "&");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		inner_name(sb, type, depth);
		sb_puts(sb, dwarf_tag(type) == DW_TAG_const_type ? " const" : " volatile");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_class_type:
		sb_printf(sb, "%s %s", dwarf_tag(type) == DW_TAG_union_type ? "union" :
			  dwarf_tag(type) == DW_TAG_enumeration_type ? "enum" :
			  dwarf_tag(type) == DW_TAG_class_type ? "class" : "struct",
			  name ? name : "{...}");
		return;
	case DW_TAG_array_type:
		inner_name(sb, type, depth);
		sb_puts(sb, "[]");
		return;
	case DW_TAG_subroutine_type:
		fn_pointer_name(sb, type, 0, depth);
		return;
	default:
		sb_puts(sb, name ? name : "?");
	}
}

/* ---- locations ---------------------------------------------------------------- */

/* DWARF register numbers 0-16 of x86-64 and their struct pt_regs fields. */
static const char *const dwarf_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

static const char *reg_c(unsigned regno)
{
	if (regno >= ARRAY_LEN(dwarf_regs))
		return NULL;
	return arena_printf("((uint64_t)c->regs->%s)", dwarf_regs[regno]);
}

enum loc_kind { LOC_NONE, LOC_VALUE, LOC_ADDR };

/* Where a variable is: a value (C expression) or the address of its bytes. */
struct dwloc {
	enum loc_kind kind;
	const char *c;
	const char *why;	/* LOC_NONE: why not */
};

struct eval {
	struct dwarf_func *f;	/* for DW_AT_frame_base and the CFI */
	uint64_t pc;
	bool at_entry;		/* pc is the function's first instruction */
	int depth;
	const char *stack[8];
	int sp;
};

static struct dwloc loc_none(const char *why)
{
	return (struct dwloc){ LOC_NONE, NULL, why };
}

static struct dwloc eval_attr(struct eval *ev, Dwarf_Attribute *attr);
static struct dwloc eval_ops(struct eval *ev, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n);

static bool push(struct eval *ev, const char *c)
{
	if (ev->sp == (int)ARRAY_LEN(ev->stack))
		return false;
	ev->stack[ev->sp++] = c;
	return true;
}

/* An expression inside the one EV evaluates, on a stack of its own. */
static struct eval nested(const struct eval *ev)
{
	return (struct eval){ .f = ev->f, .pc = ev->pc, .at_entry = ev->at_entry,
			      .depth = ev->depth + 1 };
}

/* The frame base as a value: where DW_OP_fbreg offsets start. */
static const char *frame_base(struct eval *ev)
{
	Dwarf_Attribute a;
	struct eval sub = nested(ev);
	struct dwloc l;

	if (ev->depth > 2 || !dwarf_attr_integrate(&ev->f->die, DW_AT_frame_base, &a))
		return NULL;
	l = eval_attr(&sub, &a);
	return l.kind == LOC_NONE ? NULL : l.c;
}

static Dwarf_CFI **cfi_of(struct dwarf_file *df)
{
	if (!df->cfi_loaded) {
		df->cfi_loaded = true;
		df->cfi[0] = df->elf ? dwarf_getcfi_elf(df->elf) : NULL;
		df->cfi[1] = dwarf_getcfi(df->dw);
	}
	return df->cfi;
}

/*
 * The CFA (the stack pointer before the call) at the probe's pc: the CFI
 * rule there, over the probe's registers. Addresses are link-time ones in
 * the CFI and in the DWARF alike. At the entry without CFI it is known:
 * the return address was the last push.
 */
static const char *call_frame_cfa(struct eval *ev)
{
	Dwarf_CFI **cfi = cfi_of(ev->f->df);

	for (int i = 0; i < 2 && ev->depth < 2; i++) {	/* a CFA rule has no CFA in it */
		Dwarf_Frame *frame;
		Dwarf_Op *ops;
		size_t n;
		struct dwloc l = { LOC_NONE, NULL, NULL };

		if (!cfi[i] || dwarf_cfi_addrframe(cfi[i], ev->pc, &frame))
			continue;
		if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n) {
			struct eval sub = nested(ev);

			sub.at_entry = false;	/* its registers are all it needs */
			l = eval_ops(&sub, NULL, ops, n);
		}
		free(frame);
		if (l.kind == LOC_ADDR)
			return l.c;
	}
	return ev->at_entry ? "((uint64_t)c->regs->sp + 8)" : NULL;
}

/* DW_OP_entry_value(DW_OP_regN): at the entry itself that is simply regN. */
static const char *entry_value(struct eval *ev, Dwarf_Attribute *attr, Dwarf_Op *op)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;

	if (!ev->at_entry || dwarf_getlocation_attr(attr, op, &sub) ||
	    dwarf_getlocation(&sub, &ops, &n) || n != 1)
		return NULL;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return reg_c(ops[0].atom - DW_OP_reg0);
	if (ops[0].atom == DW_OP_regx)
		return reg_c((unsigned)ops[0].number);
	return NULL;
}

static const char *binary_c(uint8_t atom)
{
	switch (atom) {
	case DW_OP_plus: return "+";
	case DW_OP_minus: return "-";
	case DW_OP_mul: return "*";
	case DW_OP_and: return "&";
	case DW_OP_or: return "|";
	case DW_OP_xor: return "^";
	case DW_OP_shl: return "<<";
	case DW_OP_shr: return ">>";
	default: return NULL;
	}
}

/* One operation that only pushes or combines; false if it is not one of those. */
static bool eval_simple_op(struct eval *ev, Dwarf_Attribute *attr, Dwarf_Op *op, bool *ok)
{
	uint8_t a = op->atom;
	const char *x;

	*ok = true;
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		*ok = (x = reg_c(a - DW_OP_breg0)) &&
		      push(ev, arena_printf("(%s + %" PRId64 "ULL)", x, (int64_t)op->number));
	else if (a == DW_OP_bregx)
		*ok = (x = reg_c((unsigned)op->number)) &&
		      push(ev, arena_printf("(%s + %" PRId64 "ULL)", x, (int64_t)op->number2));
	else if (a == DW_OP_fbreg)
		*ok = (x = frame_base(ev)) &&
		      push(ev, arena_printf("(%s + %" PRId64 "ULL)", x, (int64_t)op->number));
	else if (a == DW_OP_call_frame_cfa)
		*ok = (x = call_frame_cfa(ev)) && push(ev, x);
	else if (a == DW_OP_addr)
		/* a link-time address: moved by the binary's load bias, which is where
		 * the probe hit (regs->ip) less where the probe is in the file */
		*ok = push(ev, arena_printf("((uint64_t)c->regs->ip - %" PRIu64 "ULL + %" PRIu64
					    "ULL)", ev->pc, (uint64_t)op->number));
	else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		*ok = push(ev, arena_printf("%dULL", a - DW_OP_lit0));
	else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u ||
		 a == DW_OP_const8u || a == DW_OP_constu || a == DW_OP_const1s ||
		 a == DW_OP_const2s || a == DW_OP_const4s || a == DW_OP_const8s ||
		 a == DW_OP_consts)
		*ok = push(ev, arena_printf("%" PRIu64 "ULL", (uint64_t)op->number));
	else if (a == DW_OP_plus_uconst)
		*ok = ev->sp > 0 && (ev->stack[ev->sp - 1] = arena_printf(
			"(%s + %" PRIu64 "ULL)", ev->stack[ev->sp - 1], (uint64_t)op->number));
	else if (a == DW_OP_neg || a == DW_OP_not)
		*ok = ev->sp > 0 && (ev->stack[ev->sp - 1] = arena_printf(
			"(%s%s)", a == DW_OP_neg ? "-" : "~", ev->stack[ev->sp - 1]));
	else if (binary_c(a)) {
		*ok = ev->sp > 1;
		if (*ok) {
			ev->sp--;
			ev->stack[ev->sp - 1] = arena_printf("(%s %s %s)", ev->stack[ev->sp - 1],
							     binary_c(a), ev->stack[ev->sp]);
		}
	} else if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value)
		*ok = (x = entry_value(ev, attr, op)) && push(ev, x);
	else
		return false;
	return true;
}

static struct dwloc eval_ops(struct eval *ev, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n)
{
	ev->sp = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;
		bool last = i + 1 == n || ops[i + 1].atom == DW_OP_piece;
		bool ok;

		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			const char *r = reg_c(a == DW_OP_regx ? (unsigned)ops[i].number :
					      (unsigned)(a - DW_OP_reg0));

			if (!last || !r)
				return loc_none("in a register utap cannot read");
			return (struct dwloc){ LOC_VALUE, r, NULL };
		}
		if (a == DW_OP_stack_value)
			return ev->sp == 1 ? (struct dwloc){ LOC_VALUE, ev->stack[0], NULL } :
			       loc_none("a computed value utap cannot evaluate");
		if (a == DW_OP_piece)
			break;	/* the first piece: enough for the scalars utap reads */
		if (!eval_simple_op(ev, attr, &ops[i], &ok))
			return loc_none(arena_printf("described by DWARF operation 0x%x, which "
						     "utap does not evaluate", a));
		if (!ok)
			return loc_none(a == DW_OP_call_frame_cfa ? "relative to a call frame the "
					"binary's CFI does not describe at this address" :
					a == DW_OP_entry_value || a == DW_OP_GNU_entry_value ?
					"only known at the function's entry" :
					"in a location utap cannot evaluate");
	}
	if (ev->sp != 1)
		return loc_none("in a location utap cannot evaluate");
	return (struct dwloc){ LOC_ADDR, ev->stack[0], NULL };
}

static struct dwloc eval_attr(struct eval *ev, Dwarf_Attribute *attr)
{
	Dwarf_Op *ops;
	size_t n;
	int rc = dwarf_getlocation_addr(attr, ev->pc, &ops, &n, 1);

	if (rc < 0)
		return loc_none("its location cannot be read");
	if (rc == 0 || n == 0)
		return loc_none("optimized out at this address");
	return eval_ops(ev, attr, ops, n);
}

static struct dwloc var_location(struct dwarf_func *f, Dwarf_Die *var, uint64_t pc)
{
	struct eval ev = { .f = f, .pc = pc, .at_entry = pc == f->entry };
	Dwarf_Attribute a;

	/* the concrete DIE has the location; its abstract origin only name and type */
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		if (dwarf_attr(var, DW_AT_const_value, &a))
			return loc_none("a constant utap does not read yet");
		return loc_none("optimized out");
	}
	return eval_attr(&ev, &a);
}

/* ---- variables in scope ------------------------------------------------------- */

enum { VARS_PARMS = 1, VARS_LOCALS = 2, VARS_ALL = 3 };

/* The lexical block of SCOPE that holds PC (not an inlined call's), or false. */
static bool inner_block(Dwarf_Die *scope, uint64_t pc, Dwarf_Die *out)
{
	if (dwarf_child(scope, out) != 0)
		return false;
	do {
		if (dwarf_tag(out) == DW_TAG_lexical_block && dwarf_haspc(out, pc) == 1)
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/*
 * The named variables (WANT: parameters, locals or both) of F, as stap
 * lists them: at a statement those in scope at PC, innermost block first;
 * at a function's probe the function's own. Each scope's in declaration
 * order; at most MAX.
 */
static int vars_at(struct dwarf_func *f, uint64_t pc, int want, Dwarf_Die *out, int max)
{
	Dwarf_Die scopes[16], child;
	int ns = 0, n = 0;

	scopes[ns++] = f->scope;
	while (f->blocks && ns < (int)ARRAY_LEN(scopes) &&
	       inner_block(&scopes[ns - 1], pc, &scopes[ns]))
		ns++;
	while (ns-- > 0) {
		if (dwarf_child(&scopes[ns], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			int kind = tag == DW_TAG_formal_parameter ? VARS_PARMS :
				   tag == DW_TAG_variable ? VARS_LOCALS : 0;

			if ((kind & want) && dwarf_diename(&child) && n < max)
				out[n++] = child;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return n;
}

static bool find_var(struct dwarf_func *f, uint64_t pc, const char *name, Dwarf_Die *out)
{
	Dwarf_Die vars[128];
	int n = vars_at(f, pc, VARS_ALL, vars, 128);

	for (int i = 0; i < n; i++)
		if (!strcmp(dwarf_diename(&vars[i]), name)) {
			*out = vars[i];
			return true;
		}
	return false;
}

/* ---- plans ------------------------------------------------------------------- */

/* The state while walking $a->b[i]: a value, or the address of an object. */
struct walk {
	struct uaccess acc;
	bool is_addr;
	Dwarf_Die type;		/* peeled; has_type false for void */
	bool has_type;
	const char *err;
};

static bool add_step(struct walk *w, struct step s)
{
	if (access_add(&w->acc, s))
		return true;
	w->err = "too long a chain of fields and indexes";
	return false;
}

static bool find_member(Dwarf_Die *st, const char *name, Dwarf_Die *member, int64_t *off);

/* A named member of struct/union ST, also inside anonymous members; *off accumulates. */
static bool find_member(Dwarf_Die *st, const char *name, Dwarf_Die *member, int64_t *off)
{
	Dwarf_Die child;

	if (dwarf_child(st, &child) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word moff = 0;
		const char *mn;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (dwarf_attr(&child, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &moff))
			continue;	/* a location expression: not a plain offset */
		mn = dwarf_diename(&child);
		if (mn && !strcmp(mn, name)) {
			*member = child;
			*off += (int64_t)moff;
			return true;
		}
		if (!mn) {
			Dwarf_Die inner;
			int64_t save = *off;

			*off += (int64_t)moff;
			if (peeled_type(&child, &inner) && find_member(&inner, name, member, off))
				return true;
			*off = save;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* An object whose address we have becomes the pointer value stored in it. */
static bool load_pointer(struct walk *w)
{
	if (!w->is_addr)
		return true;
	w->is_addr = false;
	return add_step(w, (struct step){ .op = STEP_LOAD, .sc = { 8, false } });
}

static bool walk_field(struct walk *w, const char *field)
{
	int tag = w->has_type ? dwarf_tag(&w->type) : 0;
	Dwarf_Die member;
	int64_t off = 0;

	if (is_pointer_tag(tag)) {
		Dwarf_Die target;

		if (!load_pointer(w))
			return false;
		if (!peeled_type(&w->type, &target)) {
			w->err = "a void pointer";
			return false;
		}
		w->type = target;
		w->is_addr = true;
		tag = dwarf_tag(&w->type);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type) {
		w->err = "not a struct, a union or a pointer to one";
		return false;
	}
	if (!w->is_addr) {
		w->err = "a struct held in registers";
		return false;
	}
	if (!find_member(&w->type, field, &member, &off)) {
		w->err = arena_printf("has no member '%s'", field);
		return false;
	}
	if (dwarf_hasattr(&member, DW_AT_bit_size)) {
		w->err = arena_printf("member '%s' is a bit-field", field);
		return false;
	}
	w->has_type = peeled_type(&member, &w->type);
	return off ? add_step(w, (struct step){ .op = STEP_ADD, .k = off }) : true;
}

static bool walk_index(struct walk *w, struct node *index)
{
	int tag = w->has_type ? dwarf_tag(&w->type) : 0;
	Dwarf_Die elem;
	Dwarf_Word size;

	if (tag == DW_TAG_pointer_type) {
		if (!load_pointer(w))
			return false;
	} else if (tag == DW_TAG_array_type) {
		if (!w->is_addr) {
			w->err = "an array held in registers";
			return false;
		}
	} else {
		w->err = "not an array or a pointer";
		return false;
	}
	if (!peeled_type(&w->type, &elem) || dwarf_aggregate_size(&elem, &size)) {
		w->err = "an array of elements of unknown size";
		return false;
	}
	w->type = elem;
	w->is_addr = true;
	return add_step(w, (struct step){ .op = STEP_INDEX, .k = (int64_t)size, .index = index });
}

/* The value the walk ends on, as a long: an integer, a pointer, or an array's address. */
static bool walk_finish(struct walk *w, bool address_of)
{
	struct scalar sc;
	const char *why;

	if (address_of) {
		if (!w->is_addr)
			w->err = "not in memory, so it has no address";
		return w->is_addr;
	}
	if (!w->has_type) {
		w->err = "of type void";
		return false;
	}
	if (dwarf_tag(&w->type) == DW_TAG_array_type && w->is_addr)
		return true;	/* an array stands for its address, as in C */
	why = scalar_of(&w->type, &sc);
	if (why) {
		w->err = dwarf_tag(&w->type) == DW_TAG_structure_type ?
			 "a struct (use '->' to read a member)" : why;
		return false;
	}
	return add_step(w, (struct step){ .op = w->is_addr ? STEP_LOAD : STEP_CONV, .sc = sc });
}

static bool walk_start(struct walk *w, struct dwarf_func *f, Dwarf_Die *var, uint64_t pc)
{
	struct dwloc l = var_location(f, var, pc);

	memset(w, 0, sizeof(*w));
	if (l.kind == LOC_NONE) {
		w->err = l.why;
		return false;
	}
	w->acc.base = l.c;
	w->is_addr = l.kind == LOC_ADDR;
	w->has_type = peeled_type(var, &w->type);
	return true;
}

/* ---- resolving a target variable ------------------------------------------- */

struct tv_ctx {
	struct dwarf_func *f;
	uint64_t pc;		/* .return: where the entry values are captured */
	bool is_return;		/* values come from the entry: captured there */
	bool quiet;
	struct node *n;		/* gets the plan */
	struct node *var;	/* the $name[->f][i] being read (n, or @entry's operand) */
	struct entry_caps *caps;
};

static int tv_error(struct tv_ctx *t, const char *fmt, const char *a, const char *b)
{
	if (!t->quiet)
		error_at(t->n->loc, fmt, a, b);
	return -1;
}

/* rax, narrowed to the function's return type; -1 if it has none (void). */
static int return_access(struct tv_ctx *t, struct uaccess *acc)
{
	Dwarf_Die rt;
	struct scalar sc = { 8, true };

	*acc = (struct uaccess){ .base = "((uint64_t)c->regs->ax)" };
	if (!t->is_return)
		return tv_error(t, "'%s' is only available in .return probes%s", t->n->name, "");
	if (t->f) {
		const char *why;

		if (!peeled_type(&t->f->die, &rt))
			return tv_error(t, "'%s': the function returns void%s", t->n->name, "");
		why = scalar_of(&rt, &sc);
		if (why)
			return tv_error(t, "'%s': the return value is %s", t->n->name, why);
	}
	access_add(acc, (struct step){ .op = STEP_CONV, .sc = sc });
	return 0;
}

static int resolve_return(struct tv_ctx *t)
{
	struct uaccess acc;

	if (return_access(t, &acc))
		return -1;
	uvar_set_long(t->n, &acc);
	return 0;
}

/*
 * Captures after the entry are matched with their return by the CFA there
 * (the stack pointer the return will have); at the entry the runtime
 * knows it. NULL, or why there is no key.
 */
static const char *capture_key(struct tv_ctx *t)
{
	struct eval ev = { .f = t->f, .pc = t->pc };

	if (!t->f || t->pc == t->f->entry || t->caps->ret_sp)
		return NULL;
	t->caps->ret_sp = call_frame_cfa(&ev);
	return t->caps->ret_sp ? NULL : "the binary's CFI does not describe the call frame "
	       "after the prologue";
}

/* The plan of a value read at the probe, or, in a .return probe, captured at the entry. */
static int set_value_plan(struct tv_ctx *t, const struct uaccess *acc)
{
	const char *why;
	int slot;

	if (!t->is_return) {
		uvar_set_long(t->n, acc);
		return 0;
	}
	why = capture_key(t);
	slot = why ? -1 : entry_caps_add(t->caps, acc, &why);
	if (slot < 0)
		return tv_error(t, "'%s' cannot be taken at the function's entry: %s", t->var->name,
				why);
	uvar_set_entry(t->n, slot);
	return 0;
}

/*
 * In a .return probe a string's values are taken at the entry, as every
 * variable but $return is; one that cannot be is '?'.
 */
static void capture_pieces(struct tv_ctx *t, struct piece *v, int n)
{
	const char *why = t->is_return ? capture_key(t) : NULL;

	for (int i = 0; t->is_return && i < n; i++) {
		if (v[i].fmt == PIECE_TEXT)
			continue;
		v[i].entry_slot = why ? -1 : entry_caps_add(t->caps, &v[i].acc, &why);
		v[i].from_entry = v[i].entry_slot >= 0;
		if (!v[i].from_entry) {
			v[i].text = arena_printf("%s?", v[i].text);
			v[i].fmt = PIECE_TEXT;
		}
	}
}

static void set_pieces(struct tv_ctx *t, struct pretty_out *out)
{
	int n;
	struct piece *v = pretty_end(out, &n);

	capture_pieces(t, v, n);
	uvar_set_pieces(t->n, v, n);
}

/* A walk that ends on a pointer to a named struct: the node's type for autocast. */
/* The node points to TARGET: a struct or union gives it a type for autocast. */
static void note_struct(struct tv_ctx *t, Dwarf_Die *target, const char *module)
{
	const char *name = dwarf_diename(target);
	int tag = dwarf_tag(target);

	if (!name || !module || (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
				 tag != DW_TAG_class_type))
		return;
	t->n->ctype = arena_printf("%s %s", tag == DW_TAG_union_type ? "union" : "struct", name);
	t->n->cmodule = module;
}

static void note_pointee(struct tv_ctx *t, const struct walk *w, const char *module)
{
	Dwarf_Die target;

	if (w->has_type && dwarf_tag((Dwarf_Die *)&w->type) == DW_TAG_pointer_type &&
	    peeled_type((Dwarf_Die *)&w->type, &target))
		note_struct(t, &target, module);
}

/* $x$, $x->f$$, @cast(...)$: the string stap's pretty-printer makes of the walk's end. */
static int set_pretty(struct tv_ctx *t, struct walk *w, int pretty)
{
	struct pretty_out out = { 0 };

	if (t->var->op && !strcmp(t->var->op, "&"))
		return tv_error(t, "'&' and pretty-printing ('%s') do not go together%s",
				pretty > 1 ? "$$" : "$", "");
	dwarf_pretty(&out, w->has_type ? &w->type : NULL, &w->acc, w->is_addr, pretty > 1, true);
	set_pieces(t, &out);
	return 0;
}

static int resolve_named(struct tv_ctx *t, const char *name)
{
	struct node *v = t->var;
	Dwarf_Die var;
	struct walk w;

	if (!t->f)
		return tv_error(t, "target variable '%s' needs debuginfo (DWARF), and '%s' has none",
				v->name, "the probed binary");
	if (!find_var(t->f, t->pc, name, &var))
		return tv_error(t, "no variable or parameter '%s' in function '%s'", name,
				dwarf_diename(&t->f->die) ? dwarf_diename(&t->f->die) : "?");
	if (!walk_start(&w, t->f, &var, t->pc))
		return tv_error(t, "'%s' is not available: %s", v->name, w.err);
	for (struct node *a = v->args; a; a = a->next) {
		bool ok = a->op && !strcmp(a->op, "->") ? walk_field(&w, a->str) :
			  walk_index(&w, a);

		if (!ok)
			return tv_error(t, "'%s': %s", v->name, w.err);
	}
	if (v->pretty)
		return set_pretty(t, &w, v->pretty);
	if (!walk_finish(&w, v->op && !strcmp(v->op, "&")))
		return tv_error(t, "'%s' is %s", v->name, w.err);
	if (!v->op)
		note_pointee(t, &w, t->f->bin->path);
	return set_value_plan(t, &w.acc);
}

/* ---- @var("name[@file]"[, "module"]) ---- */

/* The defining DIE (one with a location) of global NAME among CU's children. */
static bool cu_global(Dwarf_Die *cu, const char *name, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	const char *dn;

	if (dwarf_child(cu, out) != 0)
		return false;
	do {
		/* a definition after an extern declaration names it by DW_AT_specification */
		dn = dwarf_formstring(dwarf_attr_integrate(out, DW_AT_name, &a));
		if (dwarf_tag(out) == DW_TAG_variable && dn && !strcmp(dn, name) &&
		    dwarf_attr(out, DW_AT_location, &a))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* Global NAME: in the probed function's CU first, then in every CU whose
 * file matches FILE (every CU without one), as stap looks for it. */
static bool find_global(struct dwarf_func *f, const char *name, const char *file, Dwarf_Die *out)
{
	Dwarf_Die cu;

	if (!file && dwarf_diecu(&f->die, &cu, NULL, NULL) && cu_global(&cu, name, out))
		return true;
	for (size_t i = 0; i < f->df->ncus; i++) {
		const char *cn;

		if (!dwarf_offdie(f->df->dw, f->df->cus[i].off, &cu))
			continue;
		cn = dwarf_diename(&cu);
		if (file && !(cn && file_matches(file, cn)))
			continue;
		if (cu_global(&cu, name, out))
			return true;
	}
	return false;
}

/* The module argument names the probed binary: its path or its file name. */
static bool is_probed_binary(const struct dwarf_func *f, const char *module)
{
	char *real = realpath(module, NULL);
	const char *base = strrchr(f->bin->path, '/');
	bool same = real && !strcmp(real, f->bin->path);

	free(real);
	return same || (!strchr(module, '/') && base && !strcmp(base + 1, module));
}

/*
 * A global in a .return probe: its value when the function returns, at
 * the address it had at the entry (where the probe's ip gives the load
 * bias; a return address may be in another binary), which is captured
 * there.
 */
static int return_global_plan(struct tv_ctx *t, struct uaccess *acc)
{
	struct uaccess where = { .base = acc->base };
	const char *why = capture_key(t);
	int slot = why ? -1 : entry_caps_add(t->caps, &where, &why);

	if (slot < 0)
		return tv_error(t, "'%s' cannot be located at the function's entry: %s", "@var",
				why);
	acc->base = arena_printf("((uint64_t)utap_entry_value(c, %d))", slot);
	uvar_set_long(t->n, acc);
	return 0;
}

static int resolve_global(struct tv_ctx *t)
{
	struct node *v = t->var, *arg = v->lhs;
	const char *spec, *at, *name, *file = NULL;
	Dwarf_Die var;
	struct walk w;

	if (!arg || arg->kind != N_STR || (arg->next && arg->next->kind != N_STR) ||
	    (arg->next && arg->next->next))
		return tv_error(t, "@var takes a string naming the variable (\"NAME\" or "
				"\"NAME@FILE\") and an optional module string%s%s", "", "");
	spec = arg->str;
	at = strchr(spec, '@');
	name = at ? arena_strndup(spec, at - spec) : spec;
	if (at)
		file = at + 1;
	if (!t->f)
		return tv_error(t, "@var(\"%s\") needs debuginfo (DWARF), and %s has none", spec,
				"the probed binary");
	if (arg->next && !is_probed_binary(t->f, arg->next->str))
		return tv_error(t, "@var(\"%s\") of another binary (%s) than the probed one is "
				"not supported", spec, arg->next->str);
	if (!find_global(t->f, name, file, &var))
		return tv_error(t, "no global variable '%s' in the DWARF of %s", spec,
				"the probed binary");
	if (!walk_start(&w, t->f, &var, t->pc))
		return tv_error(t, "@var(\"%s\") is not available: %s", spec, w.err);
	for (struct node *a = v->args; a; a = a->next) {
		bool ok = a->op && !strcmp(a->op, "->") ? walk_field(&w, a->str) : walk_index(&w, a);

		if (!ok)
			return tv_error(t, "@var(\"%s\"): %s", spec, w.err);
	}
	if (!walk_finish(&w, v->op && !strcmp(v->op, "&")))
		return tv_error(t, "@var(\"%s\") is %s", spec, w.err);
	if (t->is_return)
		return return_global_plan(t, &w.acc);
	uvar_set_long(t->n, &w.acc);
	return 0;
}

/* ---- @cast(p, "type"[, "module"]) ---- */

/* "struct NAME", "union NAME", "enum NAME" or a typedef or base type NAME */
static bool type_matches(Dwarf_Die *d, const char *spec)
{
	static const struct { const char *kw; int tag; } kinds[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type }, { "class ", DW_TAG_class_type },
	};
	const char *name = dwarf_diename(d);
	int tag = dwarf_tag(d);
	Dwarf_Attribute a;

	if (!name || dwarf_attr(d, DW_AT_declaration, &a))
		return false;
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
		if (!strncmp(spec, kinds[i].kw, strlen(kinds[i].kw)))
			return tag == kinds[i].tag && !strcmp(name, spec + strlen(kinds[i].kw));
	if (strcmp(name, spec))
		return false;
	/* a bare name is stap's too: "timeval" finds struct timeval */
	if (tag == DW_TAG_typedef || tag == DW_TAG_base_type)
		return true;
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
		if (tag == kinds[i].tag)
			return true;
	return false;
}

static bool find_type(struct dwarf_file *df, const char *spec, Dwarf_Die *out)
{
	for (size_t i = 0; i < df->ncus; i++) {
		Dwarf_Die cu;

		if (!dwarf_offdie(df->dw, df->cus[i].off, &cu) || dwarf_child(&cu, out) != 0)
			continue;
		do {
			if (type_matches(out, spec))
				return true;
		} while (dwarf_siblingof(out, out) == 0);
	}
	return false;
}

/* The binary whose DWARF a @cast reads: MODULE (a binary or headers), else the probed one. */
static struct dwarf_file *cast_dwarf(struct tv_ctx *t, const char *module, const char **why)
{
	const char *path;
	struct ubinary *b;

	if (!module) {
		*why = "the probed binary has no DWARF";
		return t->f ? t->f->df : NULL;
	}
	*why = "no such binary";
	path = module[0] == '<' ? cast_header_object(module, why) : ubin_find(module);
	b = path ? ubin_open(path, why) : NULL;
	if (b && !dwarf_load(b))
		*why = "it has no DWARF";
	return b ? dwarf_load(b) : NULL;
}

static int resolve_cast(struct tv_ctx *t)
{
	struct node *v = t->var, *ptr = v->lhs;
	struct node *type = ptr ? ptr->next : NULL, *mod = type ? type->next : NULL;
	struct dwarf_file *df;
	const char *why, *module;
	struct walk w;

	if (!type || type->kind != N_STR || (mod && mod->kind != N_STR))
		return tv_error(t, "@cast takes a value, a type string and an optional module "
				"string%s%s", "", "");
	df = cast_dwarf(t, mod ? mod->str : NULL, &why);
	if (!df && mod && mod->str[0] == '<')
		return tv_error(t, "@cast to a type of %s: %s", mod->str, why);
	if (!df)
		return tv_error(t, "@cast(..., \"%s\") needs DWARF: %s", type->str, why);
	memset(&w, 0, sizeof(w));
	if (!find_type(df, type->str, &w.type) && mod && mod->str[0] == '<')
		return tv_error(t, "no type '%s' in %s: name the headers that declare it",
				type->str, mod->str);
	if (!find_type(df, type->str, &w.type))
		return tv_error(t, "no type '%s' in the DWARF of %s", type->str,
				mod ? mod->str : "the probed binary");
	if (dwarf_tag(&w.type) == DW_TAG_typedef)
		peeled_type(&w.type, &w.type);
	w.has_type = true;
	w.is_addr = true;
	w.acc.base = "0ULL";
	/* the address is the operand, a script value computed when the probe runs */
	add_step(&w, (struct step){ .op = STEP_INDEX, .k = 1, .index = ptr });
	for (struct node *a = v->args; a; a = a->next) {
		bool ok = a->op && !strcmp(a->op, "->") ? walk_field(&w, a->str) : walk_index(&w, a);

		if (!ok)
			return tv_error(t, "@cast to '%s': %s", type->str, w.err);
	}
	if (v->pretty)
		return set_pretty(t, &w, v->pretty);
	module = mod ? mod->str : t->f ? t->f->bin->path : NULL;
	/* &@cast(p, "struct x") points to the struct: t = &@cast(...); t->m autocasts */
	if (v->op && !strcmp(v->op, "&") && w.has_type)
		note_struct(t, &w.type, module);
	if (!walk_finish(&w, v->op && !strcmp(v->op, "&")))
		return tv_error(t, "@cast to '%s' is %s", type->str, w.err);
	if (!v->op)
		note_pointee(t, &w, module);
	/* read when the probe runs, .return probes too: the operand is the script's */
	uvar_set_long(t->n, &w.acc);
	return 0;
}

/*
 * @cast(p, "type", "/a/binary" or "<headers>") in any other probe or in a
 * function: a type of that DWARF, read from the current task's user memory
 * (copy_from_user_nofault), as stap reads a user @cast from a kernel probe.
 */
static int user_cast_check(struct session *s, struct derived_probe *d, struct node *n, bool quiet)
{
	struct entry_caps scratch = { 0 };
	struct tv_ctx t = { .quiet = quiet, .n = n, .var = n, .caps = &scratch };

	(void)s;
	(void)d;
	if (resolve_cast(&t) < 0)
		return -1;
	n->owner = &provider_user_cast;
	return 0;
}

static struct val user_cast_emit(struct emitter *em, struct derived_probe *d, struct node *n)
{
	(void)d;
	return uvar_emit(em, n);
}

static bool user_cast_store(struct emitter *em, struct derived_probe *d, struct node *n,
			    const char *op, struct val v)
{
	(void)d;
	return uvar_store(em, n, op, v);
}

const struct provider provider_user_cast = {
	.name = "@cast",
	.pretty = true,
	.target_var = user_cast_check,
	.emit_target_var = user_cast_emit,
	.store_target_var = user_cast_store,
};

/* One variable of $$parms/$$vars: NAME=, then its value (stap's hex), or pretty-printed. */
static void list_var(struct tv_ctx *t, Dwarf_Die *var, int pretty, struct pretty_out *out)
{
	struct walk w;
	int tag;

	pretty_text(out, arena_printf("%s%s=", out->n || out->text.buf ? " " : "",
				      dwarf_diename(var)));
	if (!walk_start(&w, t->f, var, t->pc)) {
		pretty_text(out, "?");
		return;
	}
	if (pretty) {
		dwarf_pretty(out, w.has_type ? &w.type : NULL, &w.acc, w.is_addr, pretty > 1, true);
		return;
	}
	tag = w.has_type ? dwarf_tag(&w.type) : 0;
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type)
		pretty_text(out, "{...}");
	else if (tag == DW_TAG_array_type)
		pretty_text(out, "[...]");
	else if (!walk_finish(&w, false))
		pretty_text(out, "?");
	else
		pretty_value(out, PIECE_HEX, &w.acc, 0);
}

/* $$parms, $$locals, $$vars; with '$' or '$$' after them, each pretty-printed. */
static int resolve_list(struct tv_ctx *t, const char *what, int pretty)
{
	Dwarf_Die vars[256];
	struct pretty_out out = { 0 };
	int n;

	if (!t->f)
		return tv_error(t, "'%s' needs debuginfo (DWARF), and '%s' has none", t->n->name,
				"the probed binary");
	n = vars_at(t->f, t->pc, !strcmp(what, "parms") ? VARS_PARMS :
		    !strcmp(what, "locals") ? VARS_LOCALS : VARS_ALL, vars, 256);
	for (int i = 0; i < n; i++)
		list_var(t, &vars[i], pretty, &out);
	set_pieces(t, &out);
	return 0;
}

/* $$return: "return=0x..." in a .return probe of a non-void function, else "". */
static int resolve_return_list(struct tv_ctx *t)
{
	struct piece *item = arena_alloc(sizeof(*item));
	struct tv_ctx quiet = *t;

	quiet.quiet = true;
	item->text = "return=";
	item->fmt = PIECE_HEX;
	uvar_set_pieces(t->n, item, return_access(&quiet, &item->acc) == 0 ? 1 : 0);
	return 0;
}

/* @entry($x): in a .return probe, the value $x had at the function's entry. */
static int resolve_entry(struct tv_ctx *t)
{
	struct node *v = t->n->lhs;

	if (!t->is_return)
		return tv_error(t, "@entry is only available in .return probes%s%s", "", "");
	if (!v || v->kind != N_TARGET || !strncmp(v->name, "$$", 2) || !strcmp(v->name, "$return"))
		return tv_error(t, "@entry takes a target variable such as $x or $p->f%s%s", "", "");
	t->var = v;
	return resolve_named(t, v->name + 1);
}

/*
 * In a .return probe every variable but $return is the value at the
 * entry, as in stap: it is captured into CAPS when the function is
 * called, at PC (the entry, or where the prologue has stored the
 * parameters).
 */
int dwarf_target_var(struct session *s, struct derived_probe *d, struct dwarf_func *f,
		     uint64_t pc, struct entry_caps *caps, struct node *n, bool quiet)
{
	struct tv_ctx t = { .f = f, .pc = pc, .is_return = (d->ctx & CTX_RETURN) != 0,
			    .quiet = quiet, .n = n, .var = n, .caps = caps };
	const char *name = n->name;
	struct entry_caps scratch = { 0 };

	(void)s;
	if (quiet)
		t.caps = &scratch;	/* @defined() only asks: capture nothing */
	if (n->kind == N_ENTRY)
		return resolve_entry(&t);
	if (n->kind == N_CAST && !strcmp(name, "@var"))
		return resolve_global(&t);
	if (n->kind == N_CAST)
		return resolve_cast(&t);
	if (!strcmp(name, "$return"))
		return resolve_return(&t);
	if (!strcmp(name, "$$return") || !strcmp(name, "$$return$"))
		return resolve_return_list(&t);
	if (!strncmp(name, "$$", 2)) {
		const char *what = name + 2;
		size_t len = strlen(what);
		int pretty = 0;

		while (pretty < 2 && len > 1 && what[len - 1] == '$')
			len--, pretty++;
		what = arena_strndup(what, len);
		if (strcmp(what, "parms") && strcmp(what, "vars") && strcmp(what, "locals"))
			return tv_error(&t, "unknown target variable '%s'%s", name, "");
		if (n->args)
			return tv_error(&t, "'%s' takes no '->' or '[]'%s", name, "");
		return resolve_list(&t, what, pretty);
	}
	return resolve_named(&t, name + 1);
}

/* ---- emitting --------------------------------------------------------------- */

struct val dwarf_emit_target_var(struct emitter *em, struct derived_probe *d, struct node *n)
{
	(void)d;
	return uvar_emit(em, n);
}

/* ---- -L ------------------------------------------------------------------------ */

/* stap lists a variable where it has a location (or a constant value). */
static bool located_at(Dwarf_Die *var, uint64_t pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_attr(var, DW_AT_const_value, &a))
		return true;
	return dwarf_attr(var, DW_AT_location, &a) &&
	       dwarf_getlocation_addr(&a, pc, &ops, &n, 1) > 0 && n > 0;
}

void dwarf_list_vars(struct dwarf_func *f, uint64_t pc, bool is_return, FILE *out)
{
	Dwarf_Die vars[256];
	int n;

	if (!f) {
		if (is_return)
			fputs(" $return:long", out);
		return;
	}
	n = vars_at(f, pc, VARS_ALL, vars, 256);
	for (int i = 0; i < n; i++)
		if (located_at(&vars[i], pc))
			fprintf(out, " $%s:%s", dwarf_diename(&vars[i]), dw_type_name(&vars[i]));
	if (is_return && die_type(&f->die, &(Dwarf_Die){ 0 }))
		fprintf(out, " $return:%s", dw_type_name(&f->die));
}
