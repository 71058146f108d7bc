# Kernel probe families (kprobe, kernel.function, timer, perf, tracepoints,
# the syscall tracepoint pair, error, procfs) and the target kernel's symbol list.
UTAP_SRCS += translator/kernel/ksyms.c translator/probes/kprobe.c translator/probes/kernel_function.c \
	translator/probes/timer.c translator/probes/perf.c translator/probes/hwbkpt.c translator/probes/error_probe.c translator/probes/procfs.c translator/probes/netfilter.c \
	translator/probes/tracepoint.c translator/probes/tphdr.c translator/probes/cparams.c \
	translator/kernel/kbtf.c translator/probes/btfvars.c translator/probes/btf_pretty.c translator/probes/syscall.c

# The translate-time parsers: kallsyms and the kprobe blacklist, C parameter
# lists, trace headers.
UNIT_TESTS += test_kprobes
test_kprobes_SRCS := testsuite/unit/test_kprobes.c translator/kernel/ksyms.c translator/probes/cparams.c \
	translator/probes/tphdr.c translator/base/arena.c translator/base/strbuf.c translator/base/diag.c \
	translator/base/util.c $(BASE_LIB_SRCS) translator/kernel/kbtf.c
test_kprobes_LIBS := -lelf

# The BTF reader, a kernel's and a module's split on it, on arbitrary bytes.
FUZZERS += fuzz_btf
fuzz_btf_SRCS := testsuite/fuzz/fuzz_btf.c translator/kernel/kbtf.c translator/kernel/ksyms.c \
	translator/base/arena.c translator/base/strbuf.c translator/base/diag.c translator/base/util.c \
	$(BASE_LIB_SRCS)
fuzz_btf_LIBS := -lelf
