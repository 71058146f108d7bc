# Symbols and line tables: ELF readers in the translator, lookup and
# SystemTap-exact formatting in the runtime's pure core.
#
#   translator/elf/debuginfo.c  build-id, separate debuginfo, minidebuginfo
#   translator/elf/sym*.c       symbol and line table builders
#   runtime/unwind/sym.c        validate, look up, format (pure core)
#   testsuite/unit/symprogs/    target programs, built below in several shapes

# plt.c names PLT stubs with the x86-64 decoder
SYM_BUILD_SRCS := translator/elf/debuginfo.c translator/elf/symtab.c \
	translator/elf/symline.c translator/elf/symbuild.c translator/elf/plt.c \
	runtime/arch/x86_64/insn.c runtime/arch/x86_64/insn_tables.c $(BASE_LIB_SRCS)
SYM_RT_SRCS    := runtime/unwind/sym.c
SYM_LIBS       := -ldw -lelf -llzma -lz

UTAP_SRCS += $(SYM_BUILD_SRCS) $(SYM_RT_SRCS)

# --- target programs for the tests -----------------------------------------
#
# chain-pie/-nopie/-dw4   -O2 -g executables (DWARF 5 PIE, non-PIE, DWARF 4 PIE)
# libsym.so               shared library with versioned symbols
# libsym-stripped.so      the same, .dynsym only
# chain-stripped          --strip-all: no symbols left but imports
# chain-mini              stripped + .gnu_debugdata (Fedora's recipe)
# chain-split             stripped, debuginfo under debugroot/.build-id/
# chain-link              no build-id, stripped, .gnu_debuglink to .debug/

SP     := $(B)/symprogs
SP_SRC := testsuite/unit/symprogs
SYMPROGS := $(SP)/chain-pie $(SP)/chain-nopie $(SP)/chain-dw4 $(SP)/libsym.so \
	$(SP)/libsym-stripped.so $(SP)/chain-stripped $(SP)/chain-mini \
	$(SP)/chain-split $(SP)/chain-link

.PHONY: symprogs
symprogs: $(SYMPROGS)

$(SP)/chain-pie: $(SP_SRC)/chain.c
	@mkdir -p $(dir $@)
	gcc -O2 -g -fPIE -pie -Wl,--build-id -o $@ $<

$(SP)/chain-nopie: $(SP_SRC)/chain.c
	@mkdir -p $(dir $@)
	gcc -O2 -g -fno-pie -no-pie -Wl,--build-id -o $@ $<

# compiled in its own directory: DWARF 4 then names the file in directory 0
$(SP)/chain-dw4: $(SP_SRC)/chain.c
	@mkdir -p $(dir $@)
	cd $(SP_SRC) && gcc -O2 -gdwarf-4 -fPIE -pie -Wl,--build-id -o $(abspath $@) chain.c

$(SP)/libsym.so: $(SP_SRC)/libsym.c $(SP_SRC)/libsym.map
	@mkdir -p $(dir $@)
	gcc -O2 -g -fPIC -shared -Wl,--build-id -Wl,--version-script=$(SP_SRC)/libsym.map \
		-o $@ $(SP_SRC)/libsym.c

$(SP)/libsym-stripped.so: $(SP)/libsym.so
	strip --strip-all -o $@ $<

$(SP)/chain-stripped: $(SP)/chain-pie
	strip --strip-all -o $@ $<

# Minidebuginfo the way Fedora's find-debuginfo makes it: $(call
# minidebuginfo,IN,OUT) strips IN into OUT and adds the function symbols
# .dynsym lacks, in an xz-compressed ELF inside .gnu_debugdata.
define minidebuginfo
	nm -D $(1) --format=posix --defined-only | awk '{ print $$1 }' | sort > $(2).dynsyms
	nm $(1) --format=posix --defined-only | \
		awk '{ if ($$2 == "T" || $$2 == "t" || $$2 == "D") print $$1 }' | sort > $(2).funcsyms
	comm -13 $(2).dynsyms $(2).funcsyms > $(2).keep
	objcopy --only-keep-debug $(1) $(2).debug
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols=$(2).keep $(2).debug $(2).mini
	strip --strip-all -R .comment -o $(2).tmp $(1)
	rm -f $(2).mini.xz && xz $(2).mini
	objcopy --add-section .gnu_debugdata=$(2).mini.xz $(2).tmp $(2)
	rm -f $(2).dynsyms $(2).funcsyms $(2).keep $(2).debug $(2).mini.xz $(2).tmp
endef

$(SP)/chain-mini: $(SP)/chain-pie
	$(call minidebuginfo,$<,$@)

# Separate debuginfo found by build-id under a private debug root.
$(SP)/chain-split: $(SP)/chain-pie
	id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); \
	dir=$(SP)/debugroot/.build-id/$$(echo $$id | cut -c1-2); \
	mkdir -p $$dir && \
	objcopy --only-keep-debug $< $$dir/$$(echo $$id | cut -c3-).debug && \
	strip --strip-all -o $@ $<

# Separate debuginfo found by .gnu_debuglink (no build-id to go by).
$(SP)/chain-link: $(SP_SRC)/chain.c
	@mkdir -p $(SP)/.debug
	gcc -O2 -g -fPIE -pie -Wl,--build-id=none -o $@.full $<
	objcopy --only-keep-debug $@.full $(SP)/.debug/chain-link.debug
	strip --strip-all -o $@.tmp $@.full
	cd $(SP) && objcopy --add-gnu-debuglink=.debug/chain-link.debug chain-link.tmp chain-link
	rm -f $@.full $@.tmp

# --- unit tests -------------------------------------------------------------

SYM_TEST_CFLAGS := -DSYMPROGS_DIR='"$(abspath $(SP))"' -DSYMPROGS_SRC='"$(abspath $(SP_SRC))"'

UNIT_TESTS += test_sym test_symtab test_symline
test_sym_SRCS := testsuite/unit/test_sym.c $(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
test_sym_LIBS := $(SYM_LIBS)
test_symtab_SRCS := testsuite/unit/test_symtab.c testsuite/unit/test_sym_lib.c \
	$(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
test_symtab_LIBS := $(SYM_LIBS)
test_symtab_CFLAGS := $(SYM_TEST_CFLAGS)
test_symline_SRCS := testsuite/unit/test_symline.c testsuite/unit/test_sym_lib.c \
	$(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
test_symline_LIBS := $(SYM_LIBS)
test_symline_CFLAGS := $(SYM_TEST_CFLAGS)

# the builder tests read the programs above
$(B)/unit/test_symtab $(B)/unit/test_symline: $(SYMPROGS) $(wildcard translator/elf/*.h runtime/unwind/sym*.h)
$(B)/unit/test_sym: $(wildcard translator/elf/*.h runtime/unwind/sym*.h)

# --- fuzzers ----------------------------------------------------------------

# seeds: build/symprogs binaries (fuzz_sym_build), their tables written by
# `build/symdump -o SYM -O LINE` (fuzz_sym_validate), their .debug_line
# sections (fuzz_sym_line)
FUZZERS += fuzz_sym_build fuzz_sym_line fuzz_sym_validate fuzz_sym_format
fuzz_sym_build_SRCS := testsuite/fuzz/fuzz_sym_build.c $(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
fuzz_sym_build_LIBS := $(SYM_LIBS)
fuzz_sym_line_SRCS := testsuite/fuzz/fuzz_sym_line.c $(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
fuzz_sym_line_LIBS := $(SYM_LIBS)
fuzz_sym_validate_SRCS := testsuite/fuzz/fuzz_sym_validate.c $(SYM_RT_SRCS)
fuzz_sym_format_SRCS := testsuite/fuzz/fuzz_sym_format.c $(SYM_RT_SRCS) $(SYM_BUILD_SRCS)
fuzz_sym_format_LIBS := $(SYM_LIBS)

# --- developer tool: build/symdump [-r ROOT] [-s] [-L] [-b] PATH [ADDR...] --

ALL_EXTRA += $(B)/symdump
$(B)/symdump: tools/symdump.c $(SYM_BUILD_SRCS) $(SYM_RT_SRCS) \
		$(wildcard translator/elf/sym*.h translator/elf/debuginfo.h runtime/unwind/sym*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_UTAP) -o $@ tools/symdump.c $(SYM_BUILD_SRCS) $(SYM_RT_SRCS) $(SYM_LIBS)
