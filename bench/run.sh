#!/bin/bash
# bench/run.sh - the spine's figures, each next to the alternative measured in the same run:
#   pass 1-4 of a trivial script and of a 300-line script vs kbuild of an empty module,
#   vs the same build as one unit (no cached core object, no precompiled headers), and
#   vs Debian's stap 4.8 where it builds for the kernel (its runtime copied with the
#   two-line task_work_cancel fix, here, never shipped); the first builds for a kernel
#   (empty caches); a guest's boot-to-first-output vs its whole round trip.
# Usage: bench/run.sh [build/utap]
set -e
UTAP=${1:-build/utap}
KREL=$($UTAP --vm-check 2>/dev/null | sed -n 's/^kernel release: *//p' | head -1)
[ -n "$KREL" ] || KREL=$(ls /lib/modules | grep -- '-amd64$' | grep -v -- '-cloud-\|-rt-' | sort -V | tail -1)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/stap-runtime.sh"

# "WALL CPU": medians of three runs of a command, in seconds; CPU is user +
# system time of the command and its children, which a busy machine does not
# inflate the way it inflates wall-clock time
median3() {
	local TIMEFORMAT='%R %U %S' runs
	runs=$(for i in 1 2 3; do { time "$@" > /dev/null 2>&1; } 2>&1; done)
	echo "$(echo "$runs" | awk '{print $1}' | sort -n | sed -n 2p)" \
	     "$(echo "$runs" | awk '{print $2 + $3}' | sort -n | sed -n 2p)"
}
median1() {
	local TIMEFORMAT='%R %U %S' r
	r=$({ time "$@" > /dev/null 2>&1; } 2>&1)
	echo "$(echo "$r" | awk '{print $1}')" "$(echo "$r" | awk '{print $2 + $3}')"
}
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }

# Debian's stap 4.8 on the same script, if it builds for this kernel with its
# runtime copied here and given the two-line task_work_cancel fix (6.1.y took
# 6.11's task_work_cancel; the old one is task_work_cancel_func): the script
# from its module cache, a script new to its cache, and an empty cache.
# Args: utap's build time, utap's first build for a kernel ("WALL CPU" each).
stap_bench() {
	local fix=$T/stap-runtime warm new cold
	if ! command -v stap > /dev/null; then
		echo "stap 4.8: not installed (apt-get install systemtap); no stap figures"
		return 0
	fi
	stap_runtime "$fix"
	stap1() { SYSTEMTAP_DIR=$1 stap -R "$fix" -r "$KREL" -p4 -e "$2"; }
	stap_new() { stap1 "$T/stap-warm" "probe begin { printf(\"hello %d\\n\", $(date +%N)); exit() }"; }
	if ! stap1 "$T/stap-warm" "$HELLO" > /dev/null 2> "$T/stap.err"; then
		echo "stap 4.8: does not build for $KREL ($(grep -m1 -i error "$T/stap.err")); no stap figures"
		return 0
	fi
	cold=$(median1 stap1 "$T/stap-cold" "$HELLO")
	warm=$(median3 stap1 "$T/stap-warm" "$HELLO")
	new=$(median3 stap_new)
	printf "stap 4.8, the same script from its module cache: %6.2f s wall  (utap, which builds it each time: %.2fx)\n" \
		"$(wall "$warm")" "$(ratio "$(wall "$1")" "$(wall "$warm")")"
	printf "stap 4.8, a script new to its cache:             %6.2f s wall  (utap: %.2fx)\n" \
		"$(wall "$new")" "$(ratio "$(wall "$1")" "$(wall "$new")")"
	printf "stap 4.8, empty cache:                           %6.2f s wall  (utap's first build for a kernel: %.2fx)\n" \
		"$(wall "$cold")" "$(ratio "$(wall "$2")" "$(wall "$cold")")"
}

cat > "$T/m.c" <<'C'
#include <linux/module.h>
static int __init m_init(void) { return 0; }
static void __exit m_exit(void) { }
module_init(m_init);
module_exit(m_exit);
MODULE_LICENSE("GPL");
C
echo 'obj-m := m.o' > "$T/Kbuild"
kbuild() { rm -f "$T"/*.o "$T"/*.ko; make -C /lib/modules/$KREL/build M=$T modules; }

# warm the caches utap keeps per kernel (feature tests, kbuild recipe)
$UTAP --vm -p4 -m bench_warm -e 'probe begin { exit() }' > /dev/null 2>&1 || true
rm -f bench_warm.ko

HELLO='probe begin { printf("hello %s %d\n", "world", 6*7); exit() }'
trivial() { $UTAP --vm -p4 -m bench_trivial -e "$HELLO"; }
one_unit() { UTAP_ONE_UNIT=1 $UTAP --vm -p4 -m bench_trivial -e "$HELLO"; }
big() { $UTAP --vm -p4 -m bench_big bench/scripts/big.stp; }
k=$(median3 kbuild)
t=$(median3 trivial)
u=$(median3 one_unit)
b=$(median3 big)
# the first builds for a kernel: feature tests and kbuild, then the core object
# and the precompiled headers (they are made beside that build's own compile)
first() { XDG_CACHE_HOME=$T/cold $UTAP --vm -p4 -m bench_trivial -e "$HELLO"; }
f1=$(median1 first)
f2=$(median1 first)
rm -f bench_trivial.ko bench_big.ko
ratio() { echo "$1 / $2" | bc -l; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  (wall-clock figures grow with it; CPU figures do not)"
printf "pass 1-4, trivial script:        %6.2f s wall, %5.2f s CPU  (kbuild of an empty module: %.2f s wall, %.2f s CPU; CPU ratio %.2fx)\n" \
	"$(wall "$t")" "$(cpu "$t")" "$(wall "$k")" "$(cpu "$k")" "$(ratio "$(cpu "$t")" "$(cpu "$k")")"
printf "  the same as one unit:          %6.2f s wall, %5.2f s CPU  (the cached core and headers: %.2fx its wall time)\n" \
	"$(wall "$u")" "$(cpu "$u")" "$(ratio "$(wall "$t")" "$(wall "$u")")"
printf "  first build for a kernel:      %6.2f s wall (feature tests, kbuild); second: %.2f s (core object, headers); then %.2f s\n" \
	"$(wall "$f1")" "$(wall "$f2")" "$(wall "$t")"
stap_bench "$t" "$f1"
printf "pass 1-4, 300-line script:       %6.2f s wall, %5.2f s CPU  (CPU ratio to the empty module: %.2fx)\n" \
	"$(wall "$b")" "$(cpu "$b")" "$(echo "$(cpu "$b") / $(cpu "$k")" | bc -l)"

boot() { $UTAP --vm-exec -- /bin/true; }
run() { $UTAP --vm -e 'probe begin { printf("x\n"); exit() }'; }
g=$(median3 boot)
r=$(median3 run)
printf "guest: boot, run /bin/true, power off: %6.2f s wall\n" "$(wall "$g")"
printf "guest: hello script end to end:        %6.2f s wall  (%.2fx the bare guest round trip)\n" \
	"$(wall "$r")" "$(echo "$(wall "$r") / $(wall "$g")" | bc -l)"
