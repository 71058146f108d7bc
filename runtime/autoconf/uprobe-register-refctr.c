/* uprobe_register_refctr() (4.20 to 6.11): a uprobe with an SDT semaphore. */
#include <linux/uprobes.h>

int utap_feature(struct inode *inode, struct uprobe_consumer *uc);
int utap_feature(struct inode *inode, struct uprobe_consumer *uc)
{
	return uprobe_register_refctr(inode, 0, 0, uc);
}
