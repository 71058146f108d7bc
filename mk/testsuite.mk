# The test suite: its driver, the target programs guest tests trace.
TESTRUNNER := $(B)/testrunner
ALL_EXTRA += $(TESTRUNNER)

$(TESTRUNNER): testsuite/runner.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ $<

# Target programs are built the way Debian builds packages: -O2 -g, no frame pointers.
PROG_CFLAGS := -O2 -g -pthread
PROGS_C   := $(wildcard testsuite/progs/*.c)
PROGS_CXX := $(wildcard testsuite/progs/*.cc)
PROGS := $(patsubst testsuite/progs/%.c,$(B)/progs/%,$(PROGS_C)) \
	 $(patsubst testsuite/progs/%.cc,$(B)/progs/%,$(PROGS_CXX))

# u_levels.c is built at each optimization level a user picks (-O0, the
# tutorials' default, first): where probes sit and parameters live differs.
LEVEL_PROGS := $(foreach o,O0 O1 O2 Og,$(B)/progs/u_levels-$(o))
PROGS := $(filter-out $(B)/progs/u_levels,$(PROGS)) $(LEVEL_PROGS)

$(B)/progs/u_levels-%: testsuite/progs/u_levels.c
	@mkdir -p $(dir $@)
	$(CC) -$* -g -o $@ $<

# u_inline.c at -O0 too: only there do labels and inlined parameters keep their
# places; u_pretty.c too, where every parameter is in memory at the probe.
PROGS += $(B)/progs/u_inline-O0 $(B)/progs/u_pretty-O0 $(B)/progs/u_guru-O0

# u_callee.c at -O0 (no call sites) and with DWARF 4's GNU call sites too.
PROGS += $(B)/progs/u_callee-O0 $(B)/progs/u_callee-dwarf4
$(B)/progs/%-dwarf4: testsuite/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -gdwarf-4 -o $@ $<
$(B)/progs/%-O0: testsuite/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -o $@ $<

# 32-bit tasks without a C library (works without gcc-multilib): user
# backtraces (us_c32) and the syscall tapset (k_c32, k_c32x) of ia32 tasks
C32_PROGS := $(B)/progs/us_c32 $(B)/progs/k_c32 $(B)/progs/k_c32x
$(C32_PROGS): $(B)/progs/%: testsuite/progs/%.c testsuite/progs/c32_syscall.h
	@mkdir -p $(dir $@)
	$(CC) -m32 -O2 -g -nostdlib -static -fno-pie -no-pie -o $@ $<

# NAME.so.c is a shared library (for dlopen tests)
$(B)/progs/%.so: testsuite/progs/%.so.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<

$(B)/progs/%: testsuite/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl

$(B)/progs/%: testsuite/progs/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(PROG_CFLAGS) -o $@ $< -ldl

# Programs that cannot start, as users make them by accident: an ELF file cut
# short by an interrupted copy, and one without its execute bit.
BAD_PROGS := $(B)/progs/bad_truncated $(B)/progs/bad_noexec
$(B)/progs/bad_truncated: $(B)/progs/chain
	head -c 4096 $< > $@
	chmod 755 $@
$(B)/progs/bad_noexec: $(B)/progs/chain
	cp $< $@
	chmod 644 $@

.PHONY: testsuite-progs
testsuite-progs: $(PROGS) $(BAD_PROGS)
