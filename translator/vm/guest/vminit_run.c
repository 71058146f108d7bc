/*
 * vminit_run.c - run the job's command and relay its output to the host.
 *
 * The command writes into pipes and init copies them to the stdout/stderr
 * ports. Going through init costs a copy but lets init count the bytes it
 * handed to each port: a port write returns before the host has the data,
 * so the guest may only power off once the host confirms (with "bye") that
 * it received as many bytes as "exit" announced.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "vminit.h"
#include "vm_proto.h"

extern char **environ;

struct stream {
	int pipe_fd;		/* read end of the command's pipe; -1 once done */
	int port_fd;
	size_t len, off;	/* pending bytes in buf[off..len) */
	unsigned long long sent;
	char buf[65536];
};

static struct stream out_stream, err_stream;
static char ctl_buf[256];
static size_t ctl_len;
static pid_t child = -1;
static bool ctl_gone;	/* the host end closed: stop polling it */

/* The command's side of the fork: never returns. */
static void exec_command(const struct job *job, int out_fd, int err_fd)
{
	sigset_t none;
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* not the command's */

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();	/* its own process group: forwarded signals reach it all */
	if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(125);
	if (chdir(job->cwd) < 0) {
		dprintf(2, "utap-vm: cannot enter %s in the guest: %s\n", job->cwd, strerror(errno));
		_exit(125);
	}
	/* execvp searches the PATH of environ, so the job's environment goes there first */
	environ = job->envp;
	execvp(job->argv[0], job->argv);
	dprintf(2, "utap-vm: %s: %s\n", job->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void start_command(const struct job *job)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		fail("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		fail("fork: %s", strerror(errno));
	if (child == 0)
		exec_command(job, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	out_stream.pipe_fd = out[0];
	out_stream.port_fd = ports.out;
	err_stream.pipe_fd = err[0];
	err_stream.port_fd = ports.err;
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
}

static void stream_close(struct stream *s)
{
	if (s->pipe_fd >= 0)
		close(s->pipe_fd);
	s->pipe_fd = -1;
	s->len = s->off = 0;
}

/* Fill an empty buffer from the pipe. After the command ended, an empty pipe means done. */
static void stream_read(struct stream *s, bool command_done)
{
	ssize_t n;

	if (s->pipe_fd < 0 || s->len > s->off)
		return;
	n = read(s->pipe_fd, s->buf, sizeof(s->buf));
	if (n > 0) {
		s->off = 0;
		s->len = n;
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR) || command_done) {
		stream_close(s);
	}
}

static void stream_write(struct stream *s)
{
	ssize_t n;

	if (s->len == s->off)
		return;
	n = write(s->port_fd, s->buf + s->off, s->len - s->off);
	if (n > 0) {
		s->off += n;
		s->sent += n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		say("write to the host: %s; output dropped", strerror(errno));
		stream_close(s);
	}
}

static bool stream_done(const struct stream *s)
{
	return s->pipe_fd < 0 && s->len == s->off;
}

static void ctl_command(const char *line)
{
	int sig;

	if (sscanf(line, "sig %d", &sig) == 1 && sig > 0 && sig < 65) {
		if (child > 0)
			kill(-child, sig);
	} else if (strcmp(line, "close 1") == 0) {
		stream_close(&out_stream);
	} else if (strcmp(line, "close 2") == 0) {
		stream_close(&err_stream);
	}
}

/* Read what the host sent; returns true once "bye" arrived. */
static bool ctl_read(void)
{
	bool bye = false;
	ssize_t n = read(ports.ctl, ctl_buf + ctl_len, sizeof(ctl_buf) - 1 - ctl_len);
	char *nl;

	if (n == 0)
		ctl_gone = true;
	if (n <= 0)
		return false;
	ctl_len += n;
	while ((nl = memchr(ctl_buf, '\n', ctl_len))) {
		*nl = '\0';
		if (strcmp(ctl_buf, "bye") == 0)
			bye = true;
		else
			ctl_command(ctl_buf);
		ctl_len -= nl + 1 - ctl_buf;
		memmove(ctl_buf, nl + 1, ctl_len);
	}
	if (ctl_len == sizeof(ctl_buf) - 1)
		ctl_len = 0;	/* an overlong line: drop it */
	return bye;
}

/* Reap every child (orphans land on PID 1); returns true once the command ended. */
static bool reap(int *status)
{
	int st;
	pid_t pid;
	bool ended = false;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid != child)
			continue;
		ended = true;
		*status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	}
	return ended;
}

static int signalfd_for_children(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		fail("signalfd: %s", strerror(errno));
	return fd;
}

static void add_stream_poll(struct pollfd *p, const struct stream *s)
{
	p->fd = -1;
	if (s->len > s->off) {
		p->fd = s->port_fd;
		p->events = POLLOUT;
	} else if (s->pipe_fd >= 0) {
		p->fd = s->pipe_fd;
		p->events = POLLIN;
	}
}

static void drain_signalfd(int fd)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		;
}

void run_job(const struct job *job)
{
	struct pollfd p[4];
	int sfd = signalfd_for_children();
	int status = 0;
	bool done = false;

	start_command(job);
	ctl_send("ready\n");
	while (!(done && stream_done(&out_stream) && stream_done(&err_stream))) {
		p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = ctl_gone ? -1 : ports.ctl, .events = POLLIN };
		add_stream_poll(&p[2], &out_stream);
		add_stream_poll(&p[3], &err_stream);
		/* once the command ended, stream_read() closes empty pipes: nothing waits forever */
		if (poll(p, 4, -1) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		drain_signalfd(sfd);
		if (!done)
			done = reap(&status);
		if (p[1].revents)
			ctl_read();
		stream_write(&out_stream);
		stream_write(&err_stream);
		stream_read(&out_stream, done);
		stream_read(&err_stream, done);
	}
	ctl_send("exit %d %llu %llu\n", status, out_stream.sent, err_stream.sent);
}

void ctl_wait_bye(int timeout_ms)
{
	struct pollfd p = { .fd = ports.ctl, .events = POLLIN };

	while (!ctl_gone && poll(&p, 1, timeout_ms) > 0)
		if (ctl_read())
			return;
}
