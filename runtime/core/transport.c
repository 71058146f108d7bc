// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - probe output to the runner, from any context.
 *
 * Two instances of the kernel's own lockless per-CPU ring buffer carry the
 * records: one for script output and one for warnings and errors, so a
 * flood of output cannot crowd out an error message. Writers never block
 * (the ring buffer is NMI-safe); a full buffer drops the record and counts
 * it. The reader merges the CPUs by timestamp, so output keeps the order in
 * which probes produced it.
 */

static struct trace_buffer *utap_data_rb;
static struct trace_buffer *utap_msg_rb;

static atomic64_t utap_lost_records = ATOMIC64_INIT(0);
static atomic64_t utap_lost_bytes = ATOMIC64_INIT(0);
static atomic64_t utap_lost_prints = ATOMIC64_INIT(0);
static atomic64_t utap_lost_msgs = ATOMIC64_INIT(0);
static atomic64_t utap_sent_records = ATOMIC64_INIT(0);

static DECLARE_WAIT_QUEUE_HEAD(utap_readq);
static struct irq_work utap_wake_work;
static atomic_t utap_reader_waiting = ATOMIC_INIT(0);
static DEFINE_MUTEX(utap_read_mutex);

#ifndef UTAP_BUFSIZE_KB
#define UTAP_BUFSIZE_KB 4096	/* per CPU, for script output */
#endif
static unsigned int utap_bufsize_kb = UTAP_BUFSIZE_KB;
module_param_named(bufsize_kb, utap_bufsize_kb, uint, 0400);

static void utap_wake_fn(struct irq_work *w)
{
	wake_up_interruptible(&utap_readq);
}

/* Wakes the runner; safe from NMI. Only queues work when a reader sleeps. */
static void utap_wake_reader(bool force)
{
	if (force || (atomic_read(&utap_reader_waiting) && atomic_xchg(&utap_reader_waiting, 0)))
		irq_work_queue(&utap_wake_work);
}

/* One record; a record that does not fit is counted lost if COUNT. */
static int utap_transport_put(u16 type, u32 stream, const void *data, size_t len,
			      u32 nprints, bool count)
{
	struct trace_buffer *rb = type == UTAP_REC_STDERR ? utap_msg_rb : utap_data_rb;
	struct ring_buffer_event *ev;
	struct utap_wire *w;

	if (unlikely(!rb))
		return -ENODEV;
	ev = ring_buffer_lock_reserve(rb, sizeof(*w) + len);
	if (unlikely(!ev)) {
		if (!count)
			return -ENOSPC;
		if (type == UTAP_REC_STDERR) {
			atomic64_inc(&utap_lost_msgs);
		} else {
			atomic64_inc(&utap_lost_records);
			atomic64_add(len, &utap_lost_bytes);
			atomic64_add(nprints, &utap_lost_prints);
		}
		return -ENOSPC;
	}
	w = ring_buffer_event_data(ev);
	w->len = len;
	w->type = type;
	w->cpu = raw_smp_processor_id();
	w->stream = stream;
	w->nprints = nprints;
	memcpy(w + 1, data, len);
#ifdef UTAP_HAVE_RB_UNLOCK_COMMIT_2ARG
	ring_buffer_unlock_commit(rb, ev);
#else
	ring_buffer_unlock_commit(rb);
#endif
	if (type != UTAP_REC_STDERR)
		atomic64_inc(&utap_sent_records);
	utap_wake_reader(false);
	return 0;
}

UTAP_API int utap_transport_write(u16 type, u32 stream, const void *data, size_t len,
				  u32 nprints)
{
	return utap_transport_put(type, stream, data, len, nprints, true);
}

/* As utap_transport_write(), for a writer that keeps what did not fit and offers it again. */
UTAP_API int utap_transport_try(u16 type, u32 stream, const void *data, size_t len)
{
	return utap_transport_put(type, stream, data, len, 0, false);
}

/* Picks the oldest pending record of all CPUs of both buffers. */
static struct ring_buffer_event *utap_oldest(struct trace_buffer **rbp, int *cpup)
{
	struct trace_buffer *rbs[2] = { utap_msg_rb, utap_data_rb };
	struct ring_buffer_event *best = NULL, *ev;
	u64 best_ts = 0, ts;
	int i, cpu;

	for (i = 0; i < 2; i++) {
		if (!rbs[i])
			continue;
		for_each_possible_cpu(cpu) {
			ev = ring_buffer_peek(rbs[i], cpu, &ts, NULL);
			if (ev && (!best || ts < best_ts)) {
				best = ev;
				best_ts = ts;
				*rbp = rbs[i];
				*cpup = cpu;
			}
		}
	}
	return best;
}

static bool utap_data_pending(void)
{
	return (utap_data_rb && !ring_buffer_empty(utap_data_rb)) ||
	       (utap_msg_rb && !ring_buffer_empty(utap_msg_rb));
}

static ssize_t utap_data_read(struct file *f, char __user *buf, size_t count, loff_t *ppos)
{
	ssize_t done = 0;

	mutex_lock(&utap_read_mutex);
	for (;;) {
		struct trace_buffer *rb = NULL;
		struct ring_buffer_event *ev;
		struct utap_wire *w;
		size_t n;
		int cpu = 0;

		ev = utap_oldest(&rb, &cpu);
		if (!ev)
			break;
		w = ring_buffer_event_data(ev);
		n = sizeof(*w) + w->len;
		if (done + n > count) {
			if (!done)
				done = -EMSGSIZE;
			break;
		}
		/* the peeked event sits on the reader page, which writers never touch */
		if (copy_to_user(buf + done, w, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		ring_buffer_consume(rb, cpu, NULL, NULL);
		done += n;
	}
	mutex_unlock(&utap_read_mutex);
	if (done == 0)
		return -EAGAIN;
	return done;
}


static __poll_t utap_data_poll(struct file *f, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(f, &utap_readq, wait);
	atomic_set(&utap_reader_waiting, 1);
	smp_mb__after_atomic();
	if (utap_data_pending())
		mask |= EPOLLIN | EPOLLRDNORM;
	if (utap_exit_pending())
		mask |= EPOLLPRI;
	return mask;
}

static int utap_transport_init(void)
{
	unsigned long size = (unsigned long)utap_bufsize_kb * 1024;

	init_irq_work(&utap_wake_work, utap_wake_fn);
	if (size < 64 * 1024)
		size = 64 * 1024;
	/* no RB_FL_OVERWRITE: when full, new records are refused and counted */
	utap_data_rb = ring_buffer_alloc(size, 0);
	utap_msg_rb = ring_buffer_alloc(64 * 1024, 0);
	if (!utap_data_rb || !utap_msg_rb) {
		if (utap_data_rb)
			ring_buffer_free(utap_data_rb);
		if (utap_msg_rb)
			ring_buffer_free(utap_msg_rb);
		utap_data_rb = utap_msg_rb = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void utap_transport_exit(void)
{
	irq_work_sync(&utap_wake_work);
	if (utap_data_rb)
		ring_buffer_free(utap_data_rb);
	if (utap_msg_rb)
		ring_buffer_free(utap_msg_rb);
	utap_data_rb = utap_msg_rb = NULL;
}

/*
 * A formatted message ("WARNING: ..." or "ERROR: ...") for the runner's
 * stderr; one cut short still ends its line, with "...".
 */
UTAP_API __printf(1, 2) void utap_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n == sizeof(buf) - 1 && buf[n - 1] != '\n')
		memcpy(buf + n - 4, "...\n", 4);
	utap_transport_write(UTAP_REC_STDERR, 0, buf, n, 0);
}
