/*
 * vm_relay.c - while the guest runs: copy the command's stdout and stderr to
 * ours as they arrive, forward SIGINT/SIGTERM, enforce the timeout, and end
 * the guest once its exit status and every byte it announced are here.
 *
 * Writes to fds 1 and 2 happen in pieces of at most a pipe buffer page after
 * poll() said they fit, so a slow reader on our side never keeps the loop
 * from seeing a signal or the timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vm_internal.h"

#define WRITE_PIECE 4096
#define POWEROFF_GRACE_S 10.0

struct host_stream {
	int sock;		/* our end of the port's socket; -1 at end of stream */
	int fd;			/* 1 or 2 */
	bool broken;		/* fd refused (EPIPE): discard, the guest was told */
	size_t len, off;
	unsigned long long got;
	char buf[65536];
};

struct relay {
	const struct vm_config *cfg;
	const char *job_file;	/* removed once the guest has read it */
	struct vm_result *r;
	pid_t qemu;
	int pidfd;
	bool qemu_done;
	int ctl;
	char ctl_buf[1024];
	size_t ctl_len;
	struct host_stream out, err;
	int sig_r, signals_seen;
	int pending_sig;	/* arrived while the guest was booting */
	bool ready, got_exit, bye_sent, timed_out, interrupted;
	unsigned long long want_out, want_err;
	double start, deadline, bye_deadline;
};

static volatile sig_atomic_t signal_count;
static volatile sig_atomic_t qemu_pid;
static int signal_pipe_w = -1;

/* Async-signal-safe: a second signal stops the guest even if the loop is stuck. */
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = sig;

	if (++signal_count >= 2 && qemu_pid > 0)
		kill(qemu_pid, SIGKILL);
	if (write(signal_pipe_w, &c, 1) < 0) {
		/* the pipe is full of earlier signals: nothing new to say */
	}
	errno = saved;
}

struct saved_signals {
	struct sigaction intr, term, pipe;
};

static int catch_signals(struct saved_signals *old, int *read_end)
{
	struct sigaction sa;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	signal_pipe_w = p[1];
	*read_end = p[0];
	signal_count = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old->intr);
	sigaction(SIGTERM, &sa, &old->term);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old->pipe);
	return 0;
}

static void restore_signals(const struct saved_signals *old, int read_end)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGPIPE, &old->pipe, NULL);
	close(read_end);
	close(signal_pipe_w);
	signal_pipe_w = -1;
	qemu_pid = 0;
}

static void ctl_send(struct relay *rl, const char *msg)
{
	if (rl->ctl >= 0 && send(rl->ctl, msg, strlen(msg), MSG_NOSIGNAL) < 0)
		vm_note(rl->cfg, "cannot tell the guest \"%.*s\": %s", (int)strlen(msg) - 1, msg,
			strerror(errno));
}

static void stop_qemu(struct relay *rl)
{
	int st;

	if (rl->qemu_done)
		return;
	kill(rl->qemu, SIGKILL);
	waitpid(rl->qemu, &st, 0);
	rl->qemu_done = true;
}

static void forward_signal(struct relay *rl, int sig)
{
	char msg[32];

	vm_note(rl->cfg, "forwarding signal %d to the guest command", sig);
	snprintf(msg, sizeof(msg), "sig %d\n", sig);
	ctl_send(rl, msg);
}

static void ctl_line(struct relay *rl, char *line)
{
	struct vm_result *r = rl->r;
	double t = vm_now() - rl->start;

	if (strcmp(line, "ready") == 0) {
		rl->ready = true;
		r->ready_at = t;
		vm_note(rl->cfg, "guest ready, command starting %.2f s after qemu started", t);
		/* the environment need not sit on disk any longer than the guest needs it */
		unlink(rl->job_file);
		if (rl->pending_sig)
			forward_signal(rl, rl->pending_sig);
	} else if (sscanf(line, "exit %d %llu %llu", &r->status, &rl->want_out,
			  &rl->want_err) == 3) {
		rl->got_exit = true;
		r->exited_at = t;
		vm_note(rl->cfg, "command ended with status %d at %.2f s", r->status, t);
	} else if (strncmp(line, "err ", 4) == 0) {
		snprintf(r->guest_error, sizeof(r->guest_error), "%.*s",
			 (int)sizeof(r->guest_error) - 1, line + 4);
	}
}

static void ctl_read(struct relay *rl)
{
	ssize_t n = read(rl->ctl, rl->ctl_buf + rl->ctl_len, sizeof(rl->ctl_buf) - 1 - rl->ctl_len);
	char *nl;

	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(rl->ctl);
			rl->ctl = -1;
		}
		return;
	}
	rl->ctl_len += n;
	while ((nl = memchr(rl->ctl_buf, '\n', rl->ctl_len))) {
		*nl = '\0';
		ctl_line(rl, rl->ctl_buf);
		rl->ctl_len -= nl + 1 - rl->ctl_buf;
		memmove(rl->ctl_buf, nl + 1, rl->ctl_len);
	}
	if (rl->ctl_len == sizeof(rl->ctl_buf) - 1)
		rl->ctl_len = 0;	/* an overlong line: drop it */
}

static void stream_read(struct host_stream *s)
{
	ssize_t n;

	if (s->sock < 0 || s->len > s->off)
		return;
	n = read(s->sock, s->buf, sizeof(s->buf));
	if (n > 0) {
		s->got += n;
		s->off = 0;
		s->len = s->broken ? 0 : (size_t)n;
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(s->sock);
		s->sock = -1;
	}
}

static void stream_write(struct relay *rl, struct host_stream *s)
{
	size_t n = s->len - s->off;
	ssize_t w;

	if (n == 0)
		return;
	w = write(s->fd, s->buf + s->off, n < WRITE_PIECE ? n : WRITE_PIECE);
	if (w > 0) {
		s->off += w;
		if (s->off == s->len)
			s->len = s->off = 0;
	} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
		/* our reader is gone: let the guest command see a broken pipe too */
		s->broken = true;
		s->len = s->off = 0;
		ctl_send(rl, s->fd == 1 ? "close 1\n" : "close 2\n");
	}
}

static void handle_signals(struct relay *rl)
{
	unsigned char sig;

	while (read(rl->sig_r, &sig, 1) == 1) {
		if (++rl->signals_seen >= 2) {
			rl->interrupted = true;
			stop_qemu(rl);
		} else if (!rl->ready) {
			/*
			 * "ready" may be in flight on the control port while the
			 * command's first output already arrived on another; the
			 * command gets the signal as soon as it is known to run.
			 */
			rl->pending_sig = sig;
		} else {
			forward_signal(rl, sig);
		}
	}
}

static void check_qemu(struct relay *rl)
{
	int st;

	if (!rl->qemu_done && waitpid(rl->qemu, &st, WNOHANG) == rl->qemu) {
		rl->qemu_done = true;
		rl->r->qemu_status = st;
	}
}

static bool everything_arrived(const struct relay *rl)
{
	return rl->got_exit && rl->out.got >= rl->want_out && rl->err.got >= rl->want_err;
}

static bool finished(const struct relay *rl)
{
	return rl->qemu_done && rl->out.sock < 0 && rl->err.sock < 0 && rl->ctl < 0 &&
	       rl->out.len == 0 && rl->err.len == 0;
}

static int poll_timeout_ms(const struct relay *rl)
{
	double now = vm_now(), until = -1;

	if (rl->deadline > 0)
		until = rl->deadline;
	if (rl->bye_sent && (until < 0 || rl->bye_deadline < until))
		until = rl->bye_deadline;
	if (rl->pidfd < 0 && !rl->qemu_done && (until < 0 || now + 0.1 < until))
		until = now + 0.1;	/* no pidfd: look at qemu ten times a second */
	if (until < 0)
		return -1;
	return until <= now ? 0 : (int)((until - now) * 1000) + 1;
}

static void add_stream_poll(struct pollfd *p, const struct host_stream *s)
{
	p->fd = -1;
	if (s->len > s->off) {
		p->fd = s->fd;
		p->events = POLLOUT;
	} else if (s->sock >= 0) {
		p->fd = s->sock;
		p->events = POLLIN;
	}
}

static void check_deadlines(struct relay *rl)
{
	double now = vm_now();

	if (rl->deadline > 0 && now >= rl->deadline && !rl->qemu_done && !rl->got_exit) {
		rl->timed_out = true;
		stop_qemu(rl);
	}
	if (rl->bye_sent && now >= rl->bye_deadline && !rl->qemu_done) {
		vm_note(rl->cfg, "the guest did not power off within %.0f s; stopping qemu",
			POWEROFF_GRACE_S);
		stop_qemu(rl);
	}
}

static void relay_loop(struct relay *rl)
{
	struct pollfd p[5];

	while (!finished(rl)) {
		if (!rl->bye_sent && everything_arrived(rl)) {
			ctl_send(rl, "bye\n");
			rl->bye_sent = true;
			rl->bye_deadline = vm_now() + POWEROFF_GRACE_S;
		}
		p[0] = (struct pollfd){ .fd = rl->sig_r, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = rl->qemu_done ? -1 : rl->pidfd, .events = POLLIN };
		p[2] = (struct pollfd){ .fd = rl->ctl, .events = POLLIN };
		add_stream_poll(&p[3], &rl->out);
		add_stream_poll(&p[4], &rl->err);
		if (poll(p, 5, poll_timeout_ms(rl)) < 0 && errno != EINTR)
			break;
		handle_signals(rl);
		check_qemu(rl);
		check_deadlines(rl);
		if (rl->ctl >= 0 && p[2].revents)
			ctl_read(rl);
		stream_write(rl, &rl->out);
		stream_write(rl, &rl->err);
		stream_read(&rl->out);
		stream_read(&rl->err);
	}
}

static void close_if_open(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static enum vm_outcome outcome(const struct relay *rl)
{
	if (rl->interrupted)
		return VM_INTERRUPTED;
	if (rl->timed_out)
		return VM_TIMED_OUT;
	if (rl->got_exit)
		return VM_EXITED;
	return rl->r->guest_error[0] ? VM_GUEST_ERROR : VM_GUEST_DIED;
}

void vm_relay(const struct vm_config *cfg, const char *job_file, pid_t qemu, int out_sock,
	      int err_sock, int ctl_sock, double deadline, struct vm_result *r)
{
	static struct relay rl;	/* two 64 KiB buffers: not for the stack */
	struct saved_signals old;

	memset(&rl, 0, sizeof(rl));
	memset(r, 0, sizeof(*r));
	rl.cfg = cfg;
	rl.job_file = job_file;
	rl.r = r;
	rl.qemu = qemu;
	rl.pidfd = syscall(SYS_pidfd_open, qemu, 0);
	rl.ctl = ctl_sock;
	rl.out = (struct host_stream){ .sock = out_sock, .fd = 1 };
	rl.err = (struct host_stream){ .sock = err_sock, .fd = 2 };
	rl.start = vm_now();
	rl.deadline = deadline;
	if (catch_signals(&old, &rl.sig_r) < 0) {
		rl.sig_r = -1;
		vm_error("pipe: %s", strerror(errno));
	}
	qemu_pid = qemu;
	relay_loop(&rl);
	stop_qemu(&rl);
	close_if_open(&rl.out.sock);
	close_if_open(&rl.err.sock);
	close_if_open(&rl.ctl);
	if (rl.got_exit && !everything_arrived(&rl)) {
		r->lost_out = rl.want_out - (rl.out.got < rl.want_out ? rl.out.got : rl.want_out);
		r->lost_err = rl.want_err - (rl.err.got < rl.want_err ? rl.err.got : rl.want_err);
	}
	if (rl.sig_r >= 0)
		restore_signals(&old, rl.sig_r);
	if (rl.pidfd >= 0)
		close(rl.pidfd);
	r->outcome = outcome(&rl);
}
