// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.c - process("path").function/.statement/.mark probes: inode
 * uprobes and uretprobes.
 *
 * The translator resolves every probe to a file and a file offset (and,
 * for SDT markers with a semaphore, the semaphore's file offset), so
 * registration needs no symbol lookups in the kernel. A uprobe lives on
 * the inode: it fires in every process that maps the file, now or later;
 * process(PID) probes are filtered in the handler.
 *
 * Handlers run in the probed task's context, from the breakpoint trap, on
 * the way back to user mode. The utap context still disables preemption,
 * so the probe body follows the same rules as any other probe: no
 * sleeping, user memory only through the non-faulting accessors.
 *
 * After uprobe_unregister() returns no handler of that consumer runs: the
 * kernel takes the uprobe's register_rwsem for writing, and handler chains
 * hold it for reading.
 */
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/dcache.h>
#include <linux/path.h>

#include "probes/target.c"
#include "probes/uentry.c"

/* One consumer registered at one offset of the probe's inode. */
struct utap_uprobe_reg {
	struct uprobe_consumer uc;
#ifdef UTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	struct uprobe *uprobe;
#endif
};

struct utap_uprobe {
	/* from the translator */
	const char *path;		/* canonical path of the binary */
	loff_t offset;			/* file offset of the probed instruction */
	loff_t ref_ctr_offset;		/* file offset of an SDT semaphore, or 0 */
	pid_t pid;			/* process(PID): only this process; 0: any */
	bool target_tree;		/* only the -c/-x target and its descendants */
#ifdef UTAP_UPROBE_EXE
	const char *exe_path;		/* .library: only in processes of this executable */
#endif
	bool is_return;
	bool optional;			/* probe point marked '?': a failure is skipped */
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	const void *data;		/* the family's static data (SDT argument specs) */
	/*
	 * A .return probe's values from the call: computed by capture() at
	 * capture_offset (the entry, or the end of the prologue of -O0 code,
	 * where a second uprobe runs it), which returns the stack pointer
	 * the return will have.
	 */
	unsigned long (*capture)(struct pt_regs *regs, s64 *v, u64 *ok);
	int ncapture;
	loff_t capture_offset;

	/* run time */
	struct utap_uprobe_reg reg;
	struct utap_uprobe_reg cap_reg;	/* the capture's own uprobe, after the entry */
	struct path kpath;		/* keeps the inode (and its mount) alive */
	struct inode *inode;		/* the inode the file's pages really live in */
#ifdef UTAP_UPROBE_EXE
	struct path exe_kpath;
	struct inode *exe_inode;	/* exe_path's, as the page cache knows it */
#endif
	bool registered;
};

/* Does the capture run at its own address (after the entry)? */
static bool utap_uprobe_split_capture(const struct utap_uprobe *up)
{
	return up->is_return && up->capture && up->capture_offset != up->offset;
}

/* What a uprobe handler's c->probe_data points to. */
struct utap_uprobe_hit {
	struct utap_uprobe *up;
	struct utap_entry_rec *entry;	/* a .return probe's entry values, or NULL */
	unsigned long site;		/* where the probe sits: a .return probe's function entry */
};

#ifdef UTAP_UPROBE_EXE
/*
 * Does current run the executable of a .library probe? mm->exe_file is
 * the file exec opened, on overlayfs the overlay's, so its real inode is
 * what is compared. Only modules with .library probes have this (the
 * translator defines UTAP_UPROBE_EXE).
 */
static bool utap_uprobe_in_exe(const struct utap_uprobe *up)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;
	bool same = false;

	if (!up->exe_inode)
		return true;
	if (!mm)
		return false;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe)
		same = d_real_inode(exe->f_path.dentry) == up->exe_inode;
	rcu_read_unlock();
	return same;
}

static const char *utap_uprobe_exe(const struct utap_uprobe *up)
{
	return up->exe_path;
}
#else
static bool utap_uprobe_in_exe(const struct utap_uprobe *up)
{
	return true;
}

static const char *utap_uprobe_exe(const struct utap_uprobe *up)
{
	return NULL;
}
#endif

/* Is the hit in a process this probe is about? */
static bool utap_uprobe_wanted(const struct utap_uprobe *up)
{
	if (up->pid && task_tgid_nr(current) != up->pid)
		return false;
	if (!utap_uprobe_in_exe(up))
		return false;
	return !up->target_tree || utap_in_target_tree(current);
}

static void utap_uprobe_run(struct utap_uprobe *up, struct pt_regs *regs,
			    struct utap_entry_rec *entry, unsigned long site)
{
	struct utap_uprobe_hit hit = { up, entry, site };
	struct utap_context *c;

	c = utap_context_enter(up->probe, UTAP_RUNNING);
	if (!c)
		return;
	c->regs = regs;
	c->user_mode = true;
	c->pc_is_ra = up->is_return;
	c->probe_data = &hit;
	up->handler(c);
	utap_context_leave(c);
}

/* Entry values in a .return probe's handler (emitted code reads them). */
static bool utap_entry_has(struct utap_context *c, int k)
{
	const struct utap_uprobe_hit *h = c->probe_data;

	return h && h->entry && (h->entry->ok >> k) & 1;
}

static s64 utap_entry_value(struct utap_context *c, int k)
{
	const struct utap_uprobe_hit *h = c->probe_data;

	return h && h->entry ? h->entry->v[k] : 0;
}

/* The user address the hit probe sits at (a .callee probe's check relocates by it). */
static unsigned long utap_uprobe_site(struct utap_context *c)
{
	const struct utap_uprobe_hit *h = c->probe_data;

	return h->site;
}

#ifdef UTAP_HAVE_UPROBE_HANDLER_DATA
#define UTAP_UPROBE_DATA_ARG , __u64 *data
#else
#define UTAP_UPROBE_DATA_ARG
#endif

static int utap_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs UTAP_UPROBE_DATA_ARG)
{
	struct utap_uprobe *up = container_of(uc, struct utap_uprobe, reg.uc);

	if (utap_uprobe_wanted(up))
		utap_uprobe_run(up, regs, NULL, instruction_pointer(regs));
	return 0;
}

/* The entry of a function whose .return probe reads entry values. */
static int utap_uprobe_entry_hit(struct uprobe_consumer *uc,
				 struct pt_regs *regs UTAP_UPROBE_DATA_ARG)
{
	struct utap_uprobe *up = container_of(uc, struct utap_uprobe, reg.uc);

	if (utap_uprobe_wanted(up))
		utap_entry_push(up, regs, up->capture);
	return 0;
}

/* The same where the prologue has stored the parameters. */
static int utap_uprobe_capture_hit(struct uprobe_consumer *uc,
				   struct pt_regs *regs UTAP_UPROBE_DATA_ARG)
{
	struct utap_uprobe *up = container_of(uc, struct utap_uprobe, cap_reg.uc);

	if (utap_uprobe_wanted(up))
		utap_entry_push(up, regs, up->capture);
	return 0;
}

/* The kernel has already set regs->ip to the return address in the caller. */
static int utap_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func,
			      struct pt_regs *regs UTAP_UPROBE_DATA_ARG)
{
	struct utap_uprobe *up = container_of(uc, struct utap_uprobe, reg.uc);
	struct utap_entry_rec *entry;

	if (!utap_uprobe_wanted(up))
		return 0;
	entry = up->capture ? utap_entry_pop(up, regs) : NULL;
	utap_uprobe_run(up, regs, entry, func);
	if (entry)
		utap_entry_free(entry);
	return 0;
}

static int utap_uprobe_attach_at(struct utap_uprobe *up, struct utap_uprobe_reg *r,
				 loff_t offset, loff_t ref_ctr)
{
#ifdef UTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	r->uprobe = uprobe_register(up->inode, offset, ref_ctr, &r->uc);
	return PTR_ERR_OR_ZERO(r->uprobe);
#elif defined(UTAP_HAVE_UPROBE_REGISTER_REFCTR)
	return uprobe_register_refctr(up->inode, offset, ref_ctr, &r->uc);
#else
	if (ref_ctr)
		return -EOPNOTSUPP;
	return uprobe_register(up->inode, offset, &r->uc);
#endif
}

static void utap_uprobe_detach_at(struct utap_uprobe *up, struct utap_uprobe_reg *r,
				  loff_t offset)
{
#ifdef UTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	uprobe_unregister_nosync(r->uprobe, &r->uc);
#else
	uprobe_unregister(up->inode, offset, &r->uc);
#endif
}

/*
 * The probe's uprobe, and its capture's when that has its own: both or
 * neither. The capture comes first, so that no return armed meanwhile
 * misses its call's values; a capture without a return is dropped later.
 */
static int utap_uprobe_attach(struct utap_uprobe *up)
{
	bool split = utap_uprobe_split_capture(up);
	int rc = split ? utap_uprobe_attach_at(up, &up->cap_reg, up->capture_offset, 0) : 0;

	if (rc)
		return rc;
	rc = utap_uprobe_attach_at(up, &up->reg, up->offset, up->ref_ctr_offset);
	if (rc && split)
		utap_uprobe_detach_at(up, &up->cap_reg, up->capture_offset);
	return rc;
}

static void utap_uprobe_detach(struct utap_uprobe *up)
{
	utap_uprobe_detach_at(up, &up->reg, up->offset);
	if (utap_uprobe_split_capture(up))
		utap_uprobe_detach_at(up, &up->cap_reg, up->capture_offset);
}

/*
 * The probe's file as the page cache knows it. On overlayfs (the --vm
 * guest's root) a mapping's vm_file is the file of the layer below, so the
 * uprobe must sit on that layer's inode, not on the overlay's.
 */
static int utap_file_lookup(const char *name, struct path *path, struct inode **inode)
{
	int rc = kern_path(name, LOOKUP_FOLLOW, path);

	if (rc)
		return rc;
	*inode = d_real_inode(path->dentry);
	if (!*inode || !S_ISREG((*inode)->i_mode)) {
		path_put(path);
		return -EINVAL;
	}
	return 0;
}

static int utap_uprobe_lookup(struct utap_uprobe *up)
{
	int rc = utap_file_lookup(up->path, &up->kpath, &up->inode);

	if (rc || !utap_uprobe_exe(up))
		return rc;
#ifdef UTAP_UPROBE_EXE
	rc = utap_file_lookup(up->exe_path, &up->exe_kpath, &up->exe_inode);
	if (rc)
		path_put(&up->kpath);
#endif
	return rc;
}

static void utap_uprobe_put(struct utap_uprobe *up)
{
	path_put(&up->kpath);
#ifdef UTAP_UPROBE_EXE
	if (up->exe_inode)
		path_put(&up->exe_kpath);
	up->exe_inode = NULL;
#endif
}

static void utap_uprobe_set_handlers(struct utap_uprobe *up)
{
	memset(&up->reg.uc, 0, sizeof(up->reg.uc));
	memset(&up->cap_reg.uc, 0, sizeof(up->cap_reg.uc));
	if (up->is_return)
		up->reg.uc.ret_handler = utap_uretprobe_hit;
	else
		up->reg.uc.handler = utap_uprobe_hit;
	if (utap_uprobe_split_capture(up))
		up->cap_reg.uc.handler = utap_uprobe_capture_hit;
	else if (up->is_return && up->capture)
		up->reg.uc.handler = utap_uprobe_entry_hit;
}

/*
 * A file the translator read but the running system lacks is an error. The
 * kernel refusing one probe (an instruction uprobes cannot step, say) is
 * a warning, as in stap: a wildcard's other probes still run.
 */
static int utap_uprobe_register_one(struct utap_uprobe *up)
{
	int rc = utap_uprobe_lookup(up);

	if (rc) {
		if (!up->optional)
			utap_err("probe %s: cannot find '%s'%s%s%s (rc %d)", up->probe->pp, up->path,
				 utap_uprobe_exe(up) ? " or '" : "",
				 utap_uprobe_exe(up) ? utap_uprobe_exe(up) : "",
				 utap_uprobe_exe(up) ? "'" : "", rc);
		return up->optional ? 0 : rc;
	}
	utap_uprobe_set_handlers(up);
	rc = utap_uprobe_attach(up);
	if (rc) {
		utap_uprobe_put(up);
		if (!up->optional)
			utap_warn("probe %s registration error (rc %d): no uprobe at offset 0x%llx "
				  "of %s", up->probe->pp, rc, (unsigned long long)up->offset,
				  up->path);
		return 0;
	}
	up->registered = true;
	return 0;
}

static int utap_uprobes_register(struct utap_uprobe *ups, int n)
{
	int nvals = 0;

	for (int i = 0; i < n; i++)
		nvals = max(nvals, ups[i].capture ? ups[i].ncapture : 0);
	if (nvals && utap_entry_alloc(nvals)) {
		utap_err("cannot allocate the records of entry values (%d per call)", nvals);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int rc = utap_uprobe_register_one(&ups[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/* Safe on a partly registered table: the registration error path calls it too. */
static void utap_uprobes_unregister(struct utap_uprobe *ups, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		if (!ups[i].registered)
			continue;
		utap_uprobe_detach(&ups[i]);
		any = true;
	}
#ifdef UTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	if (any)
		uprobe_unregister_sync();
#endif
	for (int i = 0; i < n; i++) {
		if (!ups[i].registered)
			continue;
		utap_uprobe_put(&ups[i]);
		ups[i].registered = false;
	}
	/* the table that needed the entry records frees them, once its uprobes are gone */
	for (int i = 0; i < n; i++) {
		if (!ups[i].capture)
			continue;
		if (atomic_read(&utap_entries.lost))
			utap_warn("entry values of %d calls were not kept (UTAP_ENTRY_SLOTS %d)",
				  atomic_read(&utap_entries.lost), UTAP_ENTRY_SLOTS);
		atomic_set(&utap_entries.lost, 0);
		utap_entry_release();
		break;
	}
	(void)any;
}
