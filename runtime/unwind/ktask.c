// SPDX-License-Identifier: GPL-2.0
/*
 * ktask.c - the kernel stack of another task, for task_backtrace(): the
 * kernel's stack_trace_save_tsk(), which pins the task's stack while it
 * walks it (as /proc/PID/stack does). It is not exported, so its address
 * is looked up when the probes are registered, in process context.
 */
#include <linux/stacktrace.h>

#include "probes/ksym.c"

static unsigned int (*utap_save_tsk)(struct task_struct *task, unsigned long *store,
				     unsigned int size, unsigned int skipnr);

static int utap_ktask_start(void)
{
	utap_save_tsk = (void *)utap_ksym_lookup("stack_trace_save_tsk");
	if (utap_save_tsk)
		return 0;
	utap_err("task_backtrace(): the running kernel has no stack_trace_save_tsk");
	return -ENOENT;
}

/*
 * The kernel stack of the live task TASK into ks, once RCU says TASK is one
 * (its pid leads back to it); -ESRCH with the error set if it is not.
 */
static int utap_ktask_stack(struct utap_context *c, struct task_struct *task,
			    struct utap_kstack *ks)
{
	pid_t tid;
	int rc = 0;

	BUILD_BUG_ON(sizeof(ks->pcs[0]) != sizeof(unsigned long));
	ks->nr = 0;
	ks->none = false;
	rcu_read_lock();
	if (copy_from_kernel_nofault(&tid, &task->pid, sizeof(tid)) ||
	    pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID) != task) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "task_backtrace(): 0x%lx is not a live task", (unsigned long)task);
		c->last_error = c->error_buf;
		rc = -ESRCH;
	} else {
		ks->nr = utap_save_tsk(task, (unsigned long *)ks->pcs, MAXBACKTRACE, 0);
	}
	rcu_read_unlock();
	return rc;
}
