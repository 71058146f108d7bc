/*
 * hwbkpt.c - kernel.data(ADDRESS)[.length(LEN)].write|.rw and
 * kernel.data("SYMBOL").write|.rw: hardware watchpoints (the CPU's debug
 * registers) on kernel data, one per CPU (runtime/probes/hwbkpt.c). A
 * symbol is looked up in the running kernel when the module starts
 * (KASLR moves it); the translator checks that it is a data symbol.
 */
#include "codegen/emit.h"
#include "kernel/ksyms.h"

#include <inttypes.h>
#include <string.h>

#define HWBKPT_REGISTERS 4	/* x86's DR0-DR3 */

struct hwbkpt {
	uint64_t addr;		/* 0 with a symbol */
	const char *symbol;
	int len;		/* 1, 2, 4 or 8 bytes */
	bool rw;		/* reads too, not only writes */
};

static bool hwbkpt_match(const struct probe_point *pp)
{
	const struct pp_component *c = pp->comps->next;

	return c && !strcmp(c->name, "data") && !pp->comps->arg;
}

/* The data symbol NAME of the target kernel, or an error. */
static bool check_symbol(struct session *s, const struct probe_point *pp, const char *name)
{
	const struct ksyms *k = ksyms_get(s);
	long i;

	if (!k)
		return false;
	i = ksyms_find(k, name, NULL);
	if (i < 0) {
		error_at(pp->loc, "no symbol '%s' in kernel %s (symbols from %s)", name, s->krel,
			 k->source);
		return false;
	}
	if (!strchr("dDbBrRvV", k->syms[i].type)) {
		error_at(pp->loc, "'%s' is not a data symbol of the kernel (kallsyms type '%c'): "
			 "kernel.data watches variables; probe a function with kernel.function",
			 name, k->syms[i].type);
		return false;
	}
	return true;
}

/* .length(LEN) as the debug registers can watch it: 1, 2, 4 or 8 bytes. */
static bool read_length(const struct probe_point *pp, const struct pp_component *c, int *len)
{
	int64_t n;

	if (!pp_component_arg_num(c, &n) || n < 1) {
		error_at(pp->loc, ".length takes a positive number of bytes");
		return false;
	}
	if (n > 8) {
		error_at(pp->loc, ".length(%" PRId64 ") is more than the 8 bytes an x86 debug register "
			 "watches", n);
		return false;
	}
	*len = n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : 8;
	return true;
}

static bool read_point(struct session *s, const struct probe_point *pp, struct hwbkpt *h)
{
	const struct pp_component *c = pp->comps->next;
	int64_t addr;

	h->len = 1;
	h->symbol = pp_component_arg_str(c);
	if (h->symbol && !check_symbol(s, pp, h->symbol))
		return false;
	if (!h->symbol && !pp_component_arg_num(c, &addr)) {
		error_at(pp->loc, "kernel.data takes an address or a symbol name string");
		return false;
	}
	h->addr = h->symbol ? 0 : (uint64_t)addr;
	c = c->next;
	if (c && !strcmp(c->name, "length")) {
		if (h->symbol) {
			error_at(pp->loc, ".length is not valid with a symbol name, only with an address");
			return false;
		}
		if (!read_length(pp, c, &h->len))
			return false;
		c = c->next;
	}
	if (!c || c->arg || c->next || (strcmp(c->name, "write") && strcmp(c->name, "rw"))) {
		error_at(pp->loc, "expected kernel.data(...).write or .rw%s",
			 h->symbol ? "" : " (with .length(LEN) before it)");
		return false;
	}
	h->rw = !strcmp(c->name, "rw");
	return true;
}

static int hwbkpt_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	static int count;
	struct hwbkpt *h = arena_alloc(sizeof(*h));
	struct derived_probe *d;
	const char *where;

	if (!read_point(s, pp, h))
		return -1;
	if (++count == HWBKPT_REGISTERS + 1)
		warn_at(pp->loc, "more than %d hardware breakpoint probes: x86 has %d debug "
			"registers, so some will fail to register", HWBKPT_REGISTERS,
			HWBKPT_REGISTERS);
	where = h->symbol ? arena_printf("\"%s\"", h->symbol) : arena_printf("0x%" PRIx64, h->addr);
	d = new_derived(proto, arena_printf("kernel.data(%s)%s.%s", where, h->symbol ||
					    h->len == 1 ? "" : arena_printf(".length(%d)", h->len),
					    h->rw ? "rw" : "write"));
	d->data = h;
	d->ctx = CTX_KERNEL_REGS;
	return 1;
}

static void hwbkpt_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	emit_need(em, "hwbkpt");
	sb_printf(&em->glue, "static struct utap_hwbkpt utap_hwbkpts[%d] = {\n", n);
	for (int i = 0; i < n; i++) {
		const struct hwbkpt *h = dps[i]->data;

		sb_printf(&em->glue, "\t{ .probe = &utap_probes[%d], .handler = utap_probe_%d, "
			  ".addr = 0x%" PRIx64 "ULL, .symbol = %s, .len = %d, .rw = %d, "
			  ".optional = %d },\n", dps[i]->index, dps[i]->handler, h->addr,
			  h->symbol ? c_string_literal(h->symbol, strlen(h->symbol)) : "NULL",
			  h->len, h->rw, dps[i]->point->optional);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_hwbkpts_register(utap_hwbkpts, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", n);
	sb_printf(&em->unreg, "\tutap_hwbkpts_unregister(utap_hwbkpts, %d);\n", n);
}

static const char *const hwbkpt_words[] = { "data", "length", "rw", "write", NULL };

const struct provider provider_hwbkpt = {
	.name = "kernel.data",
	.words = hwbkpt_words,
	.match = hwbkpt_match,
	.resolve = hwbkpt_resolve,
	.emit = hwbkpt_emit,
};
