# bench/stap-runtime.sh - sourced by the benches that run Debian's stap 4.8:
# stap_runtime DIR copies its runtime to DIR with the two-line
# task_work_cancel fix (6.1.y took 6.11's task_work_cancel; the old one is
# task_work_cancel_func), here, never shipped.
stap_runtime() {
	cp -r /usr/share/systemtap/runtime "$1"
	sed -i -e 's/typeof(&task_work_cancel)/typeof(\&task_work_cancel_func)/' \
	       -e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
	       "$1/stp_task_work.c"
}
