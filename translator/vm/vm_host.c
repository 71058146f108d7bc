/*
 * vm_host.c - find what a guest run needs on the host (qemu, the kernel and
 * its modules, the guest init, a cache directory) and say how to get what is
 * missing; small file helpers the other vm files share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "vm_internal.h"

void vm_error(const char *fmt, ...)
{
	va_list ap;

	fputs("utap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void vm_note(const struct vm_config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->verbose <= 0)
		return;
	fputs("utap: vm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write to a temporary name beside PATH and rename: readers see all of it or nothing. */
int vm_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX + 16];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len || fchmod(fd, 0644) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Remove cache files starting with PREFIX other than KEEP that were replaced
 * an hour ago or more; a run that started before the replacement has long
 * since opened its copy.
 */
void vm_prune_cache(const char *dir, const char *prefix, const char *keep)
{
	char path[PATH_MAX * 2];
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || strcmp(e->d_name, keep) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && st.st_mtime + 3600 < time(NULL))
			unlink(path);
	}
	closedir(d);
}

/* Serialise building cache files between concurrent runs; -1 (no lock) without a cache. */
int vm_cache_lock(const struct vm_host *h)
{
	char path[PATH_MAX + 16];
	int fd;

	if (!h->cache[0])
		return -1;
	snprintf(path, sizeof(path), "%s/lock", h->cache);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void vm_cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing drops the flock */
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int vm_default_krel(char *buf, size_t len)
{
	DIR *d = opendir("/boot");
	struct dirent *e;
	char build[PATH_MAX], best[256] = "";

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		const char *krel = e->d_name + strlen("vmlinuz-");

		if (strncmp(e->d_name, "vmlinuz-", 8) != 0 || strlen(krel) >= sizeof(best))
			continue;
		snprintf(build, sizeof(build), "/lib/modules/%s/build", krel);
		if (is_dir(build) && (!best[0] || strverscmp(krel, best) > 0))
			strcpy(best, krel);
	}
	closedir(d);
	if (!best[0] || strlen(best) >= len)
		return -1;
	strcpy(buf, best);
	return 0;
}

static void add_problem(struct vm_host *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_problem(struct vm_host *h, const char *fmt, ...)
{
	size_t used = strlen(h->problem);
	va_list ap;

	if (used + 2 >= sizeof(h->problem))
		return;
	va_start(ap, fmt);
	vsnprintf(h->problem + used, sizeof(h->problem) - used - 1, fmt, ap);
	va_end(ap);
	strcat(h->problem, "\n");
}

static void find_kernel(const struct vm_config *cfg, struct vm_host *h)
{
	char dep[PATH_MAX + 16];

	if (cfg->krel)
		snprintf(h->krel, sizeof(h->krel), "%s", cfg->krel);
	else if (vm_default_krel(h->krel, sizeof(h->krel)) < 0) {
		add_problem(h, "no guest kernel: no /boot/vmlinuz-* has its headers in "
			    "/lib/modules/*/build; install the Debian packages linux-image-amd64 "
			    "and linux-headers-amd64");
		return;
	}
	snprintf(h->kernel, sizeof(h->kernel), "/boot/vmlinuz-%s", h->krel);
	snprintf(h->moddir, sizeof(h->moddir), "/lib/modules/%s", h->krel);
	snprintf(dep, sizeof(dep), "%s/modules.dep", h->moddir);
	if (!is_file(h->kernel))
		add_problem(h, "no kernel image %s: install the Debian package linux-image-%s "
			    "(linux-image-amd64 for the current one)", h->kernel, h->krel);
	else if (access(h->kernel, R_OK) < 0)
		add_problem(h, "cannot read the kernel image %s (%s): run utap as root",
			    h->kernel, strerror(errno));
	else if (!is_file(dep))
		add_problem(h, "no %s: install the Debian package linux-image-%s", dep, h->krel);
}

static int find_in_path(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			if (snprintf(buf, len, "%s/%s", dir, name) < (int)len && access(buf, X_OK) == 0)
				return 0;
		}
		path += n + (path[n] == ':');
	}
	return -1;
}

static void find_qemu(struct vm_host *h)
{
	if (find_in_path("qemu-system-x86_64", h->qemu, sizeof(h->qemu)) < 0) {
		h->qemu[0] = '\0';
		add_problem(h, "qemu-system-x86_64 not found in PATH: install the Debian "
			    "package qemu-system-x86");
	}
}

/* The guest init is installed beside utap (build/) or in lib/libexec of its prefix. */
static void find_init(const struct vm_config *cfg, struct vm_host *h)
{
	static const char *const rel[] = { "utap-vminit", "../lib/utap/utap-vminit",
					   "../libexec/utap/utap-vminit" };
	char exe[PATH_MAX], *slash;
	const char *env = getenv("UTAP_VMINIT");
	ssize_t n;
	size_t i;

	if (cfg->init_path || env) {
		snprintf(h->init, sizeof(h->init), "%s", cfg->init_path ? cfg->init_path : env);
		if (!is_file(h->init))
			add_problem(h, "the guest init %s does not exist: run make", h->init);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		slash[1] = '\0';
	for (i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(h->init, sizeof(h->init), "%s%s", exe, rel[i]);
		if (is_file(h->init))
			return;
	}
	h->init[0] = '\0';
	add_problem(h, "the guest init utap-vminit is not beside %s: run make (it builds "
		    "build/utap-vminit) or set UTAP_VMINIT", exe);
}

static int mkdir_parents(char *path, mode_t mode)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, mode) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, mode) < 0 && errno != EEXIST ? -1 : 0;
}

static void find_cache(struct vm_host *h)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(h->cache, sizeof(h->cache), "%s/utap", xdg);
	else if (home && home[0] == '/')
		n = snprintf(h->cache, sizeof(h->cache), "%s/.cache/utap", home);
	else
		n = -1;
	if (n < 0 || n >= (int)sizeof(h->cache) || mkdir_parents(h->cache, 0700) < 0 ||
	    access(h->cache, W_OK) < 0)
		h->cache[0] = '\0';	/* run without a cache: build into the job dir */
}

/* Fill h; 0 if a guest can run, else -1 with h->problem listing what is missing. */
int vm_find_host(const struct vm_config *cfg, struct vm_host *h)
{
	memset(h, 0, sizeof(*h));
	find_qemu(h);
	find_kernel(cfg, h);
	find_init(cfg, h);
	find_cache(h);
	return h->problem[0] ? -1 : 0;
}
