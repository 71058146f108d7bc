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
 */
#include "codegen/emit.h"

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
};

static const char *unistd_path(const struct session *s)
{
	return arena_printf("%s/arch/x86/include/generated/uapi/asm/unistd_64.h", s->kbuild);
}

/* The "#define __NR_name N" lines of the build tree's unistd_64.h, read once. */
static const struct sysnr_table *sysnr_table(struct session *s)
{
	static struct sysnr_table t;
	static bool done;
	char *text, *line, *save = NULL;

	if (done)
		return t.v ? &t : NULL;
	done = true;
	text = read_file(unistd_path(s), NULL);
	if (!text)
		return NULL;
	t.v = arena_alloc(sizeof(*t.v) * 1024);
	for (line = strtok_r(text, "\n", &save); line && t.n < 1024;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int nr;

		if (sscanf(line, "#define __NR_%63[A-Za-z0-9_] %d", name, &nr) == 2) {
			t.v[t.n].name = arena_strdup(name);
			t.v[t.n++].nr = nr;
		}
	}
	return &t;
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
	int nr;

	if (!name || (c->next && (!ret || c->next->next))) {
		error_at(pp->loc, "expected __syscall(\"NAME\") or __syscall(\"NAME\").return");
		return -1;
	}
	t = sysnr_table(s);
	if (!t) {
		error_at(pp->loc, "cannot read the syscall numbers of kernel %s from %s", s->krel,
			 unistd_path(s));
		return -1;
	}
	nr = sysnr_find(t, name);
	if (nr < 0) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "kernel %s has no x86-64 system call '%s' (no __NR_%s in %s)",
			 s->krel, name, name, unistd_path(s));
		return -1;
	}
	site = arena_alloc(sizeof(*site));
	site->name = name;
	site->nr = nr;
	site->is_return = ret;
	d = new_derived(proto, arena_printf("__syscall(\"%s\")%s", name, ret ? ".return" : ""));
	d->data = site;
	d->ctx = CTX_USER_REGS | CTX_TASK | (ret ? CTX_RETURN : 0);
	return 1;
}

/* ---- emitting ---- */

static int by_nr(const void *a, const void *b)
{
	const struct sc_site *x = (*(struct derived_probe *const *)a)->data;
	const struct sc_site *y = (*(struct derived_probe *const *)b)->data;

	if (x->nr != y->nr)
		return x->nr - y->nr;
	return (*(struct derived_probe *const *)a)->index - (*(struct derived_probe *const *)b)->index;
}

/* One tracepoint callback for a direction: a case per syscall number, its probes in it. */
static void emit_dispatch(struct emitter *em, struct derived_probe **dps, int n, bool ret)
{
	struct derived_probe **v = arena_alloc(sizeof(*v) * (size_t)(n ? n : 1));
	int m = 0, last = -1;

	for (int i = 0; i < n; i++)
		if (((struct sc_site *)dps[i]->data)->is_return == ret)
			v[m++] = dps[i];
	if (!m)
		return;
	qsort(v, (size_t)m, sizeof(*v), by_nr);
	sb_printf(&em->glue, "static void utap_sc_%s_fn(void *data, struct pt_regs *regs, long v)\n"
		  "{\n\tswitch (regs->orig_ax) {\n", ret ? "exit" : "enter");
	for (int i = 0; i < m; i++) {
		const struct sc_site *k = v[i]->data;

		if (k->nr != last)
			sb_printf(&em->glue, "%s\tcase __NR_%s:\n", last >= 0 ? "\t\tbreak;\n" : "",
				  k->name);
		last = k->nr;
		sb_printf(&em->glue, "\t\tutap_syscall_run(&utap_probes[%d], utap_probe_%d, regs, v);\n",
			  v[i]->index, v[i]->handler);
	}
	sb_printf(&em->glue, "\t\tbreak;\n\t}\n}\n\n");
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

static const char *hit_field(const struct derived_probe *d, const char *name)
{
	const struct sc_site *k = d->data;

	if (!strcmp(name, "$regs"))
		return "regs";
	if (!strcmp(name, k->is_return ? "$ret" : "$id"))
		return "v";
	return NULL;
}

static int syscall_target_var(struct session *s, struct derived_probe *d, struct node *n,
			      bool quiet)
{
	const struct sc_site *k = d->data;

	(void)s;
	if (n->kind != N_TARGET || n->args || n->op || !n->name || !hit_field(d, n->name)) {
		if (!quiet)
			error_at(n->loc, "target variable '%s' is not available in probe '%s' "
				 "(its variables: $regs, %s)", n->name ? n->name : "@cast", d->pp,
				 k->is_return ? "$ret" : "$id");
		return -1;
	}
	n->type = TY_LONG;
	return 0;
}

static struct val syscall_emit_target_var(struct emitter *em, struct derived_probe *d,
					  struct node *n)
{
	(void)em;
	return (struct val){ .type = TY_LONG,
			     .c = arena_printf("((int64_t)((struct utap_syscall_hit *)"
					       "c->probe_data)->%s)", hit_field(d, n->name)) };
}

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
	.list_vars = syscall_list_vars,
};
