# The syscall.* and nd_syscall.* aliases: generated from their table by our
# generator, checked in, regenerated when either changes.
tapsets/syscall_aliases.stp: tools/syscalls.tab tools/gen_syscalls.awk
	awk -f tools/gen_syscalls.awk tools/syscalls.tab > $@.tmp && mv $@.tmp $@

ALL_EXTRA += tapsets/syscall_aliases.stp
