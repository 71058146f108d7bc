/*
 * uprobe_plt.c - process("PATH").plt("NAME")[.return]: uprobes on the
 * stubs of a binary's procedure linkage table, one per function it calls
 * through a lazily bound slot (its JUMP_SLOT relocations, as stap lists
 * them). The stub probed is the one a call reaches: .plt's entry, or
 * .plt.sec's where the binary has one (IBT). No DWARF is needed; $$name is
 * the function's name, and .return is a uretprobe on the stub, so it fires
 * when the called function returns to the caller.
 */
#include "probes/process.h"
#include "probes/uvars.h"
#include "elf/plt.h"

#include <fnmatch.h>
#include <string.h>

static bool plt_match(const struct probe_point *pp)
{
	static const char *const kinds[] = { "plt" };

	return process_point_is(pp, kinds, 1);
}

/* .plt, .plt("NAME") or either with .return; *is_return says which. */
static bool read_plt_suffix(const struct probe_point *pp, const struct pp_component *plt,
			    bool *is_return)
{
	const struct pp_component *sfx = plt->next;

	*is_return = sfx && !strcmp(sfx->name, "return") && !sfx->arg && !sfx->next;
	if (!sfx || *is_return)
		return true;
	error_at(pp->loc, "unknown probe point component '%s' after .plt (expected .return)",
		 sfx->name);
	return false;
}

static int add_stub(struct probe_point *pp, struct derived_probe *proto,
		    const struct process_spec *spec, const struct ubinary *b,
		    const struct elf_plt_stub *st, const char *name, bool is_return)
{
	struct derived_probe *d;
	struct usite *u = usite_new(pp, spec, b, st->start);

	if (!u)
		return -1;
	u->is_return = is_return;
	u->func = name;
	u->family = (void *)name;
	d = new_derived(proto, arena_printf("%s.plt(\"%s\")%s", process_site_prefix(spec, b),
					    name, is_return ? ".return" : ""));
	d->data = u;
	d->ctx = CTX_USER_REGS | CTX_TASK | (is_return ? CTX_RETURN : 0);
	return 1;
}

/* Every stub of b whose function PATTERN matches. */
static int resolve_stubs(struct probe_point *pp, struct derived_probe *proto,
			 const struct process_spec *spec, struct ubinary *b, const char *pattern,
			 bool is_return)
{
	struct elf_plt plt;
	int total = 0, rc = 0;

	if (elf_plt_read(b->di.file.elf, b->di.separate.elf, &plt)) {
		error_at(pp->loc, "out of memory reading the PLT of '%s'", b->path);
		return -1;
	}
	for (size_t i = 0; i < plt.nstubs && rc >= 0; i++) {
		const struct elf_plt_stub *st = &plt.stubs[i];
		const char *at = strrchr(st->name, '@');
		const char *name = arena_strndup(st->name, at ? (size_t)(at - st->name) :
								strlen(st->name));

		if (st->got_only || fnmatch(pattern, name, 0))
			continue;
		rc = add_stub(pp, proto, spec, b, st, name, is_return);
		total += rc > 0 ? rc : 0;
	}
	elf_plt_free(&plt);
	return rc < 0 ? -1 : total;
}

static int plt_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *kind = process_kind(pp);
	const char *pattern = kind->arg ? pp_component_arg_str(kind) : "*";
	struct process_spec spec;
	bool is_return;
	int rc, total = 0;

	if (!pattern) {
		error_at(pp->loc, ".plt takes a function name string");
		return -1;
	}
	if (!read_plt_suffix(pp, kind, &is_return))
		return -1;
	rc = process_spec_read(s, pp, true, &spec);
	if (rc <= 0)
		return rc;
	for (int i = 0; i < spec.nbins; i++) {
		rc = resolve_stubs(pp, proto, &spec, spec.bins[i], pattern, is_return);
		if (rc < 0)
			return -1;
		total += rc;
	}
	if (total)
		return total;
	return process_report_missing(pp, &spec, "PLT entry", pattern,
				      " (its lazily bound calls, from .rela.plt)");
}

static void plt_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	uprobe_emit_table(em, dps, n, "utap_uprobes_plt");
}

/* $$name: the called function; PLT stubs have no DWARF, so nothing else. */
static int plt_target_var(struct session *s, struct derived_probe *d, struct node *n,
			  bool quiet)
{
	const struct usite *u = d->data;

	(void)s;
	if (n->kind == N_TARGET && (!strcmp(n->name, "$$name") || !strcmp(n->name, "$name"))) {
		uvar_set_string(n, u->family);
		return 0;
	}
	if (!quiet)
		error_at(n->loc, "'%s' is not available in a .plt probe: a PLT stub has no "
			 "debuginfo, so only $$name (the called function) is known; read arguments "
			 "with register(\"rdi\") ... or uint_arg(N)", n->kind == N_TARGET ? n->name :
			 "@cast");
	return -1;
}

static struct val plt_emit_target_var(struct emitter *em, struct derived_probe *d,
				      struct node *n)
{
	(void)d;
	return uvar_emit(em, n);
}

/* the names a '*' after the first component stands for */
static const char *const plt_words[] = {
	"plt", "return", NULL
};

const struct provider provider_process_plt = {
	.name = "process.plt",
	.words = plt_words,
	.match = plt_match,
	.resolve = plt_resolve,
	.emit = plt_emit,
	.target_var = plt_target_var,
	.emit_target_var = plt_emit_target_var,
};
