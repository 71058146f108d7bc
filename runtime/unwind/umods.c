// SPDX-License-Identifier: GPL-2.0
/*
 * umods.c - the ELF files the module has user tables for (unwind rows,
 * symbols, lines), recognised by inode whatever path maps them, and where
 * an address of the current task lives: its mapping, the file and the
 * tables, or the mapping a walk remembered (for stacks symbolized later,
 * in another task). Shared by the walks (ucontext.c) and by the tables
 * that arrive at run time (utables.c).
 */
#ifndef UTAP_UNWIND_UMODS_C
#define UTAP_UNWIND_UMODS_C

#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/namei.h>
#include <linux/dcache.h>

#include "unwind/uwtab.c"
#include "unwind/uwstep.h"
#include "unwind/render.c"

struct utap_umod_desc {
	const char *path;
	const void *uw;
	size_t uw_len;
	const void *sym;
	size_t sym_len;
	const void *line;
	size_t line_len;
	const u64 *py;			/* a CPython binary's symbols (pyframes_format.h), or NULL */
};

static const struct utap_umod_desc *utap_gen_umods(int *n);

/* Files with tables at once: the module's own and the runner's, together. */
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
	const u64 *py;			/* CPython's symbols, link-time values, or NULL */
	int py_version;			/* 0 not known yet, 1 CPython 3.11, 2 another (said once) */
};

/*
 * One pointer per slot: a file's state is allocated when its tables come
 * (at load for the module's own, with the runner's blob for later ones),
 * so the module carries no memory for files a run never sees.
 */
static struct utap_umod *utap_umods[UTAP_MAX_UMODS];
static atomic_t utap_numods = ATOMIC_INIT(0);
static DEFINE_MUTEX(utap_umods_mutex);
static struct utap_umod *utap_vdso_mod;

/* Files without tables, said once each: "Missing unwind data for a module". */
#ifndef UTAP_MISSING_SLOTS	/* the generated C sizes it: one target's tree or system-wide */
#define UTAP_MISSING_SLOTS 64
#endif
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

/*
 * Rules decoded from these files' tables by this CPU's walks (ucontext.c):
 * allocated at load, so a module carries no bytes for them, and freed with
 * the tables they point into.
 */
static struct uw_rcache __percpu *utap_rcache;

static void utap_umods_exit(void);

static int utap_umods_init(void)
{
	int i, n = 0;
	const struct utap_umod_desc *d = utap_gen_umods(&n);

	utap_rcache = alloc_percpu(struct uw_rcache);
	if (!utap_rcache)
		return -ENOMEM;
	for (i = 0; i < n && i < UTAP_MAX_UMODS; i++) {
		utap_umods[i] = kzalloc(sizeof(*utap_umods[i]), GFP_KERNEL);
		if (!utap_umods[i]) {
			atomic_set(&utap_numods, i);
			utap_umods_exit();
			return -ENOMEM;
		}
		utap_umod_setup(utap_umods[i], d[i].path, d[i].uw, d[i].uw_len, d[i].sym,
				d[i].sym_len, d[i].line, d[i].line_len);
		utap_umods[i]->py = d[i].py;
	}
	atomic_set(&utap_numods, i);
	return 0;
}

static void utap_umods_exit(void)
{
	int i, n = atomic_read(&utap_numods);

	for (i = 0; i < n; i++) {
		if (utap_umods[i]->inode)
			path_put(&utap_umods[i]->kpath);
		kvfree(utap_umods[i]->owned);
		kfree(utap_umods[i]);
		utap_umods[i] = NULL;
	}
	atomic_set(&utap_numods, 0);
	free_percpu(utap_rcache);
	utap_rcache = NULL;
}

static struct utap_umod *utap_umod_by_inode(const struct inode *inode)
{
	int i, n = atomic_read(&utap_numods);

	smp_rmb();	/* entries are complete before the count covers them */
	for (i = 0; i < n; i++)
		if (utap_umods[i]->inode == inode)
			return utap_umods[i];
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
	/* field by field: the path is only read when set */
	out->start = vma->vm_start;
	out->end = vma->vm_end;
	out->bias = 0;
	out->mod = NULL;
	out->inode = NULL;
	out->off = 0;
	out->ext_start = 0;
	out->ext_end = 0;
	out->path[0] = 0;
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
 * The last mappings of files with tables that lookups filled in, per CPU:
 * the walks of a process meet the same few, and filling one in costs more
 * than finding its vma. An entry holds while the vma found says the same
 * (address space, range, file offset, inode): a file's state lives until
 * the module exits, so one inode stays one file's tables. Entries are read
 * and written with interrupts off (an NMI never looks up), so none is seen
 * half written.
 */
#define UTAP_UMAP_HITS 4

struct utap_umap_hit {
	const struct mm_struct *mm;	/* identity only; NULL: empty */
	u64 start, end, off;
	struct inode *inode;
	struct utap_umod *mod;
	u64 bias, ext_start, ext_end;
};

struct utap_umap_hits {
	struct utap_umap_hit hit[UTAP_UMAP_HITS];
	unsigned int next;
};

static DEFINE_PER_CPU(struct utap_umap_hits, utap_umap_hits);

static bool utap_umap_hit_is(const struct utap_umap_hit *h, const struct mm_struct *mm,
			     const struct vm_area_struct *vma)
{
	return h->mm == mm && h->start == vma->vm_start && h->end == vma->vm_end &&
	       h->off == (u64)vma->vm_pgoff << PAGE_SHIFT && vma->vm_file &&
	       h->inode == file_inode(vma->vm_file);
}

/* OUT from a remembered fill of VMA; false when there is none. */
static bool utap_umap_hit_get(struct mm_struct *mm, struct vm_area_struct *vma,
			      struct utap_umap *out)
{
	struct utap_umap_hits *hs;
	unsigned long flags;
	bool found = false;
	int i;

	local_irq_save(flags);
	hs = this_cpu_ptr(&utap_umap_hits);
	for (i = 0; i < UTAP_UMAP_HITS && !found; i++) {
		const struct utap_umap_hit *h = &hs->hit[i];

		if (!utap_umap_hit_is(h, mm, vma))
			continue;
		out->start = h->start;
		out->end = h->end;
		out->off = h->off;
		out->inode = h->inode;
		out->mod = h->mod;
		out->bias = h->bias;
		out->ext_start = h->ext_start;
		out->ext_end = h->ext_end;
		out->path[0] = 0;
		found = true;
	}
	local_irq_restore(flags);
	return found;
}

/* Remember a fill of a mapping of a file with tables. */
static void utap_umap_hit_put(struct mm_struct *mm, const struct utap_umap *m)
{
	struct utap_umap_hits *hs;
	struct utap_umap_hit *h;
	unsigned long flags;

	if (!m->mod || !m->inode)
		return;		/* a file without tables may get them: filled each time */
	local_irq_save(flags);
	hs = this_cpu_ptr(&utap_umap_hits);
	h = &hs->hit[hs->next];
	hs->next = (hs->next + 1) % UTAP_UMAP_HITS;
	*h = (struct utap_umap_hit){
		.mm = mm, .start = m->start, .end = m->end, .off = m->off, .inode = m->inode,
		.mod = m->mod, .bias = m->bias, .ext_start = m->ext_start, .ext_end = m->ext_end,
	};
	local_irq_restore(flags);
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
	if (vma && vma->vm_start <= addr) {
		if (utap_umap_hit_get(mm, vma, out)) {
			rc = 0;
		} else if (utap_umap_fill(mm, vma, out, true)) {
			utap_umap_hit_put(mm, out);
			rc = 0;
		}
	}
	mmap_read_unlock(mm);
	return rc;
}

/*
 * Mappings seen by walks, remembered so that addresses kept as strings can
 * be symbolized later in another task's context: the end probe that prints
 * the stacks a script collected runs in the runner, after the traced
 * process is gone.
 */
#ifndef UTAP_SEEN_MAPS
#define UTAP_SEEN_MAPS 256	/* pass 3 sets fewer when walks follow one target */
#endif

struct utap_seen_map {
	pid_t tgid;
	const struct mm_struct *mm;	/* identity only, never dereferenced */
	struct utap_umap map;
};

static struct utap_seen_map utap_seen[UTAP_SEEN_MAPS];
static unsigned int utap_seen_next, utap_seen_count;
static DEFINE_RAW_SPINLOCK(utap_seen_lock);

/*
 * What this CPU remembered last: walks repeat the same few mappings (a
 * program and its libc, in turn), skip them cheaply.
 */
#define UTAP_SEEN_LAST 4

struct utap_seen_last {
	const struct mm_struct *mm;
	u64 start, end;
	const struct utap_umod *mod;
};

struct utap_seen_lasts {
	struct utap_seen_last last[UTAP_SEEN_LAST];
	unsigned int next;
};

static DEFINE_PER_CPU(struct utap_seen_lasts, utap_seen_last);

/* True when this CPU remembered M lately; else it becomes one of those. */
static bool utap_seen_lately(const struct utap_umap *m)
{
	struct utap_seen_lasts *ls = get_cpu_ptr(&utap_seen_last);
	struct utap_seen_last *l;
	int i;

	for (i = 0; i < UTAP_SEEN_LAST; i++) {
		l = &ls->last[i];
		if (l->mm == current->mm && l->start == m->start && l->end == m->end &&
		    l->mod == m->mod) {
			put_cpu_ptr(&utap_seen_last);
			return true;
		}
	}
	l = &ls->last[ls->next];
	ls->next = (ls->next + 1) % UTAP_SEEN_LAST;
	l->mm = current->mm;
	l->start = m->start;
	l->end = m->end;
	l->mod = m->mod;
	put_cpu_ptr(&utap_seen_last);
	return false;
}

static void utap_seen_add(const struct utap_umap *m)
{
	pid_t tgid = current->tgid;
	unsigned long flags;
	unsigned int i;

	if (utap_seen_lately(m))
		return;
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

#endif /* UTAP_UNWIND_UMODS_C */
