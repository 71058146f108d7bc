/* task_work_add() takes an enum twa_notify_mode (5.11+), not a bool. */
#include <linux/task_work.h>

int utap_feature(struct task_struct *t, struct callback_head *w);
int utap_feature(struct task_struct *t, struct callback_head *w)
{
	return task_work_add(t, w, TWA_RESUME);
}
