/*
 * kprobe.c - kprobe.function("f")[.return], kprobe.module("m").function("f"),
 * kprobe.statement(ADDR).absolute; and the kprobe machinery kernel.function
 * shares: names are checked and wildcards expanded against the target
 * kernel's symbols at translate time, and registered by name at run time.
 */
#include "kprobe.h"
#include "codegen/emit.h"
#include "kernel/ksyms.h"

#include <fnmatch.h>
#include <string.h>

const char *kprobe_string_arg(const struct pp_component *c)
{
	const char *s = pp_component_arg_str(c);

	if (!s)
		error_at(c->arg ? c->arg->loc : (struct loc){ 0 },
			 "'%s' takes a string argument", c->name);
	return s;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static void derive_site(struct derived_probe *proto, const struct kprobe_request *rq,
			const char *module, const char *func, bool soft)
{
	struct kprobe_site *k = arena_alloc(sizeof(*k));
	struct derived_probe *d;

	k->symbol = func;
	k->module = module;
	k->is_return = rq->is_return;
	k->soft = soft;
	k->maxactive = rq->maxactive;
	d = new_derived(proto, rq->make_pp(module, func, rq->suffix));
	d->data = k;
	d->ctx = CTX_KERNEL_REGS | (rq->is_return ? CTX_RETURN : 0);
}

/* Wildcards skip what kprobes refuse and the cold parts gcc splits off functions. */
static bool wildcard_candidate(const struct ksym *sym)
{
	return ksym_is_function(sym) && !sym->unprobeable && !strstr(sym->name, ".cold");
}

static int expand_in(const struct ksyms *k, struct derived_probe *proto,
		     const struct kprobe_request *rq, const char *module)
{
	const char *last = NULL;
	int n = 0;

	for (size_t i = 0; i < k->n; i++) {
		const struct ksym *sym = &k->syms[i];

		if (sym->module != module && (!sym->module || !module || strcmp(sym->module, module)))
			continue;
		if (!wildcard_candidate(sym) || fnmatch(rq->func, sym->name, 0))
			continue;
		/* static functions may share a name; a probe by name reaches the first */
		if (last && !strcmp(last, sym->name))
			continue;
		last = sym->name;
		derive_site(proto, rq, module, sym->name, true);
		n++;
	}
	return n;
}

static int resolve_exact(struct probe_point *pp, const struct ksyms *k,
			 struct derived_probe *proto, const struct kprobe_request *rq,
			 const char *module, const char *where)
{
	long i = ksyms_find(k, rq->func, module);
	int dups;

	if (i < 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "no function '%s' in %s (symbols from %s)", rq->func, where,
			 k->source);
		return -1;
	}
	dups = ksyms_count_functions(k, rq->func, module);
	if (dups == 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "'%s' in %s is not a function (kallsyms type '%c')", rq->func,
			 where, k->syms[i].type);
		return -1;
	}
	if (dups > 1)
		warn_at(pp->loc, "%s has %d functions named '%s'; a probe by name is put on the "
			"first one only", where, dups, rq->func);
	derive_site(proto, rq, module, k->syms[i].name, false);
	return 1;
}

static int resolve_in_modules(struct session *s, struct probe_point *pp,
			      struct derived_probe *proto, const struct kprobe_request *rq)
{
	struct kmodule *mods;
	int nmods = kmodules_matching(s, rq->module, &mods), total = 0;

	if (nmods == 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "%s", kmodule_missing(s, rq->module));
		return -1;
	}
	for (int i = 0; i < nmods; i++) {
		const struct ksyms *k = kmodule_functions(s, &mods[i]);
		int n;

		if (!k)
			return -1;
		if (has_glob(rq->func) || has_glob(rq->module)) {
			total += expand_in(k, proto, rq, mods[i].name);
			continue;
		}
		n = resolve_exact(pp, k, proto, rq, mods[i].name,
				  arena_printf("kernel module '%s'", mods[i].name));
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

int kprobe_resolve_functions(struct session *s, struct probe_point *pp,
			     struct derived_probe *proto, const struct kprobe_request *rq)
{
	const struct ksyms *k;

	if (strchr(rq->func, '@') || strchr(rq->func, ':')) {
		error_at(pp->loc, "'%s': a source file or line needs kernel debuginfo, which utap "
			 "does not use; name the function alone", rq->func);
		return -1;
	}
	if (rq->module)
		return resolve_in_modules(s, pp, proto, rq);
	k = ksyms_get(s);
	if (!k)
		return -1;
	if (has_glob(rq->func))
		return expand_in(k, proto, rq, NULL);
	return resolve_exact(pp, k, proto, rq, NULL, arena_printf("kernel %s", s->krel));
}

int kprobe_resolve_address(struct session *s, struct probe_point *pp, struct derived_probe *proto,
			   uint64_t address, const char *pp_text)
{
	struct kprobe_site *k = arena_alloc(sizeof(*k));
	struct derived_probe *d;

	if (!s->guru) {
		error_at(pp->loc, "probing an absolute kernel address needs guru mode (-g)");
		return -1;
	}
	k->address = address;
	d = new_derived(proto, pp_text);
	d->data = k;
	d->ctx = CTX_KERNEL_REGS;
	return 1;
}

bool kprobe_is_return_var(const struct derived_probe *d, const struct node *n)
{
	const struct kprobe_site *k = d->data;

	return n->kind == N_TARGET && !strcmp(n->name, "$return") && k->is_return && !n->args &&
	       !n->op;
}

/* ---- emitting ---- */

static const char *site_symbol(const struct kprobe_site *k)
{
	if (!k->symbol)
		return "NULL";
	if (k->module)
		return c_string_literal(arena_printf("%s:%s", k->module, k->symbol),
					strlen(k->module) + 1 + strlen(k->symbol));
	return c_string_literal(k->symbol, strlen(k->symbol));
}

static const char *site_flags(const struct derived_probe *d)
{
	const struct kprobe_site *k = d->data;
	struct strbuf sb = { 0 };
	const char *r;

	sb_puts(&sb, "0");
	if (k->is_return)
		sb_puts(&sb, " | UTAP_KP_RETURN");
	if (d->point->optional)
		sb_puts(&sb, " | UTAP_KP_OPTIONAL");
	if (k->soft)
		sb_puts(&sb, " | UTAP_KP_SOFT");
	if (k->entry_regs)
		sb_puts(&sb, " | UTAP_KP_ENTRY");
	r = arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

void kprobe_emit_table(struct emitter *em, struct derived_probe **dps, int n, const char *tag)
{
	emit_need(em, "kprobe");
	sb_printf(&em->glue, "static struct utap_kprobe utap_kprobes_%s[%d] = {\n", tag, n);
	for (int i = 0; i < n; i++) {
		const struct kprobe_site *k = dps[i]->data;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".symbol = %s, .addr = 0x%llxUL, .flags = %s, .maxactive = %lld },\n",
			  dps[i]->index, dps[i]->handler, site_symbol(k),
			  (unsigned long long)k->address, site_flags(dps[i]),
			  (long long)k->maxactive);
	}
	sb_printf(&em->glue, "};\n");
	sb_printf(&em->glue, "static struct kprobe *utap_kprobes_%s_k[%d];\n", tag, n);
	sb_printf(&em->glue, "static struct kretprobe *utap_kprobes_%s_r[%d];\n\n", tag, n);
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_kprobes_register(utap_kprobes_%s, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", tag, n);
	sb_printf(&em->unreg, "\tutap_kprobes_unregister(utap_kprobes_%s, %d, utap_kprobes_%s_k, "
		  "utap_kprobes_%s_r);\n", tag, n, tag, tag);
}

/* ---- the kprobe.* family ---- */

static const char *kprobe_pp(const char *module, const char *func, const char *suffix)
{
	if (module)
		return arena_printf("kprobe.module(\"%s\").function(\"%s\")%s", module, func, suffix);
	return arena_printf("kprobe.function(\"%s\")%s", func, suffix);
}

/* .return[.maxactive(N)] after the function; returns the next component or an error. */
static int parse_return_suffix(const struct pp_component *c, struct kprobe_request *rq,
			       struct loc loc)
{
	if (!c)
		return 0;
	if (strcmp(c->name, "return") || c->arg) {
		error_at(loc, "unexpected '.%s' in a kprobe point", c->name);
		return -1;
	}
	rq->is_return = true;
	rq->suffix = ".return";
	c = c->next;
	if (c && !strcmp(c->name, "maxactive") && pp_component_arg_num(c, &rq->maxactive) &&
	    rq->maxactive > 0 && rq->maxactive < 65536) {
		rq->suffix = arena_printf(".return.maxactive(%lld)", (long long)rq->maxactive);
		c = c->next;
	} else if (c && !strcmp(c->name, "maxactive")) {
		error_at(loc, "maxactive takes a number from 1 to 65535");
		return -1;
	}
	if (c) {
		error_at(loc, "unexpected '.%s' in a kprobe point", c->name);
		return -1;
	}
	return 0;
}

static int kprobe_statement(struct session *s, struct probe_point *pp,
			    struct derived_probe *proto, const struct pp_component *c)
{
	int64_t addr;

	if (!pp_component_arg_num(c, &addr) || !c->next || strcmp(c->next->name, "absolute") ||
	    c->next->next) {
		error_at(pp->loc, "expected kprobe.statement(ADDRESS).absolute");
		return -1;
	}
	return kprobe_resolve_address(s, pp, proto, (uint64_t)addr,
				      arena_printf("kprobe.statement(0x%llx).absolute",
						   (unsigned long long)addr));
}

static int kprobe_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps->next;
	struct kprobe_request rq = { .suffix = "", .make_pp = kprobe_pp };

	if (c && !strcmp(c->name, "statement"))
		return kprobe_statement(s, pp, proto, c);
	if (c && !strcmp(c->name, "module")) {
		rq.module = kprobe_string_arg(c);
		if (!rq.module)
			return -1;
		c = c->next;
	}
	if (!c || strcmp(c->name, "function")) {
		error_at(pp->loc, "expected kprobe.function(\"NAME\") or "
			 "kprobe.module(\"MOD\").function(\"NAME\")");
		return -1;
	}
	rq.func = kprobe_string_arg(c);
	if (!rq.func || parse_return_suffix(c->next, &rq, pp->loc))
		return -1;
	return kprobe_resolve_functions(s, pp, proto, &rq);
}

static void kprobe_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	kprobe_emit_table(em, dps, n, "kp");
}

static int kprobe_target_var(struct session *s, struct derived_probe *d, struct node *n,
			     bool quiet)
{
	(void)s;
	if (kprobe_is_return_var(d, n)) {
		n->type = TY_LONG;
		return 0;
	}
	if (!quiet)
		error_at(n->loc, "target variable '%s' is not available in probe '%s': kprobe "
			 "probes have no debuginfo; read arguments with int_arg(N), "
			 "pointer_arg(N) ... and results with returnval()",
			 n->name ? n->name : "@cast", d->pp);
	return -1;
}

static struct val kprobe_emit_target_var(struct emitter *em, struct derived_probe *d,
					 struct node *n)
{
	(void)em;
	(void)d;
	(void)n;
	return (struct val){ .type = TY_LONG, .c = "((int64_t)c->regs->ax)" };
}

static void kprobe_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct kprobe_site *k = d->data;

	(void)s;
	if (k->is_return)
		fputs(" $return:long", out);
}

/* the names a '*' after the first component stands for */
static const char *const kprobe_words[] = {
	"function", "maxactive", "module", "return", "statement", NULL
};

const struct provider provider_kprobe = {
	.name = "kprobe",
	.words = kprobe_words,
	.resolve = kprobe_resolve,
	.emit = kprobe_emit,
	.target_var = kprobe_target_var,
	.emit_target_var = kprobe_emit_target_var,
	.list_vars = kprobe_list_vars,
};
