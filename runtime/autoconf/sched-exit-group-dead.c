/* Later kernels pass sched_process_exit whether the thread group died. */
#include <trace/events/sched.h>

static void utap_exit(void *data, struct task_struct *p, bool group_dead)
{
}

int utap_feature(void);
int utap_feature(void)
{
	return register_trace_sched_process_exit(utap_exit, NULL);
}
