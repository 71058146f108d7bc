// SPDX-License-Identifier: GPL-2.0
/*
 * uentry.c - values a .return probe reads as they were at the function's
 * entry ($param in a return probe, @entry(...)).
 *
 * The uretprobe's consumer also gets the entry hit (or, in code whose
 * parameters the prologue stores, a second uprobe after the prologue
 * does): it computes the values there and keeps them in a record keyed by
 * the task and the stack pointer the return will have (the entry's plus
 * the popped return address, or the CFA after the prologue). The return hit takes its record back. A record the return
 * never claims - the call was left by longjmp or an exception, or the
 * kernel did not arm the return (too deep) - is dropped when the same
 * task returns from a frame above it, or, when the records run out, once
 * its task is gone.
 *
 * Records are preallocated; every operation is a short section under one
 * spinlock, safe with preemption and interrupts disabled.
 */
#ifndef UTAP_PROBES_UENTRY_C
#define UTAP_PROBES_UENTRY_C

#include <linux/hash.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>

#ifndef UTAP_ENTRY_SLOTS
#define UTAP_ENTRY_SLOTS 4096	/* calls in flight whose entry values are kept */
#endif
#define UTAP_ENTRY_HASH_BITS 8

struct utap_entry_rec {
	struct task_struct *task;
	u64 start_time;		/* with task and tid: not a reused task_struct */
	pid_t tid;
	unsigned long sp;	/* the stack pointer when the function has returned */
	const void *owner;	/* the uprobe that took the values */
	int next;		/* bucket chain or free list; -1 ends it */
	u64 ok;			/* bit i: v[i] was read */
	s64 v[];
};

static struct {
	spinlock_t lock;
	void *recs;
	size_t rec_size;
	int nvals;
	int free;
	int buckets[1 << UTAP_ENTRY_HASH_BITS];
	atomic_t lost;
} utap_entries = { .lock = __SPIN_LOCK_UNLOCKED(utap_entries.lock) };

static struct utap_entry_rec *utap_entry_at(int i)
{
	return (struct utap_entry_rec *)((char *)utap_entries.recs + (size_t)i * utap_entries.rec_size);
}

static int utap_entry_alloc(int nvals)
{
	if (utap_entries.recs)
		return nvals <= utap_entries.nvals ? 0 : -EINVAL;
	utap_entries.nvals = nvals;
	utap_entries.rec_size = ALIGN(sizeof(struct utap_entry_rec) + nvals * sizeof(s64), 8);
	utap_entries.recs = vzalloc(utap_entries.rec_size * UTAP_ENTRY_SLOTS);
	if (!utap_entries.recs)
		return -ENOMEM;
	for (int i = 0; i < UTAP_ENTRY_SLOTS; i++)
		utap_entry_at(i)->next = i + 1 < UTAP_ENTRY_SLOTS ? i + 1 : -1;
	utap_entries.free = 0;
	for (int b = 0; b < ARRAY_SIZE(utap_entries.buckets); b++)
		utap_entries.buckets[b] = -1;
	return 0;
}

static void utap_entry_release(void)
{
	vfree(utap_entries.recs);
	utap_entries.recs = NULL;
}

static int *utap_entry_bucket(struct task_struct *task)
{
	return &utap_entries.buckets[hash_ptr(task, UTAP_ENTRY_HASH_BITS)];
}

static bool utap_entry_task_gone(const struct utap_entry_rec *r)
{
	struct task_struct *t;
	bool gone;

	rcu_read_lock();
	t = pid_task(find_pid_ns(r->tid, &init_pid_ns), PIDTYPE_PID);
	gone = t != r->task || t->start_time != r->start_time;
	rcu_read_unlock();
	return gone;
}

/* Out of records: free those of tasks that are gone. Lock held. */
static void utap_entry_sweep(void)
{
	for (int b = 0; b < ARRAY_SIZE(utap_entries.buckets); b++) {
		int *link = &utap_entries.buckets[b];

		while (*link >= 0) {
			struct utap_entry_rec *r = utap_entry_at(*link);
			int i = *link;

			if (!utap_entry_task_gone(r)) {
				link = &r->next;
				continue;
			}
			*link = r->next;
			r->next = utap_entries.free;
			utap_entries.free = i;
		}
	}
}

/*
 * At the entry (or the end of the prologue): the values CAPTURE reads from
 * REGS, kept for OWNER's return; CAPTURE says what the stack pointer will
 * be then.
 */
static void utap_entry_push(const void *owner, struct pt_regs *regs,
			    unsigned long (*capture)(struct pt_regs *, s64 *, u64 *))
{
	struct utap_entry_rec *r;
	unsigned long flags;
	int *bucket, i;

	if (!utap_entries.recs)
		return;
	spin_lock_irqsave(&utap_entries.lock, flags);
	if (utap_entries.free < 0)
		utap_entry_sweep();
	i = utap_entries.free;
	if (i < 0) {
		spin_unlock_irqrestore(&utap_entries.lock, flags);
		atomic_inc(&utap_entries.lost);
		return;
	}
	r = utap_entry_at(i);
	utap_entries.free = r->next;
	spin_unlock_irqrestore(&utap_entries.lock, flags);

	/* the record is ours alone until it is linked */
	r->task = current;
	r->start_time = current->start_time;
	r->tid = current->pid;
	r->owner = owner;
	r->sp = capture(regs, r->v, &r->ok);

	bucket = utap_entry_bucket(current);
	spin_lock_irqsave(&utap_entries.lock, flags);
	r->next = *bucket;
	*bucket = i;
	spin_unlock_irqrestore(&utap_entries.lock, flags);
}

/*
 * At the return (REGS->sp is past the return address): OWNER's record of
 * this call, unlinked, or NULL. Records of deeper frames of this task are
 * dead - those calls are over - and are freed on the way.
 */
static struct utap_entry_rec *utap_entry_pop(const void *owner, struct pt_regs *regs)
{
	struct utap_entry_rec *found = NULL;
	unsigned long flags;
	int *link;

	if (!utap_entries.recs)
		return NULL;
	spin_lock_irqsave(&utap_entries.lock, flags);
	link = utap_entry_bucket(current);
	while (*link >= 0) {
		struct utap_entry_rec *r = utap_entry_at(*link);
		int i = *link;
		bool mine = r->task == current && r->start_time == current->start_time;

		if (!mine || r->sp > regs->sp || (r->sp == regs->sp && (found || r->owner != owner))) {
			link = &r->next;
			continue;
		}
		*link = r->next;
		if (r->sp == regs->sp) {
			found = r;
			continue;
		}
		r->next = utap_entries.free;
		utap_entries.free = i;
	}
	spin_unlock_irqrestore(&utap_entries.lock, flags);
	return found;
}

static void utap_entry_free(struct utap_entry_rec *r)
{
	unsigned long flags;

	spin_lock_irqsave(&utap_entries.lock, flags);
	r->next = utap_entries.free;
	utap_entries.free = ((char *)r - (char *)utap_entries.recs) / utap_entries.rec_size;
	spin_unlock_irqrestore(&utap_entries.lock, flags);
}

#endif
