# The syscall.* and nd_syscall.* aliases: generated from their table by our
# generator, checked in, regenerated when either changes.
tapsets/syscall_aliases.stp: tools/syscalls.tab tools/gen_syscalls.awk
	awk -f tools/gen_syscalls.awk tools/syscalls.tab > $@.tmp && mv $@.tmp $@

ALL_EXTRA += tapsets/syscall_aliases.stp

# make bench-syscall: pass 1-4 of `probe syscall.*` and its arming in the
# guest, next to a trivial script's, and stap 4.8's -p4 where it builds
.PHONY: bench-syscall
bench: bench-syscall
bench-syscall: all
	bench/syscall/run.sh $(B)/utap
