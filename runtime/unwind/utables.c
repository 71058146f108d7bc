// SPDX-License-Identifier: GPL-2.0
/*
 * utables.c - tables for ELF files mapped after translation (dlopen, files
 * no one named), built by the runner and handed to the module.
 *
 * When a task of interest (the -c/-x target and its descendants) maps an
 * executable file the module has no tables for, a task_work holds it on
 * its way back to user mode, asks the runner for the file's tables (an
 * event record), and waits until the runner has written them to
 * /proc/<module>/tables: so stacks through a dlopen'ed library are complete
 * from the first call into it. Other tasks are not held; the first walk
 * that meets such a file asks for its tables without waiting.
 *
 * Table bytes from user space are untrusted: every blob is validated
 * before it is published, and a bad one is refused.
 */
#ifndef UTAP_UNWIND_UTABLES_C
#define UTAP_UNWIND_UTABLES_C

#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>

#include "probes/target.c"
#include "unwind/umods.c"
#include "unwind/pyframes_format.h"

#define UTAP_TABLES_MAGIC 0x75746162	/* "utab" */
#define UTAP_TABLES_NONE 1		/* the runner has no tables for this file */
#define UTAP_TABLES_VDSO 2		/* the vDSO image of this kernel */
#define UTAP_TABLES_UNREAD 4		/* with NONE: the runner could not open the path it was given */

/* What the runner writes: this header, then path, unwind, symbol, line, CPython blobs (8-aligned). */
struct utap_tables_msg {
	u32 magic;
	u32 seq;
	u32 flags;
	u32 path_len;
	u32 uw_len;
	u32 sym_len;
	u32 line_len;
	u32 py_len;		/* CPython's symbols (pyframes_format.h), or 0 */
};

#define UTAP_TREQS 64

struct utap_treq {
	struct inode *inode;
	u32 seq;
	bool done;
};

static struct utap_treq utap_treqs[UTAP_TREQS];
static DEFINE_RAW_SPINLOCK(utap_treq_lock);
static DECLARE_WAIT_QUEUE_HEAD(utap_treq_wait);
static u32 utap_treq_seq;
static atomic_t utap_hold_works = ATOMIC_INIT(0);
static bool utap_hold_enabled;

/*
 * The request for inode, made if there is none yet. Returns its seq and
 * whether it is new (the caller then sends it); 0 when the table is full.
 */
static u32 utap_treq_get(struct inode *inode, bool *is_new)
{
	unsigned long flags;
	u32 seq = 0;
	int i, free = -1;

	*is_new = false;
	if (!raw_spin_trylock_irqsave(&utap_treq_lock, flags))
		return 0;
	for (i = 0; i < UTAP_TREQS; i++) {
		if (utap_treqs[i].inode == inode) {
			seq = utap_treqs[i].seq;
			goto out;
		}
		if (!utap_treqs[i].inode && free < 0)
			free = i;
	}
	if (free >= 0) {
		utap_treqs[free].inode = inode;
		utap_treqs[free].seq = seq = ++utap_treq_seq;
		utap_treqs[free].done = false;
		*is_new = true;
	}
out:
	raw_spin_unlock_irqrestore(&utap_treq_lock, flags);
	return seq;
}

static bool utap_treq_done(u32 seq)
{
	unsigned long flags;
	bool done = true;
	int i;

	raw_spin_lock_irqsave(&utap_treq_lock, flags);
	for (i = 0; i < UTAP_TREQS; i++)
		if (utap_treqs[i].seq == seq) {
			done = utap_treqs[i].done;
			break;
		}
	raw_spin_unlock_irqrestore(&utap_treq_lock, flags);
	return done;
}

static void utap_treq_finish(u32 seq)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&utap_treq_lock, flags);
	for (i = 0; i < UTAP_TREQS; i++)
		if (utap_treqs[i].seq == seq)
			utap_treqs[i].done = true;
	raw_spin_unlock_irqrestore(&utap_treq_lock, flags);
	wake_up_all(&utap_treq_wait);
}

/*
 * A request that settles nothing: waiters go on, and the next mapping of
 * the file asks again. From a probe (the ring was full) it never waits and
 * wakes no one: nobody waits for a request that was not sent.
 */
static void utap_treq_forget(u32 seq, bool in_probe)
{
	unsigned long flags;
	int i;

	if (!in_probe)
		raw_spin_lock_irqsave(&utap_treq_lock, flags);
	else if (!raw_spin_trylock_irqsave(&utap_treq_lock, flags))
		return;
	for (i = 0; i < UTAP_TREQS; i++)
		if (utap_treqs[i].seq == seq) {
			utap_treqs[i].inode = NULL;
			utap_treqs[i].done = true;
		}
	raw_spin_unlock_irqrestore(&utap_treq_lock, flags);
	if (!in_probe)
		wake_up_all(&utap_treq_wait);
}

/* Asks the runner for a file's tables (safe in any context); returns the request's seq. */
static u32 utap_request_tables(struct inode *inode, const char *path)
{
	bool is_new;
	u32 seq = utap_treq_get(inode, &is_new);
	char msg[300];
	int n;

	if (seq && is_new) {
		n = scnprintf(msg, sizeof(msg), "tables %u %s", seq, path);
		if (utap_transport_write(UTAP_REC_EVENT, 0, msg, n, 0)) {
			utap_treq_forget(seq, true);	/* the ring was full: a later walk asks again */
			return 0;
		}
	}
	return seq;
}

/* ---- holding a task that mapped a new executable file ---- */

/* Files one hold asks for at most (an exec maps the program and its loader). */
#define UTAP_HOLD_FILES 8

struct utap_hold_work {
	struct callback_head cb;
	unsigned long addr;	/* the new mapping; 0: every executable mapping (exec) */
};

/*
 * The executable file mappings at addr (or all of them): each is
 * remembered for walks that cannot take the mmap lock later, and those
 * without tables are returned, inodes and paths (PATH_MAX each, in bufs).
 * Task context: sleeps.
 */
static int utap_hold_scan(unsigned long addr, struct inode **inodes, char **paths, char *bufs)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct utap_umap map;
	int i, n = 0;
	VMA_ITERATOR(vmi, mm, addr);

	if (!mm)
		return 0;
	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		char *p;

		if (addr && vma->vm_start > addr)
			break;
		if (!(vma->vm_flags & VM_EXEC) || !utap_umap_fill(mm, vma, &map, false))
			goto next;
		utap_seen_add(&map);
		if (map.mod || !map.inode || n == UTAP_HOLD_FILES)
			goto next;
		for (i = 0; i < n; i++)
			if (inodes[i] == map.inode)
				goto next;
		p = d_path(&vma->vm_file->f_path, bufs + n * PATH_MAX, PATH_MAX);
		if (!IS_ERR(p)) {
			inodes[n] = map.inode;
			paths[n++] = p;
		}
next:
		if (addr)
			break;
	}
	mmap_read_unlock(mm);
	return n;
}

static bool utap_treqs_done(const u32 *seqs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (seqs[i] && !utap_treq_done(seqs[i]))
			return false;
	return true;
}

static void utap_hold_fn(struct callback_head *cb)
{
	struct utap_hold_work *w = container_of(cb, struct utap_hold_work, cb);
	struct inode *inodes[UTAP_HOLD_FILES];
	char *paths[UTAP_HOLD_FILES];
	u32 seqs[UTAP_HOLD_FILES];
	char *bufs = kvmalloc(UTAP_HOLD_FILES * PATH_MAX, GFP_KERNEL);
	int i, round, n = bufs ? utap_hold_scan(w->addr, inodes, paths, bufs) : 0;

	/*
	 * Wait for the runner, but never forever: a missing table only costs
	 * frames. A request another walk made and the runner dropped (it could
	 * not read that walk's path) is asked again, with this task's path; a
	 * second wait for requests already answered returns at once.
	 */
	for (round = 0; n && round < 2; round++) {
		for (i = 0; i < n; i++)
			seqs[i] = utap_request_tables(inodes[i], paths[i]);
		wait_event_killable_timeout(utap_treq_wait, utap_treqs_done(seqs, n) ||
					    !READ_ONCE(utap_hold_enabled), 5 * HZ);
	}
	kvfree(bufs);
	kfree(w);
	atomic_dec(&utap_hold_works);
}

static void utap_hold_queue(unsigned long addr)
{
	struct utap_hold_work *w;

	if (!READ_ONCE(utap_hold_enabled) || !utap_in_target_tree(current))
		return;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return;
	w->addr = addr;
	init_task_work(&w->cb, utap_hold_fn);
	atomic_inc(&utap_hold_works);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		atomic_dec(&utap_hold_works);
		kfree(w);
	}
}

static void utap_mmap_exit(void *data, struct pt_regs *regs, long ret)
{
	if (regs->orig_ax == __NR_mmap && (regs->dx & PROT_EXEC) && !IS_ERR_VALUE(ret))
		utap_hold_queue(ret);
}

/* execve maps the program and its loader itself, without mmap */
static void utap_exec_hold(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	utap_hold_queue(0);
}

static struct tracepoint *utap_sys_exit_tp, *utap_exec_tp;

static void utap_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_exit"))
		utap_sys_exit_tp = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		utap_exec_tp = tp;
}

static int utap_hold_start(void)
{
	int rc;

	for_each_kernel_tracepoint(utap_find_tps, NULL);
	if (!utap_sys_exit_tp || !utap_exec_tp)
		return 0;	/* no holding: new files get tables on first use */
	WRITE_ONCE(utap_hold_enabled, true);
	rc = tracepoint_probe_register(utap_sys_exit_tp, utap_mmap_exit, NULL);
	if (rc)
		goto fail;
	rc = tracepoint_probe_register(utap_exec_tp, utap_exec_hold, NULL);
	if (rc) {
		tracepoint_probe_unregister(utap_sys_exit_tp, utap_mmap_exit, NULL);
		goto fail;
	}
	return 0;
fail:
	WRITE_ONCE(utap_hold_enabled, false);
	return rc;
}

/* Before the module goes: no new holds, held tasks released, pending works run. */
static void utap_hold_stop(void)
{
	int i;

	if (!READ_ONCE(utap_hold_enabled))
		return;
	WRITE_ONCE(utap_hold_enabled, false);
	tracepoint_probe_unregister(utap_sys_exit_tp, utap_mmap_exit, NULL);
	tracepoint_probe_unregister(utap_exec_tp, utap_exec_hold, NULL);
	tracepoint_synchronize_unregister();
	wake_up_all(&utap_treq_wait);
	for (i = 0; i < 1000 && atomic_read(&utap_hold_works); i++)
		msleep(10);
	/* a work that just decremented the count may still be returning */
	synchronize_rcu();
}

/* ---- the runner's answers ---- */

static int utap_tables_add(const struct utap_tables_msg *h, const char *path, const void *uw,
			   const void *sym, const void *line, const u64 *py, void *owned)
{
	struct utap_umod *m;
	int n;

	/* writers one at a time (kern_path sleeps); readers only see published entries */
	mutex_lock(&utap_umods_mutex);
	n = atomic_read(&utap_numods);
	if (n >= UTAP_MAX_UMODS) {
		mutex_unlock(&utap_umods_mutex);
		return -ENOSPC;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		mutex_unlock(&utap_umods_mutex);
		return -ENOMEM;
	}
	utap_umods[n] = m;
	utap_umod_setup(m, path, uw, h->uw_len, sym, h->sym_len, line, h->line_len);
	m->owned = owned;
	m->py = py;	/* addresses only: they are read without faulting, and checked */
	if (h->flags & UTAP_TABLES_VDSO) {
		if (m->inode)
			path_put(&m->kpath);
		m->inode = NULL;
	}
	smp_wmb();
	atomic_inc(&utap_numods);
	if (h->flags & UTAP_TABLES_VDSO)
		smp_store_release(&utap_vdso_mod, m);
	mutex_unlock(&utap_umods_mutex);
	return 0;
}

static bool utap_msg_fits(const struct utap_tables_msg *h, size_t count)
{
	u64 need = ALIGN(sizeof(*h), 8) + ALIGN((u64)h->path_len, 8) + ALIGN((u64)h->uw_len, 8) +
		   ALIGN((u64)h->sym_len, 8) + ALIGN((u64)h->line_len, 8) + h->py_len;

	return h->magic == UTAP_TABLES_MAGIC && h->path_len > 0 && h->path_len < PATH_MAX &&
	       (!h->py_len || h->py_len == UTAP_PY_NSYMS * sizeof(u64)) && need <= count;
}

static ssize_t utap_tables_write(struct file *f, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct utap_tables_msg *h;
	char *p, *path;
	void *uw, *sym, *line;
	const u64 *py;
	int rc;

	if (count < sizeof(*h) || count > (64 << 20))
		return -EINVAL;
	h = kvmalloc(count, GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	if (copy_from_user(h, ubuf, count)) {
		rc = -EFAULT;
		goto fail;
	}
	rc = -EINVAL;
	if (!utap_msg_fits(h, count))
		goto fail;
	if (h->flags & UTAP_TABLES_NONE) {
		if (h->flags & UTAP_TABLES_UNREAD)
			utap_treq_forget(h->seq, false);
		else
			utap_treq_finish(h->seq);
		kvfree(h);
		return count;
	}
	p = (char *)h + ALIGN(sizeof(*h), 8);
	path = p;
	p += ALIGN(h->path_len, 8);
	uw = h->uw_len ? p : NULL;
	p += ALIGN(h->uw_len, 8);
	sym = h->sym_len ? p : NULL;
	p += ALIGN(h->sym_len, 8);
	line = h->line_len ? p : NULL;
	p += ALIGN(h->line_len, 8);
	py = h->py_len ? (const u64 *)p : NULL;
	path[h->path_len - 1] = 0;
	if ((uw && uw_table_validate(uw, h->uw_len)) ||
	    (sym && utap_symtab_init(&(struct utap_symtab){ 0 }, sym, h->sym_len)) ||
	    (line && utap_linetab_init(&(struct utap_linetab){ 0 }, line, h->line_len)))
		goto fail;	/* refused: the request stays open until it times out */
	rc = utap_tables_add(h, path, uw, sym, line, py, h);
	utap_treq_finish(h->seq);
	if (rc)
		goto fail;
	return count;
fail:
	kvfree(h);
	return rc;
}

static const struct proc_ops utap_tables_ops = {
	.proc_open = nonseekable_open,
	.proc_write = utap_tables_write,
	.proc_lseek = noop_llseek,
};

static int utap_tables_init(void)
{
	if (!proc_create("tables", 0200, utap_proc_dir, &utap_tables_ops))
		return -ENOMEM;
	return 0;
}

#endif /* UTAP_UNWIND_UTABLES_C */
