# utap — top-level build.
#
#   make            build utap and the guest init (build/)
#   make deps       install every Debian package the build, the demo and the tests need
#   make demo       run real scripts in a throwaway QEMU guest (stacks, a trace, profiles)
#   make check      unit tests (sanitizers) + guest tests; prints "N passed, M failed, K skipped"
#   make bench      measurements, printed as ratios against the alternative
#   make install    PREFIX=/usr/local DESTDIR=
#
# Each component adds its sources and tests in mk/*.mk so parts can grow apart.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= gcc
B       := build

WARN     := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
CFLAGS_UTAP := $(CSTD) $(WARN) $(OPT) -Itranslator -Iruntime
LIBS_UTAP   := -ldw -lelf -liberty -llzma -lz -lpthread

# Unit tests and fuzzers compile the runtime's pure core in user space.
SAN          := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CFLAGS_UNIT  := $(CSTD) $(WARN) -O1 -g $(SAN) -Iruntime -Itranslator -Itestsuite/unit
FUZZ_CC      := clang
CFLAGS_FUZZ  := $(CSTD) -O1 -g -fsanitize=fuzzer,address,undefined -Iruntime -Itranslator

UTAP_SRCS   :=
# the base files that need nothing else (one hash, one file reader): any part may link them
BASE_LIB_SRCS := translator/base/hash.c translator/base/file.c
UNIT_TESTS  :=
FUZZERS     :=
ALL_EXTRA   :=

# `make` alone builds everything (the fragments define targets of their own first)
.DEFAULT_GOAL := all

include $(sort $(wildcard mk/*.mk))

.PHONY: all deps demo check check-unit check-vm bench install clean fuzz
all: $(B)/utap $(ALL_EXTRA)

UTAP_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(UTAP_SRCS))

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -MMD -MP -c -o $@ $<

$(B)/utap: $(UTAP_OBJS)
	$(CC) $(OPT) -o $@ $^ $(LIBS_UTAP)

-include $(UTAP_OBJS:.o=.d)

# unit test NAME is built from $(NAME_SRCS) (plus $(NAME_LIBS)) into build/unit/NAME
define unit_template
$(B)/unit/$(1): $$($(1)_SRCS) $$(wildcard testsuite/unit/*.h)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_UNIT) $$($(1)_CFLAGS) -o $$@ $$($(1)_SRCS) $$($(1)_LIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_template,$(t))))

define fuzz_template
$(B)/fuzz/$(1): $$($(1)_SRCS)
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(CFLAGS_FUZZ) $$($(1)_CFLAGS) -o $$@ $$($(1)_SRCS) $$($(1)_LIBS)
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_template,$(f))))

UNIT_BINS := $(addprefix $(B)/unit/,$(UNIT_TESTS))
FUZZ_BINS := $(addprefix $(B)/fuzz/,$(FUZZERS))

# Debian packages: one idempotent step for build, demo and tests.
DEB_PKGS := build-essential gcc g++ make bc libelf-dev libdw-dev libiberty-dev liblzma-dev zlib1g-dev \
	linux-image-amd64 linux-headers-amd64 linux-headers-cloud-amd64 linux-headers-rt-amd64 \
	qemu-system-x86 util-linux kmod libc6-dbg golang-go protobuf-compiler \
	clang libclang-rt-14-dev llvm libcapstone-dev qemu-user valgrind lcov gdb strace \
	groff-base man-db libxml2-utils nodejs \
	python3.11 libpython3.11 python3.11-dev libpython3.11-dev

deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "utap: installing:" $$missing; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
		{ DEBIAN_FRONTEND=noninteractive apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	else echo "utap: all build and test dependencies are installed"; fi
	@$(MAKE) --no-print-directory deps-npm

FUZZ_SECONDS ?= 10
ONLY ?=
VMWORK ?=

# Everything: unit tests under sanitizers, short fuzz runs, guest tests in one boot.
# The build runs on every core unless the caller chose its own -j.
BUILD_JOBS = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(shell nproc))

check: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(UNIT_BINS) $(FUZZ_BINS) testsuite-progs
	@$(B)/testrunner --utap $(B)/utap --unit "$(UNIT_BINS)" --fuzz "$(FUZZ_BINS)" \
		--fuzz-seconds $(FUZZ_SECONDS) --vm-dir testsuite/vm $(if $(ONLY),--only '$(ONLY)') \
		--scripts "$(CHECK_SCRIPTS)" $(if $(VMWORK),--work '$(VMWORK)')

# Test scripts that print their own ok/FAIL lines (the --vm machinery's own
# checks, and the host checks of mk fragments: HOST_CHECKS)
CHECK_SCRIPTS := $(HOST_CHECKS) testsuite/vm-infra/run.sh testsuite/vm-infra/host-runs.sh

# Only the guest tests (ONLY=glob selects some), or only the user-space ones.
check-vm: all testsuite-progs
	@$(B)/testrunner --utap $(B)/utap --vm-dir testsuite/vm $(if $(ONLY),--only '$(ONLY)') \
		$(if $(VMWORK),--work '$(VMWORK)')

check-unit: all $(UNIT_BINS) $(FUZZ_BINS)
	@$(B)/testrunner --utap $(B)/utap --unit "$(UNIT_BINS)" --fuzz "$(FUZZ_BINS)" \
		--fuzz-seconds $(FUZZ_SECONDS) --scripts "$(HOST_CHECKS)"

fuzz: $(FUZZ_BINS)

# Measurements, each printed next to the alternative measured in the same run.
# (each component adds "bench: bench-NAME" in its mk fragment)
bench: all
	@bench/run.sh $(B)/utap

# A real script, in a throwaway guest.
demo: deps
	@$(MAKE) --no-print-directory all testsuite-progs
	$(B)/utap --vm --ldd examples/read-stacks.stp -c 'ls -l /usr/lib'
	$(B)/utap --vm examples/insn-trace-call.stp /usr/lib/x86_64-linux-gnu/libc.so.6 getenv -c 'ls /'
	$(B)/utap --vm --ldd examples/profile-pprof.stp -c '$(B)/progs/ex_work cpu 1' -o $(B)/demo.pb.gz
	go tool pprof -top -nodecount=12 $(B)/demo.pb.gz
	$(B)/utap --vm --ldd -DMAXSTRINGLEN=4096 -DMAXBACKTRACE=64 examples/profile-python.stp \
		-c '/usr/bin/python3.11 -m tabnanny /usr/lib/python3.11/email' -o $(B)/demo-py.pb.gz
	go tool pprof -top -nodecount=12 $(B)/demo-py.pb.gz


clean:
	rm -rf $(B)

-include $(UNIT_BINS:=.d)
