#!/bin/sh
# bench/itrace/bench.sh - instruction tracing: traced steps per second next to
# a ptrace PTRACE_SINGLESTEP loop over the same code, in the same guest.
#
# The workload is it_loop(N) of testsuite/progs/it_count (3N+4 instructions,
# hand-written asm), traced between uprobes at its entry and return. The
# alternative is build/progs/it_ptrace_count -f: the cheapest stepping loop
# a ptrace tracer can run over the same function (PTRACE_SINGLESTEP, waitpid,
# PTRACE_GETREGS per step). utap variants:
#   qtrace   itrace_output("qtrace"): each step encoded in the module, no
#            script statement per step (a fast path)
#   drcov    itrace_output("drcov"): each step's trace record to the runner,
#            which writes the file (the other fast path)
#   handler  a .insn handler that counts (one script statement per step)
#   none     stepping only: no output, no handler
# Each utap variant runs three times; the best run counts. The figures come
# from a TCG guest, where a trap costs far more than on hardware: the ratio
# is the figure to read.
# Usage: bench/itrace/bench.sh [build/utap]  (make bench-itrace)
set -e
SRC=$(cd "$(dirname "$0")/../.." && pwd)
UTAP=$(cd "$(dirname "${1:-$SRC/build/utap}")" && pwd)/$(basename "${1:-utap}")
PROGS=$SRC/build/progs
N=${ITRACE_BENCH_N:-100000}
NP=${ITRACE_BENCH_PTRACE_N:-2000}
KREL=$(ls /lib/modules | grep -- '-amd64$' | grep -v -- '-cloud-\|-rt-' | sort -V | tail -1)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# $1: variant, $2: probe begin body, $3: more probes
script() {
	cat > "$T/$1.stp" <<EOF
global t0, t1
probe begin { $2 }
probe process("$PROGS/it_count").function("it_loop") { t0 = gettimeofday_ns(); itrace_on() }
probe process("$PROGS/it_count").function("it_loop").return { itrace_off(); t1 = gettimeofday_ns() }
$3
probe end { printf("$1 steps %d ns %d lost %d\n", itrace_steps(), t1 - t0, itrace_lost()) }
EOF
	(cd "$T" && $UTAP -p4 -r "$KREL" -m "itb_$1" "$1.stp" -c "$PROGS/it_count loop $N" > /dev/null)
}

script qtrace "itrace_output(\"qtrace\", \"$T/q.qt\")" ''
script drcov "itrace_output(\"drcov\", \"$T/d.drcov\")" ''
script handler '' "global n
probe process(\"$PROGS/it_count\").insn { n++ }"
script none '' ''

cat > "$T/guest.sh" <<EOF
cd $T
for round in 1 2 3; do
	for m in qtrace drcov handler none; do
		$UTAP --run itb_\$m.ko -c "$PROGS/it_count loop $N" | grep ' steps '
	done
done
$PROGS/it_ptrace_count -t -f -s it_mark it_loop -- $PROGS/it_count loop $NP | grep '^ptrace'
EOF
$UTAP --vm-exec --vm-timeout 1800 -- sh "$T/guest.sh" > "$T/out" 2> "$T/err" || {
	cat "$T/err"
	exit 1
}

awk -v n="$N" '
/ steps / {
	if (!($1 in ns) || $5 < ns[$1]) {
		ns[$1] = $5
		steps[$1] = $3
		lost[$1] = $7
	}
}
/^ptrace it_loop:/ { pins = $6 }
/^ptrace time/ { pns = $3 }
END {
	if (!pns || !pins) {
		print "bench-itrace: no ptrace figure"
		exit 1
	}
	pr = pins / (pns / 1e9)
	printf("itrace, in one guest (it_loop: %d instructions per traced call):\n", 3 * n + 4)
	printf("  %-36s %10.0f steps/s  (%d steps in %.1f ms)\n", "ptrace PTRACE_SINGLESTEP loop", pr,
	       pins, pns / 1e6)
	split("qtrace drcov handler none", order, " ")
	label["qtrace"] = "utap, qtrace encoded in the module"
	label["drcov"] = "utap, trace records (drcov)"
	label["handler"] = "utap, .insn handler { n++ }"
	label["none"] = "utap, stepping only"
	for (i = 1; i <= 4; i++) {
		m = order[i]
		if (!(m in ns))
			continue
		r = steps[m] / (ns[m] / 1e9)
		printf("  %-36s %10.0f steps/s  (%d steps in %.1f ms, lost %d)  %.0fx ptrace\n",
		       label[m], r, steps[m], ns[m] / 1e6, lost[m], r / pr)
	}
}' "$T/out"
