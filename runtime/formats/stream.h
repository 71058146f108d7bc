/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the trace formats by name, and one thread's streaming encoder.
 *
 * Streaming formats (qtrace, lackey) are encoded step by step, one stream
 * per thread, where the steps are produced: in the module (the bytes travel
 * as UTAP_REC_STREAM records, stream id = tid) or in the runner when it
 * receives raw steps. Both use this code, so the bytes are the same. The
 * other formats (drcov, callgrind, lcov) aggregate a whole run and are
 * written by the runner from raw steps (translator/formats/). Pure core.
 */
#ifndef UTAP_FORMATS_STREAM_H
#define UTAP_FORMATS_STREAM_H

#include "core/port.h"
#include "itrace/trace_record.h"
#include "formats/qtrace.h"
#include "formats/lackey.h"

enum utap_fmt {
	UTAP_FMT_NONE = 0,
	UTAP_FMT_QTRACE,	/* per thread, binary */
	UTAP_FMT_LACKEY,	/* per thread, text */
	UTAP_FMT_DRCOV,		/* whole run, written by the runner */
	UTAP_FMT_CALLGRIND,
	UTAP_FMT_LCOV,
	UTAP_FMT_COUNT,
};

/* The format called NAME (LEN bytes, not necessarily NUL-terminated), or -EINVAL. */
int utap_fmt_lookup(const char *name, size_t len);

/* "qtrace", "lackey", ...; "none" for UTAP_FMT_NONE and anything unknown. */
const char *utap_fmt_name(int fmt);

/* Encoded step by step per thread (as opposed to aggregated by the runner). */
bool utap_fmt_is_stream(int fmt);

/* Room a step or a flush may need. */
#define UTAP_FMT_STEP_MAX UTAP_QT_STEP_MAX

struct utap_fmt_stream {
	u8 fmt;			/* enum utap_fmt: QTRACE or LACKEY */
	struct utap_qt qt;
};

/* ISA is a qtrace ISA form (enum utap_qt_isa); the others ignore it. */
void utap_fmt_stream_init(struct utap_fmt_stream *st, int fmt, unsigned int isa);

/* Encode step S into OUT; bytes written, or -ENOSPC if ROOM < UTAP_FMT_STEP_MAX. */
int utap_fmt_stream_step(struct utap_fmt_stream *st, const struct utap_trace_step *s,
			 u8 *out, size_t room);

/* Tracing of the thread stops (for now): write what is held back. */
int utap_fmt_stream_flush(struct utap_fmt_stream *st, u8 *out, size_t room);

/* Bytes returned earlier were lost: make the stream findable again. */
void utap_fmt_stream_resync(struct utap_fmt_stream *st);

/* The qtrace form of the machine this is compiled for. */
#if defined(__x86_64__)
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_X86
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_BE4
#else
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_LE4
#endif

#endif /* UTAP_FORMATS_STREAM_H */
