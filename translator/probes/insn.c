/*
 * insn.c - process("PATH").insn and .insn.block, the same on process(PID)
 * and on bare process (the -c/-x target and its descendants): the handler
 * runs after each instruction (.insn) or each block (.insn.block: after
 * every taken branch) of the threads being traced. The stepping engine is
 * runtime/itrace/; tapsets/itrace.stp has itrace_on/itrace_off and the
 * functions an insn handler uses.
 *
 * The provider also resolves `__itrace_engine`, a point the itrace tapset
 * declares so that a script calling itrace_on() without any insn probe
 * still gets the engine. Without itrace_on/itrace_off in the script, every
 * thread of a matching process is traced from its start (or from the start
 * of the run); with them, only threads switched on are.
 */
#include "probes/process.h"

#include <inttypes.h>
#include <string.h>

#define ENGINE_POINT "__itrace_engine"

struct insn_probe {
	const char *path;		/* process("PATH"), or NULL */
	int64_t pid;			/* process(PID), or 0 */
	bool target_tree;		/* bare process with -c/-x */
	bool block;
	bool engine;			/* __itrace_engine: no probe of its own */
};

static bool insn_match(const struct probe_point *pp)
{
	static const char *const kinds[] = { "insn" };

	return !strcmp(pp->comps->name, ENGINE_POINT) || process_point_is(pp, kinds, 1);
}

static struct derived_probe *add(struct derived_probe *proto, const char *pp,
				 const struct insn_probe *ip)
{
	struct insn_probe *data = arena_alloc(sizeof(*data));
	struct derived_probe *d = new_derived(proto, pp);

	*data = *ip;
	d->data = data;
	d->ctx = ip->engine ? 0 : CTX_USER_REGS | CTX_TASK;
	return d;
}

static int insn_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	const struct pp_component *kind = process_kind(pp);
	struct insn_probe ip = { 0 };
	struct process_spec spec;
	const char *suffix;
	int rc;

	if (!strcmp(pp->comps->name, ENGINE_POINT)) {
		if (pp->comps->arg || pp->comps->next) {
			error_at(pp->loc, "'%s' takes no argument or component", ENGINE_POINT);
			return -1;
		}
		ip.engine = true;
		add(proto, ENGINE_POINT, &ip);
		return 1;
	}
	if (kind->arg) {
		error_at(pp->loc, ".insn takes no argument");
		return -1;
	}
	if (kind->next) {
		if (strcmp(kind->next->name, "block") || kind->next->arg || kind->next->next) {
			error_at(pp->loc, "unknown probe point component '%s' after .insn "
				 "(expected .block)", kind->next->name);
			return -1;
		}
		ip.block = true;
	}
	suffix = ip.block ? ".insn.block" : ".insn";
	rc = process_spec_read(s, pp, false, &spec);
	if (rc <= 0)
		return rc;
	if (spec.nbins) {
		for (int i = 0; i < spec.nbins; i++) {
			ip.path = spec.bins[i]->path;
			add(proto, arena_printf("%s%s", process_pp_prefix(spec.bins[i], 0), suffix),
			    &ip);
		}
		return spec.nbins;
	}
	if (spec.pid) {
		ip.pid = spec.pid;
		add(proto, arena_printf("process(%" PRId64 ")%s", spec.pid, suffix), &ip);
		return 1;
	}
	if (!spec.target_tree) {
		/* every thread of every process, the runner's too: not what anyone wants */
		error_at(pp->loc, "process%s needs a path, a PID, or a target process (-c CMD or "
			 "-x PID)", suffix);
		return -1;
	}
	ip.target_tree = true;
	add(proto, arena_printf("process%s", suffix), &ip);
	return 1;
}

/* A statement that does nothing: no handler call is needed for it. */
static bool stmt_empty(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_NULL)
			continue;
		if (n->kind != N_BLOCK || !stmt_empty(n->body))
			return false;
	}
	return true;
}

/* The script switches tracing itself (itrace_on/itrace_off, any arity). */
static bool uses_requests(struct session *s)
{
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		if (!strcmp(fn->name, "itrace_on") || !strcmp(fn->name, "itrace_off"))
			return true;
	return false;
}

static void insn_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	int m = 0;

	emit_need(em, "itrace");
	sb_printf(&em->glue, "static struct utap_insn_probe utap_insn_probes[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct insn_probe *ip = dps[i]->data;
		bool body = dps[i]->cond || !stmt_empty(dps[i]->body);

		if (ip->engine)
			continue;
		m++;
		sb_printf(&em->glue, "\t{ .path = %s, .pid = %" PRId64 ", .target_tree = %d, "
			  ".block = %d, .has_body = %d, .probe = &utap_probes[%d], "
			  ".handler = utap_probe_%d },\n",
			  ip->path ? c_string_literal(ip->path, strlen(ip->path)) : "NULL",
			  ip->pid, ip->target_tree, ip->block, body, dps[i]->index,
			  dps[i]->handler);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->init, "\t{\n\t\tint rc = utap_itrace_init();\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n");
	sb_printf(&em->exit, "\tutap_itrace_exit();\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_itrace_start(utap_insn_probes, %d, %s, %s);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", m,
		  uses_requests(em->s) ? "false" : "true", em->s->cmd ? "true" : "false");
	sb_printf(&em->unreg, "\tutap_itrace_stop();\n");
}

/* the names a '*' after the first component stands for */
static const char *const insn_words[] = {
	"block", "insn", NULL
};

const struct provider provider_insn = {
	.name = "process.insn",
	.words = insn_words,
	.match = insn_match,
	.resolve = insn_resolve,
	.emit = insn_emit,
};
