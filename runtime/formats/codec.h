/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codec.h - what a streaming trace format is: an encoder that turns each
 * thread's steps into bytes as they happen, in the module (output.c) and in
 * the runner (translator/runner/trace/tout.c) alike. A new one is a file
 * formats/NAME.c defining a struct utap_fmt_codec and its row in stream.c's
 * table; the formats the runner writes from a whole run are its own table.
 * Pure core.
 */
#ifndef UTAP_FORMATS_CODEC_H
#define UTAP_FORMATS_CODEC_H

#include "core/port.h"
#include "itrace/trace_record.h"

/* Room a step or a flush may need, in every format. */
#define UTAP_FMT_STEP_MAX 64

/* An encoder's per-thread state, opaque outside its file. */
#define UTAP_FMT_STATE_WORDS 8

struct utap_fmt_codec {
	const char *name;
	/* a new stream; ISA is a qtrace ISA form (enum utap_qt_isa), others ignore it */
	void (*init)(void *state, unsigned int isa);
	/* step S into OUT (ROOM >= UTAP_FMT_STEP_MAX bytes): the bytes written */
	int (*step)(void *state, const struct utap_trace_step *s, u8 *out, size_t room);
	/* the stream ends: what is held back (NULL: nothing ever is) */
	int (*flush)(void *state, u8 *out, size_t room);
	/* a step is held back, which flush writes (NULL: never) */
	bool (*holds)(const void *state);
};

#endif /* UTAP_FORMATS_CODEC_H */
