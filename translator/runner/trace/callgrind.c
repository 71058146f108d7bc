/*
 * callgrind.c - the callgrind profile writer (Valgrind's "Callgrind Format
 * Specification", version 1), as callgrind --dump-instr=yes
 * --collect-jumps=yes writes it:
 *
 *   positions: instr line      cost lines "ADDR LINE Ir", ADDR file-relative
 *   events: Ir
 *   ob= / fl= / fi= / fn=      object, file, file change, function (with
 *                              name compression "(id) name")
 *   jcnd=TAKEN/EXECUTED ADDR LINE   a conditional branch, then the branch's
 *                              own position on a line without cost
 *   jump=COUNT ADDR LINE       an unconditional jump (the same)
 *   cob= cfi= cfn= calls=COUNT ADDR LINE, then "ADDR LINE INCLUSIVE"
 *
 * Jumps are written only when their target lies in the same function
 * (a jump elsewhere is a tail call; callgrind_annotate and KCachegrind then
 * show it nowhere useful). PLT stubs are "NAME@plt" (plt.c). Instructions
 * of a module without symbols, or below its first symbol, belong to function
 * "???"; outside every known mapping the object is "???" too and addresses
 * are absolute.
 */
#include "runner/trace/tout_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* name compression: each distinct string gets a number on first use */
struct names {
	struct ktab idx;
	char **s;
	size_t n, cap;
};

/* Print "KEY=(id) name" the first time NAME is seen, "KEY=(id)" after. */
static void put_name(FILE *f, struct names *nm, const char *key, const char *name)
{
	uint64_t k[4] = { hash_str(name), 0, 0, 0 };
	char buf[4096];

	for (;; k[1]++) {
		int64_t i = ktab_get(&nm->idx, k, false, 0);

		if (i >= 0 && !strcmp(nm->s[i], name)) {
			fprintf(f, "%s=(%" PRId64 ")\n", key, i + 1);
			return;
		}
		if (i < 0)
			break;
	}
	if (tout_grow((void **)&nm->s, &nm->cap, nm->n + 1, sizeof(char *)) &&
	    (nm->s[nm->n] = strdup(name)) != NULL &&
	    ktab_get(&nm->idx, k, true, (uint32_t)nm->n) >= 0) {
		nm->n++;
		fprintf(f, "%s=(%zu) %s\n", key, nm->n, tout_printable(name, buf, sizeof(buf)));
		return;
	}
	/* out of memory: uncompressed is valid too */
	fprintf(f, "%s=%s\n", key, tout_printable(name, buf, sizeof(buf)));
}

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->s[i]);
	free(nm->s);
	ktab_free(&nm->idx);
}

/* Where an instruction or a target is, as the writer prints it. */
struct pos {
	int32_t mod;
	uint64_t addr;		/* file-relative, or absolute without a module */
	int64_t sym;		/* -1: none */
	const char *fn;
	const char *file;
	uint32_t line;
};

static void locate(struct tout *t, int32_t mod, uint64_t addr, struct pos *p)
{
	p->mod = mod;
	p->addr = addr;
	p->sym = -1;
	p->fn = NULL;
	p->file = NULL;
	p->line = 0;
	if (mod >= 0) {
		struct tmod *m = &t->mods[mod];

		tmod_load(t, m);
		p->sym = tmod_symbol(m, addr, &p->fn);
		tmod_line(m, addr, &p->file, &p->line);
	}
	if (!p->fn)
		p->fn = "???";
	if (!p->file)
		p->file = "???";
}

static const char *obj_name(struct tout *t, int32_t mod)
{
	return mod >= 0 ? t->mods[mod].path : "???";
}

static struct tout *sort_t;

static int by_place(const void *a, const void *b)
{
	const struct tins *x = &sort_t->ins[*(const uint32_t *)a];
	const struct tins *y = &sort_t->ins[*(const uint32_t *)b];
	uint32_t mx = (uint32_t)x->mod, my = (uint32_t)y->mod;	/* -1 sorts last */

	if (mx != my)
		return mx < my ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_from(const void *a, const void *b)
{
	const struct tedge *x = &sort_t->edges[*(const uint32_t *)a];
	const struct tedge *y = &sort_t->edges[*(const uint32_t *)b];

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to_mod != y->to_mod)
		return (uint32_t)x->to_mod < (uint32_t)y->to_mod ? -1 : 1;
	return x->to_addr < y->to_addr ? -1 : x->to_addr > y->to_addr;
}

struct cg {
	struct tout *t;
	FILE *f;
	struct names ob, fl, fn;
	uint32_t *eorder;	/* edges sorted by source instruction */
	size_t *efirst;		/* per instruction: its first edge in eorder, nins + 1 entries */
};

static void put_jumps(struct cg *c, const struct tins *in, const struct pos *here, uint32_t idx)
{
	struct tout *t = c->t;
	bool cond = in->flags & UTAP_STEP_COND;
	bool wrote = false;

	for (size_t k = c->efirst[idx]; k < c->efirst[idx + 1]; k++) {
		const struct tedge *e = &t->edges[c->eorder[k]];
		struct pos to;

		locate(t, e->to_mod, e->to_addr, &to);
		if (to.mod != here->mod || to.sym != here->sym)
			continue;
		if (cond)
			fprintf(c->f, "jcnd=%" PRIu64 "/%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n",
				e->count, in->count, to.addr, to.line);
		else
			fprintf(c->f, "jump=%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", e->count,
				to.addr, to.line);
		fprintf(c->f, "0x%" PRIx64 " %" PRIu32 "\n", here->addr, here->line);
		wrote = true;
	}
	/* a conditional branch that never jumped: its target from the decoded bytes */
	if (cond && !wrote && !in->taken && in->dtarget) {
		struct pos to;
		uint64_t rel;
		int32_t mod = tout_locate(t, in->mod >= 0 ? t->mods[in->mod].pid : 0, in->dtarget,
					  &rel);

		locate(t, mod, rel, &to);
		if (to.mod == here->mod && to.sym == here->sym) {
			fprintf(c->f, "jcnd=0/%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", in->count,
				to.addr, to.line);
			fprintf(c->f, "0x%" PRIx64 " %" PRIu32 "\n", here->addr, here->line);
		}
	}
}

static void put_calls(struct cg *c, const struct pos *here, uint32_t idx)
{
	struct tout *t = c->t;

	for (size_t k = c->efirst[idx]; k < c->efirst[idx + 1]; k++) {
		const struct tedge *e = &t->edges[c->eorder[k]];
		struct pos to;

		locate(t, e->to_mod, e->to_addr, &to);
		if (to.mod != here->mod)
			put_name(c->f, &c->ob, "cob", obj_name(t, to.mod));
		put_name(c->f, &c->fl, "cfi", to.file);
		put_name(c->f, &c->fn, "cfn", to.fn);
		fprintf(c->f, "calls=%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", e->count, to.addr,
			to.line);
		fprintf(c->f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", here->addr, here->line,
			e->inclusive);
	}
}

static int callgrind_write(struct tout *t, FILE *f)
{
	struct cg c = { .t = t, .f = f };
	uint32_t *order = malloc((t->nins ? t->nins : 1) * sizeof(*order));
	uint64_t total = 0;
	int32_t cur_mod = INT32_MIN;
	int64_t cur_sym = INT64_MIN;
	const char *cur_file = NULL;

	c.eorder = malloc((t->nedges ? t->nedges : 1) * sizeof(*c.eorder));
	c.efirst = calloc(t->nins + 1, sizeof(*c.efirst));
	if (!order || !c.eorder || !c.efirst) {
		free(order);
		free(c.eorder);
		free(c.efirst);
		return -1;
	}
	for (uint32_t i = 0; i < t->nins; i++) {
		order[i] = i;
		total += t->ins[i].count;
	}
	for (uint32_t i = 0; i < t->nedges; i++)
		c.eorder[i] = i;
	sort_t = t;
	tout_sort(order, t->nins, sizeof(*order), by_place);
	tout_sort(c.eorder, t->nedges, sizeof(*c.eorder), by_from);
	for (size_t k = 0, i = 0; i <= t->nins; i++) {
		while (k < t->nedges && t->edges[c.eorder[k]].from < i)
			k++;
		c.efirst[i] = k;
	}

	fprintf(f, "# callgrind format\nversion: 1\ncreator: %s\n",
		t->o.creator ? t->o.creator : "utap");
	if (t->o.pid)
		fprintf(f, "pid: %ld\n", t->o.pid);
	if (t->o.cmd)
		fprintf(f, "cmd: %s\n", t->o.cmd);
	fprintf(f, "part: 1\n");
	if (t->st.lost)
		fprintf(f, "# utap: %" PRIu64 " executed instructions were not recorded\n",
			t->st.lost);
	fprintf(f, "\npositions: instr line\nevents: Ir\nsummary: %" PRIu64 "\n", total);

	for (uint32_t k = 0; k < t->nins; k++) {
		uint32_t idx = order[k];
		const struct tins *in = &t->ins[idx];
		struct pos here;

		locate(t, in->mod, in->addr, &here);
		if (in->mod != cur_mod) {
			fprintf(f, "\n");
			put_name(f, &c.ob, "ob", obj_name(t, in->mod));
			cur_mod = in->mod;
			cur_sym = INT64_MIN;
		}
		if (here.sym != cur_sym) {
			if (cur_sym != INT64_MIN)
				fprintf(f, "\n");
			put_name(f, &c.fl, "fl", here.file);
			put_name(f, &c.fn, "fn", here.fn);
			cur_sym = here.sym;
			cur_file = here.file;
		} else if (strcmp(here.file, cur_file)) {
			put_name(f, &c.fl, "fi", here.file);
			cur_file = here.file;
		}
		fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", here.addr, here.line, in->count);
		if (in->flags & UTAP_STEP_CALL)
			put_calls(&c, &here, idx);
		else if ((in->flags & UTAP_STEP_BRANCH) && !(in->flags & UTAP_STEP_RET))
			put_jumps(&c, in, &here, idx);
	}
	fprintf(f, "\ntotals: %" PRIu64 "\n", total);
	free(order);
	free(c.eorder);
	free(c.efirst);
	names_free(&c.ob);
	names_free(&c.fl);
	names_free(&c.fn);
	return 0;
}

const struct tout_writer tout_callgrind = {
	.name = "callgrind",
	.write = callgrind_write,
};
