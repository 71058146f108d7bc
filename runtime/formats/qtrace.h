/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qtrace.h - streaming qtrace encoder (pure core).
 *
 * qtrace is IBM's instruction trace format for POWER performance models
 * (de facto spec: qtrace-tools' qtlib). Everything is big-endian. A file is
 * a header record followed by one record per executed instruction:
 *
 *   header  u32 0, u16 flags 0x0001, u16 flags2 0x0002 (file header),
 *           u16 hdr_flags 0x6000 (version | first IAR),
 *           u32 version 0x07010000, u64 address of the first instruction
 *   record  u32 instruction word, u16 flags, u16 flags2 (always 0),
 *           [u8 node, u8 term node, u8 term code]   flags & 0x6000
 *           [u64 data address]                       flags & 0x0800
 *           [u64 address of the next instruction]    flags & 0x0040
 *
 * A record describes instruction N but its next-address field belongs to
 * N+1, so the encoder keeps one step of look-ahead: a step is written when
 * its successor arrives (or at flush). Without a next address a reader
 * assumes N+4. A stream has one header: the address flow goes on through
 * the records across gaps (see utap_qt_flush()).
 *
 * Two instruction-set forms:
 *
 *   native (UTAP_QT_ISA_BE4 / UTAP_QT_ISA_LE4): fixed 4-byte instructions
 *   (ppc64, ppc64le; the word is the instruction as a number, so LE memory
 *   is byte-swapped). Sequential means +4; this is the real qtrace.
 *
 *   x86-64 address flow (UTAP_QT_ISA_X86): the word holds the first four
 *   instruction bytes in memory order, zero-padded; sequential means
 *   ip + len, so almost every record carries the next address (16 bytes
 *   per plain instruction). Consumers get exact addresses, branch kinds and
 *   data addresses; the word is not a decodable instruction.
 *
 * Branch marking (node + termination code) on a record:
 *   0x80  conditional branch, taken or not (also a rep-string iteration)
 *   0x08  unconditional branch (jmp, call, ret, direct or indirect)
 *   0x10  any other discontinuity: signal, fault, an exception after a
 *         syscall, an unexplained jump in the address flow
 * and a discontinuity (next != sequential) also sets IAR_CHANGE.
 *
 * Word 0 is reserved for the header record, so an instruction whose word
 * would be 0 is written as 0x00000001 (on x86 only "00 00" add %al,(%rax)
 * followed by zero bytes; undecodable steps with no bytes).
 */
#ifndef UTAP_FORMATS_QTRACE_H
#define UTAP_FORMATS_QTRACE_H

#include "core/port.h"
#include "itrace/trace_record.h"

/* record flags (u16) */
#define QT_IAR_CHANGE		0x8000
#define QT_NODE			0x4000
#define QT_TERM			0x2000
#define QT_PROCESSOR		0x1000
#define QT_DATA_ADDR		0x0800
#define QT_DATA_VSID		0x0400
#define QT_DATA_RPN		0x0200
#define QT_LENGTH		0x0100	/* no bytes; never written */
#define QT_DATA			0x0080	/* no bytes; never written */
#define QT_IAR			0x0040
#define QT_IAR_VSID		0x0020
#define QT_IAR_RPN		0x0010
#define QT_REGS			0x0008
#define QT_EXT			0x0001	/* flags2 follows */

/* flags2 */
#define QT2_FILE_HEADER		0x0002
#define QT2_EXT			0x0001	/* flags3 follows */

/* header flags */
#define QT_HDR_MAGIC		0x8000
#define QT_HDR_VERSION		0x4000
#define QT_HDR_IAR		0x2000
#define QT_HDR_IAR_VSID		0x1000
#define QT_HDR_IAR_RPN		0x0800
#define QT_HDR_IAR_PAGE_SIZE	0x0040
#define QT_HDR_IAR_GPAGE_SIZE	0x0010
#define QT_HDR_COMMENT		0x0002

/* termination codes */
#define QT_TERM_UNCOND		0x08
#define QT_TERM_EXCEPTION	0x10
#define QT_TERM_INST_DEPTH	0x40
#define QT_TERM_COND		0x80

#define QT_VERSION		0x07010000u

#define UTAP_QT_HDR_BYTES	22
#define UTAP_QT_REC_MAX		27	/* 4 + 2 + 2 + 3 + 8 + 8 */
/* room utap_qt_step() and utap_qt_flush() need at most */
#define UTAP_QT_STEP_MAX	(UTAP_QT_HDR_BYTES + UTAP_QT_REC_MAX)

enum utap_qt_isa {
	UTAP_QT_ISA_X86 = 0,	/* x86-64 address-flow variant */
	UTAP_QT_ISA_BE4 = 1,	/* native: 4-byte instructions, big-endian memory */
	UTAP_QT_ISA_LE4 = 2,	/* native: 4-byte instructions, little-endian memory */
};

/* One thread's encoder. Zero-initialised state is invalid: use utap_qt_init(). */
struct utap_qt {
	u8 isa;
	u8 have;		/* a step is pending */
	u8 need_hdr;		/* a header precedes the next record */
	u8 plen;
	u16 pflags;
	u32 pword;
	u64 pip;
	u64 pea;
	u64 pnext;		/* the step's own next_ip (0: unknown) */
};

void utap_qt_init(struct utap_qt *q, unsigned int isa);

/*
 * Feed the next executed instruction. Writes the header (first time) and
 * the pending step's record into OUT and keeps S pending. Returns the bytes
 * written (0 for the first step), or -ENOSPC if ROOM < UTAP_QT_STEP_MAX (the
 * encoder is then unchanged).
 */
int utap_qt_step(struct utap_qt *q, const struct utap_trace_step *s, u8 *out, size_t room);

/*
 * The stream ends: write the pending step (its next address: its own
 * next_ip if known, else the sequential one). A step after this starts a
 * new stream, with a header again. Returns bytes written (0 if nothing was
 * pending) or -ENOSPC.
 *
 * Tracing that stops and starts again is not an end: keep feeding the same
 * encoder, and the pending step's record carries the address where tracing
 * resumed (IAR change, termination code 0x10 if it was not a branch), the
 * way qtrace writers mark any discontinuity; readers follow the address flow
 * through records only (qtdis shows the record after a mid-stream header at
 * the address the record before it points to).
 */
int utap_qt_flush(struct utap_qt *q, u8 *out, size_t room);

/* The header record for a trace whose first instruction is at FIRST_IP (22 bytes). */
size_t utap_qt_header(u8 *out, u64 first_ip);

#endif /* UTAP_FORMATS_QTRACE_H */
