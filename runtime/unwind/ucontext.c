// SPDX-License-Identifier: GPL-2.0
/*
 * ucontext.c - user backtraces and user symbols in the module.
 *
 * Tables (unwind rows, symbols, lines) come linked into the module for the
 * files the translator knew about, and are added at run time for files
 * mapped later (utables.c); umods.c keeps the files and finds the mapping
 * of an address. A file is recognised by its inode, so any path to it works.
 *
 * Phase 1 finds the user registers that belong to the probe: the probe's
 * own when it fired in user mode (uprobes, a timer that hit user code),
 * else the task's saved user registers (kprobes, tracepoints, timers that
 * hit kernel code). On x86-64 every saved register is exact, so the walk
 * starts with all of them known. Phase 2 is uw_walk() over the tables with
 * non-faulting reads of the task's stack. The result is kept for the rest
 * of the probe hit, so several backtrace functions cost one walk.
 */
#ifndef UTAP_UNWIND_UCONTEXT_C
#define UTAP_UNWIND_UCONTEXT_C

#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/sched/task_stack.h>

#include "unwind/umods.c"
#include "unwind/utables.c"
#include "unwind/uwstep.c"
#include "unwind/render.c"

/* ---- phase 1: the user registers of this probe hit ---- */

enum utap_ustate { UTAP_USTACK_OK, UTAP_USTACK_NONE, UTAP_USTACK_COMPAT };

/*
 * The original return address of the uretprobe that hijacked the return
 * address slot at SLOT, or 0. The hijacked value is uprobes' trampoline,
 * the first slot of its page. The task's return instances are read without
 * faulting: a sample can interrupt the task while it frees one.
 */
static u64 utap_uretprobe_orig(u64 slot)
{
	struct uprobe_task *ut = current->utask;
	struct return_instance *ri;
	unsigned long stack, orig;
	int guard = 64;

	if (!ut || get_kernel_nofault(ri, &ut->return_instances))
		return 0;
	while (ri && guard--) {
		if (get_kernel_nofault(stack, &ri->stack) ||
		    get_kernel_nofault(orig, &ri->orig_ret_vaddr))
			return 0;
		if (stack == slot)
			return orig;
		if (get_kernel_nofault(ri, &ri->next))
			return 0;
	}
	return 0;
}

/*
 * Where uprobes moved the task, its code's own address: the uretprobe
 * trampoline the task has just returned into (the slot it popped is right
 * below sp) stands for the original return address; the out-of-line slot
 * that single-steps a probed instruction stands for that instruction.
 */
static u64 utap_uprobes_pc(u64 pc, u64 sp, u32 *flags)
{
	struct uprobe_task *ut = current->utask;
	enum uprobe_task_state state;
	unsigned long xol, vaddr;
	u64 orig;

	if (!ut)
		return pc;
	if ((pc & ~PAGE_MASK) <= 1) {	/* at the trampoline, or past its int3 */
		orig = utap_uretprobe_orig(sp - sizeof(long));
		if (orig) {
			*flags |= UW_WALK_PC_IS_RA;
			return orig;
		}
	}
	/* exec frees utask before clearing the pointer: read it without faulting */
	if (get_kernel_nofault(state, &ut->state) || get_kernel_nofault(xol, &ut->xol_vaddr) ||
	    get_kernel_nofault(vaddr, &ut->vaddr))
		return pc;
	if (state != UTASK_RUNNING && xol && pc >= xol && pc < xol + MAX_UINSN_BYTES + 1)
		return vaddr + (pc - xol);
	return pc;
}

/* Are uretprobes pending in current (so return addresses may be hijacked)? */
static bool utap_uretprobes_pending(void)
{
	struct uprobe_task *ut = current->utask;
	struct return_instance *ri;

	return ut && !get_kernel_nofault(ri, &ut->return_instances) && ri;
}

/*
 * Did the task enter the kernel through the syscall instruction? Then the
 * saved ip follows it, like a return address. SYSCALL itself copies rip
 * to rcx and rflags to r11; an exception's error code (also >= 0 in
 * orig_ax) comes with neither.
 */
static bool utap_in_syscall(const struct pt_regs *regs)
{
	return (long)regs->orig_ax >= 0 && regs->cx == regs->ip && regs->r11 == regs->flags;
}

static enum utap_ustate utap_uregs(struct utap_context *c, struct uw_regs *r, u32 *flags)
{
	struct pt_regs *regs;

	if (!current->mm || (current->flags & (PF_KTHREAD | PF_EXITING)))
		return UTAP_USTACK_NONE;
	regs = c->user_mode && c->regs ? c->regs : task_pt_regs(current);
	if (!regs || !user_mode(regs))
		return UTAP_USTACK_NONE;
	if (!user_64bit_mode(regs))
		return UTAP_USTACK_COMPAT;
	r->known = 0;		/* every value is set below */
	uw_set(r, UWT_RAX, regs->ax);
	uw_set(r, UWT_RDX, regs->dx);
	uw_set(r, UWT_RCX, regs->cx);
	uw_set(r, UWT_RBX, regs->bx);
	uw_set(r, UWT_RSI, regs->si);
	uw_set(r, UWT_RDI, regs->di);
	uw_set(r, UWT_RBP, regs->bp);
	uw_set(r, UWT_RSP, regs->sp);
	uw_set(r, UWT_R8, regs->r8);
	uw_set(r, UWT_R9, regs->r9);
	uw_set(r, UWT_R10, regs->r10);
	uw_set(r, UWT_R11, regs->r11);
	uw_set(r, UWT_R12, regs->r12);
	uw_set(r, UWT_R13, regs->r13);
	uw_set(r, UWT_R14, regs->r14);
	uw_set(r, UWT_R15, regs->r15);
	/* code without tables gets a frame-pointer step, its frames marked inexact */
	*flags = UW_WALK_FP_FALLBACK;
	/* a uretprobe's ip is where the caller resumes: a return address too */
	if (c->pc_is_ra || (!(c->user_mode && c->regs) && utap_in_syscall(regs)))
		*flags |= UW_WALK_PC_IS_RA;
	uw_set(r, UWT_RIP, utap_uprobes_pc(regs->ip, regs->sp, flags));
	return UTAP_USTACK_OK;
}

/* ---- phase 2 ---- */

struct utap_uwalk {
	struct utap_umap last;		/* the last mapping found: most frames share it */
	bool have_last;
};

/*
 * The walk reads whole words: a frame's return address and save area, at
 * most SAVE_WINDOW bytes. Loaded one word at a time in one user-access
 * section, as perf's callchain walk does, not through copy_user_generic,
 * whose "rep movsb" costs per byte (emulated byte by byte under TCG).
 * An NMI may hit while another mm is loaded: only copy_from_user_nofault()
 * can check that (nmi_uaccess_okay() is not exported), so NMIs use it.
 */
#define UTAP_UW_WORDS 8

static int utap_uw_read(void *ctx, u64 addr, void *dst, u32 len)
{
	const u64 __user *src = (const u64 __user *)(unsigned long)addr;
	u64 *out = dst;
	u32 i;

	if ((len & 7) || len > UTAP_UW_WORDS * 8 || in_nmi())
		return copy_from_user_nofault(dst, src, len) ? -EFAULT : 0;
	pagefault_disable();
	if (!user_access_begin(src, len))
		goto fault_enabled;
	for (i = 0; i < len / 8; i++)
		unsafe_get_user(out[i], src + i, fault);
	user_access_end();
	pagefault_enable();
	return 0;
fault:
	user_access_end();
fault_enabled:
	pagefault_enable();
	return -EFAULT;
}

static void utap_note_missing(struct utap_umap *m)
{
	char via[64];
	int i, n;

	if (m->mod) {
		if (!m->mod->warned) {
			m->mod->warned = true;
			utap_warn("Missing unwind data for a module, rerun with 'utap -d %s'",
				  m->mod->path);
		}
		return;
	}
	n = atomic_read(&utap_nmissing);
	for (i = 0; i < n && i < UTAP_MISSING_SLOTS; i++)
		if (READ_ONCE(utap_missing[i]) == m->inode)
			return;
	if (n >= UTAP_MISSING_SLOTS)
		return;		/* enough files named: the rest are only counted */
	i = atomic_inc_return(&utap_nmissing) - 1;
	if (i < UTAP_MISSING_SLOTS)
		WRITE_ONCE(utap_missing[i], m->inode);
	/*
	 * Ask the runner, without waiting: later walks through this file will
	 * be complete. It opens the file through the mapping (no path lookup
	 * here), says which file lacked tables, by its real path, and answers
	 * with its tables. Only when it cannot be asked, say it here.
	 */
	scnprintf(via, sizeof(via), "/proc/%d/map_files/%llx-%llx", current->tgid,
		  (unsigned long long)m->start, (unsigned long long)m->end);
	if (!utap_request_tables(m->inode, via))
		utap_warn("Missing unwind data for a module, rerun with 'utap -d %s'", m->path);
}

static int utap_ufind(void *ctx, u64 pc, struct uw_module *mod)
{
	struct utap_uwalk *w = ctx;

	if (!w->have_last || pc < w->last.start || pc >= w->last.end) {
		int rc = utap_umap_find(pc, &w->last);

		/*
		 * The mmap lock is held (mmap, brk, a fault) or cannot be taken
		 * here: what earlier walks saw of this address space stands in.
		 */
		if (rc == -EAGAIN)
			rc = utap_seen_find(pc, current->tgid, current->mm, &w->last);
		else if (rc == 0)
			utap_seen_add(&w->last);
		if (rc)
			return -ENOENT;
		w->have_last = true;
	}
	mod->table = w->last.mod ? w->last.mod->uw : NULL;
	mod->bias = w->last.bias;
	mod->start = w->last.start;
	mod->end = w->last.end;
	if (!mod->table)
		utap_note_missing(&w->last);
	return 0;
}

/*
 * A uretprobe replaces the return address on the stack with its trampoline;
 * the task's pending return instances remember the original, keyed by the
 * slot it was in (just below the caller's stack pointer).
 */
static u64 utap_ufixup_ra(void *ctx, u64 ra, u64 sp)
{
	u64 orig;

	if (ra & ~PAGE_MASK)
		return ra;
	orig = utap_uretprobe_orig(sp - sizeof(long));
	return orig ? orig : ra;
}

/* The user backtrace of this probe hit, walked once and cached in the context. */
static struct utap_ustack *utap_ustack_get(struct utap_context *c)
{
	struct utap_ustack *us = &c->ustack;
	struct uw_regs regs UTAP_NOINIT;
	struct utap_uwalk w UTAP_NOINIT;
	struct uw_walk_ops ops = {
		.read = utap_uw_read,
		.find = utap_ufind,
		.ctx = &w,
		/*
		 * The CPU's decoded rules (umods.c): a process's stacks repeat
		 * their return addresses. Walks run in a probe context, whose
		 * busy flag keeps a nested probe (irq, NMI) on this CPU from
		 * walking meanwhile; preemption is off.
		 */
		.rcache = this_cpu_ptr(utap_rcache),
	};
	struct uw_trace tr = {
		.pcs = us->pcs,
		.frame_flags = us->flags,
		.max = MAXBACKTRACE,
	};
	u32 flags = 0;

	if (us->valid)
		return us;
	w.have_last = false;
	us->valid = true;
	us->state = utap_uregs(c, &regs, &flags);
	us->nr = 0;
	if (us->state != UTAP_USTACK_OK)
		return us;
	/* return addresses can only be hijacked while uretprobes are pending */
	if (utap_uretprobes_pending())
		ops.fixup_ra = utap_ufixup_ra;
	uw_walk(&regs, flags, &ops, &tr);
	us->nr = tr.nr;
	/* frames with no table row: stepped over by frame pointer, or the last one */
	if (tr.inexact || tr.stop == UW_STOP_NO_TABLE || tr.stop == UW_STOP_NO_MODULE)
		atomic64_add(tr.inexact + (tr.stop == UW_STOP_NO_TABLE ||
					   tr.stop == UW_STOP_NO_MODULE), &utap_missing_frames);
	return us;
}

/* ---- symbols ---- */

static void utap_usym_ctx(u64 addr, struct utap_umap *m, struct utap_sym_ctx *sc, bool *found)
{
	memset(sc, 0, sizeof(*sc));
	/*
	 * A task whose stacks were walked owns its addresses; in any other
	 * task (the runner in an end probe) remembered mappings come first,
	 * the target's before others.
	 */
	if (utap_seen_tgid(current->tgid))
		*found = utap_umap_find(addr, m) == 0 ||
			 utap_seen_find(addr, current->tgid, current->mm, m) == 0;
	else
		*found = utap_seen_find(addr, utap_target, NULL, m) == 0 ||
			 utap_umap_find(addr, m) == 0;
	if (!*found)
		return;
	sc->path = m->mod ? m->mod->path : m->path;
	sc->start = m->ext_start;
	sc->end = m->ext_end;
	sc->bias = m->bias;
	sc->syms = m->mod && m->mod->has_syms ? &m->mod->syms : NULL;
	sc->lines = m->mod && m->mod->has_lines ? &m->mod->lines : NULL;
}

/* One address in a SystemTap symbol mode, into buf; returns the full length. */
static int utap_usym_format(char *buf, size_t size, u64 addr, unsigned mode)
{
	struct utap_umap m UTAP_NOINIT;		/* both filled by the lookup */
	struct utap_sym_ctx sc UTAP_NOINIT;
	bool found;

	/* hex only (ubacktrace()): nothing to look up */
	if (!(mode & (UTAP_SYM_SYMBOL | UTAP_SYM_MODULE | UTAP_SYM_FILENAME |
		      UTAP_SYM_LINENUMBER)))
		return utap_sym_format(buf, size, addr, NULL, mode);
	utap_usym_ctx(addr, &m, &sc, &found);
	return utap_sym_format(buf, size, addr, found ? &sc : NULL, mode);
}

/*
 * The whole backtrace in a mode. To the print buffer when buf is NULL;
 * else into buf[size], cut like stap's sprint functions: at the byte.
 */
static void utap_ubacktrace_render(struct utap_context *c, unsigned mode, char *buf, size_t size)
{
	struct utap_ustack *us = utap_ustack_get(c);
	char marker[UTAP_RENDER_LINE] UTAP_NOINIT;	/* written before it is read */

	if (us->state == UTAP_USTACK_COMPAT && (mode & UTAP_SYM_SYMBOL))
		/* a 32-bit task's marker says why (hex mode: stap's bare newline) */
		scnprintf(marker, sizeof(marker), "<no user backtrace at %s: 32-bit task, "
			  "unsupported>\n", c->probe->pp);
	else if (us->state != UTAP_USTACK_OK)
		utap_sym_no_backtrace(marker, sizeof(marker), c->probe->pp, mode, false);
	utap_render_frames(c, us->pcs, us->flags, UW_FRAME_INEXACT, us->nr,
			   us->state == UTAP_USTACK_OK ? NULL : marker, mode, utap_usym_format,
			   buf, size);
}

/* print_usyms(), sprint_usyms() */
static void utap_print_usyms(struct utap_context *c, const char *s, char *dst)
{
	utap_render_syms(c, s, dst, utap_usym_format);
}

#endif /* UTAP_UNWIND_UCONTEXT_C */
