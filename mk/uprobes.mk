# User-space probes: process(...).function/.statement/.mark, process
# lifecycle probes, DWARF target variables and SDT notes in the translator;
# their module runtime lives in runtime/probes/.
UTAP_SRCS += translator/probes/process.c translator/probes/process_bin.c \
	translator/probes/uprobe.c translator/probes/uprobe_plt.c translator/probes/uvars.c translator/probes/sdt.c translator/probes/dwarf_vars.c translator/probes/dwarf_inline.c translator/probes/dwarf_pretty.c translator/probes/cast_header.c \
	translator/probes/sdt_notes.c translator/probes/process_lifecycle.c translator/probes/cxxname.c \
	translator/probes/dwarf_names.c

# Variants of the uprobe test programs: a non-PIE executable, a stripped
# one whose functions are left only in .dynsym (-rdynamic), and a C++ one
# without DWARF: exported functions in .dynsym (-rdynamic), the file's
# own in minidebuginfo.
UPROBE_PROGS := $(B)/progs/u_params-nopie $(B)/progs/u_params-stripped $(B)/progs/u_cxx-mini \
	$(B)/progs/u_globals-nopie

$(B)/progs/u_params-nopie: testsuite/progs/u_params.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-pie -no-pie -o $@ $<

$(B)/progs/u_globals-nopie: testsuite/progs/u_globals.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-pie -no-pie -o $@ $<

$(B)/progs/u_params-stripped: testsuite/progs/u_params.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -rdynamic -o $@.tmp $<
	strip --strip-all -o $@ $@.tmp
	rm -f $@.tmp

$(B)/progs/u_cxx-mini: testsuite/progs/u_cxx.cc
	@mkdir -p $(dir $@)
	$(CXX) $(PROG_CFLAGS) -rdynamic -o $@.full $<
	$(call minidebuginfo,$@.full,$@)
	rm -f $@.full

testsuite-progs: $(UPROBE_PROGS)

# C++ names: demangling and matching patterns by components.
UNIT_TESTS += test_cxxname
test_cxxname_SRCS := testsuite/unit/test_cxxname.c translator/probes/cxxname.c translator/base/arena.c \
	translator/base/strbuf.c translator/base/diag.c
test_cxxname_LIBS := -liberty
