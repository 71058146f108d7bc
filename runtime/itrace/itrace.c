// SPDX-License-Identifier: GPL-2.0
/*
 * itrace.c - the stepping engine: user-space instruction tracing by
 * single-stepping.
 *
 * Each traced thread has a state (struct utap_itask) found by task pointer.
 * Its trap flag (TF) is set in the thread's user registers only at a "safe
 * point", where the engine runs in the thread's own context:
 *
 *   the die notifier   every #DB and int3 from user mode, at INT_MAX, before
 *                      uprobes' notifier; a single-step trap of a traced
 *                      thread is consumed here (no SIGTRAP)
 *   tracepoints        sys_enter/sys_exit (SYSCALL masks TF: the syscall's
 *                      successor comes from here), sched_process_fork/exec/
 *                      exit, signal_deliver; a ptrace call naming a traced
 *                      thread queues its task_work, which runs when the
 *                      tracer lets the thread go
 *   a task_work        (struct utap_itask.work) on the thread's way back to
 *                      user mode, after uprobes has emulated or set up the
 *                      out-of-line step of a probed instruction
 *
 * Requests (itrace_on/itrace_off from any probe, for any thread) only set
 * bits and queue the task_work; they never touch TF or the tracker, and
 * never block. The tracker (tracker.c) turns the events into steps; every
 * step goes to the selected output (out.c), the insn handlers, and the
 * block accumulator for .insn.block handlers.
 *
 * Kernel mode is never stepped: TF is only ever set in the saved user
 * registers (task_pt_regs, or the user-mode #DB frame, which is the same).
 */
#ifndef UTAP_ITRACE_C
#define UTAP_ITRACE_C

#include <linux/uprobes.h>
#include <linux/task_work.h>
#include <linux/hashtable.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/tracepoint.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/sched/clock.h>
#include <linux/signal.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/namei.h>
#include <linux/dcache.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/refcount.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <asm/unistd.h>
#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/processor.h>

#ifndef UTAP_INSN_C_INCLUDED
#define UTAP_INSN_C_INCLUDED
#include "arch/x86_64/insn.c"
#include "arch/x86_64/insn_tables.c"
#endif
#include "itrace/tracker.c"
#include "itrace/itrace.h"
#include "formats/output.c"
#include "probes/target.c"

#ifndef MAXITRACETHREADS
#define MAXITRACETHREADS 256		/* threads traced at once */
#endif
#ifndef MAXITRACEPROCS
#define MAXITRACEPROCS 64		/* processes with traced threads at once */
#endif
#define UTAP_IT_MAPS 128		/* executable mappings reported per process */
#define UTAP_IT_BATCH 3968		/* bytes of one thread's output record */
#define UTAP_IT_HASH_BITS 8
#define UTAP_IT_WALK_MAX 4096		/* instructions of a block found by decoding */

/* bits of utap_itask.bits */
enum {
	IT_ON,		/* stepping: TF in the user registers is ours */
	IT_WANT_ON,	/* itrace_on() waits for the task_work */
	IT_OFF_REQ,	/* itrace_off(): stop at the next safe point */
	IT_WORK,	/* the task_work is queued */
	IT_INT3,	/* the thread hit an int3; the task_work tells what ran there */
	IT_XOL,		/* uprobes steps an instruction out of line; go on after it */
	IT_SIG,		/* a signal handler frame was set up: trace from the handler */
	IT_MAPSCAN,	/* report new executable mappings */
	IT_REQ_INT3,	/* itrace_on() in a uprobe handler: the probed insn runs first */
	IT_STARTED,	/* a thread-on record went out */
	IT_TRACER,	/* a tracer (ptrace) acted on the thread: re-read it when it resumes */
	IT_DEAD,	/* the thread exited */
};

/* A process with traced threads: its executable mappings and matching probes. */
struct utap_iproc {
	pid_t pid;			/* 0: free */
	int users;			/* threads; under utap_it_lock */
	bool matched;			/* the masks below are known */
	u64 insn_mask, block_mask;	/* probes that match the process */
	struct mutex scan_mutex;	/* one map scan at a time */
	int nmaps;			/* published with release; entries never change */
	bool maps_full;
	struct { u64 start, end; } maps[UTAP_IT_MAPS];
};

struct utap_itask {
	struct hlist_node hnode;	/* utap_it_hash, keyed by task; RCU */
	struct task_struct *task;	/* referenced while the state is in use */
	pid_t tid, pid;
	refcount_t ref;			/* the hash table, a queued task_work, the unloader */
	unsigned long bits;		/* IT_* */
	struct callback_head work;
	struct rcu_head rcu;
	struct utap_itask *next_free;

	/* touched only in the thread's own context (safe points) */
	struct utap_iproc *proc;
	struct pt_regs *regs;		/* the registers of the current safe point */
	struct utap_tracker trk;
	struct utap_block blk;
	u64 req_ip;			/* IT_REQ_INT3: the probed address */
	u64 map_lo, map_hi;		/* the mapping of the last step */
	bool btf;			/* block-stepping: traps only after taken branches */
	bool btf_off;			/* a block could not be decoded: single steps only */
	u64 bstart;			/* btf: where the current block began */
	u64 nsteps, nblocks;
	u64 lost;			/* steps whose records were dropped */
	u64 lost_unreported;		/* ... not yet told in a lost record */
	atomic_t gaps;			/* requests that came while it ran, not told yet */
	int ofmt;			/* the trace format the thread writes */
	int okind;			/* UTAP_IT_OUT_*: how */
	u32 olen, osteps;		/* bytes and steps in obuf */
	struct utap_fmt_thread fmt;	/* streaming formats: the encoder and its batch */
	u8 obuf[UTAP_IT_BATCH];		/* the other formats: trace records */
};

/* engine states */
enum { UTAP_IT_IDLE, UTAP_IT_RUNNING, UTAP_IT_STOPPING };

static atomic_t utap_it_state = ATOMIC_INIT(UTAP_IT_IDLE);
static struct utap_itrace_config utap_it_cfg;
static struct utap_itask *utap_it_pool;
static struct utap_itask *utap_it_free;
static struct utap_iproc *utap_it_procs;
static DEFINE_RAW_SPINLOCK(utap_it_lock);	/* free list, hash inserts/removals, procs */
static DEFINE_HASHTABLE(utap_it_hash, UTAP_IT_HASH_BITS);
static atomic_t utap_it_works = ATOMIC_INIT(0);	/* queued task_works */
static bool utap_it_ever_queued;
static atomic64_t utap_it_lost = ATOMIC64_INIT(0);	/* step records dropped */
static atomic64_t utap_it_gaps = ATOMIC64_INIT(0);	/* requests that took effect late */
static atomic64_t utap_it_noslot = ATOMIC64_INIT(0);	/* threads not traced: pool full */
static atomic64_t utap_it_compat = ATOMIC64_INIT(0);	/* 32-bit threads not traced */
static atomic64_t utap_it_steps = ATOMIC64_INIT(0);
static DEFINE_PER_CPU(struct utap_itrace_event, utap_it_event);

static bool utap_it_running(void)
{
	return atomic_read(&utap_it_state) == UTAP_IT_RUNNING;
}

static bool utap_it_stopping(void)
{
	return atomic_read(&utap_it_state) == UTAP_IT_STOPPING;
}

/* ---- per-thread states ------------------------------------------------- */

/* The state of t, or NULL. Under rcu_read_lock, or in t's own context. */
static struct utap_itask *utap_it_find(struct task_struct *t)
{
	struct utap_itask *st;

	hash_for_each_possible_rcu(utap_it_hash, st, hnode, (unsigned long)t)
		if (st->task == t)
			return st;
	return NULL;
}

static void utap_it_free_rcu(struct rcu_head *r)
{
	struct utap_itask *st = container_of(r, struct utap_itask, rcu);
	unsigned long flags;

	put_task_struct(st->task);
	raw_spin_lock_irqsave(&utap_it_lock, flags);
	st->task = NULL;
	st->next_free = utap_it_free;
	utap_it_free = st;
	raw_spin_unlock_irqrestore(&utap_it_lock, flags);
}

static void utap_it_put(struct utap_itask *st)
{
	if (refcount_dec_and_test(&st->ref))
		call_rcu(&st->rcu, utap_it_free_rcu);
}

static void utap_it_proc_put(struct utap_iproc *pr)
{
	unsigned long flags;

	if (!pr)
		return;
	raw_spin_lock_irqsave(&utap_it_lock, flags);
	if (--pr->users == 0)
		pr->pid = 0;
	raw_spin_unlock_irqrestore(&utap_it_lock, flags);
}

/* The process state of tgid, created if needed; NULL when all are in use. */
static struct utap_iproc *utap_it_proc_get(pid_t tgid)
{
	struct utap_iproc *pr = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&utap_it_lock, flags);
	for (i = 0; i < MAXITRACEPROCS; i++)
		if (utap_it_procs[i].pid == tgid) {
			pr = &utap_it_procs[i];
			break;
		}
	for (i = 0; !pr && i < MAXITRACEPROCS; i++)
		if (!utap_it_procs[i].pid) {
			pr = &utap_it_procs[i];
			pr->pid = tgid;
			pr->users = 0;
			pr->matched = false;
			pr->maps_full = false;
			/* no map entry of the previous process is read past this */
			smp_store_release(&pr->nmaps, 0);
		}
	if (pr)
		pr->users++;
	raw_spin_unlock_irqrestore(&utap_it_lock, flags);
	return pr;
}

/*
 * The state of t, created (in any context but NMI) if create. The caller
 * gets a reference.
 */
static struct utap_itask *utap_it_get(struct task_struct *t, bool create)
{
	struct utap_itask *st;
	unsigned long flags;

	rcu_read_lock();
	st = utap_it_find(t);
	if (st && !refcount_inc_not_zero(&st->ref))
		st = NULL;
	rcu_read_unlock();
	if (st || !create || in_nmi())
		return st;
	/* the decoder and the trace formats are x86-64 only */
	if (test_tsk_thread_flag(t, TIF_ADDR32)) {
		atomic64_inc(&utap_it_compat);
		return NULL;
	}
	raw_spin_lock_irqsave(&utap_it_lock, flags);
	st = utap_it_find(t);
	if (st) {
		refcount_inc(&st->ref);
	} else if (utap_it_free) {
		st = utap_it_free;
		utap_it_free = st->next_free;
		memset(st, 0, offsetof(struct utap_itask, obuf));
		get_task_struct(t);
		st->task = t;
		st->tid = t->pid;
		st->pid = t->tgid;
		refcount_set(&st->ref, 2);	/* the table's and the caller's */
		hash_add_rcu(utap_it_hash, &st->hnode, (unsigned long)t);
	}
	raw_spin_unlock_irqrestore(&utap_it_lock, flags);
	if (!st)
		atomic64_inc(&utap_it_noslot);
	return st;
}

/* Takes st out of the table (the thread exited); the table's reference goes. */
static void utap_it_unhash(struct utap_itask *st)
{
	unsigned long flags;
	bool was;

	raw_spin_lock_irqsave(&utap_it_lock, flags);
	was = !test_and_set_bit(IT_DEAD, &st->bits);
	if (was)
		hash_del_rcu(&st->hnode);
	raw_spin_unlock_irqrestore(&utap_it_lock, flags);
	if (was)
		utap_it_put(st);
}

/* ---- small helpers ------------------------------------------------------ */

/* Up to 16 bytes of code at ip without faulting; how many could be read. */
static size_t utap_it_fetch(u64 ip, u8 *buf)
{
	size_t room = PAGE_SIZE - offset_in_page(ip);

	if (ip >= TASK_SIZE_MAX - UTAP_INSN_BYTES)
		return 0;
	if (!copy_from_user_nofault(buf, (const void __user *)(uintptr_t)ip, UTAP_INSN_BYTES))
		return UTAP_INSN_BYTES;
	if (room < UTAP_INSN_BYTES &&
	    !copy_from_user_nofault(buf, (const void __user *)(uintptr_t)ip, room))
		return room;
	return 0;
}

/* The same in task context, where pages may be faulted in. */
static size_t utap_it_fetch_task(u64 ip, u8 *buf)
{
	size_t n = utap_it_fetch(ip, buf);

	if (n || ip >= TASK_SIZE_MAX - UTAP_INSN_BYTES)
		return n;
	if (!copy_from_user(buf, (const void __user *)(uintptr_t)ip, UTAP_INSN_BYTES))
		return UTAP_INSN_BYTES;
	n = PAGE_SIZE - offset_in_page(ip);
	if (n < UTAP_INSN_BYTES && !copy_from_user(buf, (const void __user *)(uintptr_t)ip, n))
		return n;
	return 0;
}

/* uprobes is stepping (or about to step) an instruction of current out of line. */
static bool utap_it_xol_active(void)
{
#ifdef UTAP_HAVE_UPROBE_TASK_STATE
	struct uprobe_task *ut = current->utask;

	return ut && ut->active_uprobe;
#else
	return false;
#endif
}

/* The #DB of uprobes' own out-of-line step. */
static bool utap_it_xol_step(void)
{
#ifdef UTAP_HAVE_UPROBE_TASK_STATE
	struct uprobe_task *ut = current->utask;

	return ut && ut->active_uprobe && ut->state == UTASK_SSTEP;
#else
	return false;
#endif
}

static void utap_it_clear_dr6_step(void)
{
#ifdef UTAP_HAVE_THREAD_VIRTUAL_DR6
	current->thread.virtual_dr6 &= ~DR_STEP;
#endif
}

static unsigned long utap_it_virtual_dr6(void)
{
#ifdef UTAP_HAVE_THREAD_VIRTUAL_DR6
	return current->thread.virtual_dr6;
#else
	return 0;
#endif
}

/* Computes the memory operand address of the thread's next instruction. */
static void utap_it_pend_ea(struct utap_itask *st, const struct pt_regs *r)
{
	const struct utap_insn *p = &st->trk.pend;
	u64 g[16], fs = 0, gs = 0;

	if (!st->trk.have_pend || !p->len || !(p->info.has_mem || p->info.implicit))
		return;
	g[X86_RAX] = r->ax;
	g[X86_RCX] = r->cx;
	g[X86_RDX] = r->dx;
	g[X86_RBX] = r->bx;
	g[X86_RSP] = r->sp;
	g[X86_RBP] = r->bp;
	g[X86_RSI] = r->si;
	g[X86_RDI] = r->di;
	g[X86_R8] = r->r8;
	g[X86_R9] = r->r9;
	g[X86_R10] = r->r10;
	g[X86_R11] = r->r11;
	g[X86_R12] = r->r12;
	g[X86_R13] = r->r13;
	g[X86_R14] = r->r14;
	g[X86_R15] = r->r15;
	if (p->info.seg == X86_SEG_FS)
		rdmsrl(MSR_FS_BASE, fs);
	else if (p->info.seg == X86_SEG_GS)
		rdmsrl(MSR_KERNEL_GS_BASE, gs);
	utap_trk_pend_ea(&st->trk, g, fs, gs);
}

/* ---- task_work ---------------------------------------------------------- */

static void utap_it_work_fn(struct callback_head *cb);

/*
 * Queues st's task_work on its thread (TWA_RESUME for current: it runs on
 * the way back to user mode; TWA_SIGNAL for another thread, which also
 * gets it out of an interruptible sleep). False if the thread is exiting.
 */
static bool utap_it_queue(struct utap_itask *st, int mode)
{
	if (test_and_set_bit(IT_WORK, &st->bits))
		return true;
	refcount_inc(&st->ref);
	atomic_inc(&utap_it_works);
	WRITE_ONCE(utap_it_ever_queued, true);
	init_task_work(&st->work, utap_it_work_fn);
	if (task_work_add(st->task, &st->work, mode)) {
		clear_bit(IT_WORK, &st->bits);
		atomic_dec(&utap_it_works);
		utap_it_put(st);
		return false;
	}
	return true;
}

#include "itrace/out.c"
#include "itrace/maps.c"
#include "itrace/btf.c"
#include "itrace/events.c"
#include "itrace/control.c"

#endif /* UTAP_ITRACE_C */
