#!/bin/bash
# bench/syscall/run.sh - make bench-syscall: what `probe syscall.*` costs to
# build and to arm, next to a trivial script measured in the same run.
#
# 1. Pass 1-4 on the host (-p4 -r KREL), median of N runs (N=${RUNS:-5}):
#    wall and CPU time (user + system, children included) of the whole
#    command, each pass's wall time from -v, and the generated C's size, for
#    a trivial script, one alias with one of its variables (syscall.open's
#    filename), syscall.* with name and argstr, syscall.*.return with
#    retstr, and both at once.
# 2. Arming in the guest: `utap --run` of the modules built in 1, with a
#    begin probe that exits at once, so the run is load, registration,
#    unregistration and unload; median of N runs in one guest boot, next to
#    the trivial module's.
# 3. Debian's stap 4.8 at -p4 on the same syscall.* script, where it builds
#    for the kernel (it needs the kernel's debuginfo or a System.map for
#    syscall.*; where it cannot, the line says why and the bench goes on).
#
# Usage: bench/syscall/run.sh [build/utap]
set -e
UTAP=$(realpath "${1:-build/utap}")
RUNS=${RUNS:-5}
KREL=$($UTAP --vm-check 2>/dev/null | sed -n "s/^  kernel: .*(release \(.*\))$/\1/p" | head -1)
[ -n "$KREL" ] || KREL=$(ls /lib/modules | grep -- '-amd64$' | grep -v -- '-cloud-\|-rt-' | sort -V | tail -1)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../stap-runtime.sh"

TRIVIAL='probe begin { printf("hello %s %d\n", "world", 6*7); exit() }'
ENTRY='probe syscall.* { printf("%s %s\n", name, argstr) }'
RETURN='probe syscall.*.return { printf("%s %s\n", name, retstr) }'
OPEN='probe syscall.open { printf("%s\n", filename) }'
BOTH='probe syscall.* { printf("%s(%s)\n", name, argstr) } probe syscall.*.return { printf("%s = %s\n", name, retstr) }'

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one -p4 build: "WALL CPU P1 P2 P3 P4" (seconds; the passes' wall time from -v)
build1() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time (cd "$T" && $UTAP -v -p4 -r "$KREL" -m "$1" -e "$2" > /dev/null 2> "$T/$1.v"); } 2>&1 )
	echo "$t" | awk '{ printf "%s %.3f", $1, $2 + $3 }'
	for p in 1 2 3 4; do
		sed -n "s/^Pass $p: .* in [0-9]*cpu\/\([0-9]*\)real ms\.$/\1/p" "$T/$1.v" |
			awk '{ printf " %.3f", $1 / 1000 }'
	done
	echo
}

# N builds of a script: its medians, printed as one line; the last module stays in $T
build() {
	local name=$1 script=$2 c
	for i in $(seq "$RUNS"); do build1 "$name" "$script"; done > "$T/$name.runs"
	$UTAP -p3 -r "$KREL" -m "$name" -e "$script" > "$T/$name.gen.c"
	c=$(wc -c < "$T/$name.gen.c")
	h=$(grep -c '^static void utap_probe_[0-9]*(struct utap_context \*c)$' "$T/$name.gen.c" || true)
	col() { awk -v k="$1" '{ print $k }' "$T/$name.runs" | median; }
	printf "%-10s %6.2f s wall %6.2f s CPU | passes 1-4: %5.2f %5.2f %5.2f %6.2f s | C %8d bytes, %3d handler functions | .ko %8d bytes\n" \
		"$name" "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" "$c" "$h" \
		"$(stat -c %s "$T/$name.ko")"
	eval "wall_$name=$(col 1)"
}

echo "== pass 1-4 for kernel $KREL, median of $RUNS runs (load average $(cut -d' ' -f1-3 /proc/loadavg))"
build trivial "$TRIVIAL"
build sc_open "$OPEN; probe begin { exit() }"
build sc_entry "$ENTRY; probe begin { exit() }"
build sc_return "$RETURN; probe begin { exit() }"
build sc_both "$BOTH; probe begin { exit() }"
printf "syscall.* build: %.2f s wall, %.1fx the trivial script's (goal: under 3 s)\n" \
	"$wall_sc_entry" "$(echo "$wall_sc_entry / $wall_trivial" | bc -l)"

# 2. in one guest boot: each module's `utap --run`, RUNS times, timed by date,
# after one run that is not counted
cat > "$T/arm.sh" <<SH
$UTAP --run $T/trivial.ko > /dev/null 2>&1	# a first run warms the guest's page cache
for m in trivial sc_open sc_entry sc_return sc_both; do
	for i in \$(seq $RUNS); do
		s=\$(date +%s%N)
		$UTAP --run $T/\$m.ko > /dev/null 2>&1 || echo "\$m: run failed"
		e=\$(date +%s%N)
		echo "\$m \$(( (e - s) / 1000000 ))"
	done
done
SH
$UTAP --vm-exec -- /bin/sh "$T/arm.sh" > "$T/arm.txt"
if grep -q 'run failed' "$T/arm.txt"; then
	grep 'run failed' "$T/arm.txt" >&2
	exit 1
fi
arm() { awk -v m="$1" '$1 == m { print $2 / 1000 }' "$T/arm.txt" | median; }
guest=$($UTAP --vm-check 2>/dev/null | sed -n 's/^  accelerator: *\([a-z]*\).*/\1/p')
echo "== arming in the guest ($guest): utap --run of a module whose begin probe exits, median of $RUNS"
for m in trivial sc_open sc_entry sc_return sc_both; do
	printf "%-10s %6.2f s  (load, register, unregister, unload; %.2f s more than the trivial module's)\n" \
		"$m" "$(arm $m)" "$(echo "$(arm $m) - $(arm trivial)" | bc -l)"
done
echo "(goal: syscall.* armed in under 1 s)"

# 3. stap 4.8, with its runtime's two-line task_work_cancel fix (bench/stap-runtime.sh)
if ! command -v stap > /dev/null; then
	echo "stap 4.8: not installed; no stap figure"
	exit 0
fi
stap_runtime "$T/stap-runtime"
for script in "$ENTRY" "${ENTRY/syscall/nd_syscall}"; do
	TIMEFORMAT='%R'
	if t=$( { time SYSTEMTAP_DIR=$T/stap-cache stap -R "$T/stap-runtime" -r "$KREL" -p4 -m stap_sc \
			-e "$script" > /dev/null 2> "$T/stap.err"; } 2>&1 ); then
		printf "stap 4.8 -p4, %-40s %6.2f s wall, one run, empty cache (utap's syscall.*: %.2fx)\n" \
			"'${script%% \{*}':" "$t" "$(echo "$wall_sc_entry / $t" | bc -l)"
	else
		echo "stap 4.8 -p4, '${script%% \{*}': does not build for $KREL ($(grep -m1 'error' "$T/stap.err"))"
	fi
done
