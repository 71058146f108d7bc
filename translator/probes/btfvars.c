/*
 * btfvars.c - kernel function target variables through BTF.
 *
 * At a function's entry the x86-64 calling convention puts parameters 1-6
 * in rdi, rsi, rdx, rcx, r8, r9 and the rest on the stack above the return
 * address; BTF gives each parameter's name and type, and every struct's
 * member offsets. An access like $file->f_path.dentry is planned here at
 * translate time as loads and offsets; the module only adds offsets and
 * reads memory without faulting (runtime/probes/tvar.c). BTF describes the
 * kernel as built, so the offsets are right for it whatever its headers.
 */
#include "btfvars.h"
#include "cparams.h"
#include "probes/providers.h"
#include "codegen/emit.h"
#include "kernel/kbtf.h"
#include "kernel/ksyms.h"
#include "probes/tphdr.h"
#include "probes/btf_pretty.h"
#include "probes/kprobe.h"

#include <stdarg.h>
#include <string.h>

/* Where the walk is: a value (in a register or a local), or memory at an address. */
struct place {
	bool lvalue;
	const char *reg;	/* a value: the register it is in, which a guru write sets */
	uint32_t type;
	uint32_t bit_offset, bit_size;	/* a bit field member */
};

struct walk {
	const struct btf *b;
	const struct node *n;
	struct emitter *em;	/* NULL: only check */
	bool quiet;
	const char *what, *near;
	const char *text;	/* the variable as written, for messages */
	bool entry;		/* @entry(): parameters as the kretprobe saved them at the entry */
	uint32_t end;		/* the type the walk ended on */
	bool end_is_object;	/* with '&': the value points to an object of type end */
	bool raw;		/* pretty-printing: res is the end's address, or its value */
	bool end_lvalue;	/* with raw: res is an address */
	const char *module;	/* the kernel module whose BTF b is, for autocast; NULL: vmlinux */
};

static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };

static void out(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line of the plan, when emitting. */
static void out(struct walk *w, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	if (!w->em)
		return;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	emit_line(w->em, "%s", sb.buf);
	sb_free(&sb);
}

/* fmt has one %s: the variable as written. */
static int fail(struct walk *w, const char *fmt)
{
	if (!w->quiet)
		error_at(w->n->loc, fmt, w->text);
	return -1;
}

static void fault(struct walk *w)
{
	if (w->em)
		out(w, "\tUTAP_ERROR(c, c->error_buf, %s, %s);", w->near, w->em->err_label);
}

/* Loads the pointer stored at utap_a into utap_v. */
static void load_pointer(struct walk *w)
{
	out(w, "if (utap_tv_read(c, utap_a, &utap_v, sizeof(utap_v), %s))", w->what);
	fault(w);
}

/* The pointer of p (a value, or loaded from memory): where ->m and [i] go. */
static int pointer_of(struct walk *w, struct place *p, struct btf_info *target)
{
	struct btf_info i;

	btf_resolve(w->b, p->type, &i);
	if (i.cls == BTF_C_ARRAY && p->lvalue) {
		btf_resolve(w->b, i.target, target);
		out(w, "utap_v = utap_a;");
		return 0;
	}
	if (i.cls != BTF_C_PTR)
		return fail(w, "'%s': not a pointer or an array where one is dereferenced");
	if (p->lvalue)
		load_pointer(w);
	btf_resolve(w->b, i.target, target);
	return 0;
}

static int step_member(struct walk *w, struct place *p, const char *member)
{
	struct btf_info i, target;
	uint32_t mtype, off, bits, holder = p->type;

	btf_resolve(w->b, p->type, &i);
	/* in an embedded struct -> is stap's '.'; else it goes through a pointer */
	if (i.cls != BTF_C_STRUCT || !p->lvalue) {
		if (pointer_of(w, p, &target))
			return -1;
		holder = i.target;
		if (target.cls != BTF_C_STRUCT)
			return fail(w, "'%s': a member of something that is not a struct or union");
		out(w, "utap_a = utap_v;");
	}
	if (!btf_member(w->b, holder, member, &mtype, &off, &bits))
		return fail(w, arena_printf("'%%s': %s has no member '%s'",
					    btf_type_name(w->b, holder), member));
	out(w, "utap_a += %u;", off / 8);
	*p = (struct place){ .lvalue = true, .type = mtype, .bit_offset = off % 8,
			     .bit_size = bits };
	return 0;
}

/* [index]: a constant, or a script expression evaluated where the walk runs */
static int step_index(struct walk *w, struct place *p, struct node *index)
{
	struct btf_info target, i;
	const char *v = "0";

	if (index->kind == N_NUM)
		v = arena_printf("%lldLL", (long long)index->num);
	else if (w->entry)
		return fail(w, "'%s': an index inside @entry() must be a constant number");
	else if (w->em)
		v = emit_value(w->em, index).c;
	if (pointer_of(w, p, &target))
		return -1;
	out(w, "utap_a = utap_v + (unsigned long)(%s) * %u;", v, target.size);
	btf_resolve(w->b, p->type, &i);
	*p = (struct place){ .lvalue = true, .type = i.target };
	return 0;
}

/* The final value of p into res. */
static int finish(struct walk *w, struct place *p, bool address_of, const char *res)
{
	struct btf_info i;

	w->end = p->type;
	w->end_is_object = address_of;
	if (w->raw) {
		w->end_lvalue = p->lvalue && !p->bit_size;
		if (p->bit_size)
			return fail(w, "'%s': a bit-field cannot be pretty-printed alone");
		out(w, "%s = (int64_t)%s;", res, p->lvalue ? "utap_a" : "utap_v");
		return 0;
	}
	btf_resolve(w->b, p->type, &i);
	if (address_of) {
		if (!p->lvalue || p->bit_size)
			return fail(w, "'%s': only something in memory has an address");
		out(w, "%s = (int64_t)utap_a;", res);
		return 0;
	}
	if (i.cls == BTF_C_STRUCT || i.cls == BTF_C_OTHER || i.cls == BTF_C_VOID)
		return fail(w, arena_printf("'%%s' is a %s: name one of its members",
					    btf_type_name(w->b, p->type)));
	if (i.cls == BTF_C_ARRAY) {
		out(w, "%s = (int64_t)utap_a;", res);
		return 0;
	}
	if (!p->lvalue) {
		out(w, "%s = utap_tv_extend(utap_v, %u, %d);", res, i.size, i.is_signed);
	} else if (p->bit_size) {
		out(w, "if (utap_tv_bits(c, utap_a, %u, %u, %d, &%s, %s))", p->bit_offset,
		    p->bit_size, i.is_signed, res, w->what);
		fault(w);
	} else {
		out(w, "if (utap_tv_value(c, utap_a, %u, %d, &%s, %s))", i.size, i.is_signed, res,
		    w->what);
		fault(w);
	}
	return 0;
}

/*
 * Where the x86-64 calling convention puts parameter i: its first argument
 * register (0-5), or -1 and its offset above the return address. A struct
 * of 9 to 16 bytes (sockptr_t) takes two registers, or goes on the stack
 * whole when two are not left; a larger one always goes on the stack.
 */
static int param_reg(const struct btf *b, uint32_t proto, int i, int *stack_off)
{
	int reg = 0, off = 8;

	for (int k = 0; k <= i; k++) {
		struct btf_info t;
		uint32_t type;
		int words;

		btf_proto_param(b, proto, k, &type);
		btf_resolve(b, type, &t);
		words = t.size > 8 ? (int)(t.size + 7) / 8 : 1;
		if (words <= 2 && reg + words <= 6) {
			if (k == i)
				return reg;
			reg += words;
			continue;
		}
		if (k == i)
			break;
		off += 8 * words;
	}
	*stack_off = off;
	return -1;
}

/*
 * The starting place of parameter i at the function's entry: from the
 * registers, or in a .return probe's @entry() from the copy of them the
 * kretprobe's entry handler saved (runtime/probes/kprobe.c).
 */
static struct place param_place(struct walk *w, uint32_t proto, int i, uint32_t type)
{
	const char *regs = w->entry ? "UTAP_KP_ENTRY_REGS(c)" : "c->regs";
	int off, reg = param_reg(w->b, proto, i, &off);

	if (reg >= 0) {
		out(w, "utap_v = %s->%s;", regs, arg_regs[reg]);
		return (struct place){ .lvalue = false, .type = type,
				       .reg = arena_printf("%s->%s", regs, arg_regs[reg]) };
	}
	out(w, "utap_a = %s->sp + %d;", regs, off);
	return (struct place){ .lvalue = true, .type = type };
}

static int find_param(const struct btf *b, uint32_t proto, const char *name, uint32_t *type)
{
	for (int i = 0; i < btf_proto_nparams(b, proto); i++) {
		const char *pn = btf_proto_param(b, proto, i, type);

		if (pn && !strcmp(pn, name))
			return i;
	}
	return -1;
}

/* Where variable w->n is: its parameter or $return, then each -> and [] of it. */
static int walk_place(struct walk *w, uint32_t proto, bool is_return, struct place *pp)
{
	const struct node *n = w->n;
	struct place p;
	uint32_t type = 0;
	int i;

	if (!strcmp(n->name, "$return")) {
		if (!is_return)
			return fail(w, "'%s' is only available in .return probes");
		type = btf_proto_return(w->b, proto);
		if (!type)
			return fail(w, "'%s': the function returns void");
		out(w, "utap_v = c->regs->ax;");
		p = (struct place){ .type = type, .reg = "c->regs->ax" };
	} else {
		i = find_param(w->b, proto, n->name + 1, &type);
		if (i < 0)
			return -2;
		if (is_return && !w->entry)
			return fail(w, arena_printf("parameter '%%s' is not available in a .return "
						    "probe (its register is reused by then); "
						    "@entry(%s) is its value at the entry",
						    w->text));
		p = param_place(w, proto, i, type);
	}
	for (struct node *a = n->args; a; a = a->next) {
		int rc = a->op && !strcmp(a->op, "->") ? step_member(w, &p, a->str) :
			 step_index(w, &p, a);

		if (rc)
			return rc;
	}
	*pp = p;
	return 0;
}

static int walk_var(struct walk *w, uint32_t proto, bool is_return, const char *res)
{
	struct place p;
	int rc = walk_place(w, proto, is_return, &p);

	return rc ? rc : finish(w, &p, w->n->op && !strcmp(w->n->op, "&"), res);
}

/* The guru write of v to p: its register, or memory (a fault is the probe's error). */
static int store(struct walk *w, const struct place *p, const char *v)
{
	struct btf_info i;

	btf_resolve(w->b, p->type, &i);
	if (i.cls != BTF_C_INT && i.cls != BTF_C_PTR)
		return fail(w, arena_printf("'%%s' is a %s: only a number or a pointer can be "
					    "assigned", btf_type_name(w->b, p->type)));
	if (p->bit_size)
		return fail(w, "'%s': a bit-field cannot be assigned");
	if (!p->lvalue) {
		out(w, "%s = (unsigned long)(%s);", p->reg, v);
		return 0;
	}
	out(w, "if (utap_tv_store(c, utap_a, %u, %s, %s))", i.size, v, w->what);
	fault(w);
	return 0;
}

/* How many '$' follow $$parms and kin: stap's pretty-printing of each. */
static int list_pretty(const char *name)
{
	size_t len = strlen(name);
	int k = 0;

	while (k < 2 && len > 3 && name[len - 1 - k] == '$')
		k++;
	return k;
}

static bool is_all_vars(const struct node *n)
{
	static const char *const names[] = { "$$parms", "$$vars", "$$return", "$$locals" };
	size_t len = n->kind == N_TARGET ? strlen(n->name) - list_pretty(n->name) : 0;

	for (size_t i = 0; i < ARRAY_LEN(names) && !n->args && !n->op; i++)
		if (len == strlen(names[i]) && !strncmp(n->name, names[i], len))
			return true;
	return false;
}

/* @entry(x): x must be a parameter, or a walk from one; w then walks x */
static bool entry_operand(struct walk *w, bool is_return)
{
	const struct node *v = w->n->lhs;

	if (!is_return) {
		if (!w->quiet)
			error_at(w->n->loc, "@entry is only available in .return probes");
		return false;
	}
	if (!v || v->kind != N_TARGET || !strncmp(v->name, "$$", 2) ||
	    !strcmp(v->name, "$return")) {
		if (!w->quiet)
			error_at(w->n->loc, "@entry takes a parameter such as $x or $p->f");
		return false;
	}
	w->n = v;
	w->text = cparams_var_text(v);
	w->entry = true;
	return true;
}

/* A walk that ended on a pointer to a struct or union: n's type for autocast. */
static void note_pointee(const struct walk *w, struct node *n)
{
	struct btf_info i, t;

	uint32_t pointee = w->end;

	if (!w->end)
		return;
	if (!w->end_is_object) {
		btf_resolve(w->b, w->end, &i);
		if (i.cls != BTF_C_PTR)
			return;
		pointee = i.target;
	}
	btf_resolve(w->b, pointee, &t);
	if (t.cls != BTF_C_STRUCT)
		return;
	n->ctype = btf_type_name(w->b, pointee);
	n->cmodule = w->module ? w->module : "kernel";
}

int btfvars_check(struct session *s, const struct derived_probe *d, const char *module,
		  const char *func, bool is_return, struct node *n, bool quiet)
{
	struct node *orig = n;
	const struct btf *b = btf_get_module(s, module, NULL);
	uint32_t proto = b && func ? btf_func_proto(b, func) : 0;
	struct walk w = { .b = b, .n = n, .quiet = quiet, .text = cparams_var_text(n) };
	int rc;

	if (!proto)
		return 1;
	if (is_all_vars(n)) {
		n->type = TY_STRING;
		if (!strncmp(n->name, "$$return", 8) && !is_return)
			return fail(&w, "'%s' is only available in .return probes");
		return 0;
	}
	if (n->kind == N_ENTRY) {
		if (!entry_operand(&w, is_return))
			return -1;
		n = (struct node *)w.n;
	} else if (n->kind != N_TARGET) {
		if (!quiet)
			error_at(n->loc, "@cast is not supported in kernel.function probes but for "
				 "kernel types (module \"kernel\")");
		return -1;
	}
	w.raw = n->pretty > 0;
	if (!w.raw && cparams_check_target(n, quiet))
		return -1;
	w.module = module;
	rc = walk_var(&w, proto, is_return, "res");
	if (rc == -2) {
		if (!quiet)
			error_at(n->loc, "target variable '%s' is not available in probe '%s' (%s)",
				 n->name, d->pp, btf_proto_nparams(b, proto) ?
				 "see its parameters with utap -L" : "the function has no parameters");
		return -1;
	}
	if (rc == 0) {
		n->type = w.raw ? TY_STRING : TY_LONG;
		if (!w.raw)
			note_pointee(&w, orig);
	}
	if (rc == 0 && w.entry)
		orig->type = TY_LONG;
	return rc;
}

/* The string of pieces OUT makes, as n's value. */
static struct val emit_pieces(struct emitter *em, struct node *n, struct pretty_out *out)
{
	int np;
	struct piece *v = pretty_end(out, &np);

	uvar_set_pieces(n, v, np);
	return uvar_emit(em, n);
}

/* $x$, $x->f$$: TYPE at the address (LVALUE) or of the value in the long RES. */
static struct val emit_pretty(struct emitter *em, struct node *n, const struct btf *b,
			      uint32_t type, const char *res, bool lvalue, int pretty)
{
	struct pretty_out out = { 0 };
	struct uaccess acc = { .base = res, .kernel = true };

	btf_pretty(&out, b, type, &acc, lvalue, pretty > 1, true);
	return emit_pieces(em, n, &out);
}

/* After a checked walk: n is the pretty-printed string, or the long for autocast. */
static void checked_type(const struct walk *w, struct node *n)
{
	n->type = w->raw ? TY_STRING : TY_LONG;
	if (!w->raw)
		note_pointee(w, n);
}

/* After an emitted walk into res: its value, pretty-printed for $x$. */
static struct val walked_value(struct emitter *em, const struct walk *w, const char *res)
{
	if (w->raw)
		return emit_pretty(em, (struct node *)w->n, w->b, w->end, res, w->end_lvalue,
				   w->n->pretty);
	return (struct val){ .type = TY_LONG, .c = res };
}

/* " name=" and the value of TYPE that BASE is (its address when IS_ADDR), in $$parms$. */
static void named_pretty(struct pretty_out *out, const struct btf *b, const char *name,
			 uint32_t type, const char *base, bool is_addr, bool all)
{
	struct uaccess acc = { .base = base, .kernel = true };

	pretty_text(out, arena_printf("%s%s=", out->n || out->text.len ? " " : "", name));
	btf_pretty(out, b, type, &acc, is_addr, all, true);
}

/* $$parms$ and $$parms$$: each register parameter pretty-printed. */
static struct val emit_all_pretty(struct emitter *em, const struct btf *b, uint32_t proto,
				  const struct node *n)
{
	struct pretty_out out = { 0 };
	int pretty = list_pretty(n->name);

	for (int k = 0, off; k < btf_proto_nparams(b, proto); k++) {
		uint32_t type;
		const char *name = btf_proto_param(b, proto, k, &type);
		int reg = param_reg(b, proto, k, &off);

		if (!name || !*name || reg < 0)
			continue;
		named_pretty(&out, b, name, type, arena_printf("((uint64_t)c->regs->%s)",
							       arg_regs[reg]), false, pretty > 1);
	}
	return emit_pieces(em, (struct node *)n, &out);
}

static struct val emit_all(struct emitter *em, const struct btf *b, uint32_t proto, bool is_return,
			   const struct node *n)
{
	if (list_pretty(n->name) && strncmp(n->name, "$$return", 8) && !is_return)
		return emit_all_pretty(em, b, proto, n);
	const char *s = emit_new_str(em);
	struct btf_info i;

	emit_line(em, "%s[0] = 0;", s);
	if (!strncmp(n->name, "$$return", 8)) {
		emit_line(em, "snprintf(%s, MAXSTRINGLEN, \"return=0x%%lx\", c->regs->ax);", s);
	} else if (!is_return) {
		for (int k = 0, first = 1, off; k < btf_proto_nparams(b, proto); k++) {
			uint32_t type;
			const char *name = btf_proto_param(b, proto, k, &type);
			int reg = param_reg(b, proto, k, &off);

			btf_resolve(b, type, &i);
			if (!name || !*name || reg < 0 || (i.cls != BTF_C_INT && i.cls != BTF_C_PTR))
				continue;
			emit_line(em, "snprintf(%s + strlen(%s), MAXSTRINGLEN - strlen(%s), "
				  "\"%s%s=0x%%llx\", (unsigned long long)utap_tv_extend(c->regs->%s, "
				  "%u, %d));", s, s, s, first ? "" : " ", name, arg_regs[reg], i.size,
				  i.is_signed);
			first = 0;
		}
	}
	return (struct val){ .type = TY_STRING, .c = s, .str_temp = true };
}

/* The block a walk's statements go in, with the address and value it moves. */
static void walk_open(struct walk *w)
{
	w->what = c_string_literal(w->text, strlen(w->text));
	w->near = c_near(w->n);
	emit_line(w->em, "{");
	w->em->indent++;
	emit_line(w->em, "unsigned long utap_v = 0, utap_a = 0;");
	emit_line(w->em, "(void)utap_v;");
	emit_line(w->em, "(void)utap_a;");
}

struct val btfvars_emit(struct emitter *em, const char *module, const char *func, bool is_return,
			const struct node *n)
{
	const struct btf *b = btf_get_module(em->s, module, NULL);
	uint32_t proto = btf_func_proto(b, func);
	const char *res;
	struct walk w = { .b = b, .n = n, .em = em, .text = cparams_var_text(n) };

	emit_need(em, "tvar");
	if (is_all_vars(n))
		return emit_all(em, b, proto, is_return, n);
	if (n->kind == N_ENTRY) {
		w.n = n = n->lhs;
		w.text = cparams_var_text(n);
		w.entry = true;
	}
	res = emit_new_long(em);
	walk_open(&w);
	w.raw = n->pretty > 0;
	walk_var(&w, proto, is_return, res);
	em->indent--;
	emit_line(em, "}");
	return walked_value(em, &w, res);
}

bool btfvars_store(struct emitter *em, const char *module, const char *func, bool is_return,
		   const struct node *n, const char *op, struct val v)
{
	const struct btf *b = btf_get_module(em->s, module, NULL);
	struct walk w = { .b = b, .n = n, .em = em, .text = cparams_var_text(n) };
	struct place p;
	int rc;

	if (is_all_vars(n) || n->kind != N_TARGET || n->pretty || n->op) {
		error_at(n->loc, "only a target variable, or a member or element of one, can be "
			 "assigned");
		return false;
	}
	if (strcmp(op, "=") || v.type != TY_LONG) {
		error_at(n->loc, "'%s' takes a number, assigned with '='", w.text);
		return false;
	}
	emit_need(em, "tvar");
	walk_open(&w);
	rc = walk_place(&w, btf_func_proto(b, func), is_return, &p);
	if (!rc)
		rc = store(&w, &p, v.c);
	em->indent--;
	emit_line(em, "}");
	return rc == 0;
}

bool btf_func_known(struct session *s, const char *module, const char *func)
{
	const struct btf *b = btf_get_module(s, module, NULL);

	return b && btf_func_proto(b, func) != 0;
}

void btfvars_list(struct session *s, const char *module, const char *func, bool is_return,
		  FILE *out)
{
	const struct btf *b = btf_get_module(s, module, NULL);
	uint32_t proto = b && func ? btf_func_proto(b, func) : 0, type;

	if (!proto)
		return;
	if (is_return) {
		type = btf_proto_return(b, proto);
		if (type)
			fprintf(out, " $return:%s", btf_type_name(b, type));
		return;
	}
	for (int i = 0; i < btf_proto_nparams(b, proto); i++) {
		const char *name = btf_proto_param(b, proto, i, &type);

		if (name && *name)
			fprintf(out, " $%s:%s", name, btf_type_name(b, type));
	}
}

/* ---- @cast(p, "type", "kernel"): p as a pointer to a kernel type ---- */

/* A kernel @cast's type, and the BTF (the kernel's or a module's) it is in. */
struct kcast {
	const struct btf *b;
	uint32_t type;
	const char *module;	/* NULL: vmlinux */
};

/* The module list a @cast without one reads: a module probe's module, else the kernel. */
static const char *default_cast_modules(const struct derived_probe *d)
{
	const struct kprobe_site *k;

	if (!d || d->prov != &provider_kernel_function)
		return "kernel";
	k = d->data;
	return k->module ? k->module : "kernel";
}

/* Entry m (of length len) of a module list: NULL for the kernel, else a module name. */
static const char *cast_module(const char *m, size_t len)
{
	char *name;

	if (!strncmp(m, "kernel", 6) && (len == 6 || m[6] == '<'))
		return NULL;
	name = arena_strndup(m, len);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/*
 * The cast's type from the first BTF of its module list ("kernel:nfs")
 * that has it; false after reporting why not. A module that is not there
 * is passed over, and named if no other has the type.
 */
static bool cast_type(struct session *s, const struct derived_probe *d, const struct node *n,
		      bool quiet, struct kcast *kc)
{
	const struct node *type = n->lhs ? n->lhs->next : NULL;
	const char *list = type && type->next ? type->next->str : default_cast_modules(d);
	const char *missing = NULL;

	if (!type || type->kind != N_STR || n->nargs > 3) {
		if (!quiet)
			error_at(n->loc, "@cast takes a pointer, a type name and a module, the "
				 "names as literal strings");
		return false;
	}
	for (const char *m = list;; m += strcspn(m, ":") + 1) {
		const char *why, *module = cast_module(m, strcspn(m, ":"));
		const struct btf *b = btf_get_module(s, module, &why);

		kc->type = b ? btf_find_type(b, type->str) : 0;
		if (kc->type) {
			kc->b = b;
			kc->module = module;
			return true;
		}
		if (!b && !missing)
			missing = module ? why : "the target kernel has no BTF";
		if (!m[strcspn(m, ":")])
			break;
	}
	if (!quiet)
		error_at(n->loc, "type definition '%s' not found in '%s'%s%s", type->str, list,
			 missing ? ": " : "", missing ? missing : "");
	return false;
}

/* The walk from the pointer in utap_a to the place it names; a first [i] steps over whole objects */
static int walk_cast_place(struct walk *w, uint32_t type, struct place *end)
{
	struct node *a = w->n->args;
	struct place p = { .lvalue = true, .type = type };
	struct btf_info i;

	if (a && !(a->op && !strcmp(a->op, "->"))) {
		const char *v = a->kind == N_NUM ? arena_printf("%lldLL", (long long)a->num) :
				w->em ? emit_value(w->em, a).c : "0";

		btf_resolve(w->b, type, &i);
		out(w, "utap_a += (unsigned long)(%s) * %u;", v, i.size);
		a = a->next;
	}
	for (; a; a = a->next) {
		int rc = a->op && !strcmp(a->op, "->") ? step_member(w, &p, a->str) :
			 step_index(w, &p, a);

		if (rc)
			return rc;
	}
	*end = p;
	return 0;
}

static int walk_cast(struct walk *w, uint32_t type, const char *res)
{
	struct place p;
	int rc = walk_cast_place(w, type, &p);

	return rc ? rc : finish(w, &p, w->n->op && !strcmp(w->n->op, "&"), res);
}

/* The walk of n's ->member and [index] chain from P (utap_a / utap_v set), into res. */
static int walk_var_chain(struct walk *w, struct place p, const char *res)
{
	for (struct node *a = w->n->args; a; a = a->next) {
		int rc = a->op && !strcmp(a->op, "->") ? step_member(w, &p, a->str) :
			 step_index(w, &p, a);

		if (rc)
			return rc;
	}
	return finish(w, &p, w->n->op && !strcmp(w->n->op, "&"), res);
}

static int kernel_cast_check(struct session *s, struct derived_probe *d, struct node *n,
			     bool quiet)
{
	struct kcast *kc = arena_alloc(sizeof(*kc));
	struct walk w = { .n = n, .quiet = quiet };

	if (!cast_type(s, d, n, quiet, kc))
		return -1;
	w.b = kc->b;
	w.module = kc->module;
	w.raw = n->pretty > 0;
	if (!w.raw && cparams_check_target(n, quiet))
		return -1;
	w.text = cparams_var_text(n);
	if (walk_cast(&w, kc->type, "res"))
		return -1;
	n->pdata = kc;
	n->owner = &provider_kernel_cast;
	checked_type(&w, n);
	return 0;
}

/* A block of C whose walk starts with utap_v = V, utap_a = A. */
static void open_walk(struct emitter *em, struct walk *w, const char *v, const char *a)
{
	emit_need(em, "tvar");
	w->what = c_string_literal(w->text, strlen(w->text));
	w->near = c_near(w->n);
	emit_line(em, "{");
	em->indent++;
	emit_line(em, "unsigned long utap_v = %s, utap_a = %s;", v, a);
	emit_line(em, "(void)utap_v;");
}

static void close_walk(struct emitter *em)
{
	em->indent--;
	emit_line(em, "}");
}

static struct val kernel_cast_emit(struct emitter *em, struct derived_probe *d, struct node *n)
{
	const struct kcast *kc = n->pdata;
	struct walk w = { .b = kc->b, .n = n, .em = em, .text = cparams_var_text(n) };
	struct val ptr = emit_value(em, n->lhs);
	const char *res = emit_new_long(em);

	(void)d;
	w.raw = n->pretty > 0;
	open_walk(em, &w, "0", arena_printf("(unsigned long)(%s)", ptr.c));
	walk_cast(&w, kc->type, res);
	close_walk(em);
	return walked_value(em, &w, res);
}

int btfvars_check_chain(struct session *s, uint32_t type, const struct node *n, bool quiet,
			bool *bitfield)
{
	struct walk w = { .b = btf_get(s), .n = n, .quiet = quiet, .text = cparams_var_text(n) };
	struct place p = { .type = type };

	for (struct node *a = n->args; a; a = a->next) {
		int rc = a->op && !strcmp(a->op, "->") ? step_member(&w, &p, a->str) :
			 step_index(&w, &p, a);

		if (rc)
			return -1;
	}
	*bitfield = p.bit_size != 0;
	return 0;
}

struct val btfvars_emit_chain(struct emitter *em, const struct node *n, uint32_t type,
			      const char *value)
{
	struct walk w = { .b = btf_get(em->s), .n = n, .em = em, .text = cparams_var_text(n) };
	const char *res = emit_new_long(em);

	open_walk(em, &w, arena_printf("(unsigned long)(%s)", value), "0");
	walk_var_chain(&w, (struct place){ .type = type }, res);
	close_walk(em);
	return walked_value(em, &w, res);
}

/* A guru write to a member or element of a kernel @cast: a number or pointer in memory. */
static bool kernel_cast_store(struct emitter *em, struct derived_probe *d, struct node *n,
			      const char *op, struct val v)
{
	const struct kcast *kc = n->pdata;
	struct walk w = { .b = kc->b, .n = n, .em = em, .text = cparams_var_text(n) };
	struct val ptr;
	struct place p;
	int rc;

	(void)d;
	if (strcmp(op, "=") || v.type != TY_LONG || n->pretty || n->op) {
		error_at(n->loc, "'%s' takes a number, assigned with '='", w.text);
		return false;
	}
	ptr = emit_value(em, n->lhs);
	open_walk(em, &w, "0", arena_printf("(unsigned long)(%s)", ptr.c));
	rc = walk_cast_place(&w, kc->type, &p);
	if (!rc)
		rc = store(&w, &p, v.c);
	close_walk(em);
	return rc == 0;
}

const struct provider provider_kernel_cast = {
	.name = "@cast",
	.pretty = true,
	.target_var = kernel_cast_check,
	.emit_target_var = kernel_cast_emit,
	.store_target_var = kernel_cast_store,
};

/* ---- @var("name"): a kernel variable, typed by its extern declaration ---- */

/* C's spelling of an integer type, as BTF names it ("unsigned long" -> "long unsigned int"). */
static const char *btf_int_name(const char *c)
{
	static const char *const map[][2] = {
		{ "unsigned long", "long unsigned int" }, { "long", "long int" },
		{ "unsigned long long", "long long unsigned int" }, { "long long", "long long int" },
		{ "unsigned", "unsigned int" }, { "short", "short int" },
		{ "unsigned short", "short unsigned int" }, { "signed char", "signed char" },
		{ "bool", "_Bool" }, { "signed", "int" }, { "signed int", "int" },
		{ "signed long", "long int" }, { "unsigned long int", "long unsigned int" },
		{ "long unsigned", "long unsigned int" },
	};

	for (size_t i = 0; i < ARRAY_LEN(map); i++)
		if (!strcmp(c, map[i][0]))
			return map[i][1];
	return c;
}

/*
 * DECL ("unsigned long", "struct task_struct *", "char []") as a BTF type
 * and where the walk starts: the variable's memory, or (an array of
 * unknown size) its address as a pointer. 0 if BTF lacks the type.
 */
static uint32_t kvar_type(const struct btf *b, const char *decl, struct place *p)
{
	size_t len = strlen(decl);
	bool array = len > 3 && !strcmp(decl + len - 3, " []");
	int ptrs = 0;
	char *base = arena_strndup(decl, array ? len - 3 : len);
	uint32_t id;

	while (strlen(base) && (base[strlen(base) - 1] == '*' || base[strlen(base) - 1] == ' ')) {
		ptrs += base[strlen(base) - 1] == '*';
		base[strlen(base) - 1] = 0;
	}
	id = btf_find_type(b, btf_int_name(base));
	for (int i = 0; id && i < ptrs + array; i++)
		id = btf_find_pointer(b, id);
	*p = (struct place){ .lvalue = !array, .type = id };
	return id;
}

struct kvar {
	const char *name;
	struct place start;
};

static int kvar_error(const struct node *n, bool quiet, const char *fmt, const char *a)
{
	if (!quiet)
		error_at(n->loc, fmt, a);
	return -1;
}

static int kernel_var_check(struct session *s, struct derived_probe *d, struct node *n,
			    bool quiet)
{
	const struct btf *b = btf_get(s);
	const struct node *arg = n->lhs, *mod = arg ? arg->next : NULL;
	const struct ksyms *k;
	struct kvar *kv = arena_alloc(sizeof(*kv));
	const char *decl, *header;
	struct walk w = { .b = b, .n = n, .quiet = quiet };
	long i;

	(void)d;
	if (!arg || arg->kind != N_STR || (mod && (mod->kind != N_STR || mod->next)))
		return kvar_error(n, quiet, "@var takes a string naming the variable (\"NAME\" or "
				  "\"NAME@FILE\") and an optional module string%s", "");
	if (mod && strcmp(mod->str, "kernel"))
		return kvar_error(n, quiet, "@var(..., \"%s\") in a kernel probe: the variable "
				  "must be the kernel's (module \"kernel\")", mod->str);
	kv->name = arena_strndup(arg->str, strcspn(arg->str, "@"));
	if (!b)
		return kvar_error(n, quiet, "@var(\"%s\") needs the kernel's BTF, and the target "
				  "kernel has none", kv->name);
	k = ksyms_get(s);
	i = k ? ksyms_find(k, kv->name, NULL) : -1;
	if (i < 0 || !strchr("dDbBrR", k->syms[i].type))
		return kvar_error(n, quiet, "@var(\"%s\"): no such variable in the kernel's "
				  "symbols", kv->name);
	decl = tphdr_extern_type(s, kv->name, &header);
	if (!decl)
		return kvar_error(n, quiet, "@var(\"%s\"): no kernel header declares it, so its "
				  "type is unknown without debuginfo (utap types kernel variables by "
				  "their extern declarations; a static one cannot be read)", kv->name);
	if (!kvar_type(b, decl, &kv->start))
		return kvar_error(n, quiet, arena_printf("@var(\"%%s\"): the kernel's BTF has no "
				  "type '%s' (declared in <%s>)", decl, header), kv->name);
	w.raw = n->pretty > 0;
	if (!w.raw && cparams_check_target(n, quiet))
		return -1;
	w.text = cparams_var_text(n);
	if (walk_var_chain(&w, kv->start, "res"))
		return -1;
	n->pdata = kv;
	n->owner = &provider_kernel_var;
	checked_type(&w, n);
	return 0;
}

static struct val kernel_var_emit(struct emitter *em, struct derived_probe *d, struct node *n)
{
	static int nvars;
	const struct btf *b = btf_get(em->s);
	const struct kvar *kv = n->pdata;
	struct walk w = { .b = b, .n = n, .em = em, .text = cparams_var_text(n) };
	const char *res = emit_new_long(em), *addr = arena_printf("utap_kvar_%d", nvars++);

	(void)d;
	w.raw = n->pretty > 0;
	emit_need(em, "ksym");
	sb_printf(&em->top, "static unsigned long %s;\n", addr);
	sb_printf(&em->reg, "\t%s = utap_ksym_lookup(\"%s\");\n\tif (!%s) {\n\t\tutap_err(\"@var(\\\"%s\\\"): "
		  "the running kernel has no symbol '%s'\");\n\t\treturn -ENOENT;\n\t}\n", addr,
		  kv->name, addr, kv->name, kv->name);
	open_walk(em, &w, addr, addr);
	walk_var_chain(&w, kv->start, res);
	close_walk(em);
	return walked_value(em, &w, res);
}

const struct provider provider_kernel_var = {
	.name = "@var",
	.pretty = true,
	.target_var = kernel_var_check,
	.emit_target_var = kernel_var_emit,
};

/* ---- pretty-printing values the module holds as C (tracepoint arguments) ---- */

/* Where a walk from the C lvalue LV of TYPE starts: a struct's address, else its value. */
static struct place lvalue_place(struct walk *w, uint32_t type, const char *lv)
{
	struct btf_info i;

	btf_resolve(w->b, type, &i);
	if (i.cls == BTF_C_STRUCT) {
		out(w, "utap_a = (unsigned long)&(%s);", lv);
		return (struct place){ .lvalue = true, .type = type };
	}
	out(w, "utap_v = (unsigned long)(%s);", lv);
	return (struct place){ .type = type };
}

int btfvars_pretty_check(struct session *s, struct node *n, uint32_t type, bool quiet)
{
	struct walk w = { .b = btf_get(s), .n = n, .quiet = quiet, .raw = true,
			  .text = cparams_var_text(n) };

	if (walk_var_chain(&w, lvalue_place(&w, type, ""), "res"))
		return -1;
	n->type = TY_STRING;
	return 0;
}

struct val btfvars_pretty_emit(struct emitter *em, const struct node *n, uint32_t type,
			       const char *lv)
{
	struct walk w = { .b = btf_get(em->s), .n = n, .em = em, .raw = true,
			  .text = cparams_var_text(n) };
	const char *res = emit_new_long(em);

	open_walk(em, &w, "0", "0");
	walk_var_chain(&w, lvalue_place(&w, type, lv), res);
	close_walk(em);
	return walked_value(em, &w, res);
}

struct val btfvars_pretty_list(struct emitter *em, const struct node *n, int count,
			       const char *const *names, const uint32_t *types,
			       const char *const *lvs)
{
	const struct btf *b = btf_get(em->s);
	struct pretty_out out = { 0 };

	for (int i = 0; i < count; i++) {
		struct btf_info t;

		if (!names[i])
			continue;
		btf_resolve(b, types[i], &t);
		named_pretty(&out, b, names[i], types[i],
			     arena_printf(t.cls == BTF_C_STRUCT ? "((uint64_t)&(%s))" :
					  "((uint64_t)(%s))", lvs[i]),
			     t.cls == BTF_C_STRUCT, list_pretty(n->name) > 1);
	}
	return emit_pieces(em, (struct node *)n, &out);
}
