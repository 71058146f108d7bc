// SPDX-License-Identifier: GPL-2.0
/*
 * control.c - module load and unload, and the runner's two files:
 *
 *   /proc/<module>/data  records (see wire.h); poll()able; one reader
 *   /proc/<module>/ctl   write "start" / "stop"; read counters
 *
 * Loading the module only prepares; probes are registered and begin probes
 * run when the runner writes "start", so nothing is lost before the runner
 * reads and a -c command can be released only once probes are armed. Both
 * files are root-only and refuse a second opener. If the runner goes away
 * without "stop", closing the files stops the session so the module can be
 * unloaded.
 */

UTAP_API struct proc_dir_entry *utap_proc_dir;
static atomic_t utap_data_open = ATOMIC_INIT(0);
static atomic_t utap_ctl_open = ATOMIC_INIT(0);
static DEFINE_MUTEX(utap_ctl_mutex);

static int utap_session_start(void)
{
	int rc;

	if (atomic_read(&utap_state) != UTAP_LOADED)
		return -EBUSY;
	atomic_set(&utap_state, UTAP_STARTING);
	utap_runner_pid = current->tgid;
	rc = utap_gen_register();
	if (rc) {
		utap_gen_unregister();
		atomic_set(&utap_state, UTAP_STOPPED);
		utap_exit_status = 1;
		return rc;
	}
	utap_gen_begin();
	/* exit() in a begin probe: normal probes never run; an error state stays */
	atomic_cmpxchg(&utap_state, UTAP_STARTING,
		       utap_exit_pending() ? UTAP_STOPPING : UTAP_RUNNING);
	return 0;
}

static void utap_session_stop(bool run_end)
{
	int st = atomic_read(&utap_state);

	if (st == UTAP_LOADED || st == UTAP_STOPPED) {
		atomic_set(&utap_state, UTAP_STOPPED);
		return;
	}
	if (st != UTAP_ERROR)
		atomic_set(&utap_state, UTAP_STOPPING);
	utap_gen_unregister();
	if (run_end)
		utap_gen_end();
	atomic_set(&utap_state, UTAP_STOPPED);
	utap_wake_reader(true);
}

static int utap_single_open(atomic_t *count)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (atomic_cmpxchg(count, 0, 1) != 0)
		return -EBUSY;
	return 0;
}

static int utap_data_open_fn(struct inode *inode, struct file *f)
{
	return utap_single_open(&utap_data_open);
}

static int utap_data_release(struct inode *inode, struct file *f)
{
	mutex_lock(&utap_ctl_mutex);
	utap_session_stop(false);
	mutex_unlock(&utap_ctl_mutex);
	atomic_set(&utap_data_open, 0);
	return 0;
}

static int utap_ctl_open_fn(struct inode *inode, struct file *f)
{
	return utap_single_open(&utap_ctl_open);
}

static int utap_ctl_release(struct inode *inode, struct file *f)
{
	mutex_lock(&utap_ctl_mutex);
	utap_session_stop(false);
	mutex_unlock(&utap_ctl_mutex);
	atomic_set(&utap_ctl_open, 0);
	return 0;
}

static ssize_t utap_ctl_write(struct file *f, const char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	char cmd[32];
	size_t n = min(count, sizeof(cmd) - 1);
	int rc = 0;

	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	strim(cmd);
	mutex_lock(&utap_ctl_mutex);
	if (!strcmp(cmd, UTAP_CTL_START))
		rc = utap_session_start();
	else if (!strcmp(cmd, UTAP_CTL_STOP))
		utap_session_stop(true);
	else
		rc = -EINVAL;
	mutex_unlock(&utap_ctl_mutex);
	return rc ? rc : count;
}

static ssize_t utap_ctl_read(struct file *f, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[512];
	int n;

	n = scnprintf(buf, sizeof(buf),
		      "state %d\nexit %d\nexit_status %d\nerrors %d\nskipped %d\n"
		      "skipped_nested %d\nskipped_lock %d\n"
		      "records %lld\nlost_records %lld\nlost_bytes %lld\nlost_prints %lld\n"
		      "lost_messages %lld\nsuppressed %d\n",
		      atomic_read(&utap_state), atomic_read(&utap_exit_requested),
		      utap_exit_status, atomic_read(&utap_errors), atomic_read(&utap_skipped),
		      atomic_read(&utap_skipped_nested), atomic_read(&utap_skipped_lock),
		      (long long)atomic64_read(&utap_sent_records),
		      (long long)atomic64_read(&utap_lost_records),
		      (long long)atomic64_read(&utap_lost_bytes),
		      (long long)atomic64_read(&utap_lost_prints),
		      (long long)atomic64_read(&utap_lost_msgs),
		      atomic_read(&utap_suppressed_errors));
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct proc_ops utap_data_ops = {
	.proc_open = utap_data_open_fn,
	.proc_read = utap_data_read,
	.proc_poll = utap_data_poll,
	.proc_release = utap_data_release,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops utap_ctl_ops = {
	.proc_open = utap_ctl_open_fn,
	.proc_read = utap_ctl_read,
	.proc_write = utap_ctl_write,
	.proc_release = utap_ctl_release,
	.proc_lseek = noop_llseek,
};

static int __init utap_module_init(void)
{
	int rc;

	rc = utap_contexts_alloc();
	if (rc)
		goto fail_contexts;
	rc = utap_transport_init();
	if (rc)
		goto fail_contexts;
	/* the directory exists before the script's init, which may add files to it */
	rc = -ENOMEM;
	utap_proc_dir = proc_mkdir(THIS_MODULE->name, NULL);
	if (!utap_proc_dir)
		goto fail_transport;
	if (!proc_create("data", 0400, utap_proc_dir, &utap_data_ops) ||
	    !proc_create("ctl", 0600, utap_proc_dir, &utap_ctl_ops))
		goto fail_proc;
	rc = utap_gen_init();
	if (rc)
		goto fail_gen;
	return 0;

fail_gen:
	utap_gen_exit();
fail_proc:
	proc_remove(utap_proc_dir);
fail_transport:
	utap_transport_exit();
fail_contexts:
	utap_contexts_free();
	return rc;
}

static void __exit utap_module_exit(void)
{
	mutex_lock(&utap_ctl_mutex);
	utap_session_stop(false);
	mutex_unlock(&utap_ctl_mutex);
	proc_remove(utap_proc_dir);
	utap_gen_exit();
	utap_transport_exit();
	utap_contexts_free();
}

module_init(utap_module_init);
module_exit(utap_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("utap translated script");
