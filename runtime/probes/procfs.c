// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - procfs("PATH").read and .write probes: files in
 * /proc/systemtap/<module>/, where stap's users look for them.
 *
 * As in stap, a file has one opener at a time (a second open waits, or
 * fails with EAGAIN under O_NONBLOCK). A read probe runs once per open, on
 * the first read, filling the file's buffer through $value; later reads of
 * that open return the rest of the buffer. Each write() runs every write
 * probe of the file with what was written as $value, in pieces of at most
 * MAXSTRINGLEN - 1 bytes.
 *
 * /proc/systemtap is shared with other tracing modules: it is made by
 * whoever needs it first and removed by whoever leaves it empty.
 */
#ifndef UTAP_PROBES_PROCFS_C
#define UTAP_PROBES_PROCFS_C

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "probes/regs.c"

/* What $value names in a procfs handler (c->probe_data). */
struct utap_procfs_value {
	char *buf;
	size_t size;
};

struct utap_procfs_writer {
	const struct utap_probe *probe;
	void (*handler)(struct utap_context *c);
};

struct utap_procfs_file {
	const char *name;
	umode_t mode;
	size_t bufsize;			/* the read buffer: maxsize(N), else MAXSTRINGLEN */
	const struct utap_probe *read_probe;	/* NULL: no read probe */
	void (*read_handler)(struct utap_context *c);
	const struct utap_procfs_writer *writers;
	int nwriters;
	/* state */
	struct mutex lock;
	wait_queue_head_t waitq;
	bool busy;			/* opened */
	bool filled;			/* the read probe ran for this open */
	char *buf;
	size_t len;
	char *wbuf;			/* one written piece, NUL-terminated */
};

static struct proc_dir_entry *utap_procfs_dir;

static bool utap_procfs_run(const struct utap_probe *p, void (*handler)(struct utap_context *),
			    char *buf, size_t size)
{
	struct utap_procfs_value v = { buf, size };
	struct utap_context *c = utap_context_enter(p, UTAP_RUNNING);

	if (!c)
		return false;
	c->probe_data = &v;
	utap_regs_reset_syscall();
	handler(c);
	utap_context_leave(c);
	return true;
}

static int utap_procfs_open(struct inode *inode, struct file *f)
{
	struct utap_procfs_file *pf = pde_data(inode);
	int rc = 0;

	mutex_lock(&pf->lock);
	while (pf->busy) {
		mutex_unlock(&pf->lock);
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		rc = wait_event_interruptible(pf->waitq, !READ_ONCE(pf->busy));
		if (rc)
			return rc;
		mutex_lock(&pf->lock);
	}
	pf->busy = true;
	pf->filled = false;
	pf->len = 0;
	f->private_data = pf;
	mutex_unlock(&pf->lock);
	return 0;
}

static int utap_procfs_release(struct inode *inode, struct file *f)
{
	struct utap_procfs_file *pf = f->private_data;

	mutex_lock(&pf->lock);
	pf->busy = false;
	mutex_unlock(&pf->lock);
	wake_up(&pf->waitq);
	return 0;
}

static ssize_t utap_procfs_read(struct file *f, char __user *ubuf, size_t count, loff_t *pos)
{
	struct utap_procfs_file *pf = f->private_data;
	ssize_t rc;

	if (!pf->read_probe)
		return -EIO;
	mutex_lock(&pf->lock);
	if (!pf->filled) {
		pf->buf[0] = 0;
		if (!utap_procfs_run(pf->read_probe, pf->read_handler, pf->buf, pf->bufsize))
			pf->buf[0] = 0;
		pf->len = strnlen(pf->buf, pf->bufsize);
		pf->filled = true;
	}
	rc = simple_read_from_buffer(ubuf, count, pos, pf->buf, pf->len);
	mutex_unlock(&pf->lock);
	return rc;
}

static ssize_t utap_procfs_write(struct file *f, const char __user *ubuf, size_t count,
				 loff_t *pos)
{
	struct utap_procfs_file *pf = f->private_data;
	size_t n = min_t(size_t, count, MAXSTRINGLEN - 1);
	int i;

	if (!pf->nwriters)
		return -EIO;
	mutex_lock(&pf->lock);
	if (copy_from_user(pf->wbuf, ubuf, n)) {
		mutex_unlock(&pf->lock);
		return -EFAULT;
	}
	pf->wbuf[n] = 0;
	for (i = 0; i < pf->nwriters; i++)
		utap_procfs_run(pf->writers[i].probe, pf->writers[i].handler, pf->wbuf, n + 1);
	mutex_unlock(&pf->lock);
	*pos += n;
	return n;
}

static const struct proc_ops utap_procfs_ops = {
	.proc_open = utap_procfs_open,
	.proc_read = utap_procfs_read,
	.proc_write = utap_procfs_write,
	.proc_release = utap_procfs_release,
	.proc_lseek = noop_llseek,
};

/* $value = s, $value .= s: bounded by the buffer, which may exceed MAXSTRINGLEN */
static void utap_procfs_store(struct utap_context *c, const char *s, bool append)
{
	struct utap_procfs_value *v = c->probe_data;

	if (append)
		strlcat(v->buf, s, v->size);
	else
		strscpy(v->buf, s, v->size);
}

static const char *utap_procfs_value(struct utap_context *c)
{
	return ((struct utap_procfs_value *)c->probe_data)->buf;
}

struct utap_dir_count {
	struct dir_context ctx;
	int entries;
};

static bool utap_count_entry(struct dir_context *ctx, const char *name, int len, loff_t off,
			     u64 ino, unsigned int type)
{
	struct utap_dir_count *dc = container_of(ctx, struct utap_dir_count, ctx);

	if (!(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.'))
		dc->entries++;
	return true;
}

/* /proc/systemtap once no module has a directory in it any more */
static void utap_procfs_remove_root(void)
{
	struct utap_dir_count dc = { .ctx.actor = utap_count_entry };
	struct file *f = filp_open("/proc/systemtap", O_RDONLY | O_DIRECTORY, 0);

	if (IS_ERR(f))
		return;
	iterate_dir(f, &dc.ctx);
	filp_close(f, NULL);
	if (!dc.entries)
		remove_proc_entry("systemtap", NULL);
}

static struct proc_dir_entry *utap_procfs_make_dir(void)
{
	char name[sizeof("systemtap/") + MODULE_NAME_LEN];
	struct path root;

	if (kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &root))
		proc_mkdir("systemtap", NULL);
	else
		path_put(&root);
	snprintf(name, sizeof(name), "systemtap/%s", THIS_MODULE->name);
	return proc_mkdir(name, NULL);
}

static void utap_procfs_unregister(struct utap_procfs_file *tab, int n)
{
	int i;

	if (utap_procfs_dir) {
		/* waits for readers and writers inside our handlers */
		proc_remove(utap_procfs_dir);
		utap_procfs_dir = NULL;
		utap_procfs_remove_root();
	}
	for (i = 0; i < n; i++) {
		kfree(tab[i].buf);
		kfree(tab[i].wbuf);
		tab[i].buf = tab[i].wbuf = NULL;
	}
}

/* dirs: the subdirectories the files' paths name, parents first, NULL-ended */
static int utap_procfs_register(struct utap_procfs_file *tab, int n, const char *const *dirs)
{
	int i;

	utap_procfs_dir = utap_procfs_make_dir();
	if (!utap_procfs_dir) {
		utap_err("cannot create /proc/systemtap/%s for the script's procfs probes",
			 THIS_MODULE->name);
		return -ENOMEM;
	}
	for (; *dirs; dirs++)
		if (!proc_mkdir(*dirs, utap_procfs_dir)) {
			utap_err("cannot create /proc/systemtap/%s/%s", THIS_MODULE->name, *dirs);
			return -ENOMEM;
		}
	for (i = 0; i < n; i++) {
		struct utap_procfs_file *pf = &tab[i];

		mutex_init(&pf->lock);
		init_waitqueue_head(&pf->waitq);
		pf->busy = false;
		pf->buf = kzalloc(pf->bufsize, GFP_KERNEL);
		pf->wbuf = kzalloc(MAXSTRINGLEN, GFP_KERNEL);
		if (!pf->buf || !pf->wbuf)
			return -ENOMEM;
		if (!proc_create_data(pf->name, pf->mode, utap_procfs_dir, &utap_procfs_ops, pf)) {
			utap_err("cannot create /proc/systemtap/%s/%s", THIS_MODULE->name, pf->name);
			return -ENOMEM;
		}
	}
	return 0;
}

#endif /* UTAP_PROBES_PROCFS_C */
