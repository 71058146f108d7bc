/* Since 6.12 uprobe handlers get a per-hit __u64 *data (session uprobes). */
#include <linux/uprobes.h>

static int utap_h(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)
{
	return 0;
}

static int utap_rh(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs,
		   __u64 *data)
{
	return 0;
}

struct uprobe_consumer utap_feature = { .handler = utap_h, .ret_handler = utap_rh };
