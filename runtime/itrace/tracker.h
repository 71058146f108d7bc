/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracker.h - what one thread's traps mean: the pure core of the stepping
 * engine (runtime/itrace/itrace.c is the kernel glue around it).
 *
 * A single-step trap says "the instruction the thread was at has run, and
 * the thread is now at IP". Turning traps into trace steps (instruction,
 * successor) is simple except where the CPU or the kernel runs user
 * instructions without a trap after them:
 *
 *   syscall      SYSCALL masks TF; the kernel returns with TF restored, so
 *                the instruction after the syscall runs before the next
 *                trap. The glue reports syscall entry and exit instead, and
 *                a syscall the kernel may restart (ip rewound by 2) keeps its
 *                successor open until the next event confirms it.
 *   int3         a uprobe (or a debugger, or the program) put an int3 where
 *                the thread goes next. What runs there is known only after
 *                uprobes has done its work: the original instruction
 *                (emulated, or stepped out of line), nothing (the uretprobe
 *                trampoline: the ret before it really went to the return
 *                address), or a real int3 followed by SIGTRAP. The step
 *                before an int3 is held until then.
 *   signal       delivery interrupts the thread before its next instruction
 *                and enters the handler.
 *   tracer       a debugger (ptrace) that had the thread stopped may have
 *                moved it (rewound past its breakpoint, or to a copy of the
 *                instruction it steps out of line) or changed its code: the
 *                glue reports where the thread resumes.
 *
 * The tracker keeps the thread's next instruction (pend), at most one step
 * whose successor is not confirmed yet (held), and calls emit() for every
 * finished step. Callers pass the bytes at each new address (up to 16,
 * fewer near an unreadable page); the instruction is decoded here.
 */
#ifndef UTAP_ITRACE_TRACKER_H
#define UTAP_ITRACE_TRACKER_H

#include "core/port.h"
#include "arch/x86_64/insn.h"
#include "itrace/trace_record.h"

#define UTAP_INSN_BYTES 16

/* An instruction at a known address: decoded if its bytes could be read. */
struct utap_insn {
	u64 ip;
	u64 ea;				/* memory operand address, before it ran */
	u8 len;				/* 1..15; 0 when unknown */
	u8 nbytes;			/* valid bytes[] */
	bool has_ea;
	u8 bytes[UTAP_INSN_BYTES];
	struct x86_insn_info info;	/* valid when len != 0 */
};

/* How the instruction at an int3 ran, as the glue found out afterwards. */
enum utap_int3_how {
	UTAP_INT3_NOT_RUN,	/* the thread is back at the int3 (it runs it next) */
	UTAP_INT3_TRAMPOLINE,	/* uretprobe trampoline: the step before went to cur */
	UTAP_INT3_REAL,		/* the program's (or a debugger's) int3 ran; SIGTRAP follows */
	UTAP_INT3_TRACED,	/* the same, SIGTRAP going to a tracer first: held until it resumes */
	UTAP_INT3_EMULATED,	/* a uprobe: the original instruction ran in the kernel */
	UTAP_INT3_XOL,		/* a uprobe: the original instruction runs out of line next */
};

typedef void (*utap_emit_fn)(void *arg, const struct utap_trace_step *s);

struct utap_tracker {
	struct utap_insn pend;		/* the thread's next instruction */
	struct utap_insn held;		/* ran; its successor is not confirmed */
	u64 held_next;			/* the successor as far as known (0: none) */
	u16 held_flags;			/* flags added to held when it is emitted */
	u64 int3_ip;			/* in_int3: where the int3 is */
	bool have_pend;
	bool have_held;
	bool held_bp;			/* held is an int3 a tracer may take for its breakpoint */
	bool in_syscall;		/* held is a syscall the thread is in */
	bool in_int3;			/* pend hit an int3; waiting for int3_resolve() */
	bool in_xol;			/* pend runs out of line; waiting for xol_done() */
	utap_emit_fn emit;
	void *arg;
	u64 nsteps;			/* steps emitted */
};

/* Decodes the n bytes at ip into *in (n may be 0: unknown). */
void utap_insn_set(struct utap_insn *in, u64 ip, const u8 *bytes, size_t n);

/* The step record of in, which ran and went to next (0: unknown). */
void utap_step_make(struct utap_trace_step *s, const struct utap_insn *in, u64 next, u16 flags);

/*
 * Flags an instruction contributes whatever its successor (UTAP_STEP_*).
 * With its successor: TAKEN for a branch that did not fall through,
 * EXCEPTION for any other instruction that was not followed by the next
 * one in memory (a signal, a syscall such as sigreturn or execve), as
 * build/fmt-ptrace marks them.
 */
u16 utap_insn_flags(const struct utap_insn *in);

void utap_trk_init(struct utap_tracker *t, utap_emit_fn emit, void *arg);

/* Tracing starts (or restarts) with the thread about to run ip. */
void utap_trk_start(struct utap_tracker *t, u64 ip, const u8 *b, size_t n);

/* A single-step trap: the thread's instruction ran and it is now at ip. */
void utap_trk_trap(struct utap_tracker *t, u64 ip, const u8 *b, size_t n);

/* The syscall instruction at sys_ip ran (entry with TF set); b: its bytes. */
void utap_trk_sys_enter(struct utap_tracker *t, u64 sys_ip, const u8 *b, size_t n);

/*
 * The thread returns from the kernel to ip. After a syscall entry the
 * syscall's successor is ip, unless may_restart (the kernel may still
 * rewind ip to re-run it: confirmed by the next event).
 */
void utap_trk_sys_exit(struct utap_tracker *t, u64 ip, const u8 *b, size_t n, bool may_restart);

/* The thread hit an int3 at int3_ip; what ran there is decided by int3_resolve(). */
void utap_trk_int3(struct utap_tracker *t, u64 int3_ip);

/*
 * The int3 is done with: the thread is at cur (bytes b). orig: the
 * original instruction bytes at the int3 (uprobe cases).
 */
void utap_trk_int3_resolve(struct utap_tracker *t, enum utap_int3_how how, u64 cur,
			   const u8 *orig, size_t norig, const u8 *b, size_t n);

/* The out-of-line step of pend is over; the thread is at cur. */
void utap_trk_xol_done(struct utap_tracker *t, u64 cur, const u8 *b, size_t n);

/*
 * A tracer had the thread stopped; it resumes at ip (bytes b, read again:
 * the tracer may have written code). An int3 held for the tracer is
 * dropped unless the thread goes on after it: a debugger that rewinds or
 * moves the thread took it for its own breakpoint, which the program never
 * ran. A held step whose successor the thread never reached goes out with
 * the successor it had.
 */
void utap_trk_resume(struct utap_tracker *t, u64 ip, const u8 *b, size_t n);

/* A signal handler is entered at handler, before the thread's next instruction ran. */
void utap_trk_signal(struct utap_tracker *t, u64 handler, const u8 *b, size_t n);

/*
 * Tracing stops. Emits what is held; a syscall the thread is in goes to
 * next (0: unknown, e.g. exit) with flags added.
 */
void utap_trk_stop(struct utap_tracker *t, u64 next, u16 flags);

/*
 * The memory operand address of pend, from the registers before it runs
 * (gpr in hardware order, rax..r15).
 */
void utap_trk_pend_ea(struct utap_tracker *t, const u64 gpr[16], u64 fs_base, u64 gs_base);

/*
 * Basic blocks from steps: a block ends after a taken branch (jmp, call,
 * ret, a taken jcc) or any other change of flow; a step that does not
 * follow the block's last one starts a new block.
 */
struct utap_block {
	u64 start;			/* first instruction */
	u64 last_ip;			/* last instruction */
	u64 next_ip;			/* where the block went (0: unknown) */
	u64 expect;			/* where the next step of this block would be */
	u32 ninsns;			/* 0: no open block */
	u32 nbytes;			/* last_ip + its length - start, 0 if unknown */
	u16 flags;			/* the last step's flags */
	u8 last_len;
};

/* True if s ends a block. */
bool utap_step_ends_block(const struct utap_trace_step *s);

/* True if s cannot continue the open block b (close b before adding s). */
bool utap_block_breaks(const struct utap_block *b, const struct utap_trace_step *s);

/* Adds s to b (opening it if needed); true when s ends the block. */
bool utap_block_add(struct utap_block *b, const struct utap_trace_step *s);

static inline void utap_block_reset(struct utap_block *b)
{
	b->ninsns = 0;
}

/* Up to UTAP_INSN_BYTES bytes of code at addr into buf; how many could be read. */
typedef size_t (*utap_code_fn)(void *arg, u64 addr, u8 *buf);

/*
 * Block-step: the CPU trapped at next after a taken branch, and the block
 * began at start. Finds the branch by decoding forward from start: the
 * first jmp, call, ret or indirect jump, or a jcc whose target is next (a
 * jcc going elsewhere fell through). With until != 0 the block instead
 * ends, without a branch, at the instruction before until. Fills b (and
 * *last, its final step); false if that takes more than max instructions,
 * or code cannot be read or decoded, or the flow does not lead to next.
 */
bool utap_block_walk(u64 start, u64 next, u64 until, utap_code_fn code, void *arg,
		     unsigned int max, struct utap_block *b, struct utap_trace_step *last);

#endif /* UTAP_ITRACE_TRACKER_H */
