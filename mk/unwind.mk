# User-space unwinder: table format, pure runtime core, builder, tests.
#
#   runtime/unwind/uwtab*   table validation and lookup (pure core)
#   runtime/unwind/uwstep*  register state, one step, the walk (pure core)
#   translator/elf/uw*      table builder (libelf/libdw)
#   build/uwdump            dev tool: dump a file's table and stats

UW_RT_SRCS    := runtime/unwind/uwtab.c runtime/unwind/uwstep.c
UW_BUILD_SRCS := translator/elf/uwbuild.c translator/elf/uwcfi.c translator/elf/uwclass.c \
		 translator/elf/uwscan.c

# the builder finds separate debuginfo through translator/elf/debuginfo.c
# (mk/sym.mk links it into utap; add it only if nobody did)
UW_DEP_SRCS   := translator/elf/debuginfo.c
UTAP_SRCS += $(UW_BUILD_SRCS) runtime/unwind/uwtab.c $(filter-out $(UTAP_SRCS),$(UW_DEP_SRCS))
ALL_EXTRA += $(B)/uwdump

$(B)/uwdump: tools/uwdump.c $(UW_BUILD_SRCS) $(UW_DEP_SRCS) $(UW_RT_SRCS) \
		$(wildcard translator/elf/uw*.h runtime/unwind/uw*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -o $@ tools/uwdump.c $(UW_BUILD_SRCS) $(UW_DEP_SRCS) $(UW_RT_SRCS) $(LIBS_UTAP)

# Capture targets, built like Debian builds C: -O2 -g, no frame pointers.
UWP     := $(B)/uwprogs
UWP_DIR := testsuite/unit/uwprogs
UWP_CAP := $(UWP)/uwcap.o $(UWP)/uwcap_asm.o
UWPROGS := $(UWP)/uwp_c $(UWP)/uwp_c_fp $(UWP)/uwp_c_nopie $(UWP)/uwp_c_stripped \
	   $(UWP)/uwp_cxx $(UWP)/uwp_dfonly $(UWP)/uwp_c_noplt $(UWP)/uwp_dfsplit
UWP_CFLAGS := -O2 -g

$(UWP)/uwcap.o: $(UWP_DIR)/uwcap.c $(UWP_DIR)/uwcap.h
	@mkdir -p $(dir $@)
	$(CC) $(UWP_CFLAGS) -c -o $@ $<

$(UWP)/uwcap_asm.o: $(UWP_DIR)/uwcap_asm.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

$(UWP)/uwp_c: $(UWP_DIR)/uwp_c.c $(UWP_CAP) $(UWP_DIR)/uwp_sigstub.S
	$(CC) $(UWP_CFLAGS) -o $@ $< $(UWP_CAP) $(UWP_DIR)/uwp_sigstub.S -pthread

$(UWP)/uwp_c_fp: $(UWP_DIR)/uwp_c.c $(UWP_CAP)
	$(CC) $(UWP_CFLAGS) -fno-omit-frame-pointer -o $@ $< $(UWP_CAP) -pthread

$(UWP)/uwp_c_nopie: $(UWP_DIR)/uwp_c.c $(UWP_CAP)
	$(CC) $(UWP_CFLAGS) -fno-pie -no-pie -o $@ $< $(UWP_CAP) -pthread

# the linker's PLT without CFI: the builder must supply the PLT rules
$(UWP)/uwp_c_noplt: $(UWP_DIR)/uwp_c.c $(UWP_CAP)
	$(CC) $(UWP_CFLAGS) -Wl,--no-ld-generated-unwind-info -o $@ $< $(UWP_CAP) -pthread

$(UWP)/uwp_c_stripped: $(UWP)/uwp_c
	strip -o $@ $<

$(UWP)/uwp_cxx: $(UWP_DIR)/uwp_cxx.cc $(UWP_CAP)
	$(CXX) $(UWP_CFLAGS) -o $@ $< $(UWP_CAP)

# CFI only in .debug_frame (never run, only read)
$(UWP)/uwp_dfonly: $(UWP_DIR)/uwp_c.c $(UWP_CAP)
	$(CC) $(UWP_CFLAGS) -fno-asynchronous-unwind-tables -o $@.tmp $< $(UWP_CAP) -pthread
	objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr $@.tmp $@ 2>/dev/null
	rm -f $@.tmp

# the same with its .debug_frame moved to a separate debuginfo file
$(UWP)/uwp_dfsplit: $(UWP)/uwp_dfonly
	objcopy --only-keep-debug $< $@.debug
	objcopy --strip-debug $< $@

UW_TEST_SRCS := $(UW_BUILD_SRCS) $(UW_DEP_SRCS) $(UW_RT_SRCS)
UW_LIBS      := -ldw -lelf -llzma -lz

UNIT_TESTS += test_uwtab test_uwstep test_uwbuild test_uwcapture
test_uwtab_SRCS     := testsuite/unit/test_uwtab.c $(UW_TEST_SRCS)
test_uwtab_LIBS     := $(UW_LIBS)
test_uwstep_SRCS    := testsuite/unit/test_uwstep.c $(UW_RT_SRCS)
test_uwbuild_SRCS   := testsuite/unit/test_uwbuild.c $(UWP_DIR)/uwsnap.c $(UW_TEST_SRCS)
test_uwbuild_LIBS   := $(UW_LIBS)
test_uwbuild_CFLAGS := -DUW_SRCDIR='"$(CURDIR)"'
test_uwcapture_SRCS := testsuite/unit/test_uwcapture.c $(UWP_DIR)/uwsnap.c $(UW_TEST_SRCS)
test_uwcapture_LIBS := $(UW_LIBS)

$(B)/unit/test_uwbuild $(B)/unit/test_uwcapture: $(UWPROGS) $(wildcard $(UWP_DIR)/*.h)

FUZZERS += fuzz_uwbuild fuzz_uwtab fuzz_uwwalk
fuzz_uwbuild_SRCS := testsuite/fuzz/fuzz_uwbuild.c $(UW_BUILD_SRCS) $(UW_DEP_SRCS) runtime/unwind/uwtab.c
fuzz_uwbuild_LIBS := $(UW_LIBS)
fuzz_uwtab_SRCS   := testsuite/fuzz/fuzz_uwtab.c runtime/unwind/uwtab.c
fuzz_uwwalk_SRCS  := testsuite/fuzz/fuzz_uwwalk.c $(UW_RT_SRCS)
fuzz_uwwalk_CFLAGS := -Itestsuite/unit

# make bench-unwind: table build cost and size, ns/frame of the runtime walk
.PHONY: bench-unwind
bench: bench-unwind
bench-unwind: $(B)/bench/uwbench $(UWPROGS)
	$(B)/bench/uwbench

$(B)/bench/uwbench: bench/unwind/uwbench.c $(UWP_DIR)/uwsnap.c $(UW_BUILD_SRCS) $(UW_DEP_SRCS) $(UW_RT_SRCS) \
		$(wildcard translator/elf/uw*.h runtime/unwind/uw*.h $(UWP_DIR)/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -Itestsuite/unit -o $@ bench/unwind/uwbench.c $(UWP_DIR)/uwsnap.c \
		$(UW_BUILD_SRCS) $(UW_DEP_SRCS) $(UW_RT_SRCS) $(LIBS_UTAP)
