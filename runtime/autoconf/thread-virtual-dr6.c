/* The dr6 bits a user #DB reports to signals and ptrace (5.10+). */
#include <linux/sched.h>
#include <asm/processor.h>

unsigned long utap_feature(struct task_struct *t);
unsigned long utap_feature(struct task_struct *t)
{
	return t->thread.virtual_dr6;
}
