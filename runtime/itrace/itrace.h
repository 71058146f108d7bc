/* SPDX-License-Identifier: GPL-2.0 */
/*
 * itrace.h - user-space instruction tracing in the module: what the
 * translator's insn provider (translator/probes/insn.c) and the tapset
 * (tapsets/itrace.stp) see of the stepping engine (itrace.c).
 */
#ifndef UTAP_ITRACE_H
#define UTAP_ITRACE_H

#include "itrace/tracker.h"

/* One process("...").insn or .insn.block probe, from the translator. */
struct utap_insn_probe {
	const char *path;		/* process("PATH"): the executable; NULL otherwise */
	long pid;			/* process(PID); 0 otherwise */
	bool target_tree;		/* bare process with -c/-x: the target and its children */
	bool block;			/* .insn.block */
	bool has_body;			/* false: the handler does nothing (not called) */
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);

	/* run time */
	struct path kpath;
	struct inode *inode, *real_inode;
	bool have_path;
};

/* The session's tracing setup, from the translator. */
struct utap_itrace_config {
	struct utap_insn_probe *probes;
	int nprobes;
	bool whole;			/* no itrace_on/off in the script: trace every match */
	bool target_from_exec;		/* -c: the target is matched from its exec on */
};

/*
 * What an insn handler's context sees (c->probe_data): the step, and for
 * .insn.block the block it ends. c->regs points at regs, a copy of the
 * thread's registers after the step with ip set to the instruction (.insn)
 * or to the block's first instruction (.insn.block).
 */
struct utap_itrace_event {
	const struct utap_trace_step *step;
	const struct utap_block *block;
	struct pt_regs regs;
};

#endif /* UTAP_ITRACE_H */
