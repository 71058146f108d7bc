/*
 * vminit_job.c - read what the host asked for: the job file and the few
 * words the host put on the kernel command line.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vminit.h"
#include "vm_proto.h"

static int add_share(struct job *job, char *value, bool writable)
{
	char *eq = strchr(value, '=');

	if (!eq || job->nshares == VMINIT_MAX_SHARES || eq[1] != '/')
		return -1;
	*eq = '\0';
	job->shares[job->nshares].tag = value;
	job->shares[job->nshares].dir = eq + 1;
	job->shares[job->nshares].writable = writable;
	job->nshares++;
	return 0;
}

/* Records are "TAG value\0"; count first so the vectors are allocated once. */
static int count_records(const char *buf, size_t len, int *nargs, int *nenv)
{
	size_t i = 0;

	*nargs = *nenv = 0;
	while (i < len) {
		const char *end = memchr(buf + i, '\0', len - i);

		if (!end || end == buf + i)
			return -1;
		if (buf[i] == VM_JOB_ARG)
			(*nargs)++;
		else if (buf[i] == VM_JOB_ENV)
			(*nenv)++;
		i = end - buf + 1;
	}
	return 0;
}

static int fill_job(char *buf, size_t len, struct job *job)
{
	size_t i = 0;

	while (i < len) {
		char tag = buf[i];
		char *value = buf + i + 1;

		i += strlen(buf + i) + 1;
		if (tag == VM_JOB_CWD)
			job->cwd = value;
		else if (tag == VM_JOB_ARG)
			job->argv[job->nargs++] = value;
		else if (tag == VM_JOB_ENV)
			job->envp[job->nenv++] = value;
		else if (tag != VM_JOB_SHARE && tag != VM_JOB_SHARE_RO)
			return -1;
		else if (add_share(job, value, tag == VM_JOB_SHARE) < 0)
			return -1;
	}
	return job->cwd ? 0 : -1;
}

/* Split BUF (kept: the job points into it) into JOB; -1 if it is not a valid job file. */
int parse_job(char *buf, size_t len, struct job *job)
{
	int nargs, nenv;

	memset(job, 0, sizeof(*job));
	if (count_records(buf, len, &nargs, &nenv) < 0 || nargs == 0)
		return -1;
	job->argv = calloc(nargs + 1, sizeof(char *));
	job->envp = calloc(nenv + 1, sizeof(char *));
	if (job->argv && job->envp && fill_job(buf, len, job) == 0)
		return 0;
	free(job->argv);
	free(job->envp);
	memset(job, 0, sizeof(*job));
	return -1;
}

static const char *cmdline(void)
{
	static char buf[4096];
	static bool done;
	int fd;
	ssize_t n;

	if (done)
		return buf;
	done = true;
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The word starting with KEY (exactly KEY, or KEY=...) in /proc/cmdline, or NULL. */
static const char *find_word(const char *key, size_t *wordlen)
{
	const char *p = cmdline();
	size_t klen = strlen(key);

	while (*p) {
		size_t n = strcspn(p, " ");

		if (n >= klen && strncmp(p, key, klen) == 0 && (n == klen || p[klen] == '=')) {
			*wordlen = n;
			return p;
		}
		p += n;
		p += strspn(p, " ");
	}
	return NULL;
}

bool cmdline_has(const char *word)
{
	size_t n;
	const char *w = find_word(word, &n);

	return w && n == strlen(word);
}

const char *cmdline_value(const char *key)
{
	static char value[4096];
	size_t n, klen = strlen(key);
	const char *w = find_word(key, &n);

	if (!w || n <= klen || n - klen - 1 >= sizeof(value))
		return NULL;
	memcpy(value, w + klen + 1, n - klen - 1);
	value[n - klen - 1] = '\0';
	return value;
}
