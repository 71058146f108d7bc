// SPDX-License-Identifier: GPL-2.0
/*
 * regex.c - the Pike VM that runs a compiled regular expression (pure core),
 * and, in the module, the glue between it and the probe context.
 *
 * A thread is a program counter plus its capture slots. All threads advance
 * one subject byte per step; a thread only rests on an instruction that
 * consumes a byte (or on MATCH), and the closure that gets it there (jumps,
 * splits, saves, anchors) is followed at once with an explicit stack. Each
 * instruction is entered at most once per step, the first (highest
 * priority) thread to reach it keeps it: two threads on the same
 * instruction at the same position have the same future.
 *
 * A new thread is started at every position until a match is found, after
 * the ones already running, so a list is always ordered by start position:
 * the leftmost start wins an instruction, and within one start the order is
 * a backtracking matcher's. A thread that reaches MATCH is kept if it starts
 * further left than the match so far, or at the same place but ends later:
 * the leftmost-longest match, as POSIX (and stap) define the whole match.
 */
#include "regex.h"

struct rx_list {
	u16 *pc;
	s32 *cap;		/* nslots per thread */
	int n;
};

struct rx_vm {
	const struct utap_rx_prog *p;
	size_t len;
	int nslots;
	u32 *mark;		/* per instruction: 1 + the position it was last entered at */
	s32 *stack;		/* pairs: (pc, 0) enters pc, (-1 - slot, old) restores a slot */
	s32 *cap;		/* the slots of the thread being followed */
};

static void *rx_take(u8 **mem, size_t bytes)
{
	void *p = *mem;

	*mem += (bytes + 3) & ~(size_t)3;
	return p;
}

/*
 * Follows every path from pc that consumes nothing, at position pos, and
 * adds a thread with the current slots wherever one waits for a byte.
 */
static void rx_add(struct rx_vm *vm, struct rx_list *l, int pc, size_t pos)
{
	const struct utap_rx_insn *in;
	u32 gen = (u32)pos + 1;
	int sp = 0;

	vm->stack[sp++] = pc;
	vm->stack[sp++] = 0;
	while (sp) {
		s32 old = vm->stack[--sp];

		pc = vm->stack[--sp];
		if (pc < 0) {
			vm->cap[-1 - pc] = old;
			continue;
		}
		if (vm->mark[pc] == gen)
			continue;
		vm->mark[pc] = gen;
		in = &vm->p->insn[pc];
		switch (in->op) {
		case UTAP_RX_JMP:
			vm->stack[sp++] = in->x;
			vm->stack[sp++] = 0;
			break;
		case UTAP_RX_SPLIT:
			/* y is pushed first so that x is followed first */
			vm->stack[sp++] = in->y;
			vm->stack[sp++] = 0;
			vm->stack[sp++] = in->x;
			vm->stack[sp++] = 0;
			break;
		case UTAP_RX_SAVE:
			if (in->x < vm->nslots) {
				vm->stack[sp++] = -1 - in->x;
				vm->stack[sp++] = vm->cap[in->x];
				vm->cap[in->x] = (s32)pos;
			}
			vm->stack[sp++] = pc + 1;
			vm->stack[sp++] = 0;
			break;
		case UTAP_RX_BOL:
			if (pos == 0) {
				vm->stack[sp++] = pc + 1;
				vm->stack[sp++] = 0;
			}
			break;
		case UTAP_RX_EOL:
			if (pos == vm->len) {
				vm->stack[sp++] = pc + 1;
				vm->stack[sp++] = 0;
			}
			break;
		default:
			l->pc[l->n] = (u16)pc;
			memcpy(l->cap + (size_t)l->n * vm->nslots, vm->cap,
			       vm->nslots * sizeof(s32));
			l->n++;
			break;
		}
	}
}

static bool rx_step_ok(const struct utap_rx_prog *p, const struct utap_rx_insn *in,
		       const char *s, size_t len, size_t i)
{
	if (i >= len)
		return false;
	switch (in->op) {
	case UTAP_RX_CHAR:
		return (u8)s[i] == in->c;
	case UTAP_RX_CLASS:
		return utap_rx_in_set(&p->sets[in->x], (u8)s[i]);
	default:
		return true;	/* UTAP_RX_ANY */
	}
}

/*
 * The first position from i where a match can start, or len + 1: a
 * program that begins with a byte starts only at that byte, one that
 * begins with ^ only at 0.
 */
static size_t rx_next_start(const struct utap_rx_prog *p, const char *s, size_t len, size_t i)
{
	const struct utap_rx_insn *in = &p->insn[0];
	const char *hit;

	if (in->op == UTAP_RX_SAVE)
		in++;
	if (in->op == UTAP_RX_BOL)
		return i ? len + 1 : 0;
	if (in->op != UTAP_RX_CHAR)
		return i;
	hit = i < len ? memchr(s + i, in->c, len - i) : NULL;
	return hit ? (size_t)(hit - s) : len + 1;
}

int utap_rx_exec(const struct utap_rx_prog *p, const char *s, size_t len, s32 *cap, int nslots,
		 void *work)
{
	u8 *mem = work;
	struct rx_vm vm = { .p = p, .len = len, .nslots = nslots };
	struct rx_list a, b, *cl = &a, *nl = &b, *t;
	bool matched = false;
	size_t i;
	int k;

	vm.mark = rx_take(&mem, (size_t)p->ninsn * 4);
	vm.stack = rx_take(&mem, (2 * (size_t)p->ninsn + 1) * 8);
	vm.cap = rx_take(&mem, (size_t)nslots * 4);
	a.pc = rx_take(&mem, (size_t)p->nthreads * 2);
	a.cap = rx_take(&mem, (size_t)p->nthreads * nslots * 4);
	b.pc = rx_take(&mem, (size_t)p->nthreads * 2);
	b.cap = rx_take(&mem, (size_t)p->nthreads * nslots * 4);
	memset(vm.mark, 0, (size_t)p->ninsn * 4);
	a.n = 0;

	for (i = 0;; i++) {
		if (!matched) {
			if (!cl->n) {
				i = rx_next_start(p, s, len, i);
				if (i > len)
					break;
			}
			for (k = 0; k < nslots; k++)
				vm.cap[k] = -1;
			rx_add(&vm, cl, 0, i);
		}
		if (!cl->n && (matched || i >= len))
			break;
		nl->n = 0;
		for (k = 0; k < cl->n; k++) {
			const struct utap_rx_insn *in = &p->insn[cl->pc[k]];
			s32 *tc = cl->cap + (size_t)k * nslots;

			/* a thread that started right of the match cannot beat it */
			if (matched && tc[0] > cap[0])
				continue;
			if (in->op == UTAP_RX_MATCH) {
				if (!nslots)
					return 1;
				if (!matched || tc[0] < cap[0] || tc[1] > cap[1]) {
					memcpy(cap, tc, nslots * sizeof(s32));
					matched = true;
				}
				continue;
			}
			if (rx_step_ok(p, in, s, len, i)) {
				memcpy(vm.cap, tc, nslots * sizeof(s32));
				rx_add(&vm, nl, cl->pc[k] + 1, i + 1);
			}
		}
		if (i >= len)
			break;
		t = cl;
		cl = nl;
		nl = t;
	}
	return matched;
}

#ifdef __KERNEL__
/*
 * The module's side: one matcher work area per CPU, as large as the
 * largest program needs (sized by the generated init before any probe can
 * run), used only by the CPU's probe context holder.
 */
static char *utap_rx_work;
static size_t utap_rx_stride;

static int utap_rx_reserve(size_t size)
{
	size = ALIGN(size, 64);
	if (size <= utap_rx_stride)
		return 0;
	vfree(utap_rx_work);
	utap_rx_stride = 0;
	utap_rx_work = vzalloc(array_size(nr_cpu_ids, size));
	if (!utap_rx_work)
		return -ENOMEM;
	utap_rx_stride = size;
	return 0;
}

static void utap_rx_release(void)
{
	vfree(utap_rx_work);
	utap_rx_work = NULL;
	utap_rx_stride = 0;
}

/*
 * s =~ p. With record (the script uses regex.stp), the outcome, the groups
 * and the subject are kept in the context for matched() and ngroups().
 */
static int utap_rx_match(struct utap_context *c, const struct utap_rx_prog *p, const char *s,
			 bool record)
{
	void *work = utap_rx_work + smp_processor_id() * utap_rx_stride;
	int r;

	if (!record)
		return utap_rx_exec(p, s, strlen(s), NULL, 0, work);
	r = utap_rx_exec(p, s, strlen(s), c->rx.cap, 2 * (p->ngroups + 1), work);
	c->rx.state = r ? UTAP_RX_MATCHED : UTAP_RX_FAILED;
	c->rx.ngroups = p->ngroups;
	utap_strlcpy(c->rx.str, s, MAXSTRINGLEN);
	return r;
}
#endif
