/*
 * syscall.c - __syscall("NAME") and __syscall("NAME").return, the internal
 * point tapsets/syscalls.stp builds syscall.* and nd_syscall.* on.
 *
 * The name is resolved at translate time to the target kernel's __NR_
 * number (its build tree's unistd_64.h). All entry probes share one
 * callback on raw_syscalls:sys_enter, all return probes one on sys_exit;
 * the callback switches on the syscall number, so `probe syscall.*` arms
 * two tracepoint callbacks, not a kprobe per syscall. The handler gets the
 * syscall's user registers: int_arg(N) and friends read its arguments
 * (di, si, dx, r10, r8, r9), returnval() its result in .return.
 *
 * A 32-bit task's calls (int $0x80, sysenter: in_ia32_syscall()) have the
 * ia32 numbers. They switch on those, to the probes of the syscalls the
 * ia32 table serves with the same kernel function as the x86-64 one
 * (syscalls_32.h and syscalls_64.h of the build tree), so the arguments
 * mean the same; calls the kernel serves with a compat_sys_ function fire
 * nothing, and no ia32 call runs an x86-64 probe of the same number.
 */
#include "codegen/emit.h"
#include "probes/cparams.h"
#include "probes/tphdr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sysnr {
	const char *name;
	int nr;
};

struct sysnr_table {
	struct sysnr *v;
	int n;
};

struct sc_site {
	const char *name;
	int nr;
	bool is_return;
	int nr32[4];	/* ia32 numbers served by the same function */
	int n32;
};

/* The kernel function of each number: the __SYSCALL(NR, FN) lines of syscalls_NN.h. */
struct sysfn_table {
	const char *fn[1024];
};

/* The numbers' header of the x86-64 (abi 0) or the ia32 (abi 1) calls. */
static const char *unistd_path(const struct session *s, int abi)
{
	return arena_printf(abi ? "%s/arch/x86/include/generated/asm/unistd_32_ia32.h" :
			    "%s/arch/x86/include/generated/uapi/asm/unistd_64.h", s->kbuild);
}

/* The "#define __NR_name N" (__NR_ia32_name) lines of an ABI's header, read once. */
static const struct sysnr_table *sysnr_table(struct session *s, int abi)
{
	static struct sysnr_table t[2];
	static bool done[2];
	const char *pattern = abi ? "#define __NR_ia32_%63[A-Za-z0-9_] %d" :
			      "#define __NR_%63[A-Za-z0-9_] %d";
	char *text, *line, *save = NULL;

	if (done[abi])
		return t[abi].v ? &t[abi] : NULL;
	done[abi] = true;
	text = read_file(unistd_path(s, abi), NULL);
	if (!text)
		return NULL;
	t[abi].v = arena_alloc(sizeof(*t[abi].v) * 1024);
	for (line = strtok_r(text, "\n", &save); line && t[abi].n < 1024;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int nr;

		if (sscanf(line, pattern, name, &nr) == 2) {
			t[abi].v[t[abi].n].name = arena_strdup(name);
			t[abi].v[t[abi].n++].nr = nr;
		}
	}
	return &t[abi];
}

static const char *generated_path(const struct session *s, int bits)
{
	return arena_printf("%s/arch/x86/include/generated/asm/syscalls_%d.h", s->kbuild, bits);
}

/*
 * The syscalls_64.h (abi 0) or syscalls_32.h (abi 1) table, read once; in the
 * ia32 one only the plain __SYSCALL lines (__SYSCALL_WITH_COMPAT ones call
 * the compat function). NULL when the build tree has none.
 */
static const struct sysfn_table *sysfn_table(struct session *s, int abi)
{
	static struct sysfn_table t[2];
	static int state[2];
	char *text, *line, *save = NULL;

	if (state[abi])
		return state[abi] > 0 ? &t[abi] : NULL;
	text = read_file(generated_path(s, abi ? 32 : 64), NULL);
	state[abi] = text ? 1 : -1;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char fn[64];
		int nr;

		if (sscanf(line, "__SYSCALL(%d, %63[A-Za-z0-9_])", &nr, fn) == 2 && nr >= 0 &&
		    nr < 1024 && strcmp(fn, "sys_ni_syscall"))
			t[abi].fn[nr] = arena_strdup(fn);
	}
	return text ? &t[abi] : NULL;
}

/* The ia32 numbers whose function is the one x86-64 number nr has. */
static void find_ia32(struct session *s, struct sc_site *site)
{
	const struct sysfn_table *t64 = sysfn_table(s, 0), *t32 = sysfn_table(s, 1);

	if (!t64 || !t32 || site->nr >= 1024 || !t64->fn[site->nr])
		return;
	for (int i = 0; i < 1024 && site->n32 < 4; i++)
		if (t32->fn[i] && !strcmp(t32->fn[i], t64->fn[site->nr]))
			site->nr32[site->n32++] = i;
}

static int sysnr_find(const struct sysnr_table *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return t->v[i].nr;
	return -1;
}

static int syscall_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *c = pp->comps;
	const char *name = pp_component_arg_str(c);
	const struct sysnr_table *t;
	bool ret = c->next && !strcmp(c->next->name, "return") && !c->next->arg;
	struct sc_site *site;
	struct derived_probe *d;
	bool ia32;
	int nr;

	if (!name || (c->next && (!ret || c->next->next))) {
		error_at(pp->loc, "expected __syscall(\"NAME\") or __syscall(\"NAME\").return");
		return -1;
	}
	ia32 = !strncmp(name, "ia32:", 5);
	t = sysnr_table(s, ia32);
	if (!t) {
		error_at(pp->loc, "cannot read the syscall numbers of kernel %s from %s", s->krel,
			 unistd_path(s, ia32));
		return -1;
	}
	nr = sysnr_find(t, ia32 ? name + 5 : name);
	if (nr < 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "kernel %s has no %s system call '%s' (no __NR_%s%s in %s)",
			 s->krel, ia32 ? "ia32" : "x86-64", ia32 ? name + 5 : name,
			 ia32 ? "ia32_" : "", ia32 ? name + 5 : name, unistd_path(s, ia32));
		return -1;
	}
	site = arena_alloc(sizeof(*site));
	site->name = name;
	site->nr = ia32 ? -1 : nr;
	site->is_return = ret;
	if (ia32)
		site->nr32[site->n32++] = nr;
	else
		find_ia32(s, site);
	d = new_derived(proto, arena_printf("__syscall(\"%s\")%s", name, ret ? ".return" : ""));
	d->data = site;
	d->ctx = CTX_USER_REGS | CTX_TASK | (ret ? CTX_RETURN : 0);
	return 1;
}

/* ---- emitting ---- */

/* A probe under one number of one ABI's switch. */
struct sc_case {
	int nr;
	struct derived_probe *dp;
};

static int by_nr(const void *a, const void *b)
{
	const struct sc_case *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr - y->nr;
	return x->dp->index - y->dp->index;
}

/* The cases of a direction for the x86-64 (ia32 false) or the ia32 switch, sorted. */
static int collect_cases(struct derived_probe **dps, int n, bool ret, bool ia32,
			 struct sc_case **out)
{
	struct sc_case *v = arena_alloc(sizeof(*v) * (size_t)(4 * n + 1));
	int m = 0;

	for (int i = 0; i < n; i++) {
		const struct sc_site *k = dps[i]->data;

		if (k->is_return != ret)
			continue;
		if (!ia32 && k->nr >= 0)
			v[m++] = (struct sc_case){ k->nr, dps[i] };
		for (int j = 0; ia32 && j < k->n32; j++)
			v[m++] = (struct sc_case){ k->nr32[j], dps[i] };
	}
	qsort(v, (size_t)m, sizeof(*v), by_nr);
	*out = v;
	return m;
}

/* A switch on orig_ax running each case's probes; the x86-64 number is their native one. */
static void emit_switch(struct emitter *em, const struct sc_case *v, int m, bool ia32)
{
	sb_printf(&em->glue, "\tswitch (regs->orig_ax) {\n");
	for (int i = 0; i < m; i++) {
		const struct sc_site *k = v[i].dp->data;

		if (i == 0 || v[i].nr != v[i - 1].nr) {
			if (i)
				sb_printf(&em->glue, "\t\tbreak;\n");
			if (ia32)
				sb_printf(&em->glue, "\tcase %d:\t/* ia32 */\n", v[i].nr);
			else
				sb_printf(&em->glue, "\tcase __NR_%s:\n", k->name);
		}
		sb_printf(&em->glue, "\t\tutap_syscall_run(&utap_probes[%d], utap_probe_%d, regs, v, "
			  "%s);\n", v[i].dp->index, v[i].dp->handler,
			  k->nr >= 0 ? arena_printf("__NR_%s", k->name) : "-1");
	}
	if (m)
		sb_printf(&em->glue, "\t\tbreak;\n");
	sb_printf(&em->glue, "\t}\n");
}

/*
 * One tracepoint callback for a direction: a 32-bit task's call switches
 * on the ia32 numbers, any other on the x86-64 ones.
 */
static void emit_dispatch(struct emitter *em, struct derived_probe **dps, int n, bool ret)
{
	struct sc_case *v, *v32;
	int m = collect_cases(dps, n, ret, false, &v);
	int m32 = collect_cases(dps, n, ret, true, &v32);

	if (!m && !m32)
		return;
	sb_printf(&em->glue, "static void utap_sc_%s_fn(void *data, struct pt_regs *regs, long v)\n"
		  "{\n\tif (in_ia32_syscall()) {\n", ret ? "exit" : "enter");
	if (m32)
		emit_switch(em, v32, m32, true);
	sb_printf(&em->glue, "\t\treturn;\n\t}\n");
	emit_switch(em, v, m, false);
	sb_printf(&em->glue, "}\n\n");
}

static void emit_table_row(struct emitter *em, struct derived_probe **dps, int n, bool ret)
{
	for (int i = 0; i < n; i++) {
		if (((struct sc_site *)dps[i]->data)->is_return != ret)
			continue;
		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .name = \"sys_%s\", "
			  ".func = (void *)utap_sc_%s_fn },\n", dps[i]->index,
			  ret ? "exit" : "enter", ret ? "exit" : "enter");
		return;
	}
}

static int count_dir(struct derived_probe **dps, int n, bool ret)
{
	int m = 0;

	for (int i = 0; i < n; i++)
		m += ((struct sc_site *)dps[i]->data)->is_return == ret;
	return m;
}

static void syscall_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	int tps = (count_dir(dps, n, false) > 0) + (count_dir(dps, n, true) > 0);

	emit_need(em, "tracepoint");
	sb_printf(&em->top, "#include <asm/unistd.h>\n");
	emit_dispatch(em, dps, n, false);
	emit_dispatch(em, dps, n, true);
	sb_printf(&em->glue, "static struct utap_tracepoint utap_sc_tracepoints[%d] = {\n", tps);
	emit_table_row(em, dps, n, false);
	emit_table_row(em, dps, n, true);
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_tracepoints_register(utap_sc_tracepoints, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", tps);
	sb_printf(&em->unreg, "\tutap_tracepoints_unregister(utap_sc_tracepoints, %d);\n", tps);
}

/* ---- target variables: the tracepoint's own, $regs and $id (entry) or $ret ---- */

/* A syscall's prototype in include/linux/syscalls.h: "asmlinkage long sys_NAME(...);". */
struct sys_proto {
	const char *fn;		/* "sys_openat" */
	struct cparam *params;
	int n;
};

struct sys_protos {
	struct sys_proto *v;
	int n;
};

/* The text inside the parentheses that open at p, or NULL if they do not close. */
static const char *paren_text(const char *p)
{
	const char *q = p + 1;
	int depth = 1;

	for (; *q && depth; q++)
		depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
	return depth ? NULL : arena_strndup(p + 1, (size_t)(q - p - 2));
}

/* Every prototype of the target kernel's syscalls.h, read once; the first of a name wins. */
static const struct sys_protos *sys_protos(struct session *s)
{
	static struct sys_protos t;
	static bool done;
	const char *src, *p, *text;

	if (done)
		return &t;
	done = true;
	src = tphdr_source_tree(s);
	text = src ? read_file(arena_printf("%s/include/linux/syscalls.h", src), NULL) : NULL;
	t.v = arena_alloc(sizeof(*t.v) * 1024);
	for (p = text ? strstr(text, "asmlinkage long sys_") : NULL; p && t.n < 1024;
	     p = strstr(p + 1, "asmlinkage long sys_")) {
		const char *name = p + strlen("asmlinkage long "), *end = name, *args;
		struct sys_proto *sp = &t.v[t.n];

		while (isalnum((unsigned char)*end) || *end == '_')
			end++;
		if (*end != '(' || !(args = paren_text(end)))
			continue;
		sp->fn = arena_strndup(name, (size_t)(end - name));
		sp->n = cparams_parse(args, &sp->params);
		if (sp->n < 0)
			continue;
		for (int i = 0; i < t.n && sp; i++)
			if (!strcmp(t.v[i].fn, sp->fn))
				sp = NULL;
		t.n += sp != NULL;
	}
	return &t;
}

/* The prototype of the kernel function a site's number calls, or NULL. */
static const struct sys_proto *site_proto(struct session *s, const struct sc_site *k)
{
	bool ia32 = k->nr < 0;
	const struct sysfn_table *fns = sysfn_table(s, ia32);
	const struct sys_protos *t = sys_protos(s);
	int nr = ia32 ? k->nr32[0] : k->nr;
	const char *fn = fns && nr >= 0 && nr < 1024 ? fns->fn[nr] : NULL;

	for (int i = 0; fn && i < t->n; i++)
		if (!strcmp(t->v[i].fn, fn))
			return &t->v[i];
	return NULL;
}

static const char *hit_field(const struct derived_probe *d, const char *name)
{
	const struct sc_site *k = d->data;

	if (!strcmp(name, "$regs"))
		return "regs";
	if (!strcmp(name, k->is_return ? "$ret" : "$id") ||
	    (k->is_return && !strcmp(name, "$return")))
		return "v";
	return NULL;
}

/* "its variables: $regs, $id, $fd, ..." for a message. */
static const char *var_names(const struct derived_probe *d, const struct sys_proto *sp)
{
	const struct sc_site *k = d->data;
	const char *s = arena_printf("$regs, %s", k->is_return ? "$ret, $return" : "$id");

	for (int i = 0; sp && i < sp->n; i++)
		if (sp->params[i].name)
			s = arena_printf("%s, $%s", s, sp->params[i].name);
	return s;
}

/*
 * $NAME of the syscall's own parameters, named and typed as syscalls.h
 * declares them (stap's syscall aliases are kernel.function("sys_NAME")
 * probes with these variables when the kernel's debuginfo is there); read
 * from the user registers the call passed, also in .return, where the
 * kernel has not changed them; $$parms lists them.
 */
static int syscall_target_var(struct session *s, struct derived_probe *d, struct node *n,
			      bool quiet)
{
	const struct sys_proto *sp = site_proto(s, d->data);
	int i = n->name && sp ? cparams_find(sp->params, sp->n, n->name + 1) : -1;

	if (n->kind == N_TARGET && n->name && sp && !strcmp(n->name, "$$parms") && !n->args) {
		n->type = TY_STRING;
		return 0;
	}
	if (n->kind == N_TARGET && i >= 0) {
		if (cparams_check_target(n, quiet) < 0)
			return -1;
		n->type = TY_LONG;
		return 0;
	}
	if (n->kind != N_TARGET || n->args || n->op || !n->name || !hit_field(d, n->name)) {
		if (!quiet)
			error_at(n->loc, "target variable '%s' is not available in probe '%s' "
				 "(its variables: %s)", n->name ? n->name : "@cast", d->pp,
				 var_names(d, sp));
		return -1;
	}
	n->type = TY_LONG;
	return 0;
}

/* "const char __user *filename" as a declaration of utap_spI. */
static const char *param_decl(const struct cparam *p, int i)
{
	const char *d = p->decl, *at = NULL, *q;
	size_t len = strlen(p->name);

	for (q = strstr(d, p->name); q; q = strstr(q + 1, p->name))
		if ((q == d || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
		    !(isalnum((unsigned char)q[len]) || q[len] == '_'))
			at = q;
	return arena_printf("%.*sutap_sp%d%s", (int)(at - d), d, i, at + len);
}

static const char *param_base(void *ctx, int i)
{
	(void)ctx;
	return arena_printf("utap_sp%d", i);
}

static struct val emit_params(struct emitter *em, const struct sys_proto *sp, struct node *n)
{
	int want = strcmp(n->name, "$$parms") ? cparams_find(sp->params, sp->n, n->name + 1) : -1;
	struct val v;

	emit_need(em, "regs");
	sb_printf(&em->top, "#include <linux/syscalls.h>\n");
	emit_line(em, "{");
	em->indent++;
	for (int i = 0; i < sp->n; i++)
		if (sp->params[i].name && (want < 0 || i == want))
			emit_line(em, "%s = (__typeof__(utap_sp%d))utap_arg(c, %d, 8, false);",
				  param_decl(&sp->params[i], i), i, i + 1);
	v = want < 0 ? cparams_emit_parms(em, sp->params, sp->n, param_base, NULL) :
		       cparams_emit_target(em, n, param_base(NULL, want));
	em->indent--;
	emit_line(em, "}");
	return v;
}

static struct val syscall_emit_target_var(struct emitter *em, struct derived_probe *d,
					  struct node *n)
{
	if (!hit_field(d, n->name))
		return emit_params(em, site_proto(em->s, d->data), n);
	return (struct val){ .type = TY_LONG,
			     .c = arena_printf("((int64_t)((struct utap_syscall_hit *)"
					       "c->probe_data)->%s)", hit_field(d, n->name)) };
}

/*
 * A guru write: a parameter at the entry goes into the user register the
 * call reads it from, after this tracepoint (the call sees the new value);
 * $return at the exit into rax, which the task gets back.
 */
static bool syscall_store_target_var(struct emitter *em, struct derived_probe *d,
				     struct node *lhs, const char *op, struct val v)
{
	const struct sc_site *k = d->data;
	const struct sys_proto *sp = site_proto(em->s, k);
	int i = sp && !hit_field(d, lhs->name) ? cparams_find(sp->params, sp->n, lhs->name + 1) : -1;

	if (strcmp(op, "=") || v.type != TY_LONG || lhs->args || lhs->op) {
		error_at(lhs->loc, "'%s' takes a number, assigned with '='", lhs->name);
		return false;
	}
	if (k->is_return && !strcmp(lhs->name, "$return")) {
		emit_line(em, "((struct utap_syscall_hit *)c->probe_data)->regs->ax = "
			  "(unsigned long)(%s);", v.c);
		return true;
	}
	if (k->is_return || i < 0) {
		error_at(lhs->loc, "'%s' cannot be assigned here: %s", lhs->name,
			 k->is_return ? "the call has run; assign $return" :
			 "only the call's parameters (at its entry) and $return are writable");
		return false;
	}
	emit_need(em, "regs");
	sb_printf(&em->top, "#include <linux/syscalls.h>\n");
	emit_line(em, "{");
	em->indent++;
	emit_line(em, "unsigned long *utap_slot, utap_stack;");
	emit_line(em, "bool utap_user;");
	emit_line(em, "%s = (__typeof__(utap_sp%d))(%s);", param_decl(&sp->params[i], i), i, v.c);
	emit_line(em, "if (utap_arg_where(c, %d, &utap_slot, &utap_stack, &utap_user) == 0 && "
		  "utap_slot)", i + 1);
	emit_line(em, "\t*utap_slot = (unsigned long)utap_sp%d;", i);
	em->indent--;
	emit_line(em, "}");
	return true;
}

/*
 * As stap -L lists the aliases on a kernel without debuginfo (its tapset
 * then falls back to the same tracepoints); the $NAME parameters are
 * accepted but not listed, as stap lists them only from DWARF.
 */
static void syscall_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct sc_site *k = d->data;

	(void)s;
	fprintf(out, " $regs:struct pt_regs* %s:long int", k->is_return ? "$ret" : "$id");
}

const struct provider provider_syscall = {
	.name = "__syscall",
	.resolve = syscall_resolve,
	.emit = syscall_emit,
	.target_var = syscall_target_var,
	.emit_target_var = syscall_emit_target_var,
	.store_target_var = syscall_store_target_var,
	.list_vars = syscall_list_vars,
};
