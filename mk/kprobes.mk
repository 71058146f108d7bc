# Kernel probe families (kprobe, kernel.function, timer, perf, tracepoints,
# error) and the target kernel's symbol list.
UTAP_SRCS += translator/ksyms.c translator/probes/kprobe.c translator/probes/kernel_function.c \
	translator/probes/timer.c translator/probes/perf.c translator/probes/error_probe.c \
	translator/probes/tracepoint.c translator/probes/tphdr.c translator/probes/cparams.c
