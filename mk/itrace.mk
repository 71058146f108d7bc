# Instruction tracing: the stepping engine (runtime/itrace/, compiled into
# modules), its pure core's unit test, and the insn probe provider.

ITRACE_CORE := runtime/itrace/tracker.c $(INSN_SRCS)

UNIT_TESTS += test_itrace
test_itrace_SRCS := testsuite/unit/test_itrace.c $(ITRACE_CORE)
$(B)/unit/test_itrace: $(wildcard runtime/itrace/*.h runtime/arch/x86_64/*.h)

UTAP_SRCS += translator/probes/insn.c

# The independent counter of the guest tests decodes lengths with Capstone.
$(B)/progs/it_ptrace_count: testsuite/progs/it_ptrace_count.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lcapstone

# make bench: traced steps per second next to a ptrace PTRACE_SINGLESTEP loop, in one guest
.PHONY: bench-itrace
bench: bench-itrace
bench-itrace: all testsuite-progs
	bench/itrace/bench.sh $(B)/utap
