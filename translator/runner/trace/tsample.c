/*
 * tsample.c - sampled stacks for the profile writer (pprof.c): the pieces
 * of each sample put together, and the kernel's symbols that name its
 * kernel frames.
 *
 * A sample deeper than one ring-buffer record arrives as consecutive
 * pieces from one CPU (runtime/itrace/trace_record.h); the reader merges
 * CPUs, so each CPU has its own sample in progress. A piece that does not
 * continue it (one was dropped by a full transport) loses the sample.
 */
#include "runner/trace/tout_int.h"

#include <stdlib.h>
#include <string.h>

static struct tpend *pend_of(struct tout *t, uint16_t cpu)
{
	if (cpu >= t->npend) {
		size_t n = (size_t)cpu + 1;
		struct tpend *p = realloc(t->pend, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + t->npend, 0, (n - t->npend) * sizeof(*p));
		t->pend = p;
		t->npend = n;
	}
	return &t->pend[cpu];
}

static void pend_lose(struct tout *t, struct tpend *p)
{
	if (p->open)
		t->st.samples_lost++;
	p->open = false;
}

static void pend_commit(struct tout *t, struct tpend *p)
{
	size_t n = tsample_words(&p->s);

	p->open = false;
	if (!tout_grow((void **)&t->samples, &t->capsamples, t->nsamples + 1, sizeof(*t->samples)) ||
	    !tout_grow((void **)&t->spcs, &t->capspcs, t->nspcs + n, sizeof(*t->spcs))) {
		t->st.samples_lost++;
		return;
	}
	if (n)	/* a sample without frames has none to keep */
		memcpy(t->spcs + t->nspcs, p->pcs, n * sizeof(*p->pcs));
	p->s.off = t->nspcs;
	p->s.count = 1;
	t->nspcs += n;
	t->samples[t->nsamples++] = p->s;
	t->st.samples++;
}

void tsample_feed(struct tout *t, const struct utap_trace_sample *h, const uint64_t *pcs)
{
	struct tpend *p = pend_of(t, h->cpu);
	struct tsample s = { .pid = h->pid, .tid = h->tid, .nkernel = h->nkernel,
			     .nuser = h->nuser, .pylen = h->pylen };
	uint32_t total = (uint32_t)tsample_words(&s);

	if (!p || h->first + h->n > total) {
		t->st.bad++;
		return;
	}
	if (h->flags & UTAP_SAMPLE_FIRST) {
		pend_lose(t, p);
		if (h->first || !tout_grow((void **)&p->pcs, &p->cap, total ? total : 1,
					   sizeof(*p->pcs))) {
			t->st.samples_lost++;
			return;
		}
		p->open = true;
		p->seq = h->seq;
		p->next = 0;
		p->s = s;
		if (!t->period) {
			t->period = h->period;
			t->period_ns = h->flags & UTAP_SAMPLE_NS;
		}
	} else if (!p->open || p->seq != h->seq || p->next != h->first ||
		   p->s.nkernel != h->nkernel || p->s.nuser != h->nuser || p->s.pylen != h->pylen) {
		/* the pieces before this one were dropped */
		pend_lose(t, p);
		if (h->flags & UTAP_SAMPLE_LAST)
			t->st.samples_lost++;	/* this piece's own sample, once */
		return;
	}
	memcpy(p->pcs + h->first, pcs, (size_t)h->n * sizeof(*pcs));
	p->next = h->first + h->n;
	if (h->flags & UTAP_SAMPLE_LAST) {
		if (p->next == total)
			pend_commit(t, p);
		else
			pend_lose(t, p);
	}
}

void tsample_finish(struct tout *t)
{
	for (size_t i = 0; i < t->npend; i++)
		pend_lose(t, &t->pend[i]);
}

/* --- the kernel's symbols ---------------------------------------------- */

static int ksym_cmp(const void *a, const void *b)
{
	const struct tksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The running kernel's, read once per process: it does not change under a run. */
static struct {
	struct tksym *syms;	/* sorted by address */
	size_t n;
	bool loaded;
} kall;

/* Text symbols of /proc/kallsyms (module symbols too); none if addresses are hidden. */
static void tksym_load(void)
{
	char line[512];
	size_t cap = 0;
	FILE *f;

	kall.loaded = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    !strchr("tTwW", type))
			continue;
		if (!tout_grow((void **)&kall.syms, &cap, kall.n + 1, sizeof(*kall.syms)))
			break;
		kall.syms[kall.n].addr = addr;
		kall.syms[kall.n].seq = kall.n;
		kall.syms[kall.n].name = strdup(name);
		if (kall.syms[kall.n].name)
			kall.n++;
	}
	fclose(f);
	tout_sort(kall.syms, kall.n, sizeof(*kall.syms), ksym_cmp);
}

int64_t tksym_lookup(uint64_t addr, const char **name)
{
	size_t lo = 0, hi;

	if (!kall.loaded)
		tksym_load();
	hi = kall.n;
	*name = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kall.syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	/* of aliases (memcpy, __memcpy), the first listed: the one the kernel's own lookup names */
	while (lo > 1 && kall.syms[lo - 2].addr == kall.syms[lo - 1].addr)
		lo--;
	*name = kall.syms[lo - 1].name;
	return (int64_t)(lo - 1);
}

void tsample_free(struct tout *t)
{
	for (size_t i = 0; i < t->npend; i++)
		free(t->pend[i].pcs);
	free(t->pend);
	free(t->samples);
	free(t->spcs);
}
