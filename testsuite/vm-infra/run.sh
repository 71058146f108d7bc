#!/bin/bash
# testsuite/vm-infra/run.sh [UTAP] - checks of the --vm machinery itself.
#
# Each check boots a guest with `UTAP --vm-exec` (default build/utap) and
# prints "ok vm/infra/NAME" or "FAIL vm/infra/NAME: why"; lines starting with
# '#' are measurements. Exits non-zero if any check failed.

set -u
UTAP=${1:-build/utap}
case $UTAP in /*) ;; *) UTAP=$PWD/$UTAP ;; esac
T=$(mktemp -d /tmp/vm-infra.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0

ok() { echo "ok vm/infra/$1"; }
fail() {
	echo "FAIL vm/infra/$1: $2"
	failed=$((failed + 1))
}
# run NAME CMD...: stdout to $T/NAME.out, stderr to $T/NAME.err, status in $rc
run() {
	local name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
}
# A guest's deadline is a hang guard, not a measurement: on a loaded host a boot
# alone can take a minute, so it is generous.
vm() { "$UTAP" --vm-exec --vm-timeout 300 "$@"; }
now() { date +%s.%N; }
elapsed() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }
first_err() { head -c 300 "$T/$1.err" | tr '\n' ' '; }

# The guest's job dir named in -vv output, and whether a qemu still runs for it.
jobdir_of() { grep -o 'utapjob=[^ ]*' "$T/$1.err" | head -1 | cut -d= -f2; }
qemu_alive() { [ -n "$1" ] && pgrep -f "utapjob=$1( |$)" >/dev/null; }
# Wait (bounded) until qemu of job dir $1 is gone; true if it is.
qemu_gone() {
	local i
	for i in $(seq 100); do
		qemu_alive "$1" || return 0
		sleep 0.1
	done
	return 1
}
# A failed run keeps its guest kernel log; remove it once the check has read it.
drop_kept_log() {
	local d
	d=$(grep -o 'kept in [^ ]*/console.log' "$T/$1.err" | sed 's/^kept in //; s|/console.log$||')
	case $d in /tmp/utap-vm-*) rm -rf "$d" ;; esac
}
# start_armed NAME CHECK SCRIPT: run SCRIPT in the guest in the background
# (utap itself, so $bg is its pid) and wait, bounded, until it printed
# "armed"; on failure report CHECK as failed.
start_armed() {
	local name=$1 check=$2 i
	"$UTAP" --vm-exec -vv --vm-timeout 300 sh -c "$3" >"$T/$name.out" 2>"$T/$name.err" &
	bg=$!
	for i in $(seq 3000); do
		grep -q armed "$T/$name.out" 2>/dev/null && return 0
		kill -0 $bg 2>/dev/null || break
		sleep 0.1
	done
	fail "$check" "the guest command never started: $(first_err "$name")"
	kill -KILL $bg 2>/dev/null
	return 1
}

check_vm_check() {
	run vmcheck "$UTAP" --vm-check
	if [ $rc -eq 0 ] && grep -q 'is ready' "$T/vmcheck.out"; then
		ok vm_check
		grep 'accelerator:' "$T/vmcheck.out" | sed 's/^ */# /'
	else
		fail vm_check "exit $rc: $(head -c 300 "$T/vmcheck.out" | tr '\n' ' ') $(first_err vmcheck)"
	fi
}

check_exit_status() {
	local t0
	t0=$(now)
	run status vm sh -c 'exit 7'
	[ $rc -eq 7 ] && ok exit_status || fail exit_status "exit $rc, want 7: $(first_err status)"
	echo "# round trip of a trivial command: $(elapsed "$t0") s"
	# our reader goes away: the guest's writer gets SIGPIPE as it would on the host
	vm sh -c 'yes; echo "yes ended $?" >&2; kill -KILL $$' 2>"$T/signal.err" | head -1 >/dev/null
	rc=${PIPESTATUS[0]}
	[ $rc -eq 137 ] && ok killed_by_signal ||
		fail killed_by_signal "exit $rc, want 137 (128+SIGKILL): $(first_err signal)"
	grep -qx 'yes ended 141' "$T/signal.err" && ok broken_pipe_reaches_guest ||
		fail broken_pipe_reaches_guest "want 'yes ended 141' (SIGPIPE): $(first_err signal)"
}

# One boot for what an ordinary command sees: streams, cwd, environment, writes, shares.
check_ordinary_command() {
	mkdir -p "$T/work dir" "$T/share" "$T/same"
	(cd "$T/work dir" && VM_INFRA_VAR='a b$c' VM_INFRA_SAME="$T/same" vm --vm-share "$T/share:/mnt/vm-infra-out" \
		--vm-share "$T/same" sh -c '
		echo to-stdout; echo to-stderr >&2; pwd; echo "var=$VM_INFRA_VAR"
		echo a > ./guest-file && echo b > /tmp/vm-infra-guest-only &&
			echo c > /root/vm-infra-guest-only &&
			echo "wrote $(cat ./guest-file /tmp/vm-infra-guest-only /root/vm-infra-guest-only |
				tr -d "\n")"
		echo delivered > /mnt/vm-infra-out/result && echo same > "$VM_INFRA_SAME/result"
		for fs in proc sysfs devtmpfs devpts debugfs tracefs; do
			grep -q " $fs " /proc/mounts && printf "%s " $fs
		done
		echo
		echo "lo flags $(cat /sys/class/net/lo/flags) stdin $(readlink /proc/self/fd/0)"
		' >"$T/cmd.out" 2>"$T/cmd.err")
	rc=$?
	if grep -qx 'proc sysfs devtmpfs devpts debugfs tracefs ' "$T/cmd.out" &&
		grep -qx 'lo flags 0x9 stdin /dev/null' "$T/cmd.out"; then
		ok guest_mounts_loopback_stdin
	else
		fail guest_mounts_loopback_stdin "got '$(tail -2 "$T/cmd.out" | tr '\n' '|')'"
	fi
	if [ "$(cat "$T/cmd.err")" = to-stderr ] && [ "$(head -1 "$T/cmd.out")" = to-stdout ]; then
		ok stdout_stderr_apart
	else
		fail stdout_stderr_apart "stdout '$(head -c 100 "$T/cmd.out")' stderr '$(first_err cmd)'"
	fi
	if grep -qx "$T/work dir" "$T/cmd.out" && grep -qx 'var=a b$c' "$T/cmd.out"; then
		ok cwd_and_env
	else
		fail cwd_and_env "got '$(tr '\n' '|' <"$T/cmd.out")' (exit $rc)"
	fi
	grep -qx 'wrote abc' "$T/cmd.out" && ok writes_in_guest ||
		fail writes_in_guest "got '$(tr '\n' '|' <"$T/cmd.out")'"
	if [ -e "$T/work dir/guest-file" ] || [ -e /tmp/vm-infra-guest-only ] ||
		[ -e /root/vm-infra-guest-only ]; then
		fail writes_stay_in_guest "a file written in the guest appeared on the host"
		rm -f /tmp/vm-infra-guest-only /root/vm-infra-guest-only
	else
		ok writes_stay_in_guest
	fi
	if [ $rc -eq 0 ] && [ "$(cat "$T/share/result" 2>/dev/null)" = delivered ] &&
		[ "$(cat "$T/same/result" 2>/dev/null)" = same ]; then
		ok writable_share
	else
		fail writable_share "exit $rc, host sees '$(cat "$T/share/result" 2>&1)'"
	fi
}

# Without overlayfs the guest still gets scratch space where programs expect it.
check_fallback_without_overlay() {
	UTAP_VM_NO_OVERLAY=1 run fallback vm sh -c '
		grep -q "^[^ ]* / 9p ro," /proc/mounts && echo root-read-only
		echo x > /tmp/vm-infra-fb && echo y > /root/vm-infra-fb && echo z > /var/tmp/vm-infra-fb &&
			echo "wrote $(cat /tmp/vm-infra-fb /root/vm-infra-fb /var/tmp/vm-infra-fb | tr -d "\n")"'
	if [ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$T/fallback.out")" = "root-read-only wrote xyz " ] &&
		[ ! -e /tmp/vm-infra-fb ] && [ ! -e /root/vm-infra-fb ] && [ ! -e /var/tmp/vm-infra-fb ]; then
		ok fallback_without_overlay
	else
		fail fallback_without_overlay "exit $rc, got '$(tr '\n' ' ' <"$T/fallback.out")': $(first_err fallback)"
	fi
}

check_binary_relay() {
	local want out err
	head -c 4194304 /dev/urandom >"$T/blob"
	want=$(sha256sum <"$T/blob" | cut -d' ' -f1)
	run blob vm sh -c "cat '$T/blob'; cat '$T/blob' >&2"
	out=$(sha256sum <"$T/blob.out" | cut -d' ' -f1)
	err=$(sha256sum <"$T/blob.err" | cut -d' ' -f1)
	[ "$out" = "$want" ] && ok binary_4mib_stdout || fail binary_4mib_stdout "sha256 differs (exit $rc)"
	[ "$err" = "$want" ] && ok binary_4mib_stderr || fail binary_4mib_stderr "sha256 differs (exit $rc)"
}

guest_krel() {
	local f k best=
	for f in /boot/vmlinuz-*; do
		k=${f#/boot/vmlinuz-}
		[ -d "/lib/modules/$k/build" ] && best=$(printf '%s\n%s\n' "$best" "$k" | sort -V | tail -1)
	done
	echo "$best"
}

check_kernel_module() {
	local krel d=$T/hello
	krel=$(guest_krel)
	mkdir -p "$d"
	cat >"$d/vminfra_hello.c" <<-'EOF'
	#include <linux/module.h>
	#include <linux/init.h>
	static int __init vminfra_hello_init(void)
	{
		pr_info("vm-infra hello\n");
		return 0;
	}
	static void __exit vminfra_hello_exit(void)
	{
	}
	module_init(vminfra_hello_init);
	module_exit(vminfra_hello_exit);
	MODULE_LICENSE("GPL");
	EOF
	echo 'obj-m := vminfra_hello.o' >"$d/Kbuild"
	if ! make -C "/lib/modules/$krel/build" M="$d" modules >"$T/kbuild.log" 2>&1; then
		fail kernel_module "kbuild against /lib/modules/$krel/build failed: $(tail -3 "$T/kbuild.log" | tr '\n' ' ')"
		return
	fi
	(cd "$d" && vm sh -c 'insmod vminfra_hello.ko && grep "^vminfra_hello " /proc/modules >/dev/null &&
		echo loaded; dmesg | grep -q "vm-infra hello" && echo printed; rmmod vminfra_hello &&
		! grep "^vminfra_hello " /proc/modules && echo unloaded') >"$T/module.out" 2>"$T/module.err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$T/module.out")" = "loaded printed unloaded " ]; then
		ok kernel_module
	else
		fail kernel_module "exit $rc, got '$(tr '\n' ' ' <"$T/module.out")': $(first_err module)"
	fi
}

# A debugger in the guest: gdb attaches to a running program, prints its
# backtrace and detaches; the program then goes on. It waits on a FIFO for
# that, and tells its pid through another, so gdb never comes too late.
check_gdb_attach() {
	local d=$T/gdb
	mkdir -p "$d"
	cat >"$d/waiter.c" <<-'EOF'
	#include <fcntl.h>
	#include <stdio.h>
	#include <unistd.h>

	__attribute__((noinline)) static int wait_here(int fd)
	{
		char c;

		return read(fd, &c, 1);
	}

	int main(int argc, char **argv)
	{
		int fd = open(argv[2], O_RDWR);	/* our own writer: read waits, no EOF */
		FILE *r = fopen(argv[1], "w");

		if (fd < 0 || !r)
			return 2;
		fprintf(r, "%d\n", getpid());
		fclose(r);
		if (wait_here(fd) != 1)
			return 3;
		printf("waiter went on\n");
		return 0;
	}
	EOF
	if ! cc -O0 -g -o "$d/waiter" "$d/waiter.c" 2>"$T/gdbcc.err"; then
		fail gdb_attach_backtrace "cc failed: $(first_err gdbcc)"
		return
	fi
	run gdbvm vm sh -c '
		f=$(mktemp -d)
		mkfifo $f/ready $f/go
		"'"$d"'/waiter" $f/ready $f/go &
		w=$!
		read pid < $f/ready
		echo "waiter $pid $w"
		gdb -batch -nx -p $pid -ex bt 2>&1
		echo "gdb status $?"
		echo go 1<>$f/go
		wait $w
		echo "waiter status $?"'
	local pid bt
	pid=$(awk '$1 == "waiter" && $2 == $3 { print $2 }' "$T/gdbvm.out")
	bt=$(grep -E '^#[0-9]+ ' "$T/gdbvm.out" | grep -oE ' (wait_here|main) \(' | tr -d ' (' | tr '\n' ' ')
	if [ $rc -eq 0 ] && [ -n "$pid" ] && [ "$bt" = "wait_here main " ] &&
		grep -qx "\[Inferior 1 (process $pid) detached\]" "$T/gdbvm.out" &&
		grep -qx 'gdb status 0' "$T/gdbvm.out" && grep -qx 'waiter went on' "$T/gdbvm.out" &&
		grep -qx 'waiter status 0' "$T/gdbvm.out"; then
		ok gdb_attach_backtrace
	else
		fail gdb_attach_backtrace "exit $rc, frames '$bt': $(grep -v '^#' "$T/gdbvm.out" | tail -4 | tr '\n' '|') $(first_err gdbvm)"
	fi
}

check_sigint_forwarded() {
	start_armed sigint sigint_forwarded \
		'trap "echo got-INT; exit 3" INT; echo armed; while :; do sleep 0.1; done' || return
	kill -INT $bg
	wait $bg
	rc=$?
	if [ $rc -eq 3 ] && grep -q got-INT "$T/sigint.out"; then
		ok sigint_forwarded
	else
		fail sigint_forwarded "exit $rc, output '$(tr '\n' ' ' <"$T/sigint.out")'"
	fi
}

check_second_sigint_stops_guest() {
	local jd
	start_armed sigint2 second_sigint \
		'trap "echo ignoring-INT" INT; echo armed; while :; do sleep 0.1; done' || return
	jd=$(jobdir_of sigint2)
	kill -INT $bg
	for i in $(seq 300); do grep -q ignoring-INT "$T/sigint2.out" && break; sleep 0.1; done
	kill -INT $bg
	wait $bg
	rc=$?
	if [ $rc -eq 125 ] && grep -q 'utap: interrupted' "$T/sigint2.err" && qemu_gone "$jd" &&
		[ ! -e "$jd" ]; then
		ok second_sigint
	else
		fail second_sigint "exit $rc, job dir '$jd', $(grep '^utap: [^v]' "$T/sigint2.err" | head -2)"
	fi
}

check_killed_host_stops_guest() {
	local jd
	start_armed killed killed_host_leaves_no_qemu 'echo armed; sleep 600' || return
	jd=$(jobdir_of killed)
	kill -KILL $bg
	wait $bg 2>/dev/null
	if [ -n "$jd" ] && qemu_gone "$jd"; then
		ok killed_host_leaves_no_qemu
	else
		fail killed_host_leaves_no_qemu "qemu for '$jd' still runs after utap was killed"
	fi
	case $jd in /tmp/utap-vm-*) rm -rf "$jd" ;; esac
}

check_timeout() {
	local t0 took jd
	t0=$(now)
	run timeout "$UTAP" --vm-exec -vv --vm-timeout 6 sleep 600
	took=$(elapsed "$t0")
	jd=$(jobdir_of timeout)
	if [ $rc -eq 125 ] && grep -q 'did not finish within 6 s' "$T/timeout.err" &&
		awk "BEGIN { exit !($took < 300) }" && qemu_gone "$jd"; then
		ok timeout
	else
		fail timeout "exit $rc after $took s: $(grep '^utap: [^v]' "$T/timeout.err" | head -1)"
	fi
	drop_kept_log timeout
}

check_guest_crash() {
	run crash vm sh -c 'echo c > /proc/sysrq-trigger; sleep 60'
	if [ $rc -eq 125 ] && grep -q 'guest kernel crashed' "$T/crash.err" &&
		[ "$(grep -c '^utap: ' "$T/crash.err")" -le 2 ]; then
		ok guest_crash_is_an_error
	else
		fail guest_crash_is_an_error "exit $rc: $(first_err crash)"
	fi
	drop_kept_log crash
}

# Two first runs at once with an empty cache: both boot, one set of cache files, no debris.
check_concurrent_first_runs() {
	local a b files
	XDG_CACHE_HOME=$T/cache vm --vm-accel tcg echo first >"$T/conc1.out" 2>"$T/conc1.err" &
	a=$!
	XDG_CACHE_HOME=$T/cache vm --vm-accel tcg echo second >"$T/conc2.out" 2>"$T/conc2.err" &
	b=$!
	wait $a
	a=$?
	wait $b
	b=$?
	files=$(cd "$T/cache/utap" 2>/dev/null && ls | grep -v '^lock$' | sed 's/-[0-9a-f]*$//; s/-[0-9a-f]*\.cpio$/.cpio/' |
		tr '\n' ' ')
	if [ $a -eq 0 ] && [ $b -eq 0 ] && [ "$(cat "$T/conc1.out")" = first ] &&
		[ "$(cat "$T/conc2.out")" = second ] &&
		[ "$files" = "initramfs-$(guest_krel).cpio vmlinux-$(guest_krel) " ]; then
		ok concurrent_first_runs
	else
		fail concurrent_first_runs "exits $a $b, cache holds '$files': $(first_err conc1) $(first_err conc2)"
	fi
}

# The testsuite's normal case: one boot, many commands.
check_batch() {
	local n=20 t0 took
	t0=$(now)
	run batch vm sh -c '
		start=$(date +%s%N)
		i=0
		while [ $i -lt '$n' ]; do
			sh -c "exit $((i % 5))"
			echo "cmd $i status $?"
			i=$((i + 1))
		done
		end=$(date +%s%N)
		echo "per-command-us $(( (end - start) / 1000 / '$n' ))"'
	took=$(elapsed "$t0")
	local want
	want=$(i=0; while [ $i -lt $n ]; do echo "cmd $i status $((i % 5))"; i=$((i + 1)); done)
	if [ $rc -eq 0 ] && [ "$(grep '^cmd ' "$T/batch.out")" = "$want" ]; then
		ok batch_in_one_boot
	else
		fail batch_in_one_boot "exit $rc: $(first_err batch)"
	fi
	echo "# one boot running $n commands: $took s; each command (fork+exec of sh in the guest):" \
		"$(awk '/^per-command-us/ { printf "%.1f ms", $2 / 1000 }' "$T/batch.out")"
}

check_vm_check
check_exit_status
check_ordinary_command
check_fallback_without_overlay
check_binary_relay
check_kernel_module
check_gdb_attach
check_sigint_forwarded
check_second_sigint_stops_guest
check_killed_host_stops_guest
check_timeout
check_guest_crash
check_concurrent_first_runs
check_batch
[ $failed -eq 0 ]
