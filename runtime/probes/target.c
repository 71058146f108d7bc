// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - the -c/-x target's process tree. A bare `process` probe in a
 * session with a target is restricted to the target and its descendants,
 * as in stap. Descendants are found through real_parent, so a child that
 * was reparented after its parent died has left the tree.
 */
#ifndef UTAP_PROBES_TARGET_C
#define UTAP_PROBES_TARGET_C

static bool utap_in_target_tree(struct task_struct *t)
{
	bool found = false;

	if (!utap_target)
		return false;
	rcu_read_lock();
	while (t && t->pid > 1) {
		if (t->tgid == utap_target) {
			found = true;
			break;
		}
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return found;
}

#endif
