# Trace output formats (issue 7).
#
#   runtime/formats/          pure-core streaming encoders (qtrace, lackey), also
#                             compiled into modules by runtime/formats/output.c
#   translator/runner/trace/  the runner's trace sink, the whole-run writers
#                             (drcov, callgrind, lcov) and the readers (qtrace, drcov)
#   tools/                    build/fmt-ptrace (a ptrace stepper that writes the
#                             formats: reference traces on the host), build/fmt-dump
#                             (the readers on the command line)
#   bench/formats/            build/bench/formats

FMT_RT_SRCS   := runtime/formats/qtrace.c runtime/formats/lackey.c runtime/formats/stream.c
FMT_RUN_SRCS  := translator/runner/trace/tout.c translator/runner/trace/tmod.c \
	translator/runner/trace/writers.c translator/runner/trace/drcov.c \
	translator/runner/trace/callgrind.c translator/runner/trace/lcov.c \
	translator/runner/trace/pprof.c translator/runner/trace/proto.c translator/runner/trace/tsample.c \
	runtime/unwind/pytext.c
FMT_READ_SRCS := translator/runner/trace/qtrace_read.c translator/runner/trace/drcov_read.c
# qtrace as qtrace-tools read it: the tests' independent reader (fmt-dump -t)
FMT_QTOOLS    := testsuite/unit/qtools_read.c
FMT_INSN_SRCS := runtime/arch/x86_64/insn.c runtime/arch/x86_64/insn_tables.c
FMT_SYM_SRCS  := translator/elf/debuginfo.c translator/elf/symtab.c translator/elf/symline.c \
	translator/elf/symbuild.c translator/elf/plt.c runtime/unwind/sym.c $(FMT_INSN_SRCS) \
	$(BASE_LIB_SRCS)
FMT_LIBS      := -ldw -lelf -llzma -lz
FMT_HDRS      := $(wildcard runtime/formats/*.h translator/runner/trace/*.h runtime/itrace/*.h) \
	testsuite/vm/formats/fmtrun.h testsuite/unit/qtools_read.h

# sink.c is listed in translator.mk; a source listed twice links once ($^)
UTAP_SRCS += $(FMT_RT_SRCS) $(FMT_RUN_SRCS) $(FMT_INSN_SRCS)

# sorted: each source once (the decoder is in two of these lists)
FMT_ALL_SRCS := $(sort $(FMT_RT_SRCS) $(FMT_RUN_SRCS) $(FMT_READ_SRCS) $(FMT_INSN_SRCS) $(FMT_SYM_SRCS))

# --- unit tests ---------------------------------------------------------------

UNIT_TESTS += test_fmt_stream
test_fmt_stream_SRCS := testsuite/unit/test_fmt_stream.c testsuite/unit/test_fmt_lib.c $(FMT_RT_SRCS) \
	translator/runner/trace/qtrace_read.c $(FMT_QTOOLS)
$(B)/unit/test_fmt_stream: $(FMT_HDRS)

UNIT_TESTS += test_fmt_writers
test_fmt_writers_SRCS := testsuite/unit/test_fmt_writers.c testsuite/unit/test_fmt_lib.c $(FMT_ALL_SRCS) \
	$(FMT_QTOOLS)
test_fmt_writers_LIBS := $(FMT_LIBS)
test_fmt_writers_CFLAGS := -DFMT_SRC_DIR='"$(abspath .)"'
test_fmt_stream_CFLAGS := -DFMT_SRC_DIR='"$(abspath .)"'
$(B)/unit/test_fmt_writers: $(FMT_HDRS) $(wildcard translator/elf/*.h runtime/unwind/sym*.h)

# the protobuf encoder and the pprof writer, read back by protoc and go tool pprof
UNIT_TESTS += test_pprof
test_pprof_SRCS := testsuite/unit/test_pprof.c testsuite/unit/test_fmt_lib.c $(FMT_ALL_SRCS) \
	$(FMT_QTOOLS)
test_pprof_LIBS := $(FMT_LIBS)
test_pprof_CFLAGS := -DFMT_SRC_DIR='"$(abspath .)"'
$(B)/unit/test_pprof: $(FMT_HDRS) $(wildcard translator/elf/*.h runtime/unwind/sym*.h)

# --- tools --------------------------------------------------------------------

ALL_EXTRA += $(B)/fmt-ptrace $(B)/fmt-dump
$(B)/fmt-ptrace: tools/fmt_ptrace.c $(FMT_ALL_SRCS) $(FMT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -o $@ tools/fmt_ptrace.c $(FMT_ALL_SRCS) $(FMT_LIBS)

$(B)/fmt-dump: tools/fmt_dump.c $(FMT_READ_SRCS) $(FMT_QTOOLS) $(FMT_SYM_SRCS) $(FMT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -Itestsuite/unit -o $@ tools/fmt_dump.c $(FMT_READ_SRCS) \
		$(FMT_QTOOLS) $(FMT_SYM_SRCS) $(FMT_LIBS)

# host-side end to end: build/fmt-ptrace against qemu-user and valgrind
UNIT_TESTS += test_fmt_e2e
test_fmt_e2e_SRCS := testsuite/unit/test_fmt_e2e.c testsuite/unit/test_fmt_lib.c $(FMT_READ_SRCS) \
	$(FMT_QTOOLS)
test_fmt_e2e_CFLAGS := -DFMT_BUILD_DIR='"$(abspath $(B))"' -DFMT_SRC_DIR='"$(abspath .)"'
$(B)/unit/test_fmt_e2e: $(FMT_HDRS) $(B)/fmt-ptrace $(B)/progs/fmt_work

# --- fuzzers ------------------------------------------------------------------

FUZZERS += fuzz_fmt_read fuzz_fmt_stream fuzz_fmt_tout
fuzz_fmt_read_SRCS := testsuite/fuzz/fuzz_fmt_read.c $(FMT_READ_SRCS) $(FMT_QTOOLS)
fuzz_fmt_read_CFLAGS := -Itestsuite/unit
fuzz_fmt_stream_SRCS := testsuite/fuzz/fuzz_fmt_stream.c $(FMT_RT_SRCS) translator/runner/trace/qtrace_read.c \
	$(FMT_QTOOLS)
fuzz_fmt_stream_CFLAGS := -Itestsuite/unit
fuzz_fmt_tout_SRCS := testsuite/fuzz/fuzz_fmt_tout.c $(FMT_ALL_SRCS)
fuzz_fmt_tout_LIBS := $(FMT_LIBS)
$(B)/fuzz/fuzz_fmt_read $(B)/fuzz/fuzz_fmt_stream $(B)/fuzz/fuzz_fmt_tout: $(FMT_HDRS)

# --- bench --------------------------------------------------------------------

ALL_EXTRA += $(B)/bench/formats
$(B)/bench/formats: bench/formats/bench_fmt.c $(FMT_ALL_SRCS) $(FMT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -o $@ bench/formats/bench_fmt.c $(FMT_ALL_SRCS) $(FMT_LIBS)

# make bench-formats: user-space encoders and writers, the ptrace stepper,
# and the module's fast paths in one guest boot
.PHONY: bench-formats
bench: bench-formats
bench-formats: all $(B)/progs/fmt_work
	bench/formats/bench.sh $(B)

# the assembled test program (testsuite/vm/formats/fmtprog.sh) for guest tests
testsuite-progs: $(B)/fmtprog/fmt
$(B)/fmtprog/fmt: testsuite/vm/formats/fmtprog.sh
	@mkdir -p $(dir $@)
	cd $(dir $@) && sh $(abspath $<)
