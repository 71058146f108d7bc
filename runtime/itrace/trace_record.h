/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_record.h - the instruction trace as the module hands it to the
 * runner (wire record UTAP_REC_TRACE), version 1.
 *
 * The stepping engine (runtime/itrace/) writes these; the trace format
 * writers that aggregate (drcov, callgrind, lcov) read them in the runner
 * (translator/runner/trace/). Streaming formats (qtrace, the lackey-like text)
 * are encoded in the module and arrive as UTAP_REC_STREAM bytes instead.
 * Fixed-size little-endian fields; a payload is a sequence of records, each
 * starting with its kind and its total size in bytes.
 */
#ifndef UTAP_TRACE_RECORD_H
#define UTAP_TRACE_RECORD_H

#include "../core/port.h"

#define UTAP_TRACE_VERSION 1

enum utap_trace_kind {
	UTAP_TRACE_STEP = 1,	/* one executed instruction */
	UTAP_TRACE_MAP = 2,	/* an executable file mapping of a traced process */
	UTAP_TRACE_THREAD = 3,	/* a thread starts or stops being traced */
	UTAP_TRACE_LOST = 4,	/* instructions that ran but were not recorded */
	UTAP_TRACE_SAMPLE = 5,	/* (a piece of) one sampled stack: tapsets/pprof.stp */
};

/* flags of a step */
enum {
	UTAP_STEP_BRANCH = 1 << 0,	/* a control-transfer instruction (any kind) */
	UTAP_STEP_TAKEN = 1 << 1,	/* the next step is not ip + len */
	UTAP_STEP_COND = 1 << 2,	/* conditional branch (jcc, loop, jrcxz) */
	UTAP_STEP_CALL = 1 << 3,
	UTAP_STEP_RET = 1 << 4,
	UTAP_STEP_INDIRECT = 1 << 5,
	UTAP_STEP_EXCEPTION = 1 << 6,	/* the next step follows a signal, syscall or fault */
	UTAP_STEP_HAS_EA = 1 << 7,	/* ea holds the explicit memory operand's address */
	UTAP_STEP_REP = 1 << 8,		/* a rep-prefixed string op: the ip may repeat */
	UTAP_STEP_DECODE_FAIL = 1 << 9,	/* bytes could not be read or decoded; len is 0 */
};

struct utap_trace_step {
	u16 kind;		/* UTAP_TRACE_STEP */
	u16 size;		/* sizeof(struct utap_trace_step) */
	u16 flags;
	u8 len;			/* instruction length, 1..15 (0: unknown) */
	u8 pad;
	u32 tid;
	u32 cpu;
	u64 ip;
	u64 next_ip;		/* where execution went next (0: not known yet) */
	u64 ea;
	u64 time_ns;		/* local_clock() */
	u8 bytes[16];		/* the first len bytes are the instruction */
};

struct utap_trace_map {
	u16 kind;		/* UTAP_TRACE_MAP */
	u16 size;		/* sizeof + path_len rounded up to 8 */
	u32 pid;
	u64 start, end;		/* the executable mapping */
	u64 offset;		/* file offset of start */
	u64 load_bias;		/* start - (ELF vaddr of offset): runtime - link-time address */
	u8 build_id[20];
	u8 build_id_len;
	u8 pad;
	u16 path_len;		/* bytes of path that follow, no NUL */
	char path[];
};

struct utap_trace_thread {
	u16 kind;		/* UTAP_TRACE_THREAD */
	u16 size;
	u32 tid;
	u32 pid;
	u32 on;			/* 1: tracing starts, 0: it stops */
};

struct utap_trace_lost {
	u16 kind;		/* UTAP_TRACE_LOST */
	u16 size;
	u32 tid;
	u64 count;		/* instructions executed but not recorded (full buffer); 0 when
			 * the number cannot be known (a request that took effect late) */
};

/* flags of a sample piece */
enum {
	UTAP_SAMPLE_FIRST = 1 << 0,	/* the sample's first piece */
	UTAP_SAMPLE_LAST = 1 << 1,	/* its last piece */
	UTAP_SAMPLE_NS = 1 << 2,	/* period is in nanoseconds of CPU time (else events) */
};

/*
 * One sample's stacks, kernel frames first, then user frames, each part
 * innermost first (the addresses as walked: frame 0 is where the sample
 * hit, the others are return addresses). A ring-buffer record holds less
 * than a page, so a deep stack comes in pieces: consecutive records of one
 * CPU with the same seq, first counting up from 0. The user frames' files
 * arrive as UTAP_TRACE_MAP records before the first sample that needs them.
 * A sample with Python frames (pprof_pysample()) carries, after its user
 * frames, the pylen bytes of a pybacktrace() string (no NUL) in
 * (pylen + 7) / 8 more words, zero-padded, sent as the frames are: the
 * runner puts them in place of the _PyEval_EvalFrameDefault frames.
 */
struct utap_trace_sample {
	u16 kind;		/* UTAP_TRACE_SAMPLE */
	u16 size;		/* sizeof + 8 * n */
	u32 tid;
	u32 pid;
	u16 cpu;
	u16 flags;		/* UTAP_SAMPLE_* */
	u32 seq;		/* the sample's number on its CPU */
	u16 nkernel;		/* kernel frames of the whole sample */
	u16 nuser;		/* user frames of the whole sample */
	u16 first;		/* index of pcs[0] in the sample's words */
	u16 n;			/* words (frames, then text) in this piece */
	u16 pylen;		/* bytes of Python stack text after the user frames */
	u16 pad;
	u64 period;		/* what one sample stands for */
	u64 pcs[];
};

#endif
