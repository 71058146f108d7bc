# User backtraces in the module (runtime/unwind/ucontext.c, utables.c,
# kcontext.c; translator/codegen/ustack.c, runner/tables.c): variants of the target
# programs the guest tests (testsuite/vm/ustack/) and the bench use.

US_PROGS := $(B)/progs/chain-stripped $(B)/progs/chain-notab $(B)/progs/us_twin2

# every symbol stripped: the frames are addresses, the .eh_frame stays
$(B)/progs/chain-stripped: $(B)/progs/chain
	strip --strip-all -o $@ $<

# no CFI at all (no .eh_frame, no .debug_frame): frames without tables
$(B)/progs/chain-notab: testsuite/progs/chain.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -g0 -fno-asynchronous-unwind-tables -fno-unwind-tables -o $@.tmp $<
	objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr $@.tmp $@
	rm -f $@.tmp

# us_twin with the other frame in hop(): the same addresses, other rules
$(B)/progs/us_twin2: testsuite/progs/us_twin.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -DTWIN=2 -o $@ $< -ldl

testsuite-progs: $(US_PROGS)

# make bench-ustack: a 10-frame user backtrace against a frame-pointer walk
# in the guest, and the module's table bytes against the raw .eh_frame
.PHONY: bench-ustack
bench: bench-ustack
bench-ustack: all $(B)/progs/chain $(B)/bench/us_deep $(B)/bench/us_deep-fp
	bench/ustack/run.sh $(B)

$(B)/bench/us_deep: bench/ustack/us_deep.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<

$(B)/bench/us_deep-fp: bench/ustack/us_deep.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-omit-frame-pointer -o $@ $<
