// SPDX-License-Identifier: GPL-2.0
/*
 * task_finder.c - process.begin/end and process.thread.begin/end, for
 * every process, a program's processes (process("PATH")) or one process
 * (process(PID)), from the scheduler's tracepoints.
 *
 * A process "begins" for a target when it is first seen matching it: when
 * the session starts (for processes already running), when it is forked
 * from a matching process, or when it execs a matching program. It "ends"
 * when its last thread exits, or when it execs another program (the old
 * image ends, as in stap). Which processes have begun is kept in a table
 * (tgid -> bit set of targets), so an end is never reported without its
 * begin and a process is never begun twice.
 *
 * Contexts: begin and thread.begin run in the task itself, with its saved
 * user registers - from a task_work for a new or already running task, or
 * directly in the exec tracepoint. end and thread.end run in the exiting
 * task after its memory is gone, so they have no registers.
 *
 * Unloading: a pending task_work points at this module's code and the
 * kernel exports no way to cancel one. At unregistration every pending
 * work is disowned - its function switched to kfree(), which frees it
 * whenever the task gets to run it - and synchronize_rcu_tasks() waits
 * for any task already inside our callback. The callback never sleeps, so
 * a task in it cannot pass a tasks-RCU quiescent state.
 */
#include <linux/tracepoint.h>
#include <linux/task_work.h>
#include <linux/namei.h>
#include <linux/binfmts.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>

#include "probes/target.c"

enum utap_pevent {
	UTAP_PEV_BEGIN,
	UTAP_PEV_END,
	UTAP_PEV_THREAD_BEGIN,
	UTAP_PEV_THREAD_END,
};

/* One process(...) component: which processes its probes are about. */
struct utap_ptarget {
	const char *path;		/* the program; NULL: any */
	pid_t pid;			/* process(PID); 0: any */
	bool target_tree;		/* only the -c/-x target and its descendants */
	/* run time */
	struct path kpath;
	struct inode *inode;		/* the file as its path names it */
	struct inode *real_inode;	/* and the layer below an overlay */
	bool have_path;
};

struct utap_pprobe {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
	u8 target;			/* index into the targets */
	u8 event;			/* enum utap_pevent */
};

/* ---- which processes have begun ------------------------------------------ */

#ifndef UTAP_MAXPROCS
#define UTAP_MAXPROCS 16384		/* processes the table can follow at once */
#endif
#if UTAP_MAXPROCS < 2 || (UTAP_MAXPROCS & (UTAP_MAXPROCS - 1))
#error "UTAP_MAXPROCS must be a power of two"
#endif

/*
 * A process that ended keeps its slot, marked ended, until the slot is
 * needed or its pid is forked again: a thread already inside its exit when
 * the group died still finds its targets for its thread.end.
 */
struct utap_pslot {
	pid_t tgid;			/* 0: free, -1: deleted */
	bool ended;			/* reusable, but still found by tgid */
	u64 targets;
};

static struct utap_pslot *utap_procs;
static DEFINE_SPINLOCK(utap_procs_lock);
static atomic_t utap_procs_full = ATOMIC_INIT(0);

static u32 utap_pslot_hash(pid_t tgid)
{
	return hash_32((u32)tgid, ilog2(UTAP_MAXPROCS));
}

/* The slot of TGID, or (ADD) a free one for it; NULL. Lock held. */
static struct utap_pslot *utap_pslot_find(pid_t tgid, bool add)
{
	struct utap_pslot *free = NULL;
	u32 i = utap_pslot_hash(tgid);

	for (u32 n = 0; n < UTAP_MAXPROCS; n++, i = (i + 1) & (UTAP_MAXPROCS - 1)) {
		struct utap_pslot *s = &utap_procs[i];

		if (s->tgid == tgid)
			return s;
		if ((s->tgid <= 0 || s->ended) && !free)
			free = s;
		if (s->tgid == 0)
			break;
	}
	if (!add || !free)
		return NULL;
	free->tgid = tgid;
	free->targets = 0;
	free->ended = false;
	return free;
}

/*
 * The targets TGID had begun for; then ADD joins them (a new entry if
 * needed; an ended one starts afresh) or, with FORGET, the process ends
 * for all of them.
 */
static u64 utap_procs_update(pid_t tgid, u64 add, bool forget)
{
	struct utap_pslot *s;
	unsigned long flags;
	u64 old = 0;

	spin_lock_irqsave(&utap_procs_lock, flags);
	s = utap_pslot_find(tgid, add != 0);
	if (s && add && s->ended) {
		s->targets = 0;
		s->ended = false;
	}
	if (s) {
		old = s->targets;
		s->targets |= add;
		if (forget)
			s->ended = true;
	}
	spin_unlock_irqrestore(&utap_procs_lock, flags);
	if (!s && add && !atomic_xchg(&utap_procs_full, 1))
		utap_warn("process table full (UTAP_MAXPROCS %d): some processes are not "
			  "followed", UTAP_MAXPROCS);
	return old;
}

/* Marks TARGETS as begun for TGID; returns those that were not yet. */
static u64 utap_procs_begin(pid_t tgid, u64 targets)
{
	return targets & ~utap_procs_update(tgid, targets, false);
}

/* The targets TGID has begun for; with FORGET, it ends for all of them. */
static u64 utap_procs_get(pid_t tgid, bool forget)
{
	return utap_procs_update(tgid, 0, forget);
}

/*
 * TGID's slot goes (only an ended one with ONLY_ENDED: a new process under
 * a reused pid); returns the targets it had begun for.
 */
static u64 utap_procs_drop(pid_t tgid, bool only_ended)
{
	struct utap_pslot *s;
	unsigned long flags;
	u64 old = 0;

	spin_lock_irqsave(&utap_procs_lock, flags);
	s = utap_pslot_find(tgid, false);
	if (s && (s->ended || !only_ended)) {
		old = s->ended ? 0 : s->targets;
		s->tgid = -1;
	}
	spin_unlock_irqrestore(&utap_procs_lock, flags);
	return old;
}

/* ---- matching -------------------------------------------------------------- */

static struct utap_ptarget *utap_ptargets;
static int utap_nptargets;
static const struct utap_pprobe *utap_pprobes;
static int utap_npprobes;
static u64 utap_pevent_targets[4];	/* per event: targets with probes for it */

/* Is TASK's program the file T names? TASK is current or RCU-protected. */
static bool utap_exe_is(struct task_struct *task, const struct utap_ptarget *t)
{
	struct file *exe;
	bool same = false;

	task_lock(task);
	if (task->mm) {
		rcu_read_lock();
		exe = rcu_dereference(task->mm->exe_file);
		same = exe && (file_inode(exe) == t->inode ||
			       d_real_inode(exe->f_path.dentry) == t->real_inode);
		rcu_read_unlock();
	}
	task_unlock(task);
	return same;
}

/* Do A and B run the same program (the same exe file)? */
static bool utap_same_program(struct task_struct *a, struct task_struct *b)
{
	struct file *fa = NULL, *fb = NULL;

	task_lock(a);
	if (a->mm)
		fa = rcu_dereference(a->mm->exe_file);
	task_unlock(a);
	task_lock(b);
	if (b->mm)
		fb = rcu_dereference(b->mm->exe_file);
	task_unlock(b);
	return fa && fa == fb;
}

static bool utap_ptarget_matches(const struct utap_ptarget *t, struct task_struct *task)
{
	if (t->pid)
		return task->tgid == t->pid;
	if (t->target_tree && !utap_in_target_tree(task))
		return false;
	return !t->have_path || utap_exe_is(task, t);
}

static u64 utap_matching_targets(struct task_struct *task)
{
	u64 m = 0;

	for (int i = 0; i < utap_nptargets; i++)
		if (utap_ptarget_matches(&utap_ptargets[i], task))
			m |= 1ULL << i;
	return m;
}

/* ---- running the probes ------------------------------------------------------ */

static void utap_pevent_fire(int event, u64 targets, struct pt_regs *regs)
{
	targets &= utap_pevent_targets[event];
	for (int i = 0; targets && i < utap_npprobes; i++) {
		const struct utap_pprobe *p = &utap_pprobes[i];
		struct utap_context *c;

		if (p->event != event || !(targets & (1ULL << p->target)))
			continue;
		c = utap_context_enter(p->probe, UTAP_RUNNING);
		if (!c)
			continue;
		c->regs = regs;
		c->user_mode = true;
		p->handler(c);
		utap_context_leave(c);
	}
}

/* The calling task begins for the targets it matches: a process, or one more thread. */
static void utap_task_begins(bool thread)
{
	struct pt_regs *regs = task_pt_regs(current);

	if (thread) {
		utap_pevent_fire(UTAP_PEV_THREAD_BEGIN, utap_matching_targets(current), regs);
		return;
	}
	utap_pevent_fire(UTAP_PEV_BEGIN,
			 utap_procs_begin(current->tgid, utap_matching_targets(current)), regs);
}

/* ---- task works --------------------------------------------------------------- */

struct utap_tf_work {
	struct callback_head cb;	/* first: kfree(cb) frees the whole item */
	struct list_head node;		/* on utap_tf_pending until it runs or is disowned */
	bool thread;
};

static LIST_HEAD(utap_tf_pending);
static DEFINE_SPINLOCK(utap_tf_lock);
static bool utap_tf_queued_any;

/*
 * Session begin probes run while the session is starting; a task woken
 * for its process.begin can get here before the session runs. Wait a
 * little, without sleeping (see the top of the file).
 */
static void utap_wait_running(void)
{
	unsigned long deadline = jiffies + HZ;

	while (atomic_read(&utap_state) < UTAP_RUNNING && time_before(jiffies, deadline))
		cpu_relax();
}

static void utap_tf_work_fn(struct callback_head *cb)
{
	struct utap_tf_work *w = container_of(cb, struct utap_tf_work, cb);
	unsigned long flags;
	bool owned;

	spin_lock_irqsave(&utap_tf_lock, flags);
	owned = !list_empty(&w->node);
	list_del_init(&w->node);
	spin_unlock_irqrestore(&utap_tf_lock, flags);
	if (owned && !(current->flags & PF_EXITING) && current->mm) {
		utap_wait_running();
		utap_task_begins(w->thread);
	}
	kfree(w);
}

static void utap_tf_queue(struct task_struct *task, bool thread, bool wake)
{
	struct utap_tf_work *w = kzalloc(sizeof(*w), GFP_ATOMIC | __GFP_NOWARN);
	unsigned long flags;

	if (!w)
		return;
	init_task_work(&w->cb, utap_tf_work_fn);
	w->thread = thread;
	spin_lock_irqsave(&utap_tf_lock, flags);
	list_add(&w->node, &utap_tf_pending);
	utap_tf_queued_any = true;
	spin_unlock_irqrestore(&utap_tf_lock, flags);
	if (task_work_add(task, &w->cb, wake ? TWA_SIGNAL : TWA_RESUME) == 0)
		return;
	/* the task is exiting: nobody will run it */
	spin_lock_irqsave(&utap_tf_lock, flags);
	list_del(&w->node);
	spin_unlock_irqrestore(&utap_tf_lock, flags);
	kfree(w);
}

/* Every pending work will free itself without running our code. */
static void utap_tf_disown_all(void)
{
	struct utap_tf_work *w, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&utap_tf_lock, flags);
	list_for_each_entry_safe(w, tmp, &utap_tf_pending, node) {
		list_del_init(&w->node);
		WRITE_ONCE(w->cb.func, (task_work_func_t)(void *)kfree);
	}
	spin_unlock_irqrestore(&utap_tf_lock, flags);
}

/* ---- tracepoints -------------------------------------------------------------- */

static void utap_tp_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (!child->mm || (child->flags & PF_KTHREAD))
		return;
	if (child->tgid != child->pid) {
		/* a new thread of a process that has begun for a target with thread.begin */
		if (utap_procs_get(child->tgid, false) & utap_pevent_targets[UTAP_PEV_THREAD_BEGIN])
			utap_tf_queue(child, true, false);
		return;
	}
	/* a new process, running its parent's program: it begins in its own context */
	utap_procs_drop(child->tgid, true);
	if (utap_matching_targets(child))
		utap_tf_queue(child, false, false);
}

static void utap_tp_exec(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	/* de_thread() has waited for every other thread: none can still be exiting */
	u64 old = utap_procs_drop(current->tgid, false);

	utap_pevent_fire(UTAP_PEV_END, old, NULL);
	utap_task_begins(false);
}

static void utap_task_exits(bool group_dead)
{
	if (group_dead)
		utap_pevent_fire(UTAP_PEV_END, utap_procs_get(current->tgid, true), NULL);
	else
		utap_pevent_fire(UTAP_PEV_THREAD_END, utap_procs_get(current->tgid, false), NULL);
}

#ifdef UTAP_HAVE_SCHED_EXIT_GROUP_DEAD
static void utap_tp_exit(void *data, struct task_struct *p, bool group_dead)
{
	utap_task_exits(group_dead);
}
#elif defined(UTAP_HAVE_SCHED_EXIT_1ARG)
/* the thread group's live count dropped before the tracepoint: 0 means the last */
static void utap_tp_exit(void *data, struct task_struct *p)
{
	utap_task_exits(atomic_read(&p->signal->live) == 0);
}
#else
#error "unsupported sched_process_exit tracepoint"
#endif
#ifndef UTAP_HAVE_SCHED_FORK_EXEC
#error "unsupported sched_process_fork/sched_process_exec tracepoints"
#endif
#ifndef UTAP_HAVE_TASK_WORK_NOTIFY_MODE
#error "process.begin needs task_work_add() with TWA_RESUME/TWA_SIGNAL (Linux 5.11+)"
#endif

struct utap_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

static struct utap_tp utap_tf_tps[] = {
	{ "sched_process_fork", utap_tp_fork },
	{ "sched_process_exec", utap_tp_exec },
	{ "sched_process_exit", utap_tp_exit },
};

static void utap_tf_find_tp(struct tracepoint *tp, void *priv)
{
	for (size_t i = 0; i < ARRAY_SIZE(utap_tf_tps); i++)
		if (!strcmp(tp->name, utap_tf_tps[i].name))
			utap_tf_tps[i].tp = tp;
}

/* ---- registration ------------------------------------------------------------ */

static int utap_ptarget_lookup(struct utap_ptarget *t)
{
	int rc;

	if (!t->path)
		return 0;
	rc = kern_path(t->path, LOOKUP_FOLLOW, &t->kpath);
	if (rc)
		return rc;
	t->inode = d_inode(t->kpath.dentry);
	t->real_inode = d_real_inode(t->kpath.dentry);
	t->have_path = true;
	return 0;
}

/*
 * Processes already running begin now, each in its own context (woken if
 * it sleeps). The -c command, forked by the runner and not yet exec'd,
 * still runs the runner's program: it begins when it execs its own.
 */
static void utap_tf_scan(void)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		if ((t->flags & (PF_KTHREAD | PF_EXITING)) || !t->mm)
			continue;
		if (t->tgid == utap_target && utap_same_program(t, current))
			continue;
		if (t->tgid == t->pid && utap_matching_targets(t))
			utap_tf_queue(t, false, true);
		else if (t->tgid != t->pid && utap_matching_targets(t) &
			 utap_pevent_targets[UTAP_PEV_THREAD_BEGIN])
			utap_tf_queue(t, true, true);
	}
	rcu_read_unlock();
}

static void utap_tf_unregister(void);

static int utap_tf_register(struct utap_ptarget *targets, int ntargets,
			    const struct utap_pprobe *probes, int nprobes)
{
	int rc = 0;

	utap_ptargets = targets;
	utap_nptargets = ntargets;
	utap_pprobes = probes;
	utap_npprobes = nprobes;
	for (int i = 0; i < nprobes; i++)
		utap_pevent_targets[probes[i].event] |= 1ULL << probes[i].target;
	utap_procs = vzalloc(sizeof(*utap_procs) * UTAP_MAXPROCS);
	if (!utap_procs)
		return -ENOMEM;
	for (int i = 0; i < ntargets && !rc; i++) {
		rc = utap_ptarget_lookup(&targets[i]);
		if (rc)
			utap_err("process(\"%s\") probes: cannot find the program (rc %d)",
				 targets[i].path, rc);
	}
	for_each_kernel_tracepoint(utap_tf_find_tp, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(utap_tf_tps) && !rc; i++) {
		struct utap_tp *tp = &utap_tf_tps[i];

		rc = tp->tp ? tracepoint_probe_register(tp->tp, tp->probe, NULL) : -ENOENT;
		if (rc)
			utap_err("process probes: cannot attach to tracepoint %s (rc %d)", tp->name, rc);
		tp->registered = !rc;
	}
	if (rc)
		return rc;
	utap_tf_scan();
	return 0;
}

/* Safe after a failed registration too. */
static void utap_tf_unregister(void)
{
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(utap_tf_tps); i++) {
		struct utap_tp *tp = &utap_tf_tps[i];

		if (tp->registered)
			tracepoint_probe_unregister(tp->tp, tp->probe, NULL);
		any |= tp->registered;
		tp->registered = false;
	}
	if (any)
		tracepoint_synchronize_unregister();
	utap_tf_disown_all();
	if (utap_tf_queued_any)
		synchronize_rcu_tasks();
	for (int i = 0; i < utap_nptargets; i++) {
		if (utap_ptargets[i].have_path)
			path_put(&utap_ptargets[i].kpath);
		utap_ptargets[i].have_path = false;
	}
	vfree(utap_procs);
	utap_procs = NULL;
}
