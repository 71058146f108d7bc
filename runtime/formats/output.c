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
 *   utap_fmt_selected_codec()             encode here (qtrace, lackey); NULL for
 *                                         the other formats: send UTAP_TRACE_STEP
 *                                         records and the runner aggregates
 *
 * Per traced thread (struct utap_fmt_thread of stream.h, in the engine's
 * per-thread state, touched only by that thread):
 *
 *   lost = utap_fmt_thread_start(t, tid)  when tracing of the thread starts:
 *                                         a new stream, or the thread's open
 *                                         one goes on (the new window joins
 *                                         through the last record)
 *   lost = utap_fmt_thread_step(t, step)  after each step
 *   utap_fmt_thread_push(t)               when the thread stops being traced
 *                                         for now, or may sleep: the batch
 *                                         goes out if the transport has room
 *   lost = utap_fmt_thread_end(t)         the thread's stream ends (it exits,
 *                                         the session stops)
 *
 * Encoded bytes collect in the thread's batch (UTAP_FMT_BATCH bytes) and go
 * to the transport as one UTAP_REC_STREAM record (stream = tid). A batch the
 * transport has no room for waits in the buffer; steps that find it full
 * are lost, counted one by one (the functions return how many, for the
 * engine's lost-instruction count), and the address flow goes on across
 * them. Only a stream's final batch can be dropped (and counted as a lost
 * record).
 *
 * The formats are the streaming ones of stream.c's table, then those the
 * runner writes from a whole run, which the translator names in
 * UTAP_RUNNER_FORMATS (translator/runner/trace/writers.c is their table).
 */
#ifndef UTAP_FORMATS_OUTPUT_C
#define UTAP_FORMATS_OUTPUT_C

#include "formats/qtrace.c"
#include "formats/lackey.c"
#include "formats/stream.c"

#ifndef UTAP_RUNNER_FORMATS
#define UTAP_RUNNER_FORMATS
#endif
static const char *const utap_fmt_runner[] = { UTAP_RUNNER_FORMATS NULL };

/* 0: none chosen; else 1 + the index of the format in the streaming ones, then the runner's */
static int utap_fmt_selected;

/* The name of format FMT (as utap_fmt_selected numbers them), or NULL. */
static const char *utap_fmt_name(int fmt)
{
	const struct utap_fmt_codec *c;
	int i;

	for (i = 1; (c = utap_fmt_codec_nth(i - 1)); i++)
		if (i == fmt)
			return c->name;
	if (fmt >= i && fmt - i < (int)ARRAY_SIZE(utap_fmt_runner) - 1)
		return utap_fmt_runner[fmt - i];
	return NULL;
}

/* The encoder of format FMT; NULL for none and for the runner's formats. */
static const struct utap_fmt_codec *utap_fmt_codec_of(int fmt)
{
	return fmt > 0 ? utap_fmt_codec_nth(fmt - 1) : NULL;
}

static const struct utap_fmt_codec *utap_fmt_selected_codec(void)
{
	return utap_fmt_codec_of(READ_ONCE(utap_fmt_selected));
}

/*
 * itrace_output(NAME, PATH): choose the trace format for this run. PATH
 * ("" for none) names the output file; see docs/formats.md. Selecting
 * another format later is an error; the same one again is not.
 */
static void utap_itrace_output(struct utap_context *c, const char *name, const char *path)
{
	/* in the context's error buffer, unused unless an error is set: not on the stack */
	char *buf = c->error_buf;
	int fmt, old, i;
	const char *n;
	size_t len;

	for (fmt = 1; (n = utap_fmt_name(fmt)) && strcmp(n, name); fmt++)
		;
	if (!n) {
		len = scnprintf(c->error_buf, sizeof(c->error_buf),
				"itrace_output: unknown format '%s' (", name);
		for (i = 1; (n = utap_fmt_name(i)); i++)
			len += scnprintf(c->error_buf + len, sizeof(c->error_buf) - len, "%s%s",
					 i > 1 ? ", " : "", n);
		scnprintf(c->error_buf + len, sizeof(c->error_buf) - len, ")");
		c->last_error = c->error_buf;
		return;
	}
	old = cmpxchg(&utap_fmt_selected, 0, fmt);
	if (old) {
		if (old != fmt) {
			snprintf(c->error_buf, sizeof(c->error_buf),
				 "itrace_output: the trace format is already %s",
				 utap_fmt_name(old));
			c->last_error = c->error_buf;
		}
		return;
	}
	if (strlen(name) + strlen(path) + 16 > MAXSTRINGLEN) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "itrace_output: the path is too long (at most %d bytes with MAXSTRINGLEN %d)",
			 MAXSTRINGLEN - 16 - (int)strlen(name), MAXSTRINGLEN);
		c->last_error = c->error_buf;
		return;
	}
	len = scnprintf(buf, MAXSTRINGLEN, "itrace_output %s%s%s", name, path[0] ? " " : "", path);
	utap_transport_write(UTAP_REC_EVENT, 0, buf, len, 0);
}

/* A stream batch to the runner; only a final one is counted lost when it does not fit. */
static int utap_fmt_send(u32 tid, const u8 *buf, u32 len, bool final)
{
	if (final)
		return utap_transport_write(UTAP_REC_STREAM, tid, buf, len, 0);
	return utap_transport_try(UTAP_REC_STREAM, tid, buf, len);
}

/* Tracing of thread TID starts: its stream goes on, or a new one begins. */
static u32 utap_fmt_thread_start(struct utap_fmt_thread *t, u32 tid)
{
	const struct utap_fmt_codec *codec = utap_fmt_selected_codec();
	u32 lost;

	if (utap_fmt_thread_goes_on(t, codec, tid))
		return 0;
	lost = utap_fmt_thread_end(t);	/* another stream (an exec changed the tid) */
	utap_fmt_thread_begin(t, codec, UTAP_QT_ISA_HOST, tid, utap_fmt_send);
	return lost;
}

#endif /* UTAP_FORMATS_OUTPUT_C */
