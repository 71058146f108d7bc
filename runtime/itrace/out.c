// SPDX-License-Identifier: GPL-2.0
/*
 * out.c - where a traced thread's steps go: the trace output, and the
 * script's .insn and .insn.block handlers. Runs in the thread's own context
 * (a safe point), so its buffers need no lock.
 *
 * The output follows the format itrace_output() chose (runtime/formats/
 * output.c, the trace_formats tapset):
 *
 *   none                nothing leaves the module
 *   qtrace, lackey      encoded here, per thread (the format's batch of
 *                       UTAP_REC_STREAM bytes, stream = tid)
 *   drcov, callgrind,   the records of trace_record.h (steps, and the
 *   lcov                thread, map and lost records) in the thread's batch,
 *                       sent as UTAP_REC_TRACE; the runner writes the file
 *
 * A batch the transport has no room for is dropped and its steps counted
 * lost (itrace_lost(), a lost record, a warning at the end of the run).
 */

enum { UTAP_IT_OUT_NONE, UTAP_IT_OUT_STREAM, UTAP_IT_OUT_RECORDS };

static int utap_it_out_kind(int fmt)
{
	if (!fmt)
		return UTAP_IT_OUT_NONE;
	return utap_fmt_codec_of(fmt) ? UTAP_IT_OUT_STREAM : UTAP_IT_OUT_RECORDS;
}

static void utap_it_lose(struct utap_itask *st, u32 steps, bool tell)
{
	if (!steps)
		return;
	st->lost += steps;
	if (tell)
		st->lost_unreported += steps;
	atomic64_add(steps, &utap_it_lost);
}

/* Sends the thread's record batch; a batch the transport drops is lost steps. */
static void utap_it_out_send(struct utap_itask *st)
{
	if (!st->olen)
		return;
	if (utap_transport_write(UTAP_REC_TRACE, st->tid, st->obuf, st->olen, 0))
		utap_it_lose(st, st->osteps, true);
	st->olen = 0;
	st->osteps = 0;
}

/* Room for a record of len bytes at the end of the thread's batch. */
static u8 *utap_it_out_room(struct utap_itask *st, size_t len)
{
	if (len > UTAP_IT_BATCH)
		return NULL;
	if (st->olen + len > UTAP_IT_BATCH)
		utap_it_out_send(st);
	return st->obuf + st->olen;
}

static void utap_it_out_record(struct utap_itask *st, const void *rec, size_t len)
{
	u8 *p = utap_it_out_room(st, len);

	if (!p)
		return;
	memcpy(p, rec, len);
	st->olen += len;
}

/* Lost steps and late requests not told yet; count 0 is a late request. */
static void utap_it_out_lost(struct utap_itask *st)
{
	struct utap_trace_lost l = { .kind = UTAP_TRACE_LOST, .size = sizeof(l) };
	int n;

	l.tid = st->tid;
	if (st->lost_unreported) {
		l.count = st->lost_unreported;
		st->lost_unreported = 0;
		utap_it_out_record(st, &l, sizeof(l));
	}
	for (n = atomic_xchg(&st->gaps, 0); n > 0; n--) {
		l.count = 0;
		utap_it_out_record(st, &l, sizeof(l));
	}
}

static void utap_it_out_thread(struct utap_itask *st, bool on)
{
	struct utap_trace_thread r = { .kind = UTAP_TRACE_THREAD, .size = sizeof(r) };

	r.tid = st->tid;
	r.pid = st->pid;
	r.on = on;
	utap_it_out_record(st, &r, sizeof(r));
}

/* The thread's trace starts, in the format chosen now (a stream may go on). */
static void utap_it_out_start(struct utap_itask *st)
{
	st->ofmt = READ_ONCE(utap_fmt_selected);
	st->okind = utap_it_out_kind(st->ofmt);
	st->olen = 0;
	st->osteps = 0;
	if (st->okind == UTAP_IT_OUT_STREAM)
		utap_it_lose(st, utap_fmt_thread_start(&st->fmt, st->tid), false);
	else if (st->okind == UTAP_IT_OUT_RECORDS)
		utap_it_out_thread(st, true);
}

/*
 * The thread's trace stops (for now): what is encoded goes out. A stream
 * keeps its last step, whose record will point to where tracing resumes.
 */
static void utap_it_out_stop(struct utap_itask *st)
{
	if (st->okind == UTAP_IT_OUT_STREAM) {
		utap_fmt_thread_push(&st->fmt);
	} else if (st->okind == UTAP_IT_OUT_RECORDS) {
		utap_it_out_lost(st);
		utap_it_out_thread(st, false);
		utap_it_out_send(st);
	}
	st->okind = UTAP_IT_OUT_NONE;
}

/* The thread's stream ends (it exits, the session stops): its last record goes out. */
static void utap_it_out_end(struct utap_itask *st)
{
	utap_it_lose(st, utap_fmt_thread_end(&st->fmt), false);
}

/* What the thread has buffered goes out now (it may sleep a while). */
static void utap_it_out_flush(struct utap_itask *st)
{
	utap_fmt_thread_push(&st->fmt);
	utap_it_out_send(st);
}

static void utap_it_out_step(struct utap_itask *st, const struct utap_trace_step *s)
{
	u8 *p;

	if (unlikely(st->ofmt != READ_ONCE(utap_fmt_selected))) {
		/* itrace_output() chose the format while the thread was traced */
		utap_it_out_stop(st);
		utap_it_out_start(st);
	}
	if (st->okind == UTAP_IT_OUT_STREAM) {
		utap_it_lose(st, utap_fmt_thread_step(&st->fmt, s), false);
		return;
	}
	if (st->okind != UTAP_IT_OUT_RECORDS)
		return;
	if (unlikely(st->lost_unreported || atomic_read(&st->gaps)))
		utap_it_out_lost(st);
	p = utap_it_out_room(st, sizeof(*s));
	memcpy(p, s, sizeof(*s));
	st->olen += sizeof(*s);
	st->osteps++;
}

/* ---- handlers ----------------------------------------------------------- */

/* Runs the handlers of the probes in mask for one step or block. */
static void utap_it_run(struct utap_itask *st, u64 mask, const struct utap_trace_step *s,
			const struct utap_block *b)
{
	int i;

	for (i = 0; mask && i < utap_it_cfg.nprobes; i++, mask >>= 1) {
		const struct utap_insn_probe *p = &utap_it_cfg.probes[i];
		struct utap_itrace_event *ev;
		struct utap_context *c;

		if (!(mask & 1) || !p->has_body)
			continue;
		c = utap_context_enter(p->probe, UTAP_RUNNING);
		if (!c)
			continue;
		ev = this_cpu_ptr(&utap_it_event);
		ev->step = s;
		ev->block = b;
		ev->regs = *st->regs;
		ev->regs.ip = b ? b->start : s->ip;
		c->regs = &ev->regs;
		c->user_mode = true;
		c->probe_data = ev;
		p->handler(c);
		utap_context_leave(c);
	}
}

/* The open block ends with last (its final step): its handlers run. */
static void utap_it_block_done(struct utap_itask *st, const struct utap_trace_step *last)
{
	st->nblocks++;
	if (st->proc && st->proc->block_mask)
		utap_it_run(st, st->proc->block_mask, last, &st->blk);
	utap_block_reset(&st->blk);
}

/* The open block ends without its final step at hand (a break in the flow, a stop). */
static void utap_it_block_close(struct utap_itask *st)
{
	struct utap_trace_step last = { .kind = UTAP_TRACE_STEP, .size = sizeof(last) };

	if (!st->blk.ninsns)
		return;
	last.ip = st->blk.last_ip;
	last.len = st->blk.last_len;
	last.next_ip = st->blk.next_ip;
	last.flags = st->blk.flags;
	last.tid = st->tid;
	utap_it_block_done(st, &last);
}

/* Every step the tracker finishes comes here (its emit callback). */
static void utap_it_emit(void *arg, const struct utap_trace_step *s)
{
	struct utap_itask *st = arg;
	struct utap_trace_step step = *s;
	struct utap_iproc *pr = st->proc;

	step.tid = st->tid;
	step.cpu = raw_smp_processor_id();
	step.time_ns = local_clock();
	st->nsteps++;
	utap_it_out_step(st, &step);
	if (!pr)
		return;
	if (pr->insn_mask)
		utap_it_run(st, pr->insn_mask, &step, NULL);
	if (pr->block_mask) {
		if (utap_block_breaks(&st->blk, &step))
			utap_it_block_close(st);
		if (utap_block_add(&st->blk, &step))
			utap_it_block_done(st, &step);
	}
}

/* Tracing stops: a partial block is a block too. */
static void utap_it_block_flush(struct utap_itask *st)
{
	if (st->proc && st->proc->block_mask)
		utap_it_block_close(st);
	utap_block_reset(&st->blk);
}
