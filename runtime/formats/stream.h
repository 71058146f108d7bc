/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the streaming trace formats by name, and one thread's stream.
 *
 * Streaming formats (qtrace, lackey: formats/codec.h) are encoded step by
 * step, one stream per thread, where the steps are produced: in the module
 * (the bytes travel as UTAP_REC_STREAM records, stream id = tid, batched by
 * struct utap_fmt_thread) or in the runner when it receives raw steps. Both
 * use this code, so the bytes are the same. The other formats (drcov,
 * callgrind, lcov) aggregate a whole run and are written by the runner from
 * raw steps (translator/runner/trace/). Pure core.
 */
#ifndef UTAP_FORMATS_STREAM_H
#define UTAP_FORMATS_STREAM_H

#include "core/port.h"
#include "itrace/trace_record.h"
#include "formats/codec.h"
#include "formats/qtrace.h"

/* The streaming format called NAME (LEN bytes, not necessarily NUL-terminated), or NULL. */
const struct utap_fmt_codec *utap_fmt_codec(const char *name, size_t len);

/* The streaming formats in turn, from 0; NULL past the last. */
const struct utap_fmt_codec *utap_fmt_codec_nth(unsigned int i);

struct utap_fmt_stream {
	const struct utap_fmt_codec *codec;	/* NULL: not a streaming format */
	u64 state[UTAP_FMT_STATE_WORDS];
};

/* A new stream of CODEC (NULL: one that writes nothing). */
void utap_fmt_stream_init(struct utap_fmt_stream *st, const struct utap_fmt_codec *codec,
			  unsigned int isa);

/* Encode step S into OUT; bytes written, or -ENOSPC if ROOM < UTAP_FMT_STEP_MAX. */
int utap_fmt_stream_step(struct utap_fmt_stream *st, const struct utap_trace_step *s,
			 u8 *out, size_t room);

/* The stream ends: write what is held back (qtrace: the last step's record). */
int utap_fmt_stream_flush(struct utap_fmt_stream *st, u8 *out, size_t room);

/*
 * One thread's stream and its batch of encoded bytes, which goes out as one
 * transport record (SEND) when the next step might not fit, and when the
 * engine pushes it (the thread stops being traced, or may sleep).
 *
 * A stream lives as long as the thread does: when tracing stops and starts
 * again later (itrace_off() and itrace_on()), the encoder still holds the
 * last step, and its record carries the address where the next window
 * starts, as a qtrace writer marks any discontinuity. qtrace readers follow
 * the address flow through the records only (qtdis ignores a header in
 * mid-stream), so a stream has one header.
 *
 * A batch the transport has no room for stays in the buffer and is sent
 * again later; steps that arrive while the buffer is full are lost, one by
 * one, before they reach the encoder, so the record before such a gap
 * carries the address after it, as at a window. Only the batch sent when the
 * stream ends can be lost as bytes.
 */
#ifndef UTAP_FMT_BATCH
#define UTAP_FMT_BATCH 1024
#endif

/*
 * Sends LEN bytes of stream TID. 0, or -ENOSPC when the transport has no
 * room; then a FINAL batch (nothing follows it) is lost and counted by the
 * transport, any other is kept and offered again.
 */
typedef int (*utap_fmt_send_t)(u32 tid, const u8 *buf, u32 len, bool final);

struct utap_fmt_thread {
	struct utap_fmt_stream enc;
	utap_fmt_send_t send;
	u32 tid;		/* the stream's id */
	u32 used;		/* bytes in buf */
	u32 records;		/* steps whose bytes are in buf */
	bool open;		/* begun, not ended */
	u8 buf[UTAP_FMT_BATCH];
};

/* A new stream TID of CODEC (qtrace ISA form ISA), sent through SEND. */
void utap_fmt_thread_begin(struct utap_fmt_thread *t, const struct utap_fmt_codec *codec,
			   unsigned int isa, u32 tid, utap_fmt_send_t send);

/* The stream is open, in CODEC's format, with id TID: a new window continues it. */
bool utap_fmt_thread_goes_on(const struct utap_fmt_thread *t, const struct utap_fmt_codec *codec,
			     u32 tid);

/* Encode step S; 1 if it is lost (the buffer is full and the transport too), else 0. */
u32 utap_fmt_thread_step(struct utap_fmt_thread *t, const struct utap_trace_step *s);

/* Send the batch now if the transport takes it (else it waits; nothing is lost). */
void utap_fmt_thread_push(struct utap_fmt_thread *t);

/* The stream ends: the held-back record and the batch go out; the steps lost. */
u32 utap_fmt_thread_end(struct utap_fmt_thread *t);

/* The qtrace form of the machine this is compiled for. */
#if defined(__x86_64__)
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_X86
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_BE4
#else
#define UTAP_QT_ISA_HOST UTAP_QT_ISA_LE4
#endif

#endif /* UTAP_FORMATS_STREAM_H */
