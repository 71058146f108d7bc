#!/bin/sh
# bench/ustack/run.sh - make bench-ustack: user backtraces, each figure next
# to the alternative measured in the same run.
#
# 1. One 10-frame user backtrace (MAXBACKTRACE=10) in a kprobe, in the
#    guest: the module's table walk on us_deep (built like Debian, no frame
#    pointers) next to a frame-pointer walk of the same depth on us_deep-fp
#    (the same program with frame pointers), each alone and with the hex
#    string ubacktrace() returns. Best (minimum) of 100 hits, each timing
#    200 repetitions. Under TCG (no KVM) the times are emulated ones.
# 2. The module for a libc-linked target with --ldd: its unwind tables next
#    to the raw .eh_frame + .eh_frame_hdr bytes they cover, its symbol
#    tables next to the names they hold as plain strings, and the module's
#    loaded size (text + data + bss, as size(1) counts them) for a uprobe
#    print_ubacktrace() script against the goal of 200 KB (200000 bytes).
#
# Usage: bench/ustack/run.sh BUILD_DIR (with utap, progs/chain and
# bench/us_deep{,-fp} built)
set -e
B=$(cd "${1:-build}" && pwd)
UTAP=$B/utap
HERE=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

walks() { # program -> lines "NAME frames=N min_ps=P avg_ps=Q hits=H"
	$UTAP --vm -g -DMAXBACKTRACE=10 -c "$1 100" "$HERE/walk.stp" 2> "$T/err" | grep ' min_ps=' ||
		{ cat "$T/err" >&2; exit 1; }
}
walks "$B/bench/us_deep" > "$T/nofp"
walks "$B/bench/us_deep-fp" > "$T/fp"
get() { sed -n "s/^$2 frames=\([0-9]*\) min_ps=\([0-9]*\) .*/\1 \2/p" "$1"; }
set -- $(get "$T/nofp" table) $(get "$T/nofp" ubacktrace) $(get "$T/fp" fp) $(get "$T/fp" fp+string)
[ $# = 8 ] || { echo "bench-ustack: missing walk figures" >&2; exit 1; }
echo "== one user backtrace in a kprobe, in the guest (best of 100 hits x 200)"
printf "table walk, us_deep (no frame pointers):  %2d frames %7.2f us  | frame-pointer walk, us_deep-fp: %2d frames %6.2f us | ratio %.2fx\n" \
	$1 $(echo "$2 / 1000000" | bc -l) $5 $(echo "$6 / 1000000" | bc -l) $(echo "$2 / $6" | bc -l)
printf "ubacktrace() (walk + hex string):         %2d frames %7.2f us  | frame-pointer walk + string:    %2d frames %6.2f us | ratio %.2fx\n" \
	$3 $(echo "$4 / 1000000" | bc -l) $7 $(echo "$8 / 1000000" | bc -l) $(echo "$4 / $8" | bc -l)

echo "== module size: chain with --ldd (chain, libc, ld.so)"
(cd "$T" && $UTAP --vm -p4 -vv --ldd -m us_size -c "$B/progs/chain" \
	-e 'probe kprobe.function("ksys_read") { if (pid() == target()) print_ubacktrace() }' \
	> /dev/null 2> tables.txt) || { cat "$T/tables.txt" >&2; exit 1; }
uw=$(sed -n 's/^Unwind table for .*: [0-9]* rows, \([0-9]*\) bytes .*/\1/p' "$T/tables.txt" | paste -sd+ | bc)
eh=$(sed -n 's/^Unwind table for .*(raw .eh_frame and .eh_frame_hdr: \([0-9]*\))$/\1/p' "$T/tables.txt" | paste -sd+ | bc)
sym=$(sed -n 's/^Symbol table for .*: \([0-9]*\) bytes$/\1/p' "$T/tables.txt" | paste -sd+ | bc)
alloc=0
for h in $(readelf -SW "$T/us_size.ko" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$7 ~ /A/ { print $5 }'); do
	alloc=$((alloc + 0x$h))
done
file=$(stat -c %s "$T/us_size.ko")
kp_loaded=$(size "$T/us_size.ko" | awk 'NR == 2 { print $1 + $2 + $3 }')
(cd "$T" && $UTAP --vm -p4 --ldd -m us_usize -c "$B/progs/chain" \
	-e 'probe process.function("main") { print_ubacktrace() }' > /dev/null 2> uerr.txt) ||
	{ cat "$T/uerr.txt" >&2; exit 1; }
set -- $(size "$T/us_usize.ko" | awk 'NR == 2 { print $1, $2, $3, $1 + $2 + $3 }')
# the names as plain NUL-terminated strings, what version 1 tables stored
names=0
for f in $(sed -n 's/^Symbol table for \(.*\): [0-9]* bytes$/\1/p' "$T/tables.txt"); do
	n=$("$B/symdump" -s "$f" | awk 'NF >= 3 { n += length($3) + 1 } END { print n + 0 }')
	names=$((names + n))
done
sed -n 's/^Unwind table for \(.*\): \([0-9]*\) rows, \([0-9]*\) bytes (raw .eh_frame and .eh_frame_hdr: \([0-9]*\))$/  \1: \2 rows, \3 bytes of table for \4 raw bytes/p' "$T/tables.txt"
printf "unwind tables: %d bytes for %d bytes of .eh_frame + .eh_frame_hdr (ratio %.2fx)\n" "$uw" "$eh" "$(echo "$uw / $eh" | bc -l)"
printf "symbol tables: %d bytes (their names alone as plain strings: %d bytes)\n" "$sym" "$names"
printf "module (kprobe script): %d bytes loaded (text+data+bss), %d in allocated sections, %d on disk with debug info\n" \
	"$kp_loaded" "$alloc" "$file"
printf "module (uprobe print_ubacktrace script): text %d + data %d + bss %d = %d bytes loaded | goal 200000 | %s\n" \
	"$1" "$2" "$3" "$4" "$([ "$4" -le 200000 ] && echo met || echo missed)"
