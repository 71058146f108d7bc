/* util.c - small system helpers shared by the passes. */
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *read_file(const char *path, size_t *lenp)
{
	size_t len = 0;
	char *data = slurp_file(path, &len), *r;

	if (!data)
		return NULL;
	r = arena_strndup(data, len);
	free(data);
	if (lenp)
		*lenp = len;
	return r;
}

int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

/* Runs argv with stdout/stderr to log_path (or inherited); returns the exit code. */
int run_command(char *const argv[], const char *log_path, bool quiet)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (log_path) {
			int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
				close(fd);
			}
		} else if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "utap: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = arena_printf("%s/utapXXXXXX", base && *base ? base : "/tmp");

	/* mkdtemp creates the directory 0700: private to this user */
	if (!mkdtemp(tmpl))
		return NULL;
	return tmpl;
}

void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			char *p;
			struct stat st;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			p = arena_printf("%s/%s", path, de->d_name);
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				remove_tree(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(path);
}

/* $XDG_CACHE_HOME/utap/SUB (or ~/.cache/utap/SUB), created 0700 as needed. */
const char *utap_cache_dir(const char *sub)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *base = xdg && *xdg ? arena_strdup(xdg) :
			   arena_printf("%s/.cache", home && *home ? home : "/tmp");
	const char *dir = arena_printf("%s/utap/%s", base, sub);
	char *p = arena_strdup(dir);

	for (char *q = p + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			mkdir(p, 0700);
			*q = '/';
		}
	mkdir(p, 0700);
	return dir;
}
