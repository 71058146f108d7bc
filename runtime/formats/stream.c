// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - the streaming formats by name, and the per-thread stream.
 */
#include "formats/stream.h"

/* Every streaming format: a file of this folder and a row here. */
extern const struct utap_fmt_codec utap_fmt_qtrace;
extern const struct utap_fmt_codec utap_fmt_lackey;

static const struct utap_fmt_codec *const utap_fmt_codecs[] = {
	&utap_fmt_qtrace,
	&utap_fmt_lackey,
};

const struct utap_fmt_codec *utap_fmt_codec_nth(unsigned int i)
{
	return i < ARRAY_SIZE(utap_fmt_codecs) ? utap_fmt_codecs[i] : NULL;
}

const struct utap_fmt_codec *utap_fmt_codec(const char *name, size_t len)
{
	const struct utap_fmt_codec *c;
	unsigned int i;

	for (i = 0; (c = utap_fmt_codec_nth(i)); i++)
		if (strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	return NULL;
}

void utap_fmt_stream_init(struct utap_fmt_stream *st, const struct utap_fmt_codec *codec,
			  unsigned int isa)
{
	memset(st, 0, sizeof(*st));
	st->codec = codec;
	if (codec)
		codec->init(st->state, isa);
}

int utap_fmt_stream_step(struct utap_fmt_stream *st, const struct utap_trace_step *s,
			 u8 *out, size_t room)
{
	if (room < UTAP_FMT_STEP_MAX)
		return -ENOSPC;
	return st->codec ? st->codec->step(st->state, s, out, room) : 0;
}

int utap_fmt_stream_flush(struct utap_fmt_stream *st, u8 *out, size_t room)
{
	if (room < UTAP_FMT_STEP_MAX)
		return -ENOSPC;
	return st->codec && st->codec->flush ? st->codec->flush(st->state, out, room) : 0;
}

void utap_fmt_thread_begin(struct utap_fmt_thread *t, const struct utap_fmt_codec *codec,
			   unsigned int isa, u32 tid, utap_fmt_send_t send)
{
	utap_fmt_stream_init(&t->enc, codec, isa);
	t->send = send;
	t->tid = tid;
	t->used = 0;
	t->records = 0;
	t->open = true;
}

bool utap_fmt_thread_goes_on(const struct utap_fmt_thread *t, const struct utap_fmt_codec *codec,
			     u32 tid)
{
	return t->open && t->enc.codec == codec && t->tid == tid;
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
		lost = t->enc.codec && t->enc.codec->holds &&	/* the held-back step */
		       t->enc.codec->holds(t->enc.state);
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
