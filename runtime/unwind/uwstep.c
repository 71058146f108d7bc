// SPDX-License-Identifier: GPL-2.0
/*
 * uwstep.c - table-driven user stack unwinding: one step and the walk.
 *
 * A step finds the row for the frame's pc, computes the CFA from the row's
 * rule, loads the return address and the callee-saved registers the rule
 * saved (usually with one read of the frame's save area), and checks that
 * the result is sane before it becomes the caller's state.
 *
 * Pure core: port.h only, every memory access goes through the reader.
 */
#ifndef UTAP_UNWIND_UWSTEP_C
#define UTAP_UNWIND_UWSTEP_C

#include "unwind/uwstep.h"

static const char *const stop_names[UW_NR_STOPS] = {
	[UW_STOP_NONE]		= "none",
	[UW_STOP_END]		= "end of stack",
	[UW_STOP_PC_ZERO]	= "zero return address",
	[UW_STOP_MAX_FRAMES]	= "frame limit",
	[UW_STOP_NO_REGS]	= "no user registers",
	[UW_STOP_NO_MODULE]	= "pc outside known mappings",
	[UW_STOP_NO_TABLE]	= "no unwind data",
	[UW_STOP_UNKNOWN_REG]	= "register unknown",
	[UW_STOP_READ_FAULT]	= "stack not readable",
	[UW_STOP_CFA_NOT_ABOVE]	= "stack pointer not increasing",
	[UW_STOP_CFA_ALIGN]	= "stack pointer misaligned",
};

const char *uw_stop_name(enum uw_stop stop)
{
	return (unsigned int)stop < UW_NR_STOPS ? stop_names[stop] : "?";
}

static const u8 saved_regs[UWT_NR_SAVED] = UWT_SAVED_REGS;

#define UW_SAVED_MASK	(UW_BIT(UWT_RBX) | UW_BIT(UWT_RBP) | UW_BIT(UWT_R12) | \
			 UW_BIT(UWT_R13) | UW_BIT(UWT_R14) | UW_BIT(UWT_R15))

/* rt_sigframe gregs order -> DWARF register number */
static const u8 greg_regs[UWT_SIGFRAME_NR_GREGS] = {
	UWT_R8, UWT_R9, UWT_R10, UWT_R11, UWT_R12, UWT_R13, UWT_R14, UWT_R15,
	UWT_RDI, UWT_RSI, UWT_RBP, UWT_RBX, UWT_RDX, UWT_RAX, UWT_RCX,
	UWT_RSP, UWT_RIP,
};

/* The largest save area read at once; bigger spans use one read per slot. */
#define SAVE_WINDOW	64

static bool get_reg(const struct uw_regs *r, unsigned int reg, u64 *v)
{
	if (reg >= UWT_NR_REGS || !uw_known(r, reg))
		return false;
	*v = r->val[reg];
	return true;
}

static int read_u64(uw_read_fn read, void *ctx, u64 addr, u64 *v)
{
	return read(ctx, addr, v, sizeof(*v));
}

static enum uw_stop rule_cfa(const struct uwt_rule *rule,
			     const struct uw_regs *regs, uw_read_fn read,
			     void *ctx, u64 *cfa)
{
	u64 base, v;

	switch (rule->kind) {
	case UWT_CFA_REG:
		if (!get_reg(regs, rule->cfa_reg, &base))
			return UW_STOP_UNKNOWN_REG;
		*cfa = base + (s64)rule->cfa_off;
		return UW_STOP_NONE;
	case UWT_CFA_DEREF:
		if (!get_reg(regs, rule->cfa_reg, &base))
			return UW_STOP_UNKNOWN_REG;
		if (read_u64(read, ctx, base + (s64)rule->cfa_off, &v))
			return UW_STOP_READ_FAULT;
		*cfa = v + (s64)rule->cfa_off2;
		return UW_STOP_NONE;
	case UWT_PLT:
		/* after the lazy entry's push, one more word is on the stack */
		if (!get_reg(regs, UWT_RSP, &base) ||
		    !get_reg(regs, UWT_RIP, &v))
			return UW_STOP_UNKNOWN_REG;
		*cfa = base + 8 + ((v & 15) >= (u64)rule->cfa_off2 ? 8 : 0);
		return UW_STOP_NONE;
	default:
		return UW_STOP_NO_TABLE;
	}
}

/*
 * The CFA-relative words a rule loads (the RA and AT_CFA save slots) sit
 * together just below the CFA. Read them with one call when they fit in
 * SAVE_WINDOW; WIN then holds the words from CFA + *LO on.
 */
static bool read_save_area(const struct uwt_rule *rule, u64 cfa,
			   uw_read_fn read, void *ctx, u64 *win, s32 *lo)
{
	s32 min = rule->ra_off, max = rule->ra_off;
	int i;

	for (i = 0; i < UWT_NR_SAVED; i++) {
		if (UWT_SAVE_KIND(rule->save_how[i]) != UWT_SAVE_AT_CFA)
			continue;
		if (UWT_SAVE_OFF(rule, i) < min)
			min = UWT_SAVE_OFF(rule, i);
		if (UWT_SAVE_OFF(rule, i) > max)
			max = UWT_SAVE_OFF(rule, i);
	}
	if (max - min + 8 > SAVE_WINDOW)
		return false;
	*lo = min;
	return read(ctx, cfa + (s64)min, win, max - min + 8) == 0;
}

/* A word at CFA + OFF, from the window when it holds it. */
static int cfa_word(u64 cfa, s32 off, const u64 *win, s32 lo, bool have_win,
		    uw_read_fn read, void *ctx, u64 *v)
{
	if (have_win && off >= lo && ((off - lo) & 7) == 0 &&
	    off - lo < SAVE_WINDOW) {
		*v = win[(off - lo) / 8];
		return 0;
	}
	return read_u64(read, ctx, cfa + (s64)off, v);
}

/* The caller's value of saved register slot I; false: not recoverable. */
static bool restore_saved(const struct uwt_rule *rule, int i, u64 cfa,
			  const struct uw_regs *in, const u64 *win, s32 lo,
			  bool have_win, uw_read_fn read, void *ctx, u64 *v)
{
	unsigned int src = UWT_SAVE_REG(rule->save_how[i]);
	s32 off = UWT_SAVE_OFF(rule, i);

	switch (UWT_SAVE_KIND(rule->save_how[i])) {
	case UWT_SAVE_SAME:
		return get_reg(in, saved_regs[i], v);
	case UWT_SAVE_AT_CFA:
		/* a fault here only loses this register, not the frame */
		return !cfa_word(cfa, off, win, lo, have_win, read, ctx, v);
	case UWT_SAVE_VAL_CFA:
		*v = cfa + off;
		return true;
	case UWT_SAVE_IN_REG:
		return get_reg(in, src, v);
	case UWT_SAVE_AT_REG:
		return get_reg(in, src, v) && !read_u64(read, ctx, *v + off, v);
	default:		/* UWT_SAVE_UNDEF */
		return false;
	}
}

/* __restore_rt: every register comes back from the interrupted context. */
static enum uw_stop signal_step(struct uw_regs *regs, u32 *flags,
				uw_read_fn read, void *ctx)
{
	u64 gregs[UWT_SIGFRAME_NR_GREGS] UTAP_NOINIT, sp;
	int i;

	if (!get_reg(regs, UWT_RSP, &sp))
		return UW_STOP_UNKNOWN_REG;
	if (read(ctx, sp + UWT_SIGFRAME_GREGS, gregs, sizeof(gregs)))
		return UW_STOP_READ_FAULT;
	regs->known = 0;
	for (i = 0; i < UWT_SIGFRAME_NR_GREGS; i++)
		uw_set(regs, greg_regs[i], gregs[i]);
	/* the interrupted pc is exact; its stack may be another one */
	*flags = UW_FRAME_EXACT_PC | UW_FRAME_SIGNAL;
	return UW_STOP_NONE;
}

/*
 * The caller's SP must lie above ours (stacks grow down) and be aligned.
 * (Without a known SP there is nothing to compare; uw_walk() never starts
 * without one, and every step makes it known.)
 */
static enum uw_stop check_caller_sp(const struct uwt_rule *rule,
				    const struct uw_regs *in, u64 new_sp)
{
	u64 old_sp = in->val[UWT_RSP];

	if (new_sp & 7)
		return UW_STOP_CFA_ALIGN;
	if (new_sp > old_sp || !uw_known(in, UWT_RSP))
		return UW_STOP_NONE;
	/* __vfork popped its RA into a register: the SP may stay put */
	if (new_sp == old_sp && rule->ra_how == UWT_RA_IN_REG)
		return UW_STOP_NONE;
	return UW_STOP_CFA_NOT_ABOVE;
}

static enum uw_stop caller_ra(const struct uwt_rule *rule,
			      const struct uw_regs *in, u64 cfa, const u64 *win,
			      s32 lo, bool have_win, uw_read_fn read,
			      void *ctx, u64 *ra)
{
	if (rule->ra_how == UWT_RA_IN_REG)
		return get_reg(in, rule->ra_reg, ra) ? UW_STOP_NONE :
						       UW_STOP_UNKNOWN_REG;
	if (cfa_word(cfa, rule->ra_off, win, lo, have_win, read, ctx, ra))
		return UW_STOP_READ_FAULT;
	return UW_STOP_NONE;
}

/*
 * The frame most rows describe: CFA = register + offset, the RA and every
 * register the rule saves at the CFA, the caller's SP the CFA. Decoded
 * once per row (and kept in the walk's cache), so applying it has no
 * branch per register slot: P->save[i] is slot i's word in the window
 * (the RA's when the slot is not saved), P->at the registers saved.
 */
static void plain_decode(const struct uwt_rule *rule, struct uw_plain *p)
{
	s32 off[UWT_NR_SAVED] UTAP_NOINIT, l = rule->ra_off, h = rule->ra_off;
	u32 m = 0, other = 0;
	int i;

	for (i = 0; i < UWT_NR_SAVED; i++) {
		u32 how = rule->save_how[i];
		u32 is_at = how == UWT_SAVE_HOW(UWT_SAVE_AT_CFA, 0);

		/* SAME is 0, AT_CFA 2: any other bit is another kind */
		other |= how & ~(u32)UWT_SAVE_HOW(UWT_SAVE_AT_CFA, 0);
		off[i] = is_at ? UWT_SAVE_OFF(rule, i) : rule->ra_off;
		l = off[i] < l ? off[i] : l;
		h = off[i] > h ? off[i] : h;
		m |= is_at << saved_regs[i];
	}
	memset(p, 0, sizeof(*p));
	if (other || rule->kind != UWT_CFA_REG || rule->ra_how != UWT_RA_AT_CFA ||
	    rule->sp_reg != UWT_SP_IS_CFA || h - l + 8 > SAVE_WINDOW)
		return;
	p->cfa_off = rule->cfa_off;
	p->at = m;
	p->lo = l;
	p->cfa_reg = rule->cfa_reg;
	p->words = (h - l) / 8 + 1;
	p->ra = (rule->ra_off - l) / 8;
	for (i = 0; i < UWT_NR_SAVED; i++)
		p->save[i] = (off[i] - l) / 8;
}

/*
 * A plain frame in one read: what the general path below computes for it,
 * without its per-register dispatch. Anything unusual (an unknown base, a
 * window that does not read) is left to the general path: UW_NR_STOPS.
 */
static enum uw_stop plain_step(const struct uwt_rule *rule, const struct uw_plain *p,
			       struct uw_regs *regs, u32 *flags, uw_read_fn read, void *ctx)
{
	u64 win[SAVE_WINDOW / 8] UTAP_NOINIT, cfa;
	enum uw_stop stop;
	int i;

	if (!uw_known(regs, p->cfa_reg))
		return UW_NR_STOPS;
	cfa = regs->val[p->cfa_reg] + (s64)p->cfa_off;
	if (read(ctx, cfa + p->lo, win, p->words * 8))
		return UW_NR_STOPS;
	stop = check_caller_sp(rule, regs, cfa);
	if (stop)
		return stop;
	/* most frames save nothing: their step is the RA and the SP */
	for (i = 0; p->at && i < UWT_NR_SAVED; i++) {
		u64 *v = &regs->val[saved_regs[i]];

		*v = p->at & UW_BIT(saved_regs[i]) ? win[p->save[i]] : *v;
	}
	regs->val[UWT_RIP] = win[p->ra];
	regs->val[UWT_RSP] = cfa;
	/* the registers the rule leaves alone keep their value and known bit */
	regs->known = UW_BIT(UWT_RSP) | UW_BIT(UWT_RIP) | (regs->known & UW_SAVED_MASK) | p->at;
	*flags = 0;
	return UW_STOP_NONE;
}

/* RULE, decoded as P, applied to REGS: uw_apply_rule() without the decoding. */
static enum uw_stop apply_decoded(const struct uwt_rule *rule, const struct uw_plain *p,
				  struct uw_regs *regs, u32 *flags, uw_read_fn read, void *ctx)
{
	u64 cfa, ra, sp, win[SAVE_WINDOW / 8] UTAP_NOINIT, saved[UWT_NR_SAVED] UTAP_NOINIT;
	u32 known = UW_BIT(UWT_RSP) | UW_BIT(UWT_RIP);
	bool have_win = false;
	enum uw_stop stop;
	s32 lo = 0;
	int i;

	if (p->words) {		/* a plain rule is neither of the kinds below */
		stop = plain_step(rule, p, regs, flags, read, ctx);
		if (stop != UW_NR_STOPS)
			return stop;
	}
	if (rule->kind == UWT_SIGNAL)
		return signal_step(regs, flags, read, ctx);
	if (rule->ra_how == UWT_RA_UNDEF)
		return UW_STOP_END;
	stop = rule_cfa(rule, regs, read, ctx, &cfa);
	if (stop)
		return stop;
	if (rule->ra_how == UWT_RA_AT_CFA)
		have_win = read_save_area(rule, cfa, read, ctx, win, &lo);
	stop = caller_ra(rule, regs, cfa, win, lo, have_win, read, ctx, &ra);
	if (stop)
		return stop;
	sp = cfa;
	if (rule->sp_reg != UWT_SP_IS_CFA && !get_reg(regs, rule->sp_reg, &sp))
		return UW_STOP_UNKNOWN_REG;
	stop = check_caller_sp(rule, regs, sp);
	if (stop)
		return stop;
	/* all reads of this frame's registers happen before any write */
	for (i = 0; i < UWT_NR_SAVED; i++)
		if (restore_saved(rule, i, cfa, regs, win, lo, have_win, read,
				  ctx, &saved[i]))
			known |= UW_BIT(saved_regs[i]);
	for (i = 0; i < UWT_NR_SAVED; i++)
		if (known & UW_BIT(saved_regs[i]))
			regs->val[saved_regs[i]] = saved[i];
	regs->val[UWT_RSP] = sp;
	regs->val[UWT_RIP] = ra;
	regs->known = known;	/* caller-saved registers are gone */
	*flags = 0;
	return UW_STOP_NONE;
}

UTAP_UNWIND_API
enum uw_stop uw_apply_rule(const struct uwt_rule *rule, struct uw_regs *regs,
			   u32 *flags, uw_read_fn read, void *ctx)
{
	struct uw_plain p UTAP_NOINIT;		/* set by the decoder */

	plain_decode(rule, &p);
	return apply_decoded(rule, &p, regs, flags, read, ctx);
}

/* The address to look up: a return address points after the call. */
static u64 lookup_pc(const struct uw_regs *regs, u32 flags)
{
	u64 pc = regs->val[UWT_RIP];

	return (flags & UW_FRAME_EXACT_PC) ? pc : pc - 1;
}

UTAP_UNWIND_API
enum uw_stop uw_step(const void *table, u64 bias, struct uw_regs *regs,
		     u32 *flags, uw_read_fn read, void *ctx)
{
	const struct uwt_rule *rule;

	if (!uw_known(regs, UWT_RIP))
		return UW_STOP_NO_REGS;
	rule = uw_table_lookup(table, lookup_pc(regs, *flags) - bias);
	if (!rule || rule->kind == UWT_NONE)
		return UW_STOP_NO_TABLE;
	return uw_apply_rule(rule, regs, flags, read, ctx);
}

/*
 * Code without CFI (JIT, anonymous memory): trust an RBP chain only when
 * it looks like one: the frame record at or above SP (a frame without
 * locals has RBP == SP), aligned, and returning into known code. The new
 * SP, RBP + 16, is then strictly above the old one.
 */
static bool fp_step(struct uw_regs *regs, u32 *flags,
		    const struct uw_walk_ops *ops)
{
	struct uw_module mod;
	u64 fp, sp, frame[2] UTAP_NOINIT;

	if (!get_reg(regs, UWT_RBP, &fp) || !get_reg(regs, UWT_RSP, &sp))
		return false;
	if (fp < sp || (fp & 7))
		return false;
	if (ops->read(ops->ctx, fp, frame, sizeof(frame)))
		return false;
	if (!frame[1] || ops->find(ops->ctx, frame[1] - 1, &mod))
		return false;
	regs->known = 0;
	uw_set(regs, UWT_RBP, frame[0]);
	uw_set(regs, UWT_RSP, fp + 16);
	uw_set(regs, UWT_RIP, frame[1]);
	*flags = UW_FRAME_INEXACT;
	return true;
}

/*
 * What the last frame used: its module while the pcs stay in the range the
 * finder said it holds for (a program's frames, then its library's), and
 * its decoded row, which frames of one function (recursion, a loop of
 * callbacks) share. Other rows come from the walk ops' cache of decoded
 * rules when it has the pc, else from the table (a lookup decodes up to
 * half a group of rows), and then go into that cache.
 */
struct walk_cache {
	struct uw_module mod;
	u64 start, end;		/* the row's, file-relative */
	struct uw_rslot row;
};

static bool cached_find(struct walk_cache *wc, const struct uw_walk_ops *ops, u64 pc)
{
	if (pc - wc->mod.start < wc->mod.end - wc->mod.start)
		return true;
	memset(&wc->mod, 0, sizeof(wc->mod));
	if (!ops->find(ops->ctx, pc, &wc->mod))
		return true;
	memset(&wc->mod, 0, sizeof(wc->mod));
	return false;
}

/* Where (TABLE, PC) goes in a cache of decoded rules. */
static u32 rslot_of(const void *table, u64 pc)
{
	u64 k = (pc ^ ((u64)(unsigned long)table >> 4)) * 0x9e3779b97f4a7c15ull;

	return (u32)(k >> (64 - UW_RCACHE_BITS));
}

static const struct uw_rslot *cached_lookup(struct walk_cache *wc, struct uw_rcache *rc,
					    const void *table, u64 rel)
{
	struct uw_rslot *s = rc ? &rc->slot[rslot_of(table, rel)] : NULL;
	const struct uwt_rule *rule;

	if (wc->row.table == table && rel >= wc->start && rel < wc->end)
		return &wc->row;
	if (s && s->table == table && s->pc == rel)
		return s;	/* used at once, before this walk fills another slot */
	rule = uw_table_lookup_range(table, rel, &wc->start, &wc->end);
	wc->row.table = rule ? table : NULL;
	if (!rule)
		return NULL;
	wc->row.pc = rel;
	wc->row.rule = rule;
	plain_decode(rule, &wc->row.plain);
	if (s)
		*s = wc->row;
	return &wc->row;
}

/* Step out of the frame at the current pc, using whatever describes it. */
static enum uw_stop walk_step(struct uw_regs *regs, u32 *flags, u32 walk_flags,
			      const struct uw_walk_ops *ops, struct walk_cache *wc)
{
	u64 pc = lookup_pc(regs, *flags);
	const struct uw_rslot *row = NULL;
	enum uw_stop stop = UW_STOP_NO_TABLE;

	if (!cached_find(wc, ops, pc))
		stop = UW_STOP_NO_MODULE;
	else if (wc->mod.table)
		row = cached_lookup(wc, ops->rcache, wc->mod.table, pc - wc->mod.bias);
	if (row && row->rule->kind != UWT_NONE)
		return apply_decoded(row->rule, &row->plain, regs, flags, ops->read, ops->ctx);
	if ((walk_flags & UW_WALK_FP_FALLBACK) && fp_step(regs, flags, ops))
		return UW_STOP_NONE;
	return stop;
}

UTAP_UNWIND_WALK
void uw_walk(const struct uw_regs *start, u32 flags,
	     const struct uw_walk_ops *ops, struct uw_trace *tr)
{
	struct uw_regs regs = *start;
	u32 fflags = (flags & UW_WALK_PC_IS_RA) ? 0 : UW_FRAME_EXACT_PC;
	enum uw_stop stop = UW_STOP_NONE;
	struct walk_cache wc = { 0 };

	tr->nr = 0;
	tr->inexact = 0;
	tr->stop_pc = 0;
	if (!uw_known(&regs, UWT_RIP) || !uw_known(&regs, UWT_RSP)) {
		tr->stop = UW_STOP_NO_REGS;
		return;
	}
	while (!stop) {
		u64 pc = regs.val[UWT_RIP];

		if (!pc) {
			stop = UW_STOP_PC_ZERO;
			break;
		}
		if (tr->nr == tr->max) {
			/* a frame exists beyond the last one we may record */
			stop = UW_STOP_MAX_FRAMES;
			break;
		}
		if (tr->frame_flags)
			tr->frame_flags[tr->nr] = fflags;
		tr->pcs[tr->nr++] = pc;
		tr->inexact += !!(fflags & UW_FRAME_INEXACT);
		tr->stop_pc = pc;
		stop = walk_step(&regs, &fflags, flags, ops, &wc);
		if (!stop && ops->fixup_ra && !(fflags & UW_FRAME_SIGNAL))
			regs.val[UWT_RIP] = ops->fixup_ra(ops->ctx,
							  regs.val[UWT_RIP],
							  regs.val[UWT_RSP]);
	}
	tr->stop = stop;
}

#endif /* UTAP_UNWIND_UWSTEP_C */
