// SPDX-License-Identifier: GPL-2.0
/*
 * ucontext.c - user backtraces and user symbols in the module.
 *
 * Tables (unwind rows, symbols, lines) come linked into the module for the
 * files the translator knew about, and are added at run time for files
 * mapped later. A file is recognised by its inode, so any path to it works.
 *
 * Phase 1 finds the user registers that belong to the probe: the probe's
 * own when it fired in user mode (uprobes, a timer that hit user code),
 * else the task's saved user registers (kprobes, tracepoints, timers that
 * hit kernel code). On x86-64 every saved register is exact, so the walk
 * starts with all of them known. Phase 2 is uw_walk() over the tables with
 * non-faulting reads of the task's stack. The result is kept for the rest
 * of the probe hit, so several backtrace functions cost one walk.
 */
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/namei.h>
#include <linux/dcache.h>
#include <linux/uprobes.h>
#include <linux/sched/task_stack.h>

#include "unwind/uwtab.c"
#include "unwind/uwstep.c"
#include "unwind/render.c"

struct utap_umod_desc {
	const char *path;
	const void *uw;
	size_t uw_len;
	const void *sym;
	size_t sym_len;
	const void *line;
	size_t line_len;
};

static const struct utap_umod_desc *utap_gen_umods(int *n);

#ifndef UTAP_MAX_UMODS
#define UTAP_MAX_UMODS 512
#endif

/* One ELF file with tables. */
struct utap_umod {
	const char *path;		/* the descriptor's, or in the run-time blob (owned) */
	struct path kpath;
	struct inode *inode;
	const void *uw;			/* validated, or NULL */
	struct utap_symtab syms;
	bool has_syms;
	struct utap_linetab lines;
	bool has_lines;
	void *owned;			/* run-time tables: freed at exit */
	bool warned;			/* "missing unwind data" said once */
};

static struct utap_umod utap_umods[UTAP_MAX_UMODS];
static atomic_t utap_numods = ATOMIC_INIT(0);
static DEFINE_MUTEX(utap_umods_mutex);
static struct utap_umod *utap_vdso_mod;
static u32 utap_request_tables(struct inode *inode, const char *path);

/* Files without tables, said once each: "Missing unwind data for a module". */
#define UTAP_MISSING_SLOTS 64
static struct inode *utap_missing[UTAP_MISSING_SLOTS];
static atomic_t utap_nmissing = ATOMIC_INIT(0);
static atomic64_t utap_missing_frames = ATOMIC64_INIT(0);

static int utap_umod_setup(struct utap_umod *m, const char *path, const void *uw, size_t uw_len,
			   const void *sym, size_t sym_len, const void *line, size_t line_len)
{
	m->path = path;
	if (uw && uw_table_validate(uw, uw_len) == 0)
		m->uw = uw;
	m->has_syms = sym && utap_symtab_init(&m->syms, sym, sym_len) == 0;
	m->has_lines = line && utap_linetab_init(&m->lines, line, line_len) == 0;
	if (uw && !m->uw)
		utap_warn("the unwind table of %s is malformed; its frames are not unwound", path);
	/* the inode identifies the file whatever path maps it */
	if (kern_path(path, LOOKUP_FOLLOW, &m->kpath) == 0)
		m->inode = d_real_inode(m->kpath.dentry);	/* overlayfs maps the real file */
	return 0;
}

/* The run's summary: frames in files without tables (each file was also named once). */
static void utap_ustack_report(void)
{
	long long n = atomic64_read(&utap_missing_frames);

	if (n)
		utap_warn("%lld user stack frame%s lacked unwind tables (the stack went on "
			  "inexact or ended there)", n, n == 1 ? "" : "s");
}

static int utap_umods_init(void)
{
	int i, n = 0;
	const struct utap_umod_desc *d = utap_gen_umods(&n);

	for (i = 0; i < n && i < UTAP_MAX_UMODS; i++)
		utap_umod_setup(&utap_umods[i], d[i].path, d[i].uw, d[i].uw_len, d[i].sym,
				d[i].sym_len, d[i].line, d[i].line_len);
	atomic_set(&utap_numods, i);
	return 0;
}

static void utap_umods_exit(void)
{
	int i, n = atomic_read(&utap_numods);

	for (i = 0; i < n; i++) {
		if (utap_umods[i].inode)
			path_put(&utap_umods[i].kpath);
		kvfree(utap_umods[i].owned);
	}
	atomic_set(&utap_numods, 0);
}

static struct utap_umod *utap_umod_by_inode(const struct inode *inode)
{
	int i, n = atomic_read(&utap_numods);

	smp_rmb();	/* entries are complete before the count covers them */
	for (i = 0; i < n; i++)
		if (utap_umods[i].inode == inode)
			return &utap_umods[i];
	return NULL;
}

/* ---- where an address lives ---- */

struct utap_umap {
	u64 start, end;			/* this executable mapping */
	u64 bias;
	struct utap_umod *mod;		/* NULL: a file without tables */
	struct inode *inode;
	u64 off;			/* the file offset mapped at start */
	u64 ext_start, ext_end;		/* the whole file's extent, for [MOD+OFF/SIZE] */
	char path[128];			/* the file's path when it has no tables */
};

/*
 * The name of a mapped file without tables, for printing. In task context
 * (not in a probe) d_path; a probe may interrupt d_move() holding
 * rename_lock, so there only the last component is copied, without locks
 * and without faulting (the name stays valid while preemption is off).
 */
static void utap_umap_name(struct vm_area_struct *vma, struct utap_umap *out, bool in_probe)
{
	const unsigned char *name;
	size_t i;
	char *p;

	if (!in_probe) {
		p = d_path(&vma->vm_file->f_path, out->path, sizeof(out->path));
		if (!IS_ERR(p)) {
			memmove(out->path, p, strlen(p) + 1);
			return;
		}
	}
	name = READ_ONCE(vma->vm_file->f_path.dentry->d_name.name);
	for (i = 0; i + 1 < sizeof(out->path); i++)
		if (get_kernel_nofault(out->path[i], name + i) || !out->path[i])
			break;
	out->path[i] = 0;
	if (!i)
		strscpy(out->path, "?", sizeof(out->path));
}

/* Bias and extent from the file's own load segments, when it has a symbol table. */
static bool utap_umap_mod_bias(struct utap_umap *m)
{
	if (!m->mod || !m->mod->has_syms ||
	    utap_symtab_load_bias(&m->mod->syms, m->start, m->off, &m->bias))
		return false;
	utap_symtab_extent(&m->mod->syms, m->bias, &m->ext_start, &m->ext_end);
	return true;
}

/* What the mapping VMA (locked by the caller) means for addresses in it; false if nothing. */
static bool utap_umap_fill(struct mm_struct *mm, struct vm_area_struct *vma,
			   struct utap_umap *out, bool in_probe)
{
	memset(out, 0, sizeof(*out));
	out->start = vma->vm_start;
	out->end = vma->vm_end;
	if (!vma->vm_file) {
		/* the vDSO has no file: its tables come from the runner's copy of the image */
		out->mod = smp_load_acquire(&utap_vdso_mod);
		if (!out->mod || vma->vm_start != (unsigned long)mm->context.vdso)
			return false;
		if (utap_symtab_load_bias(&out->mod->syms, vma->vm_start, 0, &out->bias))
			out->bias = vma->vm_start;
		out->ext_start = vma->vm_start;
		out->ext_end = vma->vm_end;
		return true;
	}
	out->inode = file_inode(vma->vm_file);
	out->off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	out->mod = utap_umod_by_inode(out->inode);
	if (utap_umap_mod_bias(out))
		return true;
	out->bias = vma->vm_start - out->off;
	out->ext_start = out->bias;
	out->ext_end = vma->vm_end;
	if (!out->mod)
		utap_umap_name(vma, out, in_probe);
	return true;
}

/*
 * A remembered mapping of a file that had no tables then: they may have
 * come since (the runner answers after the walk that asked).
 */
static void utap_umap_refresh(struct utap_umap *m)
{
	if (!m->mod && m->inode) {
		m->mod = utap_umod_by_inode(m->inode);
		utap_umap_mod_bias(m);
	}
}

/*
 * Looks the address up in current's mappings. Probe context cannot sleep, so
 * the mmap lock is only tried; in NMI context it is not taken at all.
 */
static int utap_umap_find(u64 addr, struct utap_umap *out)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int rc = -ENOENT;

	if (!mm || in_nmi() || !mmap_read_trylock(mm))
		return -EAGAIN;
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr && utap_umap_fill(mm, vma, out, true))
		rc = 0;
	mmap_read_unlock(mm);
	return rc;
}

/*
 * Mappings seen by walks, remembered so that addresses kept as strings can
 * be symbolized later in another task's context: the end probe that prints
 * the stacks a script collected runs in the runner, after the traced
 * process is gone.
 */
#define UTAP_SEEN_MAPS 256

struct utap_seen_map {
	pid_t tgid;
	const struct mm_struct *mm;	/* identity only, never dereferenced */
	struct utap_umap map;
};

static struct utap_seen_map utap_seen[UTAP_SEEN_MAPS];
static unsigned int utap_seen_next, utap_seen_count;
static DEFINE_RAW_SPINLOCK(utap_seen_lock);

/* What this CPU remembered last: walks repeat the same mappings, skip them cheaply. */
struct utap_seen_last {
	const struct mm_struct *mm;
	u64 start, end;
	const struct utap_umod *mod;
};

static DEFINE_PER_CPU(struct utap_seen_last, utap_seen_last);

static void utap_seen_add(const struct utap_umap *m)
{
	struct utap_seen_last *last = get_cpu_ptr(&utap_seen_last);
	pid_t tgid = current->tgid;
	unsigned long flags;
	unsigned int i;

	if (last->mm == current->mm && last->start == m->start && last->end == m->end &&
	    last->mod == m->mod) {
		put_cpu_ptr(&utap_seen_last);
		return;
	}
	last->mm = current->mm;
	last->start = m->start;
	last->end = m->end;
	last->mod = m->mod;
	put_cpu_ptr(&utap_seen_last);
	if (!raw_spin_trylock_irqsave(&utap_seen_lock, flags))
		return;		/* remembering is best effort: never wait in a probe */
	for (i = 0; i < utap_seen_count; i++)
		if (utap_seen[i].mm == current->mm && utap_seen[i].map.start == m->start)
			break;
	if (i == utap_seen_count) {
		i = utap_seen_next;
		utap_seen_next = (utap_seen_next + 1) % UTAP_SEEN_MAPS;
		if (utap_seen_count < UTAP_SEEN_MAPS)
			utap_seen_count++;
	}
	/* a mapping seen again replaces what was there: it may have changed */
	utap_seen[i].tgid = tgid;
	utap_seen[i].mm = current->mm;
	utap_seen[i].map = *m;
	raw_spin_unlock_irqrestore(&utap_seen_lock, flags);
}

/*
 * A remembered mapping of addr. With mm, only that address space's; else
 * the given process's first, else the newest.
 */
static int utap_seen_find(u64 addr, pid_t prefer, const struct mm_struct *mm,
			  struct utap_umap *out)
{
	unsigned long flags;
	unsigned int i, k;
	int found = -1;

	if (!raw_spin_trylock_irqsave(&utap_seen_lock, flags))
		return -EAGAIN;
	for (k = 1; k <= utap_seen_count; k++) {
		i = (utap_seen_next + UTAP_SEEN_MAPS - k) % UTAP_SEEN_MAPS;
		if (addr < utap_seen[i].map.start || addr >= utap_seen[i].map.end)
			continue;
		if (mm && utap_seen[i].mm != mm)
			continue;
		if (found < 0 || utap_seen[i].tgid == prefer)
			found = i;
		if (utap_seen[i].tgid == prefer)
			break;
	}
	if (found >= 0)
		*out = utap_seen[found].map;
	raw_spin_unlock_irqrestore(&utap_seen_lock, flags);
	if (found < 0)
		return -ENOENT;
	utap_umap_refresh(out);
	return 0;
}

static bool utap_seen_tgid(pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < READ_ONCE(utap_seen_count) && i < UTAP_SEEN_MAPS; i++)
		if (READ_ONCE(utap_seen[i].tgid) == tgid)
			return true;
	return false;
}

#include "unwind/utables.c"

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
	memset(r, 0, sizeof(*r));
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

static int utap_uw_read(void *ctx, u64 addr, void *dst, u32 len)
{
	return copy_from_user_nofault(dst, (const void __user *)(unsigned long)addr, len) ?
	       -EFAULT : 0;
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
	struct uw_regs regs;
	struct utap_uwalk w = { 0 };
	struct uw_walk_ops ops = {
		.read = utap_uw_read,
		.find = utap_ufind,
		.ctx = &w,
	};
	struct uw_trace tr = {
		.pcs = us->pcs,
		.frame_flags = us->flags,
		.max = MAXBACKTRACE,
	};
	u32 flags = 0;

	if (us->valid)
		return us;
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
	us->stop = tr.stop;
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
	struct utap_umap m;
	struct utap_sym_ctx sc;
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
	char marker[UTAP_RENDER_LINE];

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
