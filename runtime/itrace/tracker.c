// SPDX-License-Identifier: GPL-2.0
/*
 * tracker.c - turning one thread's traps into trace steps (pure core).
 * See tracker.h for the events and why some steps wait for the next one.
 */
#include "itrace/tracker.h"

void utap_insn_set(struct utap_insn *in, u64 ip, const u8 *bytes, size_t n)
{
	int len;

	if (n > UTAP_INSN_BYTES)
		n = UTAP_INSN_BYTES;
	in->ip = ip;
	in->ea = 0;
	in->has_ea = false;
	in->nbytes = (u8)n;
	memset(in->bytes, 0, sizeof(in->bytes));
	if (n)
		memcpy(in->bytes, bytes, n);
	len = n ? x86_insn_decode(in->bytes, n, &in->info) : -EINVAL;
	in->len = len > 0 ? (u8)len : 0;
}

u16 utap_insn_flags(const struct utap_insn *in)
{
	u16 f = 0;

	if (!in->len)
		return UTAP_STEP_DECODE_FAIL;
	switch (in->info.flow) {
	case X86_FLOW_JCC:
		f = UTAP_STEP_BRANCH | UTAP_STEP_COND;
		break;
	case X86_FLOW_JMP:
	case X86_FLOW_FAR:
		f = UTAP_STEP_BRANCH;
		break;
	case X86_FLOW_JMP_IND:
		f = UTAP_STEP_BRANCH | UTAP_STEP_INDIRECT;
		break;
	case X86_FLOW_CALL:
		f = UTAP_STEP_BRANCH | UTAP_STEP_CALL;
		break;
	case X86_FLOW_CALL_IND:
		f = UTAP_STEP_BRANCH | UTAP_STEP_CALL | UTAP_STEP_INDIRECT;
		break;
	case X86_FLOW_RET:
		f = UTAP_STEP_BRANCH | UTAP_STEP_RET;
		break;
	default:
		break;
	}
	if (in->info.rep)
		f |= UTAP_STEP_REP;
	if (in->has_ea)
		f |= UTAP_STEP_HAS_EA;
	return f;
}

void utap_step_make(struct utap_trace_step *s, const struct utap_insn *in, u64 next, u16 flags)
{
	memset(s, 0, sizeof(*s));
	s->kind = UTAP_TRACE_STEP;
	s->size = sizeof(*s);
	s->ip = in->ip;
	s->next_ip = next;
	s->len = in->len;
	if (in->len)
		memcpy(s->bytes, in->bytes, in->len);
	if (in->has_ea)
		s->ea = in->ea;
	flags |= utap_insn_flags(in);
	if (next && in->len && next != in->ip + in->len) {
		/* a branch that went somewhere, or an instruction that did not go on */
		if (flags & UTAP_STEP_BRANCH)
			flags |= UTAP_STEP_TAKEN;
		else if (!(flags & UTAP_STEP_REP))
			flags |= UTAP_STEP_EXCEPTION;
	}
	s->flags = flags;
}

void utap_trk_init(struct utap_tracker *t, utap_emit_fn emit, void *arg)
{
	memset(t, 0, sizeof(*t));
	t->emit = emit;
	t->arg = arg;
}

static void trk_emit(struct utap_tracker *t, const struct utap_insn *in, u64 next, u16 flags)
{
	struct utap_trace_step s;

	utap_step_make(&s, in, next, flags);
	t->nsteps++;
	t->emit(t->arg, &s);
}

/* The held step's successor turned out to be next. */
static void flush_held(struct utap_tracker *t, u64 next)
{
	if (!t->have_held)
		return;
	t->have_held = false;
	t->held_bp = false;
	trk_emit(t, &t->held, next, t->held_flags);
	t->held_flags = 0;
}

/*
 * What runs at the next address may be an int3 (or bytes not readable yet:
 * the uretprobe trampoline's page is mapped on its first use), so the
 * step that goes there waits for the next event.
 */
static bool is_int3(const u8 *b, size_t n)
{
	return !n || b[0] == 0xcc;
}

/*
 * in ran and went to next. If an int3 may sit at next, what runs there is
 * not known yet (it may be the uretprobe trampoline standing in for the
 * real return address), so in waits.
 */
static void trk_ran(struct utap_tracker *t, const struct utap_insn *in, u64 next, bool next_int3)
{
	flush_held(t, in->ip);
	if (next_int3) {
		t->held = *in;
		t->held_next = next;
		t->held_flags = 0;
		t->have_held = true;
		t->held_bp = false;
		return;
	}
	trk_emit(t, in, next, 0);
}

static void set_pend(struct utap_tracker *t, u64 ip, const u8 *b, size_t n)
{
	utap_insn_set(&t->pend, ip, b, n);
	t->have_pend = true;
}

void utap_trk_start(struct utap_tracker *t, u64 ip, const u8 *b, size_t n)
{
	t->have_held = t->held_bp = false;
	t->in_syscall = t->in_int3 = t->in_xol = false;
	set_pend(t, ip, b, n);
}

void utap_trk_trap(struct utap_tracker *t, u64 ip, const u8 *b, size_t n)
{
	if (t->in_syscall) {
		/* no syscall exit was seen: the syscall went here */
		t->in_syscall = false;
		flush_held(t, ip);
		t->have_pend = false;
	}
	t->in_int3 = t->in_xol = false;
	if (t->have_pend) {
		struct utap_insn ran = t->pend;

		trk_ran(t, &ran, ip, is_int3(b, n));
	} else {
		flush_held(t, ip);
	}
	set_pend(t, ip, b, n);
}

void utap_trk_sys_enter(struct utap_tracker *t, u64 sys_ip, const u8 *b, size_t n)
{
	struct utap_insn ran;

	if (t->have_pend && t->pend.ip == sys_ip)
		ran = t->pend;
	else
		utap_insn_set(&ran, sys_ip, b, n);	/* pend never ran (a rewind) */
	flush_held(t, sys_ip);
	t->held = ran;
	t->held_next = 0;
	t->held_flags = 0;
	t->have_held = true;
	t->held_bp = false;
	t->in_syscall = true;
	t->have_pend = false;
	t->in_int3 = t->in_xol = false;
}

void utap_trk_sys_exit(struct utap_tracker *t, u64 ip, const u8 *b, size_t n, bool may_restart)
{
	if (t->in_syscall) {
		t->in_syscall = false;
		t->held_next = ip;
		if (!may_restart)
			flush_held(t, ip);
	}
	set_pend(t, ip, b, n);
}

void utap_trk_int3(struct utap_tracker *t, u64 int3_ip)
{
	static const u8 int3 = 0xcc;

	if (t->in_syscall) {
		t->in_syscall = false;
		t->held_next = int3_ip;
	}
	if (!t->have_pend || t->pend.ip != int3_ip) {
		/* the int3 is where the thread really was */
		flush_held(t, int3_ip);
		set_pend(t, int3_ip, &int3, 1);
	}
	t->in_int3 = true;
	t->int3_ip = int3_ip;
}

void utap_trk_int3_resolve(struct utap_tracker *t, enum utap_int3_how how, u64 cur,
			   const u8 *orig, size_t norig, const u8 *b, size_t n)
{
	static const u8 int3 = 0xcc;
	struct utap_insn ran;
	u64 at = t->int3_ip;

	if (!t->in_int3)
		return;
	t->in_int3 = false;
	switch (how) {
	case UTAP_INT3_NOT_RUN:
		utap_insn_set(&t->pend, at, orig ? orig : &int3, orig ? norig : 1);
		return;
	case UTAP_INT3_TRAMPOLINE:
		flush_held(t, cur);
		break;
	case UTAP_INT3_REAL:
		utap_insn_set(&ran, at, &int3, 1);
		trk_ran(t, &ran, cur, is_int3(b, n));
		break;
	case UTAP_INT3_TRACED:
		utap_insn_set(&ran, at, &int3, 1);
		trk_ran(t, &ran, cur, true);
		t->held_bp = true;
		break;
	case UTAP_INT3_EMULATED:
		utap_insn_set(&ran, at, orig, norig);
		trk_ran(t, &ran, cur, is_int3(b, n));
		break;
	case UTAP_INT3_XOL:
		flush_held(t, at);
		utap_insn_set(&t->pend, at, orig, norig);
		t->have_pend = true;
		t->in_xol = true;
		return;
	}
	set_pend(t, cur, b, n);
}

void utap_trk_xol_done(struct utap_tracker *t, u64 cur, const u8 *b, size_t n)
{
	struct utap_insn ran;

	if (!t->in_xol)
		return;
	t->in_xol = false;
	ran = t->pend;
	trk_ran(t, &ran, cur, is_int3(b, n));
	set_pend(t, cur, b, n);
}

void utap_trk_resume(struct utap_tracker *t, u64 ip, const u8 *b, size_t n)
{
	if (t->in_syscall || t->in_int3 || t->in_xol)
		return;		/* the events still to come say what ran */
	if (t->held_bp && ip != t->held_next)
		t->have_held = t->held_bp = false;
	/* a syscall the kernel may restart stays held: ip is its successor or itself */
	if (t->have_held && ip != t->held_next && ip != t->held.ip)
		flush_held(t, t->held_next);
	set_pend(t, ip, b, n);
}

void utap_trk_signal(struct utap_tracker *t, u64 handler, const u8 *b, size_t n)
{
	if (t->have_held) {
		t->held_flags |= UTAP_STEP_EXCEPTION;
		flush_held(t, t->held_next);
	}
	t->in_syscall = t->in_int3 = t->in_xol = false;
	set_pend(t, handler, b, n);
}

void utap_trk_stop(struct utap_tracker *t, u64 next, u16 flags)
{
	if (t->in_syscall) {
		t->held_next = next;
		t->held_flags |= flags;
	}
	if (t->have_held)
		flush_held(t, t->held_next);
	t->have_pend = false;
	t->in_syscall = t->in_int3 = t->in_xol = false;
}

void utap_trk_pend_ea(struct utap_tracker *t, const u64 gpr[16], u64 fs_base, u64 gs_base)
{
	struct utap_insn *p = &t->pend;

	p->has_ea = false;
	if (!t->have_pend || !p->len || !(p->info.has_mem || p->info.implicit))
		return;
	if (p->info.has_mem || (p->info.implicit & (X86_IMP_SRC | X86_IMP_DST | X86_IMP_XLAT)))
		p->has_ea = x86_insn_mem_ea(&p->info, p->ip, gpr, fs_base, gs_base, &p->ea);
}

bool utap_step_ends_block(const struct utap_trace_step *s)
{
	if ((s->flags & UTAP_STEP_REP) && s->next_ip == s->ip)
		return false;	/* another iteration of a rep string op */
	if (s->flags & (UTAP_STEP_TAKEN | UTAP_STEP_EXCEPTION))
		return true;
	if ((s->flags & UTAP_STEP_BRANCH) && !(s->flags & UTAP_STEP_COND))
		return true;	/* jmp, call or ret to the next instruction */
	return !s->next_ip;
}

bool utap_block_breaks(const struct utap_block *b, const struct utap_trace_step *s)
{
	return b->ninsns && s->ip != b->expect;
}

bool utap_block_add(struct utap_block *b, const struct utap_trace_step *s)
{
	if (!b->ninsns)
		b->start = s->ip;
	b->ninsns++;
	b->last_ip = s->ip;
	b->last_len = s->len;
	b->next_ip = s->next_ip;
	b->flags = s->flags;
	b->expect = s->next_ip ? s->next_ip : s->ip + s->len;
	if (s->len && s->ip >= b->start && s->ip + s->len - b->start < (u64)1 << 31)
		b->nbytes = (u32)(s->ip + s->len - b->start);
	else
		b->nbytes = 0;
	return utap_step_ends_block(s);
}

bool utap_block_walk(u64 start, u64 next, u64 until, utap_code_fn code, void *arg,
		     unsigned int max, struct utap_block *b, struct utap_trace_step *last)
{
	struct utap_insn in;
	u8 buf[UTAP_INSN_BYTES];
	u64 ip = start, to = 0;
	unsigned int i;

	utap_block_reset(b);
	for (i = 0; i < max; i++) {
		bool end = false;

		if (until && ip == until) {
			if (!i)
				return false;
			break;		/* ends before until, no branch */
		}
		utap_insn_set(&in, ip, buf, code(arg, ip, buf));
		if (!in.len)
			return false;
		switch (in.info.flow) {
		case X86_FLOW_JCC:
			end = !until && x86_insn_branch_target(&in.info, ip) == next;
			break;
		case X86_FLOW_JMP:
		case X86_FLOW_CALL:
			if (until || x86_insn_branch_target(&in.info, ip) != next)
				return false;
			end = true;
			break;
		case X86_FLOW_JMP_IND:
		case X86_FLOW_CALL_IND:
		case X86_FLOW_RET:
		case X86_FLOW_FAR:
			if (until)
				return false;
			end = true;
			break;
		case X86_FLOW_TRAP:
			return false;
		default:
			break;
		}
		to = end ? next : ip + in.len;
		utap_step_make(last, &in, to, 0);
		utap_block_add(b, last);
		if (end)
			return true;
		ip += in.len;
	}
	return until && i < max && b->ninsns;
}
