/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex.h - regular expressions: the compiled program and its matcher
 * (pure core).
 *
 * The translator parses each `=~` literal (POSIX extended syntax, stap's
 * dialect) and writes it out as a program for a Thompson NFA; the module
 * runs it with a Pike VM (regex.c): every thread steps in lockstep over the
 * subject, so time is O(length x program) and memory is fixed per program,
 * supplied by the caller. Nothing here allocates, recurses or sleeps.
 */
#ifndef UTAP_REGEX_H
#define UTAP_REGEX_H

#include "port.h"
#include "config.h"

/* Limits the translator enforces (they bound the matcher's memory). */
#define UTAP_RX_MAXINSN 2000		/* instructions in one program */
#define UTAP_RX_MAXGROUPS 32		/* parenthesized subexpressions */
#define UTAP_RX_MAXSLOTS (2 * (UTAP_RX_MAXGROUPS + 1))
#define UTAP_RX_MAXWORK 32768		/* matcher memory, with every group tracked */

enum utap_rx_op {
	UTAP_RX_CHAR,		/* the byte c */
	UTAP_RX_ANY,		/* any byte (the subject holds no NUL) */
	UTAP_RX_CLASS,		/* a byte in set x */
	UTAP_RX_SPLIT,		/* go on at x, and with lower priority at y */
	UTAP_RX_JMP,		/* go on at x */
	UTAP_RX_SAVE,		/* slot x = the current position */
	UTAP_RX_BOL,		/* only at the start of the subject */
	UTAP_RX_EOL,		/* only at its end */
	UTAP_RX_MATCH,
};

struct utap_rx_insn {
	u8 op;
	u8 c;
	u16 x, y;
};

/* A set of bytes: bit (b & 31) of word (b >> 5). */
struct utap_rx_set {
	u32 bits[8];
};

struct utap_rx_prog {
	const struct utap_rx_insn *insn;
	const struct utap_rx_set *sets;
	u16 ninsn;
	u16 nthreads;		/* instructions a thread waits on: CHAR ANY CLASS MATCH */
	u16 ngroups;		/* subexpressions, not counting the whole match */
};

static inline bool utap_rx_in_set(const struct utap_rx_set *set, u8 b)
{
	return set->bits[b >> 5] & (1u << (b & 31));
}

/*
 * Memory utap_rx_exec() needs to run p tracking nslots capture slots:
 * position marks, the closure stack, and two thread lists.
 */
static inline size_t utap_rx_work_size(const struct utap_rx_prog *p, int nslots)
{
	size_t list = (((size_t)p->nthreads * 2 + 3) & ~(size_t)3) +
		      (size_t)p->nthreads * nslots * 4;

	return (size_t)p->ninsn * 4 + (2 * (size_t)p->ninsn + 1) * 8 + (size_t)nslots * 4 +
	       2 * list;
}

/*
 * Searches s[0, len) for p. Returns 1 on a match, else 0.
 *
 * nslots 0: only whether there is a match is decided (the first match found
 * ends the search). nslots >= 2: cap[0, nslots) receives the leftmost-longest
 * match's slots: cap[2k], cap[2k + 1] are the start and end of group k (0 is
 * the whole match), -1 for a group that did not take part. Among the ways to
 * make that match, the one a backtracking matcher would find first decides
 * the groups: loops take as much as they can, alternatives are tried in
 * order. Slots past nslots are not tracked.
 *
 * work: utap_rx_work_size(p, nslots) bytes, 4-byte aligned.
 */
int utap_rx_exec(const struct utap_rx_prog *p, const char *s, size_t len, s32 *cap, int nslots,
		 void *work);

/* The last =~ or !~ of a probe hit, which regex.stp's functions read. */
enum utap_rx_state { UTAP_RX_NONE, UTAP_RX_FAILED, UTAP_RX_MATCHED };

struct utap_rx_last {
	u8 state;
	u16 ngroups;
	s32 cap[UTAP_RX_MAXSLOTS];
	char str[MAXSTRINGLEN];	/* the subject */
};

#endif /* UTAP_REGEX_H */
