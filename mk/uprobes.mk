# User-space probes: process(...).function/.statement/.mark, process
# lifecycle probes, DWARF target variables and SDT notes in the translator;
# their module runtime lives in runtime/probes/.
UTAP_SRCS += translator/probes/process.c translator/probes/process_bin.c \
	translator/probes/uprobe.c translator/probes/uvars.c translator/probes/sdt.c translator/elf/dwarf_vars.c \
	translator/elf/sdt.c translator/probes/process_lifecycle.c

# Variants of the uprobe test program: a non-PIE executable, and a
# stripped one whose functions are left only in .dynsym (-rdynamic).
UPROBE_PROGS := $(B)/progs/u_params-nopie $(B)/progs/u_params-stripped

$(B)/progs/u_params-nopie: testsuite/progs/u_params.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-pie -no-pie -o $@ $<

$(B)/progs/u_params-stripped: testsuite/progs/u_params.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -rdynamic -o $@.tmp $<
	strip --strip-all -o $@ $@.tmp
	rm -f $@.tmp

testsuite-progs: $(UPROBE_PROGS)
