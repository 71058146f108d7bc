// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - format names and the per-thread streaming encoder.
 */
#include "formats/stream.h"

static const char *const fmt_names[UTAP_FMT_COUNT] = {
	[UTAP_FMT_NONE] = "none",
	[UTAP_FMT_QTRACE] = "qtrace",
	[UTAP_FMT_LACKEY] = "lackey",
	[UTAP_FMT_DRCOV] = "drcov",
	[UTAP_FMT_CALLGRIND] = "callgrind",
	[UTAP_FMT_LCOV] = "lcov",
};

int utap_fmt_lookup(const char *name, size_t len)
{
	int i;

	for (i = 1; i < UTAP_FMT_COUNT; i++)
		if (strlen(fmt_names[i]) == len && !memcmp(fmt_names[i], name, len))
			return i;
	return -EINVAL;
}

const char *utap_fmt_name(int fmt)
{
	return fmt > 0 && fmt < UTAP_FMT_COUNT ? fmt_names[fmt] : fmt_names[0];
}

bool utap_fmt_is_stream(int fmt)
{
	return fmt == UTAP_FMT_QTRACE || fmt == UTAP_FMT_LACKEY;
}

void utap_fmt_stream_init(struct utap_fmt_stream *st, int fmt, unsigned int isa)
{
	memset(st, 0, sizeof(*st));
	st->fmt = utap_fmt_is_stream(fmt) ? fmt : UTAP_FMT_NONE;
	utap_qt_init(&st->qt, isa);
}

int utap_fmt_stream_step(struct utap_fmt_stream *st, const struct utap_trace_step *s,
			 u8 *out, size_t room)
{
	if (room < UTAP_FMT_STEP_MAX)
		return -ENOSPC;
	switch (st->fmt) {
	case UTAP_FMT_QTRACE:
		return utap_qt_step(&st->qt, s, out, room);
	case UTAP_FMT_LACKEY:
		return utap_lackey_insn((char *)out, s->ip,
					(s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len);
	default:
		return 0;
	}
}

int utap_fmt_stream_flush(struct utap_fmt_stream *st, u8 *out, size_t room)
{
	if (room < UTAP_FMT_STEP_MAX)
		return -ENOSPC;
	return st->fmt == UTAP_FMT_QTRACE ? utap_qt_flush(&st->qt, out, room) : 0;
}

void utap_fmt_thread_begin(struct utap_fmt_thread *t, int fmt, unsigned int isa, u32 tid,
			   utap_fmt_send_t send)
{
	utap_fmt_stream_init(&t->enc, fmt, isa);
	t->send = send;
	t->tid = tid;
	t->used = 0;
	t->records = 0;
	t->open = true;
}

bool utap_fmt_thread_goes_on(const struct utap_fmt_thread *t, int fmt, u32 tid)
{
	return t->open && t->enc.fmt == fmt && t->tid == tid;
}

/* The batch out; false if it stays (no room in the transport, and not FINAL). */
static bool utap_fmt_thread_send(struct utap_fmt_thread *t, bool final)
{
	if (t->used && t->send(t->tid, t->buf, t->used, final) && !final)
		return false;
	t->used = 0;
	t->records = 0;
	return true;
}

static bool utap_fmt_thread_room(struct utap_fmt_thread *t)
{
	return sizeof(t->buf) - t->used >= UTAP_FMT_STEP_MAX || utap_fmt_thread_send(t, false);
}

u32 utap_fmt_thread_step(struct utap_fmt_thread *t, const struct utap_trace_step *s)
{
	int n;

	if (!t->open)
		return 0;
	/* a step that finds no room never reaches the encoder: its predecessor joins across */
	if (!utap_fmt_thread_room(t))
		return 1;
	n = utap_fmt_stream_step(&t->enc, s, t->buf + t->used, sizeof(t->buf) - t->used);
	if (n > 0) {
		t->used += n;
		t->records++;	/* one record per step (qtrace: the previous one) */
	}
	return 0;
}

void utap_fmt_thread_push(struct utap_fmt_thread *t)
{
	if (t->open)
		utap_fmt_thread_send(t, false);
}

u32 utap_fmt_thread_end(struct utap_fmt_thread *t)
{
	u32 lost = 0, records;
	int n = 0;

	if (!t->open)
		return 0;
	t->open = false;
	if (utap_fmt_thread_room(t))
		n = utap_fmt_stream_flush(&t->enc, t->buf + t->used, sizeof(t->buf) - t->used);
	else
		lost = t->enc.fmt == UTAP_FMT_QTRACE && t->enc.qt.have;	/* the held-back step */
	if (n > 0) {
		t->used += n;
		t->records++;
	}
	records = t->records;
	if (t->used && t->send(t->tid, t->buf, t->used, true))
		lost += records;
	t->used = 0;
	t->records = 0;
	return lost;
}
