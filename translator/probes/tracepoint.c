/*
 * tracepoint.c - kernel.trace("name") and kernel.trace("system:name"), with
 * wildcards in both parts, and the tracepoint's arguments by name.
 *
 * A tracepoint is probed when the target kernel has it (its __tracepoint_
 * symbol) and its header declares it (tphdr.c). The module includes that
 * header, so $prev->pid is C on the header's own types, read without
 * faulting (cparams.c); there is no DWARF. pp() is kernel.trace("sys:name").
 */
#include "btfvars.h"
#include "cparams.h"
#include "codegen/emit.h"
#include "kernel/kbtf.h"
#include "kernel/ksyms.h"
#include "tphdr.h"

#include <fnmatch.h>
#include <string.h>

struct tp_site {
	const struct tp_event *ev;
	bool declared;		/* its argument struct is in the file */
};

static bool tracepoint_match(const struct probe_point *pp)
{
	const struct pp_component *c = pp->comps;

	return !strcmp(c->name, "kernel") && c->next && !strcmp(c->next->name, "trace");
}

static bool in_kernel(const struct ksyms *k, const char *name)
{
	return ksyms_find(k, arena_printf("__tracepoint_%s", name), NULL) >= 0;
}

static bool event_matches(const struct tp_event *e, const char *sys_glob, const char *name_glob)
{
	return (!sys_glob || !fnmatch(sys_glob, e->system, 0)) && !fnmatch(name_glob, e->name, 0);
}

/* Why an exactly named tracepoint is not there, for the error message. */
static void explain_missing(struct session *s, struct probe_point *pp, const char *name,
			    const struct tp_events *all, const struct ksyms *k)
{
	for (int i = 0; i < all->n; i++)
		if (!strcmp(all->ev[i].name, name)) {
			error_at(pp->loc, "tracepoint '%s' is declared in <%s> but kernel %s was "
				 "built without it", name, all->ev[i].header->path, s->krel);
			return;
		}
	if (in_kernel(k, name))
		error_at(pp->loc, "kernel %s has tracepoint '%s', but no installed trace header "
			 "declares it, so its arguments are unknown", s->krel, name);
	else
		error_at(pp->loc, "no tracepoint '%s' in kernel %s", name, s->krel);
}

static int tracepoint_resolve(struct session *s, struct probe_point *pp,
			      struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps->next;
	const char *arg = pp_component_arg_str(c), *colon, *sys = NULL, *name;
	const struct tp_events *all;
	const struct ksyms *k;
	int n = 0;

	if (!arg || c->next) {
		error_at(pp->loc, "expected kernel.trace(\"NAME\") or kernel.trace(\"SYSTEM:NAME\")");
		return -1;
	}
	colon = strchr(arg, ':');
	sys = colon ? arena_strndup(arg, (size_t)(colon - arg)) : NULL;
	name = colon ? colon + 1 : arg;
	k = ksyms_get(s);
	if (!k)
		return -1;
	all = tphdr_events(s);
	for (int i = 0; i < all->n; i++) {
		const struct tp_event *e = &all->ev[i];
		struct tp_site *site;
		struct derived_probe *d;

		if (!event_matches(e, sys, name) || !in_kernel(k, e->name))
			continue;
		/* such a header only compiles inside its subsystem's directory */
		if (e->header->private) {
			if (strpbrk(arg, "*?[") || pp->optional)
				continue;
			error_at(pp->loc, "tracepoint '%s' is declared in <%s>, which includes private "
				 "files of its subsystem: a module cannot be compiled against it",
				 e->name, e->header->path);
			return -1;
		}
		site = arena_alloc(sizeof(*site));
		site->ev = e;
		d = new_derived(proto, arena_printf("kernel.trace(\"%s:%s\")", e->system, e->name));
		d->data = site;
		d->ctx = 0;
		n++;
	}
	if (n == 0 && !pp->optional && !strpbrk(arg, "*?[")) {
		explain_missing(s, pp, name, all, k);
		return -1;
	}
	return n;
}

/* ---- emitting ---- */

static const char *args_struct(const struct derived_probe *d)
{
	return arena_printf("struct utap_tp_args_%d", d->index);
}

static const char *arg_lvalue(const struct derived_probe *d, const char *name)
{
	return arena_printf("((%s *)c->probe_data)->%s", args_struct(d), name);
}

/* An enum passed by value must be complete: include the header that defines it. */
static void include_enum_headers(struct emitter *em, const struct tp_event *e)
{
	for (int i = 0; i < e->nparams; i++) {
		const char *d = e->params[i].decl, *h;
		char name[128];

		if (strncmp(d, "enum ", 5) || strchr(d, '*') || sscanf(d + 5, "%127[A-Za-z0-9_]", name) != 1)
			continue;
		h = tphdr_enum_header(em->s, name);
		if (h)
			emit_header(em, h, NULL);
	}
}

/* The trace header, after declarations of the structs its prototypes name. */
static void include_header(struct emitter *em, const struct tp_event *e)
{
	if (emit_has_include(em, e->header->path))
		return;
	include_enum_headers(em, e);
	emit_header(em, e->header->path, e->header->forward);
}

/* The argument struct: the header's own parameter declarations as members. */
static void declare_args(struct emitter *em, struct derived_probe *d)
{
	struct tp_site *site = d->data;
	const struct tp_event *e = site->ev;

	if (site->declared)
		return;
	site->declared = true;
	include_header(em, e);
	sb_printf(&em->top, "%s {\n", args_struct(d));
	for (int i = 0; i < e->nparams; i++)
		sb_printf(&em->top, "\t%s;\n", e->params[i].decl);
	if (!e->nparams)
		sb_printf(&em->top, "\tchar utap_none;\n");
	sb_printf(&em->top, "};\n");
}

static void emit_probe_function(struct emitter *em, struct derived_probe *d)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;
	const char *proto = e->nparams ? e->proto : "void";

	declare_args(em, d);
	/* a TP_PROTO misread is a build error here, never a wrongly typed probe */
	sb_printf(&em->glue, "_Static_assert(__builtin_types_compatible_p(typeof(&trace_%s), "
		  "void (*)(%s)), \"utap: the TP_PROTO read for tracepoint %s differs from <%s>\");\n",
		  e->name, proto, e->name, e->header->path);
	sb_printf(&em->glue, "static void utap_tp_fn_%d(void *utap_data%s%s)\n{\n", d->index,
		  e->nparams ? ", " : "", e->nparams ? e->proto : "");
	sb_printf(&em->glue, "\t%s utap_args = {", args_struct(d));
	for (int i = 0; i < e->nparams; i++)
		sb_printf(&em->glue, "%s %s", i ? "," : "", e->params[i].name);
	sb_printf(&em->glue, " };\n\n\tutap_tracepoint_run(utap_data, &utap_args);\n}\n\n");
}

static void tracepoint_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	emit_need(em, "tracepoint");
	for (int i = 0; i < n; i++)
		emit_probe_function(em, dps[i]);
	sb_printf(&em->glue, "static struct utap_tracepoint utap_tracepoints[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct tp_event *e = ((struct tp_site *)dps[i]->data)->ev;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".name = \"%s\", .func = (void *)utap_tp_fn_%d, .optional = %d },\n",
			  dps[i]->index, dps[i]->handler, e->name, dps[i]->index,
			  dps[i]->point->optional);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_tracepoints_register(utap_tracepoints, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", n);
	sb_printf(&em->unreg, "\tutap_tracepoints_unregister(utap_tracepoints, %d);\n", n);
}

/* ---- target variables ---- */

/* A parameter "struct x *p" read whole: its pointee, for autocast (the kernel's BTF types it). */
static void note_pointee(struct node *n, const struct cparam *p)
{
	const char *t = p->type;
	size_t len = strlen(t);

	if (n->args || n->op || len < 9 || t[len - 1] != '*' || t[len - 2] == '*' ||
	    (strncmp(t, "struct ", 7) && strncmp(t, "union ", 6)))
		return;
	n->ctype = arena_strndup(t, len - 1 - (t[len - 2] == ' '));
	n->cmodule = "kernel";
}

/* $$parms, $$vars (a tracepoint has no locals): -1 if n is neither, else how many '$' follow. */
static int parms_pretty(const struct node *n)
{
	static const char *const names[] = { "$$parms", "$$vars" };

	for (size_t i = 0; i < ARRAY_LEN(names) && n->kind == N_TARGET && !n->args && !n->op; i++) {
		size_t len = strlen(names[i]), k = strspn(n->name + len, "$");

		if (!strncmp(n->name, names[i], len) && !n->name[len + k] && k <= 2)
			return (int)k;
	}
	return -1;
}

/*
 * The BTF type of argument I (-1: none, just check) of the tracepoint, for
 * pretty-printing: the kernel's btf_trace_NAME is a pointer to its probe
 * functions' prototype, void *__data and then TP_PROTO's parameters.
 */
static uint32_t arg_btf_type(struct session *s, const struct derived_probe *d, int i,
			     const struct node *n, bool quiet)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;
	const struct btf *b = btf_get(s);
	uint32_t td = b ? btf_find_type(b, arena_printf("btf_trace_%s", e->name)) : 0, type = 0;
	struct btf_info ptr;

	if (td)
		btf_resolve(b, td, &ptr);
	if (!td || ptr.cls != BTF_C_PTR || btf_proto_nparams(b, ptr.target) != e->nparams + 1) {
		if (!quiet)
			error_at(n->loc, "pretty-printing in probe '%s' needs the kernel's BTF "
				 "type btf_trace_%s with the %d parameters of <%s>, and the "
				 "target kernel has %s", d->pp, e->name, e->nparams,
				 e->header->path, td ? "another" : "none");
		return 0;
	}
	if (i >= 0)
		btf_proto_param(b, ptr.target, i + 1, &type);
	return i >= 0 ? type : 1;
}

/*
 * $p->m...: where the kernel's BTF types argument I, its members exist
 * (@defined($timer->data) is 0 on a kernel without it, as in stap, and a
 * misspelt member is a located error, not the C compiler's).
 */
static bool chain_exists(struct session *s, const struct derived_probe *d, int i,
			 const struct node *n, bool quiet)
{
	uint32_t type = n->args ? arg_btf_type(s, d, i, n, true) : 0;
	bool bitfield;

	return !type || btfvars_check_chain(s, type, n, quiet, &bitfield) == 0;
}

static int tracepoint_target_var(struct session *s, struct derived_probe *d, struct node *n,
				 bool quiet)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;
	int i;

	if (parms_pretty(n) >= 0) {
		n->type = TY_STRING;
		return parms_pretty(n) && !arg_btf_type(s, d, -1, n, quiet) ? -1 : 0;
	}
	i = n->kind == N_TARGET && n->name[1] != '$' ?
	    cparams_find(e->params, e->nparams, n->name + 1) : -1;
	if (i < 0) {
		if (!quiet)
			error_at(n->loc, "target variable '%s' is not available in probe '%s' "
				 "(its arguments: %s)", n->name ? n->name : "@cast", d->pp,
				 e->nparams ? e->proto : "none");
		return -1;
	}
	if (n->pretty) {
		uint32_t type = arg_btf_type(s, d, i, n, quiet);

		return type ? btfvars_pretty_check(s, n, type, quiet) : -1;
	}
	if (cparams_check_target(n, quiet) || !chain_exists(s, d, i, n, quiet))
		return -1;
	n->type = TY_LONG;
	note_pointee(n, &e->params[i]);
	return 0;
}

static const char *parm_lvalue(void *ctx, int i)
{
	const struct derived_probe *d = ctx;
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;

	return arg_lvalue(d, e->params[i].name);
}

/* $$parms$, $$vars$$: every argument pretty-printed, typed by the kernel's BTF. */
static struct val emit_pretty_parms(struct emitter *em, struct derived_probe *d,
				    const struct node *n)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;
	const char **names = arena_alloc(sizeof(*names) * (size_t)(e->nparams + 1));
	const char **lvs = arena_alloc(sizeof(*lvs) * (size_t)(e->nparams + 1));
	uint32_t *types = arena_alloc(sizeof(*types) * (size_t)(e->nparams + 1));

	for (int i = 0; i < e->nparams; i++) {
		names[i] = e->params[i].name;
		types[i] = arg_btf_type(em->s, d, i, n, true);
		lvs[i] = names[i] ? arg_lvalue(d, names[i]) : NULL;
	}
	return btfvars_pretty_list(em, n, e->nparams, names, types, lvs);
}

static struct val tracepoint_emit_target_var(struct emitter *em, struct derived_probe *d,
					     struct node *n)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;

	declare_args(em, d);
	if (parms_pretty(n) > 0)
		return emit_pretty_parms(em, d, n);
	if (n->pretty)
		return btfvars_pretty_emit(em, n, arg_btf_type(em->s, d, cparams_find(e->params,
					   e->nparams, n->name + 1), n, true),
					   arg_lvalue(d, n->name + 1));
	if (n->type == TY_STRING)
		return cparams_emit_parms(em, e->params, e->nparams, parm_lvalue, d);
	if (n->args && !n->op) {
		/* $p->in_iowait: a bit-field, read at the BTF's bit offset */
		uint32_t type = arg_btf_type(em->s, d, cparams_find(e->params, e->nparams,
								    n->name + 1), n, true);

		bool bitfield = false;

		if (type && btfvars_check_chain(em->s, type, n, true, &bitfield) == 0 && bitfield)
			return btfvars_emit_chain(em, n, type, arg_lvalue(d, n->name + 1));
	}
	return cparams_emit_target(em, n, arg_lvalue(d, n->name + 1));
}

static void tracepoint_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct tp_event *e = ((struct tp_site *)d->data)->ev;

	(void)s;
	for (int i = 0; i < e->nparams; i++)
		if (e->params[i].name)
			fprintf(out, " $%s:%s", e->params[i].name, e->params[i].type);
}

/* A tracepoint's arguments are the kernel's copies: stap 4.8 refuses writes to them, -g or not. */
static int tracepoint_free_write(struct derived_probe *d, struct node *lv)
{
	(void)d;
	if (lv->kind != N_TARGET || lv->args || !lv->name || lv->name[1] == '$')
		return 0;
	error_at(lv->loc, "write to tracepoint variable '%s' not permitted (a tracepoint's "
		 "arguments are read-only)", lv->name);
	return -1;
}

/* the names a '*' after the first component stands for */
static const char *const tracepoint_words[] = {
	"trace", NULL
};

const struct provider provider_tracepoint = {
	.name = "kernel.trace",
	.words = tracepoint_words,
	.match = tracepoint_match,
	.resolve = tracepoint_resolve,
	.emit = tracepoint_emit,
	.pretty = true,
	.target_var = tracepoint_target_var,
	.emit_target_var = tracepoint_emit_target_var,
	.list_vars = tracepoint_list_vars,
	.free_write = tracepoint_free_write,
};
