# x86-64 instruction decoder (runtime/arch/x86_64): pure core, tests, fuzzer, bench.

INSN_SRCS := runtime/arch/x86_64/insn.c runtime/arch/x86_64/insn_tables.c

UNIT_TESTS += test_insn test_insn_corpus
test_insn_SRCS := testsuite/unit/test_insn.c $(INSN_SRCS)
test_insn_corpus_SRCS := testsuite/unit/test_insn_corpus.c $(INSN_SRCS)
test_insn_corpus_LIBS := -lcapstone -lelf

FUZZERS += fuzz_insn
fuzz_insn_SRCS := testsuite/fuzz/fuzz_insn.c $(INSN_SRCS)

ALL_EXTRA += $(B)/bench/insn
$(B)/bench/insn: bench/insn/bench_insn.c $(INSN_SRCS) runtime/arch/x86_64/insn.h runtime/arch/x86_64/insn_tables.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -Iruntime -o $@ bench/insn/bench_insn.c $(INSN_SRCS) -lelf -lcapstone

# make bench: decode throughput next to Capstone on the same bytes
.PHONY: bench-insn
bench: bench-insn
bench-insn: $(B)/bench/insn
	$(B)/bench/insn
