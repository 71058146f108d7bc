/*
 * run.c - pass 5: load the module, run the session, unload.
 *
 *   fork a guardian that unloads the module if this process dies
 *   fork the -c command, held on a pipe
 *   finit_module(module, "target=PID ...")
 *   open /proc/MOD/{data,ctl}; write "start" (probes armed, begin probes ran)
 *   release the command; relay records until exit(), the command's end,
 *   or SIGINT/SIGTERM; write "stop" (end probes run); drain; report; unload
 */
#include "runner/run.h"
#include "base/command.h"
#include "core/wire.h"
#include "runner/trace/sink.h"
#include "tables.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct runner {
	struct session *s;
	const char *modname;
	int data_fd, ctl_fd, sig_fd;
	int tables_fd;		/* /proc/MOD/tables, when the module unwinds user stacks */
	int out_fd;
	int out_num;		/* FILE.N being written, with -S or after switch_file() */
	bool out_numbered;
	long long out_bytes;	/* written to it */
	pid_t child;		/* -c command */
	int go_pipe;		/* write end: closing it releases the command */
	int exec_report;	/* read end: errno if the command's exec failed */
	pid_t guardian;
	int guardian_pipe;
	bool child_exited;
	int child_status;
	bool stop;
	char *buf;
	size_t bufsize;
	long long received_prints;
	pthread_t relay;
	atomic_bool relay_done;
	int exit_event;		/* eventfd: the relay saw an exit request */
	int stdin_fd;		/* the module's input file (input.char/.line), or -1 */
	pthread_mutex_t system_lock;	/* the relay thread starts them too */
	pid_t *system_pids;	/* system() commands not yet waited for */
	size_t nsystem, system_cap;
};

struct ctl_status {
	long state, exit, exit_status, errors, skipped, skipped_nested, skipped_lock, suppressed;
	long long records, lost_records, lost_bytes, lost_prints, lost_messages;
};

static const char *modname_of(const char *ko_path)
{
	const char *base = strrchr(ko_path, '/');
	char *name = arena_strdup(base ? base + 1 : ko_path);
	char *dot = strrchr(name, '.');

	if (dot)
		*dot = 0;
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static bool module_loaded(const char *name)
{
	char *mods = read_file("/proc/modules", NULL);
	size_t n = strlen(name);

	for (char *p = mods; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return true;
	return false;
}

static int unload_module(const char *name)
{
	for (int i = 0; i < 100; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0 || errno == ENOENT)
			return 0;
		if (errno != EAGAIN && errno != EBUSY && errno != EWOULDBLOCK)
			break;
		usleep(20000);
	}
	return module_loaded(name) ? -1 : 0;
}

/*
 * The guardian outlives us if we are killed: when its pipe reads EOF without
 * the "done" byte, it unloads the module. It ignores the signals a terminal
 * sends so that Ctrl-C cannot take it down before it has done its job.
 */
static pid_t start_guardian(const char *modname, int *wfd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c = 0;

		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		if (c != 'd' && module_loaded(modname))
			unload_module(modname);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void stop_guardian(struct runner *r)
{
	if (r->guardian <= 0)
		return;
	if (write(r->guardian_pipe, "d", 1) < 0)
		(void)0;
	close(r->guardian_pipe);
	waitpid(r->guardian, NULL, 0);
	r->guardian = 0;
}

/* Forks the -c command; it waits until the go pipe closes, then execs. */
static int start_child(struct runner *r)
{
	int p[2], rp[2];

	/* rp: the child reports an exec failure's errno; a successful exec closes it */
	if (pipe2(p, O_CLOEXEC) || pipe2(rp, O_CLOEXEC))
		return -1;
	r->child = fork();
	if (r->child < 0)
		return -1;
	if (r->child == 0) {
		char c;
		int rep[2];	/* errno, failed redirection */
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		if (c != 'g')
			_exit(126);	/* the session failed to start */
		rep[0] = command_exec(r->s->command, &rep[1]);
		if (write(rp[1], rep, sizeof(rep)) < 0)
			(void)0;
		_exit(127);
	}
	close(p[0]);
	close(rp[1]);
	r->go_pipe = p[1];
	r->exec_report = rp[0];
	return 0;
}

/* True (and said) if the released command's exec failed. */
static bool exec_failed(struct runner *r)
{
	int rep[2] = { 0, -1 };
	const struct command *c = r->s->command;

	if (r->exec_report < 0 || !r->child_exited)
		return false;
	if (read(r->exec_report, rep, sizeof(rep)) != (ssize_t)sizeof(rep) || !rep[0])
		return false;
	if (rep[1] >= 0 && rep[1] < c->nredirs)
		errorf("cannot run the -c command '%s': its redirection %s%s: %s", r->s->cmd,
		       c->redirs[rep[1]].op, c->redirs[rep[1]].file, strerror(rep[0]));
	else
		errorf("cannot run the -c command '%s': %s", r->s->cmd, strerror(rep[0]));
	return true;
}

static void release_child(struct runner *r, bool go)
{
	if (r->go_pipe < 0)
		return;
	if (go && write(r->go_pipe, "g", 1) < 0)
		(void)0;
	close(r->go_pipe);
	r->go_pipe = -1;
}

static const char *load_error(int err)
{
	switch (err) {
	case EPERM:
		return "operation not permitted: loading a kernel module needs root "
		       "(CAP_SYS_MODULE), and a kernel in lockdown (Secure Boot) refuses "
		       "unsigned modules; run as root, or use --vm";
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
		return "the kernel refuses unsigned modules (module signature enforcement); "
		       "disable module.sig_enforce / Secure Boot lockdown, or use --vm";
	case EEXIST:
		return "a module of this name is already loaded (choose another with -m)";
	case ENOEXEC:
		return "the module does not match the running kernel (built against other "
		       "headers? use -r with the running kernel's release)";
	case ENOENT:
		return "a kernel symbol the module needs is missing (see dmesg)";
	default:
		return strerror(err);
	}
}

static int load_module(struct runner *r, const char *ko_path)
{
	int fd = open(ko_path, O_RDONLY | O_CLOEXEC);
	char *params;
	long rc;

	if (fd < 0) {
		errorf("cannot open module '%s': %s", ko_path, strerror(errno));
		return -1;
	}
	params = arena_printf("target=%ld bufsize_kb=%ld", r->s->target_pid,
			      (r->s->buffer_mb > 0 ? r->s->buffer_mb : 4) * 1024);
	rc = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	if (rc) {
		errorf("cannot load module '%s': %s", ko_path, load_error(errno));
		return -1;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Stream STREAM (a thread id for the trace formats) goes to its own file:
 * PATH.STREAM for itrace_output's PATH, else FILE.STREAM with -o FILE, else
 * the script's output. The trace sink keeps the table of open files.
 */
static int output_stream_fd(struct runner *r, unsigned int stream)
{
	return trace_sink_stream_fd(stream, r->out_fd);
}

/*
 * system(CMD) from the script: /bin/sh -c CMD in the background, with the
 * runner's stdout and stderr, stdin /dev/null and the signals unblocked.
 * The run waits for them before it ends, so their output is never cut.
 */
static void system_event(struct runner *r, const char *cmd, size_t len)
{
	char *text = strndup(cmd, len);
	pid_t pid;

	if (!text)
		return;
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		int null_fd = open("/dev/null", O_RDONLY);

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null_fd >= 0)
			dup2(null_fd, 0);
		execl("/bin/sh", "sh", "-c", text, (char *)NULL);
		_exit(127);
	}
	free(text);
	if (pid < 0) {
		fprintf(stderr, "WARNING: system(): cannot start the command: %s\n", strerror(errno));
		return;
	}
	pthread_mutex_lock(&r->system_lock);
	if (r->nsystem == r->system_cap) {
		size_t cap = r->system_cap ? r->system_cap * 2 : 16;
		pid_t *p = realloc(r->system_pids, cap * sizeof(*p));

		if (p) {
			r->system_pids = p;
			r->system_cap = cap;
		}
	}
	if (r->nsystem < r->system_cap)
		r->system_pids[r->nsystem++] = pid;
	pthread_mutex_unlock(&r->system_lock);
}

static void wait_system(struct runner *r)
{
	for (size_t i = 0; i < r->nsystem; i++)
		while (waitpid(r->system_pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(r->system_pids);
}

/* -o FILE, or FILE.N once files are numbered (-S, switch_file()). */
static const char *output_name(struct runner *r, int num)
{
	return r->out_numbered ? arena_printf("%s.%d", r->s->output, num) : r->s->output;
}

static int open_output(struct runner *r)
{
	const char *name;

	if (!r->s->output) {
		r->out_fd = 1;
		return 0;
	}
	r->out_numbered = r->out_numbered || r->s->output_size_mb > 0;
	name = output_name(r, r->out_num);
	r->out_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r->out_bytes = 0;
	if (r->out_fd < 0) {
		errorf("cannot open output file '%s': %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Goes on in the next output file, FILE.N (switch_file(), or -S when the
 * file is full), removing the oldest beyond -S's N. Standard output stays.
 */
static void switch_output(struct runner *r)
{
	long keep = r->s->output_max_files;

	if (!r->s->output)
		return;
	close(r->out_fd);
	r->out_numbered = true;
	r->out_num++;
	if (keep && r->out_num >= keep)
		unlink(output_name(r, (int)(r->out_num - keep)));
	if (open_output(r))
		r->out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
}

/* The script's output: to the current file, switched first when -S says it is full. */
static void write_output(struct runner *r, const char *p, size_t len)
{
	long long limit = (long long)r->s->output_size_mb << 20;

	if (limit && r->out_bytes && r->out_bytes + (long long)len > limit)
		switch_output(r);
	write_all(r->out_fd, p, len);
	r->out_bytes += (long long)len;
}

/* Reads whatever is pending; returns the number of records, or -1 on error. */
static int drain(struct runner *r)
{
	int total = 0;

	for (;;) {
		ssize_t n = read(r->data_fd, r->buf, r->bufsize);
		size_t off = 0;

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return total;
			errorf("reading the module's output: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			return total;
		while (off + sizeof(struct utap_wire) <= (size_t)n) {
			struct utap_wire *w = (struct utap_wire *)(r->buf + off);
			const char *payload = (const char *)(w + 1);

			if (off + sizeof(*w) + w->len > (size_t)n)
				break;
			switch (w->type) {
			case UTAP_REC_STDOUT:
				write_output(r, payload, w->len);
				r->received_prints += w->nprints;
				break;
			case UTAP_REC_STDERR:
				write_all(2, payload, w->len);
				break;
			case UTAP_REC_STREAM:
				write_all(output_stream_fd(r, w->stream), payload, w->len);
				break;
			case UTAP_REC_TRACE:
				trace_sink_feed(w->stream, payload, w->len);
				break;
			case UTAP_REC_EVENT:
				/* text requests: tables for the table service, system() commands, the rest for the trace sink */
				if (w->len > 7 && !memcmp(payload, "tables ", 7))
					tables_event(r->tables_fd, payload, w->len);
				else if (w->len > 7 && !memcmp(payload, "system ", 7))
					system_event(r, payload + 7, w->len - 7);
				else if (w->len == 10 && !memcmp(payload, "switchfile", 10))
					switch_output(r);
				else
					trace_sink_event(payload, w->len);
				break;
			default:
				break;
			}
			off += sizeof(*w) + w->len;
			total++;
		}
	}
}

static int read_status(struct runner *r, struct ctl_status *st)
{
	char buf[1024];
	ssize_t n;

	memset(st, 0, sizeof(*st));
	n = pread(r->ctl_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char key[32];
		long long v;

		if (sscanf(line, "%31s %lld", key, &v) != 2)
			continue;
#define FIELD(name) if (!strcmp(key, #name)) st->name = v
		FIELD(state);
		FIELD(exit);
		FIELD(exit_status);
		FIELD(errors);
		FIELD(suppressed);
		FIELD(skipped);
		FIELD(skipped_nested);
		FIELD(skipped_lock);
		FIELD(records);
		FIELD(lost_records);
		FIELD(lost_bytes);
		FIELD(lost_prints);
		FIELD(lost_messages);
#undef FIELD
	}
	return 0;
}

static int ctl_command(struct runner *r, const char *cmd)
{
	if (write(r->ctl_fd, cmd, strlen(cmd)) < 0)
		return -errno;
	return 0;
}

static void handle_signals(struct runner *r)
{
	struct signalfd_siginfo si;

	while (read(r->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			int st;
			pid_t pid;

			while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
				if (pid == r->child) {
					r->child_exited = true;
					r->child_status = st;
					r->stop = true;
				}
			}
		} else {
			r->stop = true;
		}
	}
}

/*
 * The relay thread drains the module's output while the main thread is busy
 * in a start or stop request (begin and end probes run inside those), so
 * their output is relayed as it is produced rather than only buffered.
 */
static void *relay_main(void *arg)
{
	struct runner *r = arg;
	struct pollfd pfd = { .fd = r->data_fd, .events = POLLIN | POLLPRI };

	while (!atomic_load(&r->relay_done)) {
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		if (drain(r) < 0)
			break;
		if (pfd.revents & POLLPRI) {
			uint64_t one = 1;

			/* exit requested: tell the main thread once, then stop asking */
			if (write(r->exit_event, &one, sizeof(one)) < 0)
				(void)0;
			pfd.events = POLLIN;
		}
	}
	drain(r);
	return NULL;
}

static int start_relay(struct runner *r)
{
	r->exit_event = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->exit_event < 0)
		return -1;
	return pthread_create(&r->relay, NULL, relay_main, r) ? -1 : 0;
}

static void stop_relay(struct runner *r)
{
	atomic_store(&r->relay_done, true);
	pthread_join(r->relay, NULL);
	close(r->exit_event);
}

/*
 * Our stdin to the script's input probes, a byte per write as input.char
 * wants; at its end (or when the module refuses) no more is read.
 */
static void feed_input(struct runner *r)
{
	char buf[4096];
	ssize_t n = read(0, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++)
		if (write(r->stdin_fd, buf + i, 1) != 1)
			n = 0;
	if (n <= 0 && !(n < 0 && errno == EINTR)) {
		close(r->stdin_fd);
		r->stdin_fd = -1;
	}
}

static void main_loop(struct runner *r)
{
	struct pollfd pfd[3] = {
		{ .fd = r->exit_event, .events = POLLIN },
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct ctl_status st;

	while (!r->stop) {
		int n;

		pfd[2].fd = r->stdin_fd >= 0 ? 0 : -1;
		n = poll(pfd, 3, 250);
		if (n < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN)
			handle_signals(r);
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			feed_input(r);
		if (pfd[0].revents & POLLIN)
			r->stop = true;
		/* exit() from a probe, or too many errors, also show in the state */
		if (n == 0 && read_status(r, &st) == 0 && (st.exit || st.state >= 3))
			r->stop = true;
	}
}

static void report(struct runner *r, const struct ctl_status *st)
{
	if (st->lost_records)
		fprintf(stderr, "WARNING: %lld records lost\n", st->lost_records);
	if (st->lost_messages)
		fprintf(stderr, "WARNING: %lld warning/error messages lost\n", st->lost_messages);
	if (r->s->verbose)
		fprintf(stderr, "Transport: %lld records delivered, %lld lost (%lld bytes, "
			"%lld print calls); %lld print calls received\n", st->records,
			st->lost_records, st->lost_bytes, st->lost_prints, r->received_prints);
	if (st->errors || st->skipped)
		fprintf(stderr, "WARNING: Number of errors: %ld, skipped probes: %ld\n",
			st->errors, st->skipped);
	if (r->s->verbose && st->skipped)
		fprintf(stderr, "Skipped probes: %ld nested in another probe on their CPU, %ld "
			"waiting for a global's lock, %ld kprobes missed or without an instance\n",
			st->skipped_nested, st->skipped_lock,
			st->skipped - st->skipped_nested - st->skipped_lock);
}

static void end_child(struct runner *r)
{
	if (r->child <= 0 || r->child_exited)
		return;
	/* the session ended first (exit(), an error or a signal): end the command too */
	kill(r->child, SIGTERM);
	for (int i = 0; i < 50; i++) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_exited = true;
			return;
		}
		usleep(20000);
	}
	kill(r->child, SIGKILL);
	waitpid(r->child, &r->child_status, 0);
	r->child_exited = true;
}

static int open_proc_files(struct runner *r)
{
	const char *data = arena_printf("/proc/%s/data", r->modname);
	const char *ctl = arena_printf("/proc/%s/ctl", r->modname);

	r->data_fd = open(data, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	r->ctl_fd = open(ctl, O_RDWR | O_CLOEXEC);
	if (r->data_fd < 0 || r->ctl_fd < 0) {
		errorf("cannot open the module's files (%s): %s", data, strerror(errno));
		return -1;
	}
	/* only modules that unwind user stacks take tables */
	r->tables_fd = open(arena_printf("/proc/%s/tables", r->modname), O_WRONLY | O_CLOEXEC);
	tables_send_vdso(r->tables_fd);
	return 0;
}

static int setup_signals(struct runner *r, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, old);
	r->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return r->sig_fd < 0 ? -1 : 0;
}

int run_module(struct session *s, const char *ko_path)
{
	struct runner r = {
		.s = s, .data_fd = -1, .ctl_fd = -1, .sig_fd = -1, .go_pipe = -1,
		.guardian_pipe = -1, .tables_fd = -1, .exec_report = -1,
	};
	struct ctl_status st = { 0 };
	sigset_t oldmask;
	int rc = 1, start_rc;

	pthread_mutex_init(&r.system_lock, NULL);
	if (geteuid() != 0) {
		errorf("pass 5 loads a kernel module, which needs root: run utap as root, or "
		       "use --vm to run in a throwaway virtual machine");
		return 1;
	}
	r.modname = modname_of(ko_path);
	r.bufsize = 1 << 20;
	r.buf = malloc(r.bufsize);
	if (!r.buf || setup_signals(&r, &oldmask) || open_output(&r))
		return 1;
	r.guardian = start_guardian(r.modname, &r.guardian_pipe);
	if (s->command && start_child(&r)) {
		errorf("cannot start '%s': %s", s->cmd, strerror(errno));
		goto out;
	}
	if (s->command)
		s->target_pid = r.child;
	if (trace_sink_open(s))
		goto out;
	if (load_module(&r, ko_path))
		goto out;
	if (open_proc_files(&r))
		goto unload;
	if (start_relay(&r)) {
		errorf("cannot start the output relay: %s", strerror(errno));
		goto close_files;
	}
	start_rc = ctl_command(&r, UTAP_CTL_START);
	if (start_rc) {
		stop_relay(&r);
		errorf("starting the session failed: %s", strerror(-start_rc));
		goto close_files;
	}
	release_child(&r, true);
	r.stdin_fd = open(arena_printf("/proc/systemtap/%s/__stdin", r.modname),
			  O_WRONLY | O_CLOEXEC);
	main_loop(&r);
	if (r.stdin_fd >= 0)
		close(r.stdin_fd);
	ctl_command(&r, UTAP_CTL_STOP);
	stop_relay(&r);
	read_status(&r, &st);
	/* errors --suppress-handler-errors hid are reported, not failures */
	rc = st.exit_status || st.errors > st.suppressed ? 1 : 0;
	if (exec_failed(&r))
		rc = 1;
	if (trace_sink_close(s))
		rc = 1;
	report(&r, &st);
close_files:
	close(r.data_fd);
	close(r.ctl_fd);
	if (r.tables_fd >= 0)
		close(r.tables_fd);
unload:
	if (unload_module(r.modname)) {
		errorf("cannot unload module %s: %s", r.modname, strerror(errno));
		rc = 1;
	}
out:
	release_child(&r, false);
	end_child(&r);
	wait_system(&r);
	if (r.exec_report >= 0)
		close(r.exec_report);
	stop_guardian(&r);
	if (r.out_fd > 2)
		close(r.out_fd);
	free(r.buf);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return rc;
}
