/* sched_process_fork(parent, child) and sched_process_exec(p, old_pid, bprm). */
#include <trace/events/sched.h>

static void utap_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
}

static void utap_exec(void *data, struct task_struct *p, pid_t old_pid,
		      struct linux_binprm *bprm)
{
}

int utap_feature(void);
int utap_feature(void)
{
	return register_trace_sched_process_fork(utap_fork, NULL) +
	       register_trace_sched_process_exec(utap_exec, NULL);
}
