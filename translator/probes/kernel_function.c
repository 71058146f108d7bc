/*
 * kernel_function.c - kernel.function("f")[.call|.return], module("m").function("f")
 * and kernel.statement(ADDR).absolute, served by kprobes on symbol names.
 *
 * stap resolves these with the kernel's DWARF debuginfo (a separate 5.6 GB
 * package on Debian); utap needs only the kernel's symbol list, so a
 * function is named without "@file:line" and .inline matches nothing
 * (inlined code has no symbol). Target variables ($param->member, $return,
 * $$parms) come from the kernel's BTF where it describes the function,
 * a module's from the module's own (split) BTF (btfvars.c); otherwise only
 * $return is known.
 */
#include "btfvars.h"
#include "kprobe.h"
#include "codegen/emit.h"
#include "kernel/kbtf.h"

#include <string.h>

struct fn_suffix {
	bool is_return;
	bool is_call;
	bool is_inline;
	int64_t maxactive;
	const char *text;	/* the suffix as pp() shows it */
};

static bool kernel_function_match(const struct probe_point *pp)
{
	const struct pp_component *c = pp->comps;

	if (!strcmp(c->name, "module"))
		return c->next && !strcmp(c->next->name, "function");
	return !strcmp(c->name, "kernel") && c->next &&
	       (!strcmp(c->next->name, "function") || !strcmp(c->next->name, "statement"));
}

static const char *kernel_pp(const char *module, const char *func, const char *suffix)
{
	if (module)
		return arena_printf("module(\"%s\").function(\"%s\")%s", module, func, suffix);
	return arena_printf("kernel.function(\"%s\")%s", func, suffix);
}

static int parse_suffix(const struct pp_component *c, struct fn_suffix *f, struct loc loc)
{
	struct strbuf sb = { 0 };

	for (; c; c = c->next) {
		if (!strcmp(c->name, "return") && !c->arg && !f->is_call) {
			f->is_return = true;
			sb_puts(&sb, ".return");
		} else if (!strcmp(c->name, "call") && !c->arg && !f->is_return) {
			f->is_call = true;
			sb_puts(&sb, ".call");
		} else if (!strcmp(c->name, "exported") && !c->arg) {
			sb_puts(&sb, ".exported");
		} else if (!strcmp(c->name, "inline") && !c->arg) {
			f->is_inline = true;
		} else if (!strcmp(c->name, "maxactive") && f->is_return &&
			   pp_component_arg_num(c, &f->maxactive) && f->maxactive > 0 &&
			   f->maxactive < 65536) {
			sb_printf(&sb, ".maxactive(%lld)", (long long)f->maxactive);
		} else if ((!strcmp(c->name, "label") || !strcmp(c->name, "callee") ||
			    !strcmp(c->name, "callees")) && !c->next) {
			/* stap takes these from the kernel's DWARF */
			error_at(loc, "kernel.function(...).%s needs the kernel's debuginfo (DWARF), "
				 "which utap does not use; probe the function itself, or a "
				 "kernel.statement(0x...).absolute address with -g", c->name);
			sb_free(&sb);
			return -1;
		} else {
			error_at(loc, "unexpected '.%s' in a kernel.function point", c->name);
			sb_free(&sb);
			return -1;
		}
	}
	f->text = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return 0;
}

static int kernel_statement(struct session *s, struct probe_point *pp,
			    struct derived_probe *proto, const struct pp_component *c)
{
	int64_t addr;

	if (!pp_component_arg_num(c, &addr) || !c->next || strcmp(c->next->name, "absolute") ||
	    c->next->next) {
		error_at(pp->loc, "kernel.statement needs an address and .absolute "
			 "(kernel.statement(0x...).absolute, guru mode): source lines need "
			 "debuginfo, which utap does not use");
		return -1;
	}
	return kprobe_resolve_address(s, pp, proto, (uint64_t)addr,
				      arena_printf("kernel.statement(0x%llx).absolute",
						   (unsigned long long)addr));
}

static int kernel_function_resolve(struct session *s, struct probe_point *pp,
				   struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps;
	struct kprobe_request rq = { .make_pp = kernel_pp };
	struct fn_suffix f = { 0 };

	if (!strcmp(c->name, "module")) {
		rq.module = kprobe_string_arg(c);
		if (!rq.module)
			return -1;
	} else if (!strcmp(c->next->name, "statement")) {
		return kernel_statement(s, pp, proto, c->next);
	}
	c = c->next;
	rq.func = kprobe_string_arg(c);
	if (!rq.func || parse_suffix(c->next, &f, pp->loc))
		return -1;
	/* inlined copies have no symbol of their own: nothing to put a kprobe on */
	if (f.is_inline)
		return 0;
	rq.is_return = f.is_return;
	rq.maxactive = f.maxactive;
	rq.suffix = f.text;
	return kprobe_resolve_functions(s, pp, proto, &rq);
}

static void kernel_function_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	kprobe_emit_table(em, dps, n, "kf");
}

static bool is_all_vars(const struct node *n)
{
	return n->kind == N_TARGET && !n->args && !n->op &&
	       (!strcmp(n->name, "$$return") || !strcmp(n->name, "$$parms") ||
		!strcmp(n->name, "$$vars") || !strcmp(n->name, "$$locals"));
}

/* The function whose BTF describes the probe's variables, in the module's BTF for a module's. */
static const char *btf_function(const struct derived_probe *d)
{
	const struct kprobe_site *k = d->data;

	return k->symbol;
}

/* Whose BTF that is: NULL for vmlinux. */
static const char *btf_module(const struct derived_probe *d)
{
	const struct kprobe_site *k = d->data;

	return k->module;
}

/* Marks a variable resolved through BTF, for the emitter. */
static const char btf_marker[] = "btf";

static int kernel_function_target_var(struct session *s, struct derived_probe *d,
				      struct node *n, bool quiet)
{
	struct kprobe_site *k = d->data;
	int rc = btfvars_check(s, d, btf_module(d), btf_function(d), k->is_return, n, quiet);
	const char *why = NULL;

	if (rc <= 0) {
		n->pdata = (void *)btf_marker;
		if (rc == 0 && !quiet && n->kind == N_ENTRY)
			k->entry_regs = true;
		return rc;
	}
	/* no BTF for this function: only the return register is known */
	if (kprobe_is_return_var(d, n)) {
		n->type = TY_LONG;
		return 0;
	}
	if (is_all_vars(n) && (strcmp(n->name, "$$return") || k->is_return)) {
		n->type = TY_STRING;
		return 0;
	}
	if (quiet)
		return -1;
	if (btf_module(d) && !btf_get_module(s, btf_module(d), &why))
		error_at(n->loc, "target variable '%s' is not available in probe '%s': %s; read "
			 "arguments with int_arg(N), pointer_arg(N) ...",
			 n->name ? n->name : "@cast", d->pp, why);
	else
		error_at(n->loc, "target variable '%s' is not available in probe '%s': the %s's "
			 "BTF does not describe this function, so only $return (in .return "
			 "probes) is known; read arguments with int_arg(N), pointer_arg(N) ...",
			 n->name ? n->name : "@cast", d->pp, btf_module(d) ? "module" : "kernel");
	return -1;
}

static struct val kernel_function_emit_target_var(struct emitter *em, struct derived_probe *d,
						  struct node *n)
{
	const struct kprobe_site *k = d->data;
	const char *t;

	if (n->pdata == btf_marker)
		return btfvars_emit(em, btf_module(d), btf_function(d), k->is_return, n);
	if (n->type == TY_LONG)
		return (struct val){ .type = TY_LONG, .c = "((int64_t)c->regs->ax)" };
	t = emit_new_str(em);
	if (!strcmp(n->name, "$$return"))
		emit_line(em, "snprintf(%s, MAXSTRINGLEN, \"return=0x%%lx\", c->regs->ax);", t);
	else
		emit_line(em, "%s[0] = 0;", t);
	return (struct val){ .type = TY_STRING, .c = t, .str_temp = true };
}

/* A guru write: a BTF-typed variable, or $return (the return register) without BTF. */
static bool kernel_function_store_target_var(struct emitter *em, struct derived_probe *d,
					     struct node *lhs, const char *op, struct val v)
{
	const struct kprobe_site *k = d->data;

	if (lhs->pdata == btf_marker)
		return btfvars_store(em, btf_module(d), btf_function(d), k->is_return, lhs, op, v);
	if (lhs->type != TY_LONG || strcmp(op, "=") || v.type != TY_LONG) {
		error_at(lhs->loc, "'%s' takes a number, assigned with '='", lhs->name);
		return false;
	}
	emit_line(em, "c->regs->ax = (unsigned long)(%s);", v.c);
	return true;
}

static void kernel_function_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct kprobe_site *k = d->data;

	if (btf_func_known(s, btf_module(d), btf_function(d)))
		btfvars_list(s, btf_module(d), btf_function(d), k->is_return, out);
	else if (k->is_return)
		fputs(" $return:long", out);
}

/* the names a '*' after the first component stands for */
static const char *const kernel_function_words[] = {
	"call", "exported", "function", "inline", "maxactive", "return", "statement", NULL
};

const struct provider provider_kernel_function = {
	.name = "kernel.function",
	.words = kernel_function_words,
	.match = kernel_function_match,
	.resolve = kernel_function_resolve,
	.emit = kernel_function_emit,
	.pretty = true,
	.target_var = kernel_function_target_var,
	.emit_target_var = kernel_function_emit_target_var,
	.store_target_var = kernel_function_store_target_var,
	.list_vars = kernel_function_list_vars,
};
