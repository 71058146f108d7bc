// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - what the engine learns about a traced process in task context
 * (task_work, where it may sleep): which insn probes match it, its
 * executable mappings (UTAP_TRACE_MAP records, so that the runner can make
 * addresses module-relative), and what sits under an int3 (the original
 * bytes of a uprobed instruction, or the uretprobe trampoline).
 */

#define UTAP_NT_GNU_BUILD_ID 3

/* ---- which probes match ------------------------------------------------- */

/* t's executable is the probe's file (t: current, or a child not yet running). */
static bool utap_it_exe_is(struct task_struct *t, const struct utap_insn_probe *p)
{
	struct file *exe;
	bool r = false;

	task_lock(t);
	if (t->mm) {
		rcu_read_lock();
		exe = rcu_dereference(t->mm->exe_file);
		if (exe)
			r = file_inode(exe) == p->inode || file_inode(exe) == p->real_inode;
		rcu_read_unlock();
	}
	task_unlock(t);
	return r;
}

static bool utap_it_probe_matches(const struct utap_insn_probe *p, struct task_struct *t)
{
	if (p->pid)
		return t->tgid == p->pid;
	if (p->target_tree)
		return utap_in_target_tree(t);
	if (p->have_path)
		return utap_it_exe_is(t, p);
	return !p->path;	/* bare process without a target: every process */
}

/* Some insn probe names t's process (whole-process tracing follows it). */
static bool utap_it_matches_any(struct task_struct *t)
{
	int i;

	if ((t->flags & PF_KTHREAD) || !t->mm)
		return false;
	for (i = 0; i < utap_it_cfg.nprobes; i++)
		if (utap_it_probe_matches(&utap_it_cfg.probes[i], t))
			return true;
	return false;
}

/* The handlers that run for current's process. */
static void utap_it_match_proc(struct utap_iproc *pr)
{
	u64 insn = 0, block = 0;
	int i;

	for (i = 0; i < utap_it_cfg.nprobes && i < 64; i++) {
		const struct utap_insn_probe *p = &utap_it_cfg.probes[i];

		if (!p->has_body || !utap_it_probe_matches(p, current))
			continue;
		if (p->block)
			block |= 1ULL << i;
		else
			insn |= 1ULL << i;
	}
	pr->insn_mask = insn;
	pr->block_mask = block;
	/* the masks before the flag: pairs with the acquire in utap_it_begin() */
	smp_store_release(&pr->matched, true);
}

/* ---- what is under an int3 ---------------------------------------------- */

/* The instruction bytes at addr as the file has them (a uprobe's int3 is not there). */
static size_t utap_it_orig_bytes(u64 addr, u8 *buf)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct file *f = NULL;
	loff_t pos = 0;
	ssize_t n;

	if (!mm)
		return 0;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file) {
		f = get_file(vma->vm_file);
		pos = (loff_t)(addr - vma->vm_start) + ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
	}
	mmap_read_unlock(mm);
	if (!f)
		return utap_it_fetch_task(addr, buf);
	n = kernel_read(f, buf, UTAP_INSN_BYTES, &pos);
	fput(f);
	return n > 0 ? (size_t)n : 0;
}

static const char *utap_it_vma_name(struct vm_area_struct *vma)
{
	return vma->vm_ops && vma->vm_ops->name ? vma->vm_ops->name(vma) : NULL;
}

/* addr is in the page uprobes keeps its trampoline and out-of-line slots in. */
static bool utap_it_in_uprobes_area(u64 addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	const char *name;
	bool r = false;

	if (!mm)
		return false;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma) {
		name = utap_it_vma_name(vma);
		r = name && !strcmp(name, "[uprobes]");
	}
	mmap_read_unlock(mm);
	return r;
}

/*
 * A SIGTRAP for an int3 that ran is pending (from the int3 trap, or from
 * uprobes finding no uprobe of its own there): sent with SI_KERNEL. The
 * SIGTRAP uprobes sends after stepping a probed instruction for a thread
 * whose TF a debugger had set is SI_USER: that one followed the original
 * instruction, not the int3.
 */
static bool utap_it_int3_sigtrap_pending(void)
{
	struct sigqueue *q;
	bool r = false;

	spin_lock_irq(&current->sighand->siglock);
	list_for_each_entry(q, &current->pending.list, list)
		if (q->info.si_signo == SIGTRAP && q->info.si_code != SI_USER)
			r = true;
	spin_unlock_irq(&current->sighand->siglock);
	return r;
}

/* ---- executable mappings ------------------------------------------------ */

/* len bytes at offset off of an ELF image: in file f, or (no file) in memory at base. */
static int utap_it_elf_read(struct file *f, u64 base, u64 off, void *buf, size_t len)
{
	loff_t pos = off;

	if (f)
		return kernel_read(f, buf, len, &pos) == (ssize_t)len ? 0 : -EIO;
	if (!base || base + off < base)
		return -EFAULT;
	return copy_from_user(buf, (const void __user *)(uintptr_t)(base + off), len) ? -EFAULT : 0;
}

/* The GNU build-id in a note segment (len bytes at off), if there is one. */
static void utap_it_note_build_id(struct file *f, u64 base, u64 off, u64 len,
				  struct utap_trace_map *m)
{
	u8 buf[256];
	size_t pos = 0;

	if (len > sizeof(buf))
		len = sizeof(buf);
	if (utap_it_elf_read(f, base, off, buf, len))
		return;
	while (pos + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(buf + pos);
		size_t name = ALIGN(nh->n_namesz, 4), desc = ALIGN(nh->n_descsz, 4);
		size_t data = pos + sizeof(*nh);

		if (name > len || desc > len || data + name + desc > len)
			return;
		if (nh->n_type == UTAP_NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(buf + data, "GNU", 4) && nh->n_descsz <= sizeof(m->build_id)) {
			memcpy(m->build_id, buf + data + name, nh->n_descsz);
			m->build_id_len = nh->n_descsz;
			return;
		}
		pos = data + name + desc;
	}
}

/* Load bias and build-id of the ELF image a mapping (start, file offset) belongs to. */
static void utap_it_elf_info(struct file *f, u64 base, struct utap_trace_map *m)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool have_bias = false;
	int i;

	if (utap_it_elf_read(f, base, 0, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph) || eh.e_phnum > 128)
		return;
	for (i = 0; i < eh.e_phnum; i++) {
		if (utap_it_elf_read(f, base, eh.e_phoff + (u64)i * sizeof(ph), &ph, sizeof(ph)))
			return;
		if (ph.p_type == PT_LOAD && !have_bias && (ph.p_offset & PAGE_MASK) <= m->offset &&
		    m->offset < ph.p_offset + ph.p_filesz) {
			m->load_bias = m->start - (ph.p_vaddr - (ph.p_offset - m->offset));
			have_bias = true;
		}
		if (ph.p_type == PT_NOTE && !m->build_id_len)
			utap_it_note_build_id(f, base, ph.p_offset, ph.p_filesz, m);
	}
}

struct utap_it_vma {
	u64 start, end, offset;
	struct file *file;
	const char *name;	/* a special mapping's name ([vdso]) */
	bool hidden;		/* uprobes' page: known, never reported */
};

static bool utap_it_map_known(struct utap_iproc *pr, u64 start)
{
	/* entries below nmaps are complete: pairs with utap_it_map_add() */
	int i, n = smp_load_acquire(&pr->nmaps);

	for (i = 0; i < n; i++)
		if (pr->maps[i].start == start)
			return true;
	return false;
}

/* ip is in a mapping already reported (cached per thread). */
static bool utap_it_ip_known(struct utap_itask *st, u64 ip)
{
	struct utap_iproc *pr = st->proc;
	int i, n;

	if (ip >= st->map_lo && ip < st->map_hi)
		return true;
	if (!pr || pr->maps_full)
		return true;
	/* entries below nmaps are complete: pairs with utap_it_map_add() */
	n = smp_load_acquire(&pr->nmaps);
	for (i = 0; i < n; i++)
		if (ip >= pr->maps[i].start && ip < pr->maps[i].end) {
			st->map_lo = pr->maps[i].start;
			st->map_hi = pr->maps[i].end;
			return true;
		}
	return false;
}

static void utap_it_map_add(struct utap_iproc *pr, u64 start, u64 end)
{
	int n = pr->nmaps;

	if (n == UTAP_IT_MAPS) {
		pr->maps_full = true;
		return;
	}
	pr->maps[n].start = start;
	pr->maps[n].end = end;
	/* the entry before the count: readers take no lock */
	smp_store_release(&pr->nmaps, n + 1);
}

/* One map record into the thread's output. */
static void utap_it_report_map(struct utap_itask *st, const struct utap_it_vma *v, char *pathbuf)
{
	const size_t room = UTAP_IT_BATCH - sizeof(struct utap_trace_map) - 8;
	struct utap_trace_map *m;
	const char *path = v->name ? v->name : "";
	size_t plen, size;
	u8 *p;

	if (v->file) {
		path = d_path(&v->file->f_path, pathbuf, PATH_MAX);
		if (IS_ERR(path))
			path = "";
	}
	plen = min(strlen(path), room);
	size = ALIGN(sizeof(*m) + plen, 8);
	p = utap_it_out_room(st, size);
	if (!p)
		return;
	m = (struct utap_trace_map *)p;
	memset(m, 0, size);
	m->kind = UTAP_TRACE_MAP;
	m->size = size;
	m->pid = st->pid;
	m->start = v->start;
	m->end = v->end;
	m->offset = v->offset;
	m->load_bias = v->start;
	if (v->file || v->name)
		utap_it_elf_info(v->file, v->file ? 0 : v->start, m);
	m->path_len = plen;
	memcpy(m->path, path, plen);
	st->olen += size;
}

/* Reports current's executable mappings not reported yet (task context). */
static void utap_it_scan_maps(struct utap_itask *st)
{
	struct utap_iproc *pr = st->proc;
	struct mm_struct *mm = current->mm;
	struct utap_it_vma v[16];
	struct vm_area_struct *vma;
	char *pathbuf;
	int i, n;

	if (!pr || !mm || st->okind != UTAP_IT_OUT_RECORDS || pr->maps_full)
		return;
	pathbuf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!pathbuf)
		return;
	mutex_lock(&pr->scan_mutex);
	do {
#ifdef UTAP_HAVE_VMA_ITERATOR
		VMA_ITERATOR(vmi, mm, 0);
#define UTAP_IT_FOR_EACH_VMA(vma) for_each_vma(vmi, vma)
#else
#define UTAP_IT_FOR_EACH_VMA(vma) for (vma = mm->mmap; vma; vma = vma->vm_next)
#endif

		n = 0;
		mmap_read_lock(mm);
		UTAP_IT_FOR_EACH_VMA(vma) {
			const char *name;

			if (!(vma->vm_flags & VM_EXEC) || utap_it_map_known(pr, vma->vm_start))
				continue;
			name = utap_it_vma_name(vma);
			v[n].start = vma->vm_start;
			v[n].end = vma->vm_end;
			v[n].offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
			v[n].name = name;
			v[n].hidden = name && !strcmp(name, "[uprobes]");
			v[n].file = vma->vm_file ? get_file(vma->vm_file) : NULL;
			if (v[n].file)
				v[n].name = NULL;
			if (++n == ARRAY_SIZE(v))
				break;
		}
		mmap_read_unlock(mm);
		for (i = 0; i < n; i++) {
			if (!v[i].hidden && !pr->maps_full)
				utap_it_report_map(st, &v[i], pathbuf);
			utap_it_map_add(pr, v[i].start, v[i].end);
			if (v[i].file)
				fput(v[i].file);
		}
	} while (n == ARRAY_SIZE(v) && !pr->maps_full);
#undef UTAP_IT_FOR_EACH_VMA
	mutex_unlock(&pr->scan_mutex);
	kfree(pathbuf);
}
