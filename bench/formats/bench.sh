#!/bin/sh
# bench/formats/bench.sh - make bench-formats: the trace formats' throughput.
#   1. user space: build/bench/formats (encoders, runner writers, reader)
#   2. the ptrace stepper (the alternative without utap) on the same machine
#   3. in a guest: the module-side fast paths (kbench.stp), every mode in one
#      boot, next to the step record alone and a script printf per step
# Usage: bench/formats/bench.sh [build]
set -e
B=${1:-build}
SRC=$(pwd)
echo "== user space"
"$B/bench/formats"
echo
echo "== ptrace single-stepping, build/fmt-ptrace (fmt_work 10000, whole program)"
for f in count callgrind; do
	"$B/fmt-ptrace" -f $f -o /tmp/utap-bench-fmt.$$ -- "$B/progs/fmt_work" 10000 2>&1 >/dev/null |
		awk -v f=$f '/^steps/ { printf "ptrace + %-9s  %8.2f M steps/s  (%d steps in %.2f s)\n", f, $2 / $10 / 1e6, $2, $10 }'
	rm -f /tmp/utap-bench-fmt.$$*
done
echo
echo "== in the module (guest), 500000 steps each; rates are the producer's"
W=$(mktemp -d "$SRC/$B/bench/fmtrun.XXXXXX")
trap 'rm -rf "$W"' EXIT
sed "s|@SRCDIR@|$SRC|" "$SRC/bench/formats/kbench.stp.in" > "$W/kbench.stp"
# script arguments are fixed at translation: one module per mode
for m in noop qtrace lackey raw16 raw1 printf; do
	(cd "$W" && "$SRC/$B/utap" --vm -p4 -g -DMAXACTION=100000000 -m utap_fmtbench_$m \
		kbench.stp $m 500000 /tmp/fb \
		> /dev/null)
done
cat > "$W/guest.sh" <<SH
cd $W
for m in noop qtrace lackey raw16 raw1 printf; do
	rm -rf /tmp/fb && mkdir -p /tmp/fb
	$SRC/$B/utap --run $W/utap_fmtbench_\$m.ko -g -s 64 | grep -a "steps .* ns" > $W/\$m.out
done
SH
"$SRC/$B/utap" --vm-exec --vm-share "$W" -- /bin/sh "$W/guest.sh" > /dev/null
for m in noop qtrace lackey raw16 raw1 printf; do
	awk '{ printf "%-8s %8.2f M steps/s  %7.1f ns/step  lost %d\n", $1, $2 / $4 * 1e3, $4 / $2, $6 }' "$W/$m.out"
done
echo "(the fast paths on real stepping, next to an empty .insn handler and a ptrace"
echo " loop in the same guest: make bench-itrace)"
