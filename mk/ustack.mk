# User backtraces in the module (runtime/unwind/ucontext.c, utables.c,
# kcontext.c; translator/ustack.c, tables.c): variants of the target
# programs the guest tests (testsuite/vm/ustack/) and the bench use.

US_PROGS := $(B)/progs/chain-stripped $(B)/progs/chain-fp

# every symbol stripped: the frames are addresses, the .eh_frame stays
$(B)/progs/chain-stripped: $(B)/progs/chain
	strip --strip-all -o $@ $<

# the same program with frame pointers: the bench's frame-pointer walk
$(B)/progs/chain-fp: testsuite/progs/chain.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-omit-frame-pointer -o $@ $<

testsuite-progs: $(US_PROGS)
