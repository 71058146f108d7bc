// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the trace formats in the module: itrace_output(), and each
 * traced thread's streaming encoder with its batch of encoded bytes.
 *
 * Include it into the module's translation unit, after runtime.h (the
 * trace_formats tapset does; a second include is harmless):
 *
 *   utap_itrace_output(c, "qtrace", "")   select the format (any probe, once;
 *                                         usually in `probe begin`); the runner
 *                                         learns it from an UTAP_REC_EVENT
 *                                         record "itrace_output NAME [PATH]"
 *   utap_fmt_selected                     the format, for the stepping engine
 *   utap_fmt_streaming()                  encode here (qtrace, lackey); for the
 *                                         other formats send UTAP_TRACE_STEP
 *                                         records and the runner aggregates
 *
 * Per traced thread (struct utap_fmt_thread, in the engine's per-thread
 * state, touched only by that thread):
 *
 *   utap_fmt_thread_init(t, tid)          when tracing of the thread starts
 *   lost = utap_fmt_thread_step(t, step)  after each step
 *   lost = utap_fmt_thread_flush(t, end)  when the thread stops being traced
 *                                         (end: it will not come back), or
 *                                         whenever the batch should go out
 *
 * Encoded bytes collect in the thread's batch (UTAP_FMT_BATCH bytes) and go
 * to the transport as one UTAP_REC_STREAM record (stream = tid) when the
 * next step might not fit, and at a flush. A record the transport drops
 * (buffer full) loses the steps in it: the functions return how many, for
 * the engine's lost-instruction count, and the encoder resynchronises (the
 * next qtrace record is preceded by a header carrying its address).
 */
#ifndef UTAP_FORMATS_OUTPUT_C
#define UTAP_FORMATS_OUTPUT_C

#include "formats/qtrace.c"
#include "formats/lackey.c"
#include "formats/stream.c"

#ifndef UTAP_FMT_BATCH
#define UTAP_FMT_BATCH 1024
#endif

static int utap_fmt_selected;	/* enum utap_fmt */

struct utap_fmt_thread {
	struct utap_fmt_stream enc;
	u32 tid;
	u32 used;		/* bytes in buf */
	u32 records;		/* steps whose bytes are in buf */
	u8 buf[UTAP_FMT_BATCH];
};

static bool utap_fmt_streaming(void)
{
	return utap_fmt_is_stream(READ_ONCE(utap_fmt_selected));
}

/*
 * itrace_output(NAME, PATH): choose the trace format for this run. PATH
 * ("" for none) names the output file; see docs/formats.md. Selecting
 * another format later is an error; the same one again is not.
 */
static void utap_itrace_output(struct utap_context *c, const char *name, const char *path)
{
	char buf[16 + 16 + MAXSTRINGLEN];
	int fmt = utap_fmt_lookup(name, strlen(name));
	int old;
	size_t n;

	if (fmt < 0) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "itrace_output: unknown format '%s' (qtrace, lackey, drcov, callgrind, lcov)",
			 name);
		c->last_error = c->error_buf;
		return;
	}
	old = cmpxchg(&utap_fmt_selected, UTAP_FMT_NONE, fmt);
	if (old != UTAP_FMT_NONE) {
		if (old != fmt) {
			snprintf(c->error_buf, sizeof(c->error_buf),
				 "itrace_output: the trace format is already %s",
				 utap_fmt_name(old));
			c->last_error = c->error_buf;
		}
		return;
	}
	n = scnprintf(buf, sizeof(buf), "itrace_output %s%s%s", name, path[0] ? " " : "", path);
	utap_transport_write(UTAP_REC_EVENT, 0, buf, n, 0);
}

static void utap_fmt_thread_init(struct utap_fmt_thread *t, u32 tid)
{
	utap_fmt_stream_init(&t->enc, READ_ONCE(utap_fmt_selected), UTAP_QT_ISA_HOST);
	t->tid = tid;
	t->used = 0;
	t->records = 0;
}

/* Send the batch; the steps in it if the transport dropped it. */
static u32 utap_fmt_thread_send(struct utap_fmt_thread *t)
{
	u32 lost = 0;

	if (!t->used)
		return 0;
	if (utap_transport_write(UTAP_REC_STREAM, t->tid, t->buf, t->used, 0)) {
		lost = t->records;
		utap_fmt_stream_resync(&t->enc);
	}
	t->used = 0;
	t->records = 0;
	return lost;
}

static u32 utap_fmt_thread_step(struct utap_fmt_thread *t, const struct utap_trace_step *s)
{
	u32 lost = 0;
	int n;

	if (sizeof(t->buf) - t->used < UTAP_FMT_STEP_MAX)
		lost = utap_fmt_thread_send(t);
	n = utap_fmt_stream_step(&t->enc, s, t->buf + t->used, sizeof(t->buf) - t->used);
	if (n > 0) {
		t->used += n;
		t->records++;	/* one record per step (qtrace: the previous one) */
	}
	return lost;
}

static u32 utap_fmt_thread_flush(struct utap_fmt_thread *t, bool end)
{
	u32 lost = 0;
	int n;

	if (end) {
		if (sizeof(t->buf) - t->used < UTAP_FMT_STEP_MAX)
			lost = utap_fmt_thread_send(t);
		n = utap_fmt_stream_flush(&t->enc, t->buf + t->used, sizeof(t->buf) - t->used);
		if (n > 0) {
			t->used += n;
			t->records++;
		}
	}
	return lost + utap_fmt_thread_send(t);
}

#endif /* UTAP_FORMATS_OUTPUT_C */
