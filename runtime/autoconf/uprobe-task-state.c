/* current->utask tells when uprobes steps an instruction out of line. */
#include <linux/sched.h>
#include <linux/uprobes.h>

int utap_feature(struct task_struct *t);
int utap_feature(struct task_struct *t)
{
	struct uprobe_task *ut = t->utask;

	return ut && ut->active_uprobe && ut->state == UTASK_SSTEP;
}
