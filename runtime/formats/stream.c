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

void utap_fmt_stream_resync(struct utap_fmt_stream *st)
{
	if (st->fmt == UTAP_FMT_QTRACE)
		utap_qt_resync(&st->qt);
}
