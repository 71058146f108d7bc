/*
 * sdt.c - process("PATH").mark("NAME") and
 * process("PATH").provider("P").mark("NAME"): SDT markers (<sys/sdt.h>)
 * from the binary's .note.stapsdt, as uprobes on the marker's nop.
 *
 * A marker with a semaphore is registered with uprobe_register_refctr():
 * the kernel raises the semaphore in every process that maps the file
 * while the probe is registered, so the program computes the marker's
 * arguments only then. Arguments are $arg1..$argN (stap's names), read
 * from the registers or memory the note describes; $$parms lists them;
 * $$name and $$provider name the marker.
 */
#include "probes/process.h"
#include "probes/uvars.h"
#include "probes/sdt_notes.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool mark_match(const struct probe_point *pp)
{
	static const char *const kinds[] = { "mark", "provider" };

	return process_point_is(pp, kinds, 2);
}

/* stap lets a marker be named with '-' for the "__" in its C name. */
static const char *mark_pattern(const char *name)
{
	struct strbuf sb = { 0 };
	const char *r;

	for (; *name; name++)
		sb_puts(&sb, *name == '-' ? "__" : (char[]){ *name, 0 });
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

/* The provider and marker patterns of .provider("P").mark("N") or .mark("N"). */
static bool read_mark_point(const struct probe_point *pp, const char **provider,
			    const char **mark)
{
	const struct pp_component *c = process_kind(pp);

	*provider = "*";
	if (!strcmp(c->name, "provider")) {
		*provider = pp_component_arg_str(c);
		c = c->next;
		if (!*provider || !c || strcmp(c->name, "mark")) {
			error_at(pp->loc, "expected .provider(\"NAME\").mark(\"NAME\")");
			return false;
		}
	}
	*mark = pp_component_arg_str(c);
	if (!*mark || c->next) {
		error_at(pp->loc, ".mark takes a marker name and nothing follows it");
		return false;
	}
	*mark = mark_pattern(*mark);
	return true;
}

static int add_mark(struct probe_point *pp, struct derived_probe *proto,
		    const struct process_spec *spec, struct ubinary *b, struct sdt_note *n)
{
	struct usite *u = usite_new(pp, spec, b, n->pc);
	struct derived_probe *d;

	if (!u)
		return -1;
	if (n->semaphore && !ubin_offset(b, n->semaphore, &u->sema_offset)) {
		error_at(pp->loc, "the semaphore of marker '%s' in '%s' is not in the file",
			 n->name, b->path);
		return -1;
	}
	u->family = n;
	d = new_derived(proto, arena_printf("%s.mark(\"%s\")", process_site_prefix(spec, b),
					    n->name));
	d->data = u;
	d->ctx = CTX_USER_REGS | CTX_TASK;
	return 1;
}

static int mark_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const char *provider, *mark;
	struct process_spec spec;
	int rc, total = 0;

	if (!read_mark_point(pp, &provider, &mark))
		return -1;
	rc = process_spec_read(s, pp, true, &spec);
	if (rc <= 0)
		return rc;
	for (int i = 0; i < spec.nbins; i++) {
		struct ubinary *b = spec.bins[i];

		sdt_load(b);
		for (size_t k = 0; k < b->nnotes; k++) {
			struct sdt_note *n = &b->notes[k];

			if (fnmatch(mark, n->name, 0) || fnmatch(provider, n->provider, 0))
				continue;
			rc = add_mark(pp, proto, &spec, b, n);
			if (rc < 0)
				return -1;
			total += rc;
		}
	}
	if (total)
		return total;
	return process_report_missing(pp, &spec, "SDT marker", mark,
				      spec.nbins == 1 && !spec.bins[0]->nnotes ?
				      " (it has no .note.stapsdt)" : "");
}

static void mark_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	uprobe_emit_table(em, dps, n, "utap_uprobes_mark");
}

/* ---- target variables ---------------------------------------------------- */

/* How to read argument A at the marker (link-time address PC). */
static struct uaccess arg_access(const struct sdt_arg *a, uint64_t pc)
{
	struct uaccess acc = { 0 };
	struct scalar sc = { a->size, a->is_signed };

	switch (a->kind) {
	case SDT_REG:
		acc.base = arena_printf("((uint64_t)c->regs->%s%s)", sdt_reg_names[a->reg],
					a->reg_shift ? " >> 8" : "");
		/* a wider size than the register names: its bits, zero-extended */
		if (a->reg_width < a->size)
			sc = (struct scalar){ a->reg_width, false };
		access_add(&acc, (struct step){ .op = STEP_CONV, .sc = sc });
		break;
	case SDT_IMM:
		acc.base = arena_printf("%" PRId64 "ULL", a->disp);
		access_add(&acc, (struct step){ .op = STEP_CONV, .sc = sc });
		break;
	case SDT_MEM:
		/* the load bias is the probe's ip minus the marker's link-time address */
		acc.base = arena_printf("(%s%s%s%s%s + %" PRId64 "ULL)",
			a->rip_relative ? arena_printf("(uint64_t)c->regs->ip - %" PRIu64 "ULL", pc) : "0",
			a->reg >= 0 ? " + (uint64_t)c->regs->" : "",
			a->reg >= 0 ? sdt_reg_names[a->reg] : "",
			a->index >= 0 ? arena_printf(" + (uint64_t)c->regs->%s * %d",
						     sdt_reg_names[a->index], a->scale) : "",
			"", a->disp);
		access_add(&acc, (struct step){ .op = STEP_LOAD, .sc = sc });
		break;
	}
	return acc;
}

static int mark_error(struct node *n, bool quiet, const char *msg)
{
	if (!quiet)
		error_at(n->loc, "%s", msg);
	return -1;
}

static int resolve_arg(const struct sdt_note *note, uint64_t pc, struct node *n, bool quiet)
{
	char *end;
	long k = strtol(n->name + 4, &end, 10);
	struct uaccess acc;

	if (*end || k < 1)
		return mark_error(n, quiet, arena_printf("unknown target variable '%s'", n->name));
	if (note->error)
		return mark_error(n, quiet, arena_printf("'%s': marker '%s' has an argument utap "
							 "cannot read: %s", n->name, note->name,
							 note->error));
	if (k > note->nargs)
		return mark_error(n, quiet, arena_printf("marker '%s' has %d argument%s: no '%s'",
							 note->name, note->nargs,
							 note->nargs == 1 ? "" : "s", n->name));
	if (n->args)
		return mark_error(n, quiet, arena_printf("'%s' has no type: use @cast or the "
							 "user_* functions on it", n->name));
	acc = arg_access(&note->argv[k - 1], pc);
	uvar_set_long(n, &acc);
	return 0;
}

static int resolve_parms(const struct sdt_note *note, uint64_t pc, struct node *n)
{
	struct piece *pieces = arena_alloc(sizeof(*pieces) * (note->nargs + 1));

	for (int i = 0; i < note->nargs; i++) {
		pieces[i].text = arena_printf("%sarg%d=", i ? " " : "", i + 1);
		pieces[i].fmt = PIECE_HEX;
		pieces[i].acc = arg_access(&note->argv[i], pc);
	}
	uvar_set_pieces(n, pieces, note->error ? 0 : note->nargs);
	return 0;
}

static int mark_target_var(struct session *s, struct derived_probe *d, struct node *n,
			   bool quiet)
{
	const struct usite *u = d->data;
	const struct sdt_note *note = u->family;
	const char *name = n->name;

	(void)s;
	if (n->kind != N_TARGET)
		return mark_error(n, quiet, "@cast and @entry are not supported in .mark probes yet");
	if (!strcmp(name, "$$name") || !strcmp(name, "$name")) {
		uvar_set_string(n, note->name);
		return 0;
	}
	if (!strcmp(name, "$$provider")) {
		uvar_set_string(n, note->provider);
		return 0;
	}
	if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars") || !strcmp(name, "$$parms$") ||
	    !strcmp(name, "$$vars$"))
		return resolve_parms(note, u->vaddr, n);
	if (!strncmp(name, "$arg", 4))
		return resolve_arg(note, u->vaddr, n, quiet);
	return mark_error(n, quiet, arena_printf("unknown target variable '%s' in marker '%s' "
						 "(it has $arg1..$arg%d, $$parms, $$name, "
						 "$$provider)", name, note->name, note->nargs));
}

static struct val mark_emit_target_var(struct emitter *em, struct derived_probe *d,
				       struct node *n)
{
	(void)d;
	return uvar_emit(em, n);
}

static void mark_list_vars(struct session *s, struct derived_probe *d, FILE *out)
{
	const struct usite *u = d->data;
	const struct sdt_note *note = u->family;

	(void)s;
	for (int i = 0; i < note->nargs; i++)
		fprintf(out, " $arg%d:long", i + 1);
}

/* the names a '*' after the first component stands for */
static const char *const sdt_words[] = {
	"mark", "provider", NULL
};

const struct provider provider_process_mark = {
	.name = "process.mark",
	.words = sdt_words,
	.match = mark_match,
	.resolve = mark_resolve,
	.emit = mark_emit,
	.target_var = mark_target_var,
	.emit_target_var = mark_emit_target_var,
	.list_vars = mark_list_vars,
};
