/* The sched_process_exit tracepoint passes only the task (6.1). */
#include <trace/events/sched.h>

static void utap_exit(void *data, struct task_struct *p)
{
}

int utap_feature(void);
int utap_feature(void)
{
	return register_trace_sched_process_exit(utap_exit, NULL);
}
