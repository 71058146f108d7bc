/*
 * uprobe.c - process("PATH").function("F")[.call|.return] and
 * process("PATH").statement(ADDR): uprobes on a binary's code.
 *
 * Functions come from the binary's symbol tables (.symtab, else the
 * separate debuginfo's, else .dynsym with minidebuginfo), so stripped
 * files and libraries work. As in stap, the probe sits on the function's
 * first instruction when optimized gcc code's DWARF describes the
 * parameters from there on (or there is no DWARF), and after the
 * prologue otherwise (-O0, clang): only there are the parameters in the
 * stack slots DWARF names. .return probes are uretprobes on the entry;
 * the values they read from the call are captured where a .call probe
 * would sit. $return is rax.
 *
 * C++ functions are named as stap names them (cxxname.h): by their
 * qualified name without parameters, in DWARF's spelling where there is
 * DWARF, else (or when that does not match) in the demangler's, or by
 * the mangled symbol; pp() shows the name at the depth the pattern has.
 *
 * .callee("G") probes G's entry for the calls F makes to it, from DWARF's
 * call sites: it fires when G's return address is one of those calls'
 * (stap's _caller_match); .callees(N) goes N calls deep, each level's
 * return address checked. .callee("G").return fires where G returns to
 * one of them.
 */
#include "probes/process.h"
#include "probes/cxxname.h"
#include "probes/dwarf_inline.h"
#include "probes/dwarf_names.h"
#include "probes/dwarf_vars.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool uprobe_match(const struct probe_point *pp)
{
	static const char *const kinds[] = { "function", "statement" };

	return process_point_is(pp, kinds, 2);
}

/* What follows .function("F"). */
enum fn_mode {
	FN_ANY,			/* nothing: the function and its inlined copies */
	FN_CALL,		/* .call: the function, not its inlined copies */
	FN_RETURN,		/* .return */
	FN_INLINE,		/* .inline: its inlined copies only */
	FN_LABEL,		/* .label("L"): labels in the function */
	FN_CALLEE,		/* .callee("G"), .callees[(N)]: G's entry when the function calls it */
};

static const char *const fn_suffix[] = { "", ".call", ".return", ".inline", ".label", ".callee" };

/* .callee("G")[.call|.return] or .callees(N): whom to probe, how deep, where. */
struct callee_spec {
	const char *pattern;
	int depth;
	const char *suffix;	/* "", ".call" (the same: callees are out-of-line) or ".return" */
};

/* What one derived .function/.statement probe needs beyond its usite. */
struct ufunc_probe {
	const char *func;		/* symbol name, NULL for a numeric .statement */
	struct dwarf_func *dw;		/* DWARF of the function, or NULL */
	uint64_t vars_pc;		/* where target variables are read */
};

static const char *function_pp(const struct process_spec *spec, const struct ubinary *b,
			       const char *name, const char *where, const char *suffix)
{
	return arena_printf("%s.function(\"%s%s%s\")%s", process_site_prefix(spec, b), name,
			    where ? "@" : "", where ? where : "", suffix);
}

/* A probe at link-time PC whose variables FP describes. */
static int add_site(struct probe_point *pp, struct derived_probe *proto,
		    const struct process_spec *spec, struct ubinary *b, struct ufunc_probe *fp,
		    const char *shown)
{
	struct usite *u = usite_new(pp, spec, b, fp->vars_pc);
	struct derived_probe *d;

	if (!u)
		return -1;
	u->func = fp->func;
	u->family = fp;
	d = new_derived(proto, shown);
	d->data = u;
	d->ctx = CTX_USER_REGS | CTX_TASK;
	return 1;
}

/* .function("F")[.inline]: the inlined copies of the functions NAME matches. */
static int add_inlines(struct probe_point *pp, struct derived_probe *proto,
		       const struct process_spec *spec, struct ubinary *b, const char *name,
		       const char *file_spec, enum fn_mode mode)
{
	const struct dwarf_site *v;
	size_t n = dwarf_inlines(b, name, &v);
	int total = 0;

	for (size_t i = 0; i < n; i++) {
		struct ufunc_probe *fp;

		if (fnmatch(name, v[i].name, 0) ||
		    (file_spec && !dwarf_where_matches(v[i].where, file_spec)))
			continue;
		fp = arena_alloc(sizeof(*fp));
		fp->func = v[i].name;
		fp->dw = dwarf_site_func(b, &v[i], false);
		fp->vars_pc = v[i].pc;
		if (add_site(pp, proto, spec, b, fp, function_pp(spec, b, v[i].name, v[i].where,
								  fn_suffix[mode])) < 0)
			return -1;
		total++;
	}
	return total;
}

/* .function("F").label("L"): the labels L matches in F, where DWARF gives their address. */
static int add_labels(struct probe_point *pp, struct derived_probe *proto,
		      const struct process_spec *spec, struct ubinary *b, const struct ufunc *f,
		      const char *shown, const char *label)
{
	struct dwarf_func *dw = dwarf_func_find(b, f->name, f->vaddr);
	struct dwarf_site *v;
	size_t n = dw ? dwarf_labels(dw, &v) : 0;
	int total = 0;

	for (size_t i = 0; i < n; i++) {
		struct ufunc_probe *fp;

		if (fnmatch(label, v[i].name, 0))
			continue;
		fp = arena_alloc(sizeof(*fp));
		fp->func = f->name;
		fp->dw = dwarf_site_func(b, &v[i], true);
		fp->vars_pc = v[i].pc;
		if (add_site(pp, proto, spec, b, fp, arena_printf("%s(\"%s\")",
				function_pp(spec, b, shown, v[i].where, ".label"), v[i].name)) < 0)
			return -1;
		total++;
	}
	return total;
}

/* The site of a probe on F (the probe's family data set), or NULL after an error. */
static struct usite *function_site(struct probe_point *pp, const struct process_spec *spec,
				   struct ubinary *b, const struct ufunc *f, bool is_return)
{
	struct ufunc_probe *fp = arena_alloc(sizeof(*fp));
	struct usite *u;

	fp->func = f->name;
	fp->dw = dwarf_func_find(b, f->name, f->vaddr);
	fp->vars_pc = fp->dw ? dwarf_func_probe_pc(fp->dw) : f->vaddr;
	/* a uretprobe must sit on the entry, where the return address is on top */
	u = usite_new(pp, spec, b, is_return ? f->vaddr : fp->vars_pc);
	if (!u)
		return NULL;
	u->func = f->name;
	u->family = fp;
	return u;
}

/* u, a site on f's entry, as a .return probe's: entry values are read after the prologue. */
static int return_site(struct probe_point *pp, struct ubinary *b, const struct ufunc *f,
		       struct usite *u)
{
	const struct ufunc_probe *fp = u->family;

	if (!ubin_offset(b, fp->vars_pc, &u->cap_offset)) {
		error_at(pp->loc, "the end of the prologue of '%s' (0x%" PRIx64 ") is not in a "
			 "loadable segment of '%s'", f->name, fp->vars_pc, b->path);
		return -1;
	}
	u->is_return = true;
	return 0;
}

static int add_function(struct session *s, struct probe_point *pp, struct derived_probe *proto,
			const struct process_spec *spec, struct ubinary *b,
			const struct ufunc *f, const char *shown, enum fn_mode mode)
{
	bool is_return = mode == FN_RETURN;
	struct usite *u = function_site(pp, spec, b, f, is_return);
	struct ufunc_probe *fp = u ? u->family : NULL;
	struct derived_probe *d;

	if (!u || (is_return && return_site(pp, b, f, u) < 0))
		return -1;
	d = new_derived(proto, function_pp(spec, b, shown, fp->dw ? dwarf_func_where(fp->dw) : NULL,
					   fn_suffix[mode]));
	d->data = u;
	d->ctx = CTX_USER_REGS | CTX_TASK | (is_return ? CTX_RETURN : 0);
	(void)s;
	return 1;
}

/* ---- .callee("G"), .callees(N) ---- */

/*
 * The out-of-line function of b a call calls (with DWARF): at its entry,
 * or by name when DWARF names only a declaration; NULL: one in another object.
 */
static const struct ufunc *called_function(struct ubinary *b, const struct dwarf_call *call)
{
	for (size_t i = 0; i < b->nfuncs; i++)
		if (!strcmp(b->funcs[i].name, call->callee) &&
		    (!call->entry || b->funcs[i].vaddr == call->entry) &&
		    dwarf_func_find(b, b->funcs[i].name, b->funcs[i].vaddr))
			return &b->funcs[i];
	return NULL;
}

/* The chains of OUTER, each after one of the N return addresses RA (chains one level deeper). */
static struct callers *deeper(const struct callers *outer, const uint64_t *ra, int n)
{
	struct callers *cs = arena_alloc(sizeof(*cs));
	uint64_t *v;
	int k = 0;

	cs->depth = outer ? outer->depth + 1 : 1;
	cs->nchains = n * (outer ? outer->nchains : 1);
	cs->ra = v = arena_alloc(sizeof(*v) * (size_t)(cs->nchains * cs->depth));
	for (int i = 0; i < n; i++)
		for (int c = 0; c < (outer ? outer->nchains : 1); c++) {
			v[k++] = ra[i];
			for (int l = 0; outer && l < outer->depth; l++)
				v[k++] = outer->ra[c * outer->depth + l];
		}
	return cs;
}

static int add_callees(struct probe_point *pp, struct derived_probe *proto,
		       const struct process_spec *spec, struct ubinary *b, struct dwarf_func *caller,
		       const char *caller_pp, const struct callee_spec *cs, int level,
		       const struct callers *outer);

/* A probe on G's entry that fires when called from one of the N addresses RA of CALLER. */
static int add_callee(struct probe_point *pp, struct derived_probe *proto,
		      const struct process_spec *spec, struct ubinary *b, const struct ufunc *g,
		      const char *caller_pp, const uint64_t *ra, int n, const struct callee_spec *cs,
		      int level, const struct callers *outer)
{
	bool is_return = !strcmp(cs->suffix, ".return");
	struct usite *u = function_site(pp, spec, b, g, is_return);
	struct ufunc_probe *fp = u ? u->family : NULL;
	const char *where = fp && fp->dw ? dwarf_func_where(fp->dw) : NULL;
	const char *shown = arena_printf("%s.callee(\"%s%s%s\")%s", caller_pp, g->name,
					 where ? "@" : "", where ? where : "", cs->suffix);
	struct derived_probe *d;

	if (!u || (is_return && return_site(pp, b, g, u) < 0))
		return -1;
	u->callers = deeper(outer, ra, n);
	/* stap's pp() is the callee's function; pn() and -L name the call */
	d = new_derived(proto, function_pp(spec, b, g->name, where, cs->suffix));
	if (!d->listed_pp)
		d->listed_pp = shown;
	d->data = u;
	d->needs = "ustack";	/* the callers' check walks the user stack */
	d->ctx = CTX_USER_REGS | CTX_TASK | (is_return ? CTX_RETURN : 0);
	if (level == cs->depth || !fp->dw)
		return 1;
	/* stap names a deeper probe by its own caller: function("G").callee("H") */
	int more = add_callees(pp, proto, spec, b, fp->dw, function_pp(spec, b, g->name, where, ""),
			       cs, level + 1, u->callers);
	return more < 0 ? -1 : 1 + more;
}

static bool same_callee(const struct dwarf_call *a, const struct dwarf_call *b)
{
	return !strcmp(a->callee, b->callee) && a->entry == b->entry;
}

/* The callees of CALLER that CS names, each with the calls to it from CALLER. */
static int add_callees(struct probe_point *pp, struct derived_probe *proto,
		       const struct process_spec *spec, struct ubinary *b, struct dwarf_func *caller,
		       const char *caller_pp, const struct callee_spec *cs, int level,
		       const struct callers *outer)
{
	struct dwarf_call *calls;
	size_t n = dwarf_calls(caller, &calls);
	uint64_t *ra = arena_alloc(sizeof(*ra) * (n ? n : 1));
	int total = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ufunc *g;
		int nra = 0, rc;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_callee(&calls[j], &calls[i]);
		if (seen || (level == 1 && fnmatch(cs->pattern, calls[i].callee, 0)))
			continue;
		g = called_function(b, &calls[i]);
		if (!g)
			continue;
		for (size_t j = i; j < n; j++)
			if (same_callee(&calls[j], &calls[i]))
				ra[nra++] = calls[j].return_pc;
		rc = add_callee(pp, proto, spec, b, g, caller_pp, ra, nra, cs, level, outer);
		if (rc < 0)
			return -1;
		total += rc;
	}
	return total;
}

/* .function("F").callee("G"): the callees of F, a function with DWARF. */
static int resolve_callees(struct probe_point *pp, struct derived_probe *proto,
			   const struct process_spec *spec, struct ubinary *b,
			   const struct ufunc *f, const char *shown, const struct callee_spec *cs)
{
	struct dwarf_func *dw = dwarf_func_find(b, f->name, f->vaddr);

	if (!dw)
		return 0;
	return add_callees(pp, proto, spec, b, dw, function_pp(spec, b, shown,
			   dwarf_func_where(dw), ""), cs, 1, NULL);
}

/*
 * The name pp() gives F when PATTERN names it, or NULL. A C function is
 * its symbol; a C++ function matches by components in DWARF's spelling,
 * then the demangler's, and a pattern without "::" may be its symbol.
 */
static const char *match_function(const struct ufunc *f, const char *pattern)
{
	const char *views[] = { f->dwname, f->demangled }, *shown;

	if (!f->demangled)
		return cxx_scoped_match(pattern, f->name);
	for (size_t i = 0; i < ARRAY_LEN(views); i++)
		if (views[i] && (shown = cxx_scoped_match(pattern, views[i])))
			return shown;
	if (fnmatch(pattern, f->name, 0) == 0)
		return cxx_base_name(views[0] ? views[0] : views[1]);
	return NULL;
}

/*
 * Every function of b that PATTERN (a glob, or "name@file:line" with
 * DWARF) names, as MODE asks: its symbol's code, its inlined copies, or
 * its labels (LABEL).
 */
static int resolve_functions(struct session *s, struct probe_point *pp,
			     struct derived_probe *proto, const struct process_spec *spec,
			     struct ubinary *b, const char *pattern, enum fn_mode mode,
			     const char *label, const struct callee_spec *cs)
{
	const char *at = strchr(pattern, '@');
	const char *name = at ? arena_strndup(pattern, (size_t)(at - pattern)) : pattern;
	int total = 0;

	if (mode == FN_ANY || mode == FN_INLINE) {
		total = add_inlines(pp, proto, spec, b, name, at ? at + 1 : NULL, mode);
		if (total < 0 || mode == FN_INLINE)
			return total;
	}
	dwarf_name_funcs(b);
	for (size_t i = 0; i < b->nfuncs; i++) {
		const struct ufunc *f = &b->funcs[i];
		const char *shown = match_function(f, name);
		int rc;

		/* one probe for a C++ function's aliases (C1/C2) that all match */
		if (!shown || (f->alias && match_function(f->alias, name)))
			continue;
		if (at && !dwarf_func_in_file(b, f->name, f->vaddr, at + 1))
			continue;
		rc = mode == FN_LABEL ? add_labels(pp, proto, spec, b, f, shown, label) :
		     mode == FN_CALLEE ? resolve_callees(pp, proto, spec, b, f, shown, cs) :
					 add_function(s, pp, proto, spec, b, f, shown, mode);
		if (rc < 0)
			return -1;
		total += rc;
	}
	return total;
}

static int add_statement(struct probe_point *pp, struct derived_probe *proto,
			 const struct process_spec *spec, struct ubinary *b, uint64_t addr,
			 const char *where)
{
	struct ufunc_probe *fp = arena_alloc(sizeof(*fp));
	struct derived_probe *d;
	struct usite *u = usite_new(pp, spec, b, addr);

	if (!u)
		return -1;
	fp->dw = dwarf_func_at(b, addr);
	fp->vars_pc = addr;
	u->family = fp;
	d = new_derived(proto, arena_printf("%s.statement(%s)", process_site_prefix(spec, b),
					    where));
	d->data = u;
	d->ctx = CTX_USER_REGS | CTX_TASK;
	return 1;
}

/* .statement("FUNC@FILE:LINE"): the line's first address in each matching function. */
static int resolve_line(struct probe_point *pp, struct derived_probe *proto,
			const struct process_spec *spec, struct ubinary *b, const char *text)
{
	const char *at = strchr(text, '@'), *colon = strrchr(text, ':');
	struct line_addr found[64];
	int n, total = 0;

	if (!at || !colon || colon < at || atoi(colon + 1) <= 0) {
		error_at(pp->loc, ".statement(\"%s\"): expected \"FUNCTION@FILE:LINE\"", text);
		return -1;
	}
	n = dwarf_line_addrs(b, arena_strndup(text, (size_t)(at - text)),
			     arena_strndup(at + 1, (size_t)(colon - at - 1)), atoi(colon + 1),
			     found, (int)ARRAY_LEN(found));
	if (n < 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, ".statement(\"%s\") needs DWARF line tables, and '%s' has none",
			 text, b->path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *where = arena_printf("\"%s@%s:%d\"", found[i].func_name, found[i].file,
						 atoi(colon + 1));

		if (add_statement(pp, proto, spec, b, found[i].addr, where) < 0)
			return -1;
		total++;
	}
	return total;
}

static int resolve_statement(struct probe_point *pp, struct derived_probe *proto,
			     const struct process_spec *spec, struct ubinary *b,
			     const struct pp_component *c)
{
	int64_t addr;

	if (pp_component_arg_str(c))
		return resolve_line(pp, proto, spec, b, pp_component_arg_str(c));
	if (!pp_component_arg_num(c, &addr)) {
		error_at(pp->loc, ".statement takes an address or \"FUNCTION@FILE:LINE\"");
		return -1;
	}
	if (!ubin_is_code(b, (uint64_t)addr)) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "0x%" PRIx64 " is not in an executable segment of '%s'",
			 (uint64_t)addr, b->path);
		return -1;
	}
	return add_statement(pp, proto, spec, b, (uint64_t)addr,
			     arena_printf("0x%" PRIx64, (uint64_t)addr));
}

/* Does NAME (no wildcards) have inlined copies in spec's first binary? */
static bool inlined_only(const struct process_spec *spec, const char *name)
{
	const struct dwarf_site *v;
	size_t n = spec->nbins == 1 && !strpbrk(name, "*?[") ?
		   dwarf_inlines(spec->bins[0], name, &v) : 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

/* .callee("G"), .callees, .callees(N) into cs; -1 after an error. */
static int read_callee(const struct probe_point *pp, const struct pp_component *sfx,
		       struct callee_spec *cs)
{
	const struct pp_component *end = sfx->next;
	int64_t depth = 1;

	if (!strcmp(sfx->name, "callee")) {
		cs->pattern = pp_component_arg_str(sfx);
		cs->depth = 1;
		cs->suffix = "";
		if (!cs->pattern) {
			error_at(pp->loc, ".callee takes a function name string");
			return -1;
		}
		if (end && !end->next && !end->arg &&
		    (!strcmp(end->name, "call") || !strcmp(end->name, "return"))) {
			cs->suffix = !strcmp(end->name, "call") ? ".call" : ".return";
			return FN_CALLEE;
		}
	}
	if (end) {
		error_at(pp->loc, "'.%s' after .%s is not supported (%s)", end->name, sfx->name,
			 strcmp(sfx->name, "callee") ? "only .callee(\"NAME\") takes .call or .return" :
			 ".callee(\"NAME\") takes .call or .return");
		return -1;
	}
	if (!strcmp(sfx->name, "callee"))
		return FN_CALLEE;
	if (sfx->arg && (!pp_component_arg_num(sfx, &depth) || depth < 1 || depth > 16)) {
		error_at(pp->loc, ".callees takes a depth from 1 to 16");
		return -1;
	}
	*cs = (struct callee_spec){ "*", (int)depth, "" };
	return FN_CALLEE;
}

/* What follows .function("F"); *label is .label's pattern. -1 after an error. */
static int read_function_suffix(const struct probe_point *pp, const struct pp_component *fn,
				const char **label, struct callee_spec *cs)
{
	const struct pp_component *sfx = fn->next;

	if (!sfx)
		return FN_ANY;
	for (int m = FN_CALL; m < FN_LABEL && !sfx->next && !sfx->arg; m++)
		if (!strcmp(sfx->name, fn_suffix[m] + 1))
			return m;
	if (!strcmp(sfx->name, "label") && !sfx->next) {
		*label = pp_component_arg_str(sfx);
		if (*label)
			return FN_LABEL;
		error_at(pp->loc, ".label takes a label name string");
		return -1;
	}
	if (!strcmp(sfx->name, "callee") || !strcmp(sfx->name, "callees"))
		return read_callee(pp, sfx, cs);
	error_at(pp->loc, "unknown probe point component '%s' after .function (expected "
		 ".call, .return, .inline, .label(\"NAME\"), .callee(\"NAME\") or .callees)",
		 sfx->name);
	return -1;
}

/* Why .function(NAME) found nothing, for the error. */
static const char *missing_detail(const struct process_spec *spec, const char *name)
{
	const char *params = cxx_param_list(name);

	if (params)
		return arena_printf(" (functions are named without their parameter list: "
				    "write \"%.*s\")", (int)(params - name), name);
	if (spec->nbins == 1)
		return arena_printf(" (symbols from %s)", spec->bins[0]->symsrc);
	return "";
}

static int uprobe_resolve(struct session *s, struct probe_point *pp,
			  struct derived_probe *proto)
{
	const struct pp_component *kind = process_kind(pp);
	const char *name = pp_component_arg_str(kind);
	struct process_spec spec;
	const char *label = NULL;
	struct callee_spec cs = { 0 };
	int mode, rc, total = 0;

	rc = process_spec_read(s, pp, true, &spec);
	if (rc <= 0)
		return rc;
	if (!strcmp(kind->name, "statement")) {
		if (kind->next) {
			error_at(pp->loc, "unknown probe point component '%s' after .statement",
				 kind->next->name);
			return -1;
		}
		for (int i = 0; i < spec.nbins; i++) {
			rc = resolve_statement(pp, proto, &spec, spec.bins[i], kind);
			if (rc < 0)
				return -1;
			total += rc;
		}
		if (total || !pp_component_arg_str(kind))
			return total;
		return process_report_missing(pp, &spec, "statement", pp_component_arg_str(kind),
					      " (no such line in a matching function)");
	}
	if (!name) {
		error_at(pp->loc, ".function takes a function name string");
		return -1;
	}
	mode = read_function_suffix(pp, kind, &label, &cs);
	if (mode < 0)
		return -1;
	for (int i = 0; i < spec.nbins; i++) {
		rc = resolve_functions(s, pp, proto, &spec, spec.bins[i], name, mode, label, &cs);
		if (rc < 0)
			return -1;
		total += rc;
	}
	if (total)
		return total;
	if (mode == FN_LABEL)
		return process_report_missing(pp, &spec, "label", label, arena_printf(
			" (in function '%s'; labels need DWARF, and optimized code often "
			"keeps no address for them)", name));
	if (mode == FN_CALLEE)
		return process_report_missing(pp, &spec, "callee of", name, arena_printf(
			" matching '%s' (callees are known from DWARF call sites, which gcc "
			"writes for optimized code, -O1 and up; calls through pointers, tail "
			"calls and calls into other objects have none)", cs.pattern));
	if (mode == FN_INLINE)
		return process_report_missing(pp, &spec, "inlined copy of", name,
					      " (inlined copies are known from DWARF only)");
	if (!pp->optional && inlined_only(&spec, name)) {
		error_at(pp->loc, "'%s' is only inlined in '%s': a %s probe needs its out-of-line "
			 "code; probe its inlined copies with .function(\"%s\") or .inline", name,
			 spec.bins[0]->path, fn_suffix[mode], name);
		return -1;
	}
	return process_report_missing(pp, &spec, "function", name, missing_detail(&spec, name));
}

static void uprobe_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	uprobe_emit_table(em, dps, n, "utap_uprobes_code");
}

/* ---- target variables ---------------------------------------------------- */

static int uprobe_target_var(struct session *s, struct derived_probe *d, struct node *n,
			     bool quiet)
{
	struct usite *u = d->data;
	const struct ufunc_probe *fp = u->family;

	return dwarf_target_var(s, d, fp->dw, fp->vars_pc, &u->caps, n, quiet);
}

static struct val uprobe_emit_target_var(struct emitter *em, struct derived_probe *d,
					 struct node *n)
{
	return dwarf_emit_target_var(em, d, n);
}

static bool uprobe_store_target_var(struct emitter *em, struct derived_probe *d,
				    struct node *lhs, const char *op, struct val v)
{
	return uvar_store(em, lhs, op, v);
}

static void uprobe_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct usite *u = d->data;
	const struct ufunc_probe *fp = u->family;

	dwarf_list_vars(fp->dw, fp->vars_pc, u->is_return, out);
}

/* the names a '*' after the first component stands for */
static const char *const uprobe_words[] = {
	"call", "callee", "callees", "function", "inline", "label", "return", "statement", NULL
};

const struct provider provider_process_code = {
	.name = "process.function/statement",
	.words = uprobe_words,
	.match = uprobe_match,
	.resolve = uprobe_resolve,
	.emit = uprobe_emit,
	.target_var = uprobe_target_var,
	.pretty = true,
	.emit_target_var = uprobe_emit_target_var,
	.store_target_var = uprobe_store_target_var,
	.list_vars = uprobe_list_vars,
};
