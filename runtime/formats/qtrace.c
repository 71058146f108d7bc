// SPDX-License-Identifier: GPL-2.0
/*
 * qtrace.c - streaming qtrace encoder (see qtrace.h for the format).
 */
#include "formats/qtrace.h"
#include "formats/codec.h"

static u8 *put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
	return p + 2;
}

static u8 *put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
	return p + 4;
}

static u8 *put_be64(u8 *p, u64 v)
{
	p = put_be32(p, v >> 32);
	return put_be32(p, (u32)v);
}

void utap_qt_init(struct utap_qt *q, unsigned int isa)
{
	memset(q, 0, sizeof(*q));
	q->isa = isa <= UTAP_QT_ISA_LE4 ? isa : UTAP_QT_ISA_X86;
	q->need_hdr = 1;
}

size_t utap_qt_header(u8 *out, u64 first_ip)
{
	u8 *p = out;

	p = put_be32(p, 0);
	p = put_be16(p, QT_EXT);
	p = put_be16(p, QT2_FILE_HEADER);
	p = put_be16(p, QT_HDR_VERSION | QT_HDR_IAR);
	p = put_be32(p, QT_VERSION);
	p = put_be64(p, first_ip);
	return p - out;
}

/* The instruction word of S in this ISA's convention; never 0 (the header marker). */
static u32 insn_word(unsigned int isa, const struct utap_trace_step *s)
{
	unsigned int n = s->len < 4 ? s->len : 4, i;
	u8 b[4] = { 0, 0, 0, 0 };
	u32 w;

	if (s->flags & UTAP_STEP_DECODE_FAIL)
		n = 0;
	for (i = 0; i < n; i++)
		b[i] = s->bytes[i];
	if (isa == UTAP_QT_ISA_LE4)
		w = (u32)b[3] << 24 | (u32)b[2] << 16 | (u32)b[1] << 8 | b[0];
	else
		w = (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
	return w ? w : 1;
}

/* The pending step's record, given the address that followed it. */
static size_t emit(struct utap_qt *q, u64 next, u8 *out)
{
	bool x86 = q->isa == UTAP_QT_ISA_X86;
	u64 seq = q->pip + (x86 ? q->plen : 4);
	/* an x86 step of unknown length cannot be called a discontinuity */
	bool jumped = next != seq && (!x86 || q->plen);
	u16 flags = QT_EXT;
	u8 term = 0;
	u8 *p = out;

	if (q->need_hdr) {
		p += utap_qt_header(p, q->pip);
		q->need_hdr = 0;
	}
	if ((q->pflags & UTAP_STEP_EXCEPTION) && jumped)
		term = QT_TERM_EXCEPTION;
	else if (q->pflags & (UTAP_STEP_COND | UTAP_STEP_REP))
		term = QT_TERM_COND;
	else if (q->pflags & UTAP_STEP_BRANCH)
		term = QT_TERM_UNCOND;
	else if (jumped)
		term = QT_TERM_EXCEPTION;
	if (term)
		flags |= QT_NODE | QT_TERM;
	if (jumped)
		flags |= QT_IAR_CHANGE;
	if (next != q->pip + 4)
		flags |= QT_IAR;
	if (q->pflags & UTAP_STEP_HAS_EA)
		flags |= QT_DATA_ADDR;

	p = put_be32(p, q->pword);
	p = put_be16(p, flags);
	p = put_be16(p, 0);
	if (term) {
		*p++ = 0;	/* node */
		*p++ = 0;	/* termination node */
		*p++ = term;
	}
	if (flags & QT_DATA_ADDR)
		p = put_be64(p, q->pea);
	if (flags & QT_IAR)
		p = put_be64(p, next);
	return p - out;
}

int utap_qt_step(struct utap_qt *q, const struct utap_trace_step *s, u8 *out, size_t room)
{
	size_t n = 0;

	if (room < UTAP_QT_STEP_MAX)
		return -ENOSPC;
	if (q->have)
		n = emit(q, s->ip, out);
	q->have = 1;
	q->pip = s->ip;
	q->plen = (s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len;
	q->pflags = s->flags;
	q->pword = insn_word(q->isa, s);
	q->pea = s->ea;
	q->pnext = s->next_ip;
	return n;
}

int utap_qt_flush(struct utap_qt *q, u8 *out, size_t room)
{
	u64 next;
	size_t n;

	if (room < UTAP_QT_STEP_MAX)
		return -ENOSPC;
	if (!q->have)
		return 0;
	next = q->pnext ? q->pnext : q->pip + (q->isa == UTAP_QT_ISA_X86 ? q->plen : 4);
	n = emit(q, next, out);
	q->have = 0;
	q->need_hdr = 1;
	return n;
}

/* The streaming format's row (formats/codec.h). */
static void qt_codec_init(void *state, unsigned int isa)
{
	utap_qt_init(state, isa);
}

static int qt_codec_step(void *state, const struct utap_trace_step *s, u8 *out, size_t room)
{
	return utap_qt_step(state, s, out, room);
}

static int qt_codec_flush(void *state, u8 *out, size_t room)
{
	return utap_qt_flush(state, out, room);
}

static bool qt_codec_holds(const void *state)
{
	return ((const struct utap_qt *)state)->have;
}

_Static_assert(sizeof(struct utap_qt) <= UTAP_FMT_STATE_WORDS * sizeof(u64), "qtrace state");
_Static_assert(UTAP_QT_STEP_MAX <= UTAP_FMT_STEP_MAX, "qtrace step");

const struct utap_fmt_codec utap_fmt_qtrace = {
	.name = "qtrace",
	.init = qt_codec_init,
	.step = qt_codec_step,
	.flush = qt_codec_flush,
	.holds = qt_codec_holds,
};
