#!/bin/bash
# bench/run.sh - the spine's figures, each next to the alternative measured in the same run:
#   pass 1-4 of a trivial script and of a 300-line script vs kbuild of an empty module,
#   and a guest's boot-to-first-output vs its whole round trip.
# Usage: bench/run.sh [build/utap]
set -e
UTAP=${1:-build/utap}
KREL=$($UTAP --vm-check 2>/dev/null | sed -n 's/^kernel release: *//p' | head -1)
[ -n "$KREL" ] || KREL=$(ls /lib/modules | grep -- '-amd64$' | grep -v -- '-cloud-\|-rt-' | sort -V | tail -1)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# "WALL CPU": medians of three runs of a command, in seconds; CPU is user +
# system time of the command and its children, which a busy machine does not
# inflate the way it inflates wall-clock time
median3() {
	local TIMEFORMAT='%R %U %S' runs
	runs=$(for i in 1 2 3; do { time "$@" > /dev/null 2>&1; } 2>&1; done)
	echo "$(echo "$runs" | awk '{print $1}' | sort -n | sed -n 2p)" \
	     "$(echo "$runs" | awk '{print $2 + $3}' | sort -n | sed -n 2p)"
}
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }

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

trivial() { $UTAP --vm -p4 -m bench_trivial -e 'probe begin { printf("hello %s %d\n", "world", 6*7); exit() }'; }
big() { $UTAP --vm -p4 -m bench_big bench/scripts/big.stp; }
k=$(median3 kbuild)
t=$(median3 trivial)
b=$(median3 big)
rm -f bench_trivial.ko bench_big.ko
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  (wall-clock figures grow with it; CPU figures do not)"
printf "pass 1-4, trivial script:        %6.2f s wall, %5.2f s CPU  (kbuild of an empty module: %.2f s wall, %.2f s CPU; CPU ratio %.2fx)\n" \
	"$(wall "$t")" "$(cpu "$t")" "$(wall "$k")" "$(cpu "$k")" "$(echo "$(cpu "$t") / $(cpu "$k")" | bc -l)"
printf "pass 1-4, 300-line script:       %6.2f s wall, %5.2f s CPU  (CPU ratio to the empty module: %.2fx)\n" \
	"$(wall "$b")" "$(cpu "$b")" "$(echo "$(cpu "$b") / $(cpu "$k")" | bc -l)"

boot() { $UTAP --vm-exec -- /bin/true; }
run() { $UTAP --vm -e 'probe begin { printf("x\n"); exit() }'; }
g=$(median3 boot)
r=$(median3 run)
printf "guest: boot, run /bin/true, power off: %6.2f s wall\n" "$(wall "$g")"
printf "guest: hello script end to end:        %6.2f s wall  (%.2fx the bare guest round trip)\n" \
	"$(wall "$r")" "$(echo "$(wall "$r") / $(wall "$g")" | bc -l)"
