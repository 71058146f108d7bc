/*
 * vm.c - vm_run(): one command in a throwaway guest, start to finish.
 *
 * The job (argv, cwd, environment, shares) goes into a private directory the
 * guest reads over the read-only root share; only that directory's path is
 * on the kernel command line. When the guest fails, its kernel log is kept
 * there and the user is told why in one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vm_internal.h"
#include "vm/guest/vm_proto.h"

extern char **environ;

static void put_record(FILE *f, char tag, const char *value)
{
	fputc(tag, f);
	fwrite(value, 1, strlen(value) + 1, f);
}

int vm_write_job(FILE *f, char *const argv[], const char *cwd, char *const envp[],
		 const struct vm_config *cfg)
{
	char share[PATH_MAX + 32];
	int i;

	put_record(f, VM_JOB_CWD, cwd);
	for (i = 0; argv[i]; i++)
		put_record(f, VM_JOB_ARG, argv[i]);
	for (i = 0; envp && envp[i]; i++)
		put_record(f, VM_JOB_ENV, envp[i]);
	for (i = 0; i < cfg->nshares; i++) {
		snprintf(share, sizeof(share), "%s%d=%s", VM_SHARE_TAG, i, cfg->shares[i].guest_dir);
		put_record(f, cfg->shares[i].writable ? VM_JOB_SHARE : VM_JOB_SHARE_RO, share);
	}
	return ferror(f) ? -1 : 0;
}

/* A private directory for the job, its logs and sockets; its path must survive the kernel command line. */
static int make_jobdir(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char resolved[PATH_MAX];

	if (!tmp || tmp[0] != '/' || strpbrk(tmp, " \t\n\"'"))
		tmp = "/tmp";
	snprintf(dir, len, "%s/utap-vm-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		vm_error("cannot create a private directory %s: %s", dir, strerror(errno));
		return -1;
	}
	/* the guest resolves the path inside the shared root: no host symlinks on the way */
	if (realpath(dir, resolved) && strlen(resolved) < len && !strpbrk(resolved, " \t\n"))
		strcpy(dir, resolved);
	return 0;
}

static int write_job_file(const char *jobdir, char *const argv[], const struct vm_config *cfg)
{
	char path[PATH_MAX + 16], cwd[PATH_MAX];
	FILE *f;
	int fd, rc;

	if (!getcwd(cwd, sizeof(cwd))) {
		vm_error("cannot get the current directory: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", jobdir, VM_JOB_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		vm_error("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = vm_write_job(f, argv, cwd, environ, cfg);
	if (fclose(f) != 0 || rc < 0) {
		vm_error("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void remove_in(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* Remove the job dir; after a failure keep it with the logs only. */
static void cleanup_jobdir(const char *dir, const char *initrd, bool keep_logs)
{
	remove_in(dir, VM_JOB_FILE);
	if (strncmp(initrd, dir, strlen(dir)) == 0)
		unlink(initrd);
	if (keep_logs)
		return;
	remove_in(dir, "console.log");
	remove_in(dir, "qemu.log");
	rmdir(dir);
}

/* Copy shares with host paths resolved; refuse what the guest could not mount. */
static int resolve_shares(const struct vm_config *cfg, struct vm_config *out,
			  char paths[][PATH_MAX])
{
	int i;

	*out = *cfg;
	if (cfg->nshares < 0 || cfg->nshares > 8) {
		vm_error("at most 8 shared directories");
		return -1;
	}
	for (i = 0; i < cfg->nshares; i++) {
		const struct vm_share *s = &cfg->shares[i];
		struct stat st;

		if (!s->host_dir || !realpath(s->host_dir, paths[i]) || stat(paths[i], &st) < 0 ||
		    !S_ISDIR(st.st_mode)) {
			vm_error("shared directory %s: %s", s->host_dir ? s->host_dir : "(null)",
				 s->host_dir ? strerror(errno ? errno : ENOTDIR) : "no path");
			return -1;
		}
		if (!s->guest_dir || s->guest_dir[0] != '/') {
			vm_error("shared directory %s: the guest path must be absolute", s->host_dir);
			return -1;
		}
		out->shares[i].host_dir = paths[i];
	}
	return 0;
}

struct vm_sockets {
	int ours[3], theirs[3];		/* stdout, stderr, control */
};

static int make_sockets(struct vm_sockets *s)
{
	int i, sv[2];

	for (i = 0; i < 3; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			vm_error("socketpair: %s", strerror(errno));
			while (i-- > 0) {
				close(s->ours[i]);
				close(s->theirs[i]);
			}
			return -1;
		}
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		s->ours[i] = sv[0];
		s->theirs[i] = sv[1];
	}
	return 0;
}

static void print_log(const char *path)
{
	char *data;
	size_t len;

	if (!(data = slurp_file(path, &len)))
		return;
	fprintf(stderr, "utap: ---- guest kernel log %s ----\n", path);
	fwrite(data, 1, len, stderr);
	if (len && data[len - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "utap: ---- end of guest kernel log ----\n");
	free(data);
}

/* The first line of LOG containing NEEDLE, without the printk time stamp. */
static bool find_line(const char *log, const char *needle, char *line, size_t len)
{
	const char *hit = log ? strstr(log, needle) : NULL;
	const char *start, *end;

	if (!hit)
		return false;
	for (start = hit; start > log && start[-1] != '\n'; start--)
		;
	if (*start == '[' && strchr(start, ']') && strchr(start, ']') < hit)
		start = strchr(start, ']') + 1;
	start += strspn(start, " ");
	end = start + strcspn(start, "\r\n");
	snprintf(line, len, "%.*s", (int)(end - start), start);
	return true;
}

/* Where the guest's console is written: --vm-console's file, or the job dir. */
static void console_path(const struct vm_config *cfg, const char *jobdir, char *path, size_t len)
{
	if (cfg->console)
		snprintf(path, len, "%s", cfg->console);
	else
		snprintf(path, len, "%s/console.log", jobdir);
}

/* Why qemu ended before the command did, from the console and qemu's own messages. */
static void explain_death(const struct vm_config *cfg, const char *jobdir,
			  const struct vm_result *r)
{
	static const char *const crash[] = { "BUG: ", "Oops: ", "general protection fault",
					     "kernel BUG at", "Kernel panic - not syncing" };
	char path[PATH_MAX + 16], line[512];
	char *log = NULL, *qlog = NULL;
	size_t len, i;

	console_path(cfg, jobdir, path, sizeof(path));
	log = slurp_file(path, &len);
	for (i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		if (find_line(log, crash[i], line, sizeof(line)))
			break;
	if (i < sizeof(crash) / sizeof(crash[0]))
		vm_error("the guest kernel crashed: %s", line);
	else if (find_line(log, "utap-vminit: error: ", line, sizeof(line)))
		vm_error("the guest could not start: %s", line + strlen("utap-vminit: error: "));
	else if (snprintf(path, sizeof(path), "%s/qemu.log", jobdir) > 0 &&
		 (qlog = slurp_file(path, &len)) && len > 0 && find_line(qlog, "", line, sizeof(line)))
		vm_error("qemu failed: %s", line);
	else if (WIFSIGNALED(r->qemu_status))
		vm_error("qemu was killed by signal %d before the command ended",
			 WTERMSIG(r->qemu_status));
	else
		vm_error("the guest stopped (qemu status %d) before the command ended",
			 WEXITSTATUS(r->qemu_status));
	free(log);
	free(qlog);
}

/* Print the one-line verdict of a failed run; true if the logs are worth keeping. */
static bool report_failure(const struct vm_config *cfg, const char *jobdir,
			   const struct vm_result *r)
{
	char path[PATH_MAX + 16];

	switch (r->outcome) {
	case VM_EXITED:
		if (r->lost_out || r->lost_err)
			vm_error("warning: %llu bytes of the command's stdout and %llu of its stderr "
				 "were lost when the guest stopped", r->lost_out, r->lost_err);
		return false;
	case VM_INTERRUPTED:
		vm_error("interrupted again; the guest was stopped");
		return false;
	case VM_TIMED_OUT:
		vm_error("the guest run did not finish within %u s (--vm-timeout); the guest was "
			 "stopped", cfg->timeout_s);
		break;
	case VM_GUEST_ERROR:
		vm_error("the guest could not start the command: %s", r->guest_error);
		break;
	case VM_GUEST_DIED:
		explain_death(cfg, jobdir, r);
		break;
	}
	console_path(cfg, jobdir, path, sizeof(path));
	if (cfg->verbose > 0)
		print_log(path);
	fprintf(stderr, "utap: the guest kernel log is kept in %s%s\n", path,
		cfg->verbose > 0 ? "" : " (-v shows it)");
	return true;
}

/*
 * Find or make what qemu boots, holding the cache lock: a second utap started
 * at the same moment waits here and then reuses what the first one made.
 */
int vm_prepare_boot(const struct vm_config *cfg, const struct vm_host *h, const char *jobdir,
		    struct vm_boot *b)
{
	int lock = vm_cache_lock(h);
	int rc = -1;

	memset(b, 0, sizeof(*b));
	if (vm_initramfs(cfg, h, jobdir, b->initrd, sizeof(b->initrd)) == 0) {
		vm_boot_kernel(cfg, h, b->kernel, sizeof(b->kernel));
		b->accel = vm_choose_accel(cfg, h, b->kernel, b->initrd, jobdir, b->why,
					   sizeof(b->why));
		rc = b->accel ? 0 : -1;
	} else {
		b->initrd[0] = '\0';
	}
	vm_cache_unlock(lock);
	return rc;
}

static int boot_and_relay(const struct vm_config *cfg, const struct vm_host *h,
			  const char *jobdir, const struct vm_boot *b, double start,
			  struct vm_result *r)
{
	struct vm_sockets s;
	char append[PATH_MAX + 32], job_file[PATH_MAX + 16];
	struct vm_qemu q = { .cfg = cfg, .h = h, .kernel = b->kernel, .initrd = b->initrd,
			     .append = append, .jobdir = jobdir,
			     .kvm = strcmp(b->accel, "kvm") == 0 };
	pid_t pid;
	int i;

	vm_note(cfg, "accelerator %s: %s", b->accel, b->why);
	if (make_sockets(&s) < 0)
		return -1;
	snprintf(append, sizeof(append), "%s=%s%s", VM_JOB_PARAM, jobdir,
		 getenv(VM_NO_OVERLAY_ENV) ? " " VM_NO_OVERLAY_PARAM : "");
	q.out_fd = s.theirs[0];
	q.err_fd = s.theirs[1];
	q.ctl_fd = s.theirs[2];
	pid = vm_qemu_start(&q);
	for (i = 0; i < 3; i++)
		close(s.theirs[i]);
	if (pid < 0) {
		for (i = 0; i < 3; i++)
			close(s.ours[i]);
		return -1;
	}
	snprintf(job_file, sizeof(job_file), "%s/%s", jobdir, VM_JOB_FILE);
	vm_relay(cfg, job_file, pid, s.ours[0], s.ours[1], s.ours[2],
		 cfg->timeout_s ? start + cfg->timeout_s : 0, r);
	return 0;
}

int vm_run(const struct vm_config *cfg_in, char *const argv[], int *status)
{
	static struct vm_boot b;	/* large paths: not for the stack */
	char share_paths[8][PATH_MAX], jobdir[PATH_MAX];
	struct vm_config cfg;
	struct vm_host h;
	struct vm_result r;
	double start = vm_now();
	bool keep = false;
	int rc = -1;

	if (!argv || !argv[0]) {
		vm_error("no command to run in the guest");
		return -1;
	}
	if (resolve_shares(cfg_in, &cfg, share_paths) < 0)
		return -1;
	if (vm_find_host(&cfg, &h) < 0) {
		h.problem[strcspn(h.problem, "\n")] = '\0';
		vm_error("%s", h.problem);
		return -1;
	}
	vm_note(&cfg, "kernel %s, qemu %s", h.kernel, h.qemu);
	if (make_jobdir(jobdir, sizeof(jobdir)) < 0)
		return -1;
	memset(&b, 0, sizeof(b));
	if (write_job_file(jobdir, argv, &cfg) == 0) {
		if (vm_prepare_boot(&cfg, &h, jobdir, &b) < 0) {
			if (!b.accel && b.why[0])
				vm_error("%s", b.why);
		} else if (boot_and_relay(&cfg, &h, jobdir, &b, start, &r) == 0) {
			keep = report_failure(&cfg, jobdir, &r);
			if (r.outcome == VM_EXITED) {
				*status = r.status;
				rc = 0;
			}
			vm_note(&cfg, "guest run took %.2f s", vm_now() - start);
		}
	}
	cleanup_jobdir(jobdir, b.initrd, keep);
	return rc;
}
