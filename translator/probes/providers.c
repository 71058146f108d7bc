/* providers.c - every probe family, in the order points are matched. */
#include "sema/provider.h"

extern const struct provider provider_begin_end;
extern const struct provider provider_process_code;
extern const struct provider provider_process_mark;
extern const struct provider provider_process_lifecycle;
extern const struct provider provider_insn;
extern const struct provider provider_kprobe;
extern const struct provider provider_kernel_function;
extern const struct provider provider_timer;
extern const struct provider provider_perf;
extern const struct provider provider_tracepoint;
extern const struct provider provider_error;

const struct provider *const providers[] = {
	&provider_begin_end,
	&provider_process_code,
	&provider_process_mark,
	&provider_process_lifecycle,
	&provider_insn,
	&provider_kprobe,
	&provider_kernel_function,
	&provider_timer,
	&provider_perf,
	&provider_tracepoint,
	&provider_error,	/* after begin/end: error probes run after the end probes */
	NULL,
};
