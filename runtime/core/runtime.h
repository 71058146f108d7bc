/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runtime.h - everything a translated script's module is built from.
 *
 * The generated C file defines the UTAP_NEED_* macros for the features the
 * script uses, includes this header, and then defines the utap_gen_* hooks
 * declared below. The runtime's feature parts are compiled as one
 * translation unit with the script, so the compiler sees (and drops)
 * everything unused; the kernel half of the core is either part of that
 * unit or an object compiled once and linked with it (kcore.h).
 */
#ifndef UTAP_RUNTIME_H
#define UTAP_RUNTIME_H

#include "kheaders.h"

#include "utap_autoconf.h"	/* feature tests, generated per kernel */
#include "utap_build.h"	/* one unit, or the core as a cached object */
#include "config.h"
#include "port.h"
#include "str.h"
#include "format.h"
#include "map.h"
#include "stats.h"
#include "regex.h"
#include "wire.h"

/* One entry per derived probe; pp() and error messages use it. */
struct utap_probe {
	const char *pp;
	const char *pn;		/* the script-level point, as -l lists it (pn()) */
	int index;
};

/* Session states; a probe handler only runs in the state it belongs to. */
enum utap_state {
	UTAP_LOADED,
	UTAP_STARTING,	/* begin probes */
	UTAP_RUNNING,	/* every other probe */
	UTAP_STOPPING,	/* end probes */
	UTAP_ERROR,	/* error probes: errors went past MAXERRORS, end probes are skipped */
	UTAP_STOPPED,
};

/* A user backtrace, walked at most once per probe hit (runtime/unwind/ucontext.c). */
struct utap_ustack {
	bool valid;
	u8 state;			/* enum utap_ustate */
	u32 nr;
	u64 pcs[MAXBACKTRACE];
	u8 flags[MAXBACKTRACE];		/* UW_FRAME_* */
};

/*
 * A kernel backtrace (runtime/unwind/kcontext.c). In the context, not in
 * static per-CPU data: modules share a few kilobytes of that, too little
 * for a deep MAXBACKTRACE.
 */
struct utap_kstack {
	u32 nr;
	bool none;		/* no kernel context: a probe that fired in user mode */
	u64 pcs[MAXBACKTRACE];
};

/*
 * Per-CPU probe context: stap's model. Locals live here, not on the small
 * kernel stack, one frame per call depth; a probe that fires while the
 * context is busy (a nested probe on the same CPU) is skipped and counted.
 */
struct utap_context {
	atomic_t busy;
	const struct utap_probe *probe;
	struct pt_regs *regs;		/* the probe's registers, or NULL */
	bool user_mode;			/* regs are user-mode registers */
	void *probe_data;		/* the family's per-hit data (e.g. a return instance) */
	bool pc_is_ra;			/* regs->ip is a return address (uretprobe) */
	struct utap_ustack ustack;
	struct utap_kstack kstack;	/* the last kernel walk on this CPU */
	int nesting;			/* function call depth */
	long actionremaining;		/* MAXACTION budget */
	const char *last_error;		/* set by a failing statement */
	const char *last_near;		/* "operator '/' at file:line:col" */
	bool aborted;			/* abort(): last_error unwinds, past catch, unreported */
	char error_buf[MAXSTRINGLEN];	/* for messages built at run time */
	char tok_buf[MAXSTRINGLEN];	/* tokenize(): the string being split */
	char str_buf[MAXSTRINGLEN];	/* a user string read to be quoted into a script string */
	char *tok_pos;
	struct utap_rx_last rx;		/* the last =~ / !~ (regex.stp) */
	u32 printlen;
	u32 nprints;
	char printbuf[UTAP_PRINTBUF];
	char frames[] __aligned(16);	/* (MAXNESTING + 1) frames of the script */
};

#include "kcore.h"

/* Hooks the generated code defines. */
UTAP_API int utap_gen_init(void);
UTAP_API void utap_gen_exit(void);
UTAP_API int utap_gen_register(void);
UTAP_API void utap_gen_unregister(void);
UTAP_API void utap_gen_begin(void);
UTAP_API void utap_gen_end(void);
UTAP_API size_t utap_gen_frames_size(void);	/* (MAXNESTING + 1) frames */

#define UTAP_ERROR(c, msg, near, label) do {		\
		(c)->last_error = (msg);		\
		(c)->last_near = (near);		\
		goto label;				\
	} while (0)

/* An error an embedded-C function raised is reported near its call, as stap's is. */
#define UTAP_CALL_FAILED(c, near, label) do {		\
		if (!(c)->last_near)			\
			(c)->last_near = (near);	\
		goto label;				\
	} while (0)

/*
 * One unit includes the whole core. The cached core is an archive of parts
 * (translator/kernel/kbuild.c), each compiled with its UTAP_CORE_PART_*, so
 * that a module links only those its script calls: a script without global
 * arrays or statistics has no map, statistics or globals code.
 */
#if !defined(UTAP_CORE_OBJECT) && !defined(UTAP_CORE_EXTERN)
#define UTAP_CORE_PART_FORMAT 1
#define UTAP_CORE_PART_STATS 1
#define UTAP_CORE_PART_MAP 1
#define UTAP_CORE_PART_BASE 1
#define UTAP_CORE_PART_GLOBALS 1
#endif
#ifdef UTAP_CORE_PART_FORMAT
#include "format.c"
#endif
#ifdef UTAP_CORE_PART_STATS
#include "stats.c"
#endif
#ifdef UTAP_CORE_PART_MAP
#include "map.c"
#endif
#ifdef UTAP_CORE_PART_BASE
#include "transport.c"
#include "context.c"
#include "print.c"
#endif
#ifdef UTAP_CORE_PART_GLOBALS
#include "globals.c"
#endif
#ifdef UTAP_CORE_PART_BASE
#include "control.c"
#endif

#endif /* UTAP_RUNTIME_H */
