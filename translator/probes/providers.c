/*
 * providers.c - every probe family, in one table (sema/provider.h says how
 * it is read). A point is matched by its first component here; where
 * several rows share one, the first whose provider's match() accepts the
 * rest of the point wins, in this order. Pass 3 writes each family's code
 * in the order of its first row.
 */
#include "probes/providers.h"

extern const struct provider provider_begin_end;
extern const struct provider provider_process_code;
extern const struct provider provider_process_mark;
extern const struct provider provider_process_plt;
extern const struct provider provider_process_lifecycle;
extern const struct provider provider_insn;
extern const struct provider provider_kprobe;
extern const struct provider provider_timer;
extern const struct provider provider_perf;
extern const struct provider provider_hwbkpt;
extern const struct provider provider_tracepoint;
extern const struct provider provider_syscall;
extern const struct provider provider_error;
extern const struct provider provider_procfs;
extern const struct provider provider_netfilter;

const struct probe_family probe_families[] = {
	/* first component	family				its match() takes */
	{ "begin",		&provider_begin_end },
	{ "end",		&provider_begin_end },
	{ "never",		&provider_begin_end },
	{ "process",		&provider_process_code },	/* .function .statement */
	{ "process",		&provider_process_mark },	/* .mark .provider */
	{ "process",		&provider_process_plt },	/* .plt */
	{ "process",		&provider_process_lifecycle },	/* .begin .end .thread */
	{ "process",		&provider_insn },		/* .insn */
	{ "__itrace_engine",	&provider_insn },
	{ "kprobe",		&provider_kprobe },
	{ "kernel",		&provider_kernel_function },	/* .function .statement */
	{ "module",		&provider_kernel_function },	/* .function */
	{ "timer",		&provider_timer },
	{ "perf",		&provider_perf },
	{ "procfs",		&provider_procfs },
	{ "netfilter",		&provider_netfilter },		/* .hook .pf */
	{ "kernel",		&provider_tracepoint },		/* .trace */
	{ "kernel",		&provider_hwbkpt },		/* .data */
	{ "__syscall",		&provider_syscall },		/* tapsets/syscalls.stp */
	/* after begin/end: its handlers follow the end probes' in the module's end hook */
	{ "error",		&provider_error },
	{ NULL },
};
