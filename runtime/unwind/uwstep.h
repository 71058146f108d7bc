/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwstep.h - user register state, one unwind step, and the stack walk.
 *
 * Registers use DWARF numbering (enum uwt_reg). Each carries a known bit,
 * so the walk never guesses: a rule that needs an unknown value stops it
 * with UW_STOP_UNKNOWN_REG. After a step the caller-saved
 * registers are unknown, the callee-saved ones follow their save rule, and
 * a signal frame makes every register known again.
 *
 * All memory is read through a caller-supplied nofault reader, so nothing
 * here can fault; every loop is bounded by the frame limit.
 */
#ifndef UTAP_UWSTEP_H
#define UTAP_UWSTEP_H

#include "unwind/uwtab.h"

struct uw_regs {
	u64 val[UWT_NR_REGS];
	u32 known;		/* bit r set: val[r] is trustworthy */
};

#define UW_BIT(r)		(1u << (r))
#define UW_ALL_KNOWN		((1u << UWT_NR_REGS) - 1)

static inline bool uw_known(const struct uw_regs *r, unsigned int reg)
{
	return r->known & UW_BIT(reg);
}

static inline void uw_set(struct uw_regs *r, unsigned int reg, u64 v)
{
	r->val[reg] = v;
	r->known |= UW_BIT(reg);
}

/* Why a walk ended. Keep uw_stop_name() in step. */
enum uw_stop {
	UW_STOP_NONE,		/* not stopped (internal) */
	UW_STOP_END,		/* clean end: return address undefined by CFI */
	UW_STOP_PC_ZERO,	/* return address 0 */
	UW_STOP_MAX_FRAMES,	/* frame limit reached, stack goes on */
	UW_STOP_NO_REGS,	/* initial pc or sp unknown */
	UW_STOP_NO_MODULE,	/* pc in no known mapping */
	UW_STOP_NO_TABLE,	/* mapping without table, or no CFI for pc */
	UW_STOP_UNKNOWN_REG,	/* the rule needs a register we do not know */
	UW_STOP_READ_FAULT,	/* stack or save slot not readable */
	UW_STOP_CFA_NOT_ABOVE,	/* caller's SP not above this frame's SP */
	UW_STOP_CFA_ALIGN,	/* caller's SP not 8-byte aligned */
	UW_NR_STOPS
};

const char *uw_stop_name(enum uw_stop stop);

/* Read LEN bytes at user address ADDR into DST without faulting: 0 or -EFAULT. */
typedef int (*uw_read_fn)(void *ctx, u64 addr, void *dst, u32 len);

/* per-frame flags */
#define UW_FRAME_EXACT_PC	0x1	/* pc is exact: look it up as is, not pc - 1 */
#define UW_FRAME_SIGNAL		0x2	/* this frame was interrupted by a signal */
#define UW_FRAME_INEXACT	0x4	/* found by the frame-pointer fallback */

/*
 * Apply RULE (the row covering this frame's pc) to REGS, turning them into
 * the caller's registers. *FLAGS is this frame's UW_FRAME_* on entry and
 * the caller's on return. UW_STOP_NONE on success; on any other result REGS
 * are unchanged.
 */
UTAP_UNWIND_API
enum uw_stop uw_apply_rule(const struct uwt_rule *rule, struct uw_regs *regs,
			   u32 *flags, uw_read_fn read, void *ctx);

/*
 * One step with TABLE (validated) loaded at BIAS: looks up pc (or pc - 1
 * when the frame's pc is a return address) and applies the rule.
 */
UTAP_UNWIND_API
enum uw_stop uw_step(const void *table, u64 bias, struct uw_regs *regs,
		     u32 *flags, uw_read_fn read, void *ctx);

/* Where a pc lives. TABLE is NULL for a known mapping without a table. */
struct uw_module {
	const void *table;
	u64 bias;		/* runtime address - file vaddr */
	u64 start, end;		/* optional: the pcs this answer holds for (the walk asks again outside) */
};

/*
 * A rule as a plain frame applies it (CFA = register + offset, the RA and
 * the saves at the CFA, the caller's SP the CFA): one window of WORDS
 * words from CFA + LO, then the RA and each saved register a word of it.
 * WORDS is 0 for any other rule.
 */
struct uw_plain {
	s32 cfa_off;
	u32 at;			/* UW_BIT of the registers loaded from the window */
	s16 lo;
	u8 cfa_reg;
	u8 words;
	u8 ra;			/* the RA's word */
	u8 save[UWT_NR_SAVED];	/* saved register slot i's word (the RA's when not saved) */
};

/* One decoded row: the rule for file-relative PC of TABLE. */
struct uw_rslot {
	const void *table;	/* NULL: empty */
	u64 pc;
	const struct uwt_rule *rule;
	struct uw_plain plain;
};

/*
 * Rules decoded by earlier walks, direct-mapped by (table, pc). A
 * validated table never changes and lives until the tables go, so an
 * entry stays true; the owner guarantees that one walk at a time uses it
 * (the module: one per CPU, used under the probe context's busy flag).
 */
#define UW_RCACHE_BITS		6
#define UW_RCACHE_SIZE		(1u << UW_RCACHE_BITS)

struct uw_rcache {
	struct uw_rslot slot[UW_RCACHE_SIZE];
};

struct uw_walk_ops {
	uw_read_fn read;
	/* 0 and *MOD filled when PC is in a known executable mapping, else -ENOENT */
	int (*find)(void *ctx, u64 pc, struct uw_module *mod);
	/*
	 * optional: map a hijacked return address (uretprobe trampoline)
	 * back; SP is the caller's stack pointer, just above where RA was
	 */
	u64 (*fixup_ra)(void *ctx, u64 ra, u64 sp);
	void *ctx;
	struct uw_rcache *rcache;	/* optional: decoded rules kept across walks */
};

/* uw_walk() flags */
#define UW_WALK_PC_IS_RA	0x1	/* frame 0's pc is a return address (syscall entry) */
#define UW_WALK_FP_FALLBACK	0x2	/* try a validated frame-pointer step where no CFI is */

struct uw_trace {
	u64 *pcs;		/* out: pcs[0..nr-1], frame 0 first */
	u8 *frame_flags;	/* optional out: UW_FRAME_* per frame */
	u32 max;		/* capacity of pcs (and frame_flags) */
	u32 nr;
	u32 inexact;		/* frames found by the frame-pointer fallback */
	enum uw_stop stop;
	u64 stop_pc;		/* pc of the frame the walk could not step from */
};

/* Walk from START; fills TR. Never reads memory other than through OPS->read. */
UTAP_UNWIND_WALK
void uw_walk(const struct uw_regs *start, u32 flags,
	     const struct uw_walk_ops *ops, struct uw_trace *tr);

#endif /* UTAP_UWSTEP_H */
