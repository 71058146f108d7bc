/*
 * Since 6.12 uprobe_register() takes the semaphore offset and returns the
 * struct uprobe, which uprobe_unregister_nosync() takes back.
 */
#include <linux/uprobes.h>

void utap_feature(struct inode *inode, struct uprobe_consumer *uc);
void utap_feature(struct inode *inode, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, uc);

	if (!IS_ERR(u))
		uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
}
