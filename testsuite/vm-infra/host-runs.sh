#!/bin/bash
# testsuite/vm-infra/host-runs.sh [UTAP] - whole utap runs started on the host,
# the way a user types them, and the test runner's own guard against a hung
# guest. Prints "ok vm/host/NAME", "FAIL vm/host/NAME: why" or
# "skip vm/host/NAME: why"; exits non-zero if any check failed.

set -u
UTAP=${1:-build/utap}
case $UTAP in /*) ;; *) UTAP=$PWD/$UTAP ;; esac
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/host-runs.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0

ok() { echo "ok vm/host/$1"; }
fail() {
	echo "FAIL vm/host/$1: $2"
	failed=$((failed + 1))
}
first_err() { head -c 400 "$T/$1.err" | tr '\n' ' '; }

# The first command on a machine whose kernel cannot have a module built:
# the error names the way that works here, --vm.
check_no_headers_names_vm() {
	if [ -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		echo "skip vm/host/no_headers_names_vm: the running kernel $(uname -r) has its headers here"
		return
	fi
	(cd "$T" && "$UTAP" -e 'probe begin { exit() }' >"$T/nohdr.out" 2>"$T/nohdr.err")
	rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$T/nohdr.out" ] && [ "$(grep -c . "$T/nohdr.err")" = 1 ] &&
		grep -q "kernel build tree '/lib/modules/$(uname -r)/build' not found" "$T/nohdr.err" &&
		grep -q 'add --vm' "$T/nohdr.err"; then
		ok no_headers_names_vm
	else
		fail no_headers_names_vm "exit $rc: $(first_err nohdr)"
	fi
}

# utap -v prints each pass with its time, pass 5 included (run in the guest).
check_verbose_passes() {
	(cd "$T" && "$UTAP" --vm --vm-timeout 300 -v -e 'probe begin { printf("hello\n"); exit() }' \
		>"$T/verbose.out" 2>"$T/verbose.err")
	rc=$?
	local order
	order=$(grep -o '^Pass [1-5]: [a-z]*' "$T/verbose.err" | cut -c6 | tr -d '\n')
	if [ $rc -eq 0 ] && [ "$(cat "$T/verbose.out")" = hello ] && [ "$order" = 123455 ] &&
		[ "$(grep -cE '^Pass [1-4]: .* in [0-9]+cpu/[0-9]+real ms\.$' "$T/verbose.err")" = 4 ] &&
		grep -qE '^Pass 5: run completed in [0-9]+cpu/[0-9]+real ms\.$' "$T/verbose.err"; then
		ok verbose_passes
	else
		fail verbose_passes "exit $rc, passes '$order': $(first_err verbose)"
	fi
}

# A -c program that cannot start stops utap before anything is built: no
# guest boots, no module or temporary directory is left, the cause is named.
check_command_cannot_start() {
	mkdir -p "$T/nostart"
	(cd "$T/nostart" && TMPDIR=$T/nostart "$UTAP" --vm -e 'probe begin { printf("begin ran\n") }' \
		-c '/nonexistent/prog --flag' >"$T/nostart.out" 2>"$T/nostart.err")
	rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$T/nostart.out" ] && [ -z "$(ls -A "$T/nostart")" ] &&
		[ "$(cat "$T/nostart.err")" = "utap: error: cannot run the -c command: '/nonexistent/prog': no such file (ENOENT)" ]; then
		ok command_cannot_start
	else
		fail command_cannot_start "exit $rc, left '$(ls -A "$T/nostart")': $(first_err nostart)"
	fi
}

# The test runner kills a guest that stops answering, fails the test it was
# running and runs the rest in a fresh boot.
check_runner_hung_guest() {
	local d=$T/hang
	mkdir -p "$d/tests"
	cat >"$d/tests/a-hang.test" <<-'EOF'
	# stops the guest's test script itself: no further test would ever start;
	# what the guest kernel said last must reach the runner's output
	timeout: 5
	--- script
	probe begin { exit() }
	--- guest-cmd
	echo '<2>utap-hang-marker: the last words' >/dev/kmsg
	kill -STOP "$(awk '{ print $4 }' /proc/$PPID/stat)"
	EOF
	cat >"$d/tests/b-after.test" <<-'EOF'
	--- script
	probe begin { printf("after the hang\n"); exit() }
	--- stdout
	after the hang
	EOF
	(cd "$SRCDIR" && build/testrunner --utap "${UTAP#$SRCDIR/}" --vm-dir "$d/tests" --work "$d/work" \
		--hang-seconds 20 >"$T/hang.out" 2>"$T/hang.err")
	rc=$?
	if [ $rc -eq 1 ] && grep -q '^FAIL vm/a-hang: the guest stopped answering' "$T/hang.out" &&
		grep -q '^# guest boot 1 stopped answering during vm/a-hang; killed it; the end of its console:$' "$T/hang.out" &&
		grep -q '^#   .*utap-hang-marker: the last words$' "$T/hang.out" &&
		grep -qx 'ok vm/b-after' "$T/hang.out" &&
		[ "$(tail -1 "$T/hang.out")" = "1 passed, 1 failed, 0 skipped" ]; then
		ok runner_hung_guest
	else
		fail runner_hung_guest "exit $rc: $(tr '\n' ' ' <"$T/hang.out" | head -c 600)"
	fi
}

check_no_headers_names_vm
check_command_cannot_start
check_verbose_passes
check_runner_hung_guest
[ $failed -eq 0 ]
