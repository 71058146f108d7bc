/*
 * vminit.c - entry point of the guest's /init and its ways to end.
 *
 * PID 1 must never exit (the kernel would panic), so every path ends in
 * power_off(). Messages go to the console (the serial log the host keeps)
 * and, once the control port is open, to the host as "err ..." so the user
 * sees the cause without reading the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/reboot.h>
#include <sys/stat.h>

#include "vminit.h"
#include "vm_proto.h"

struct ports ports = { -1, -1, -1 };

/* Format a message into MSG and write it to the console with PREFIX. */
static void console_vwrite(const char *prefix, char *msg, size_t len, const char *fmt,
			   va_list ap)
{
	char line[1200];
	int n;

	vsnprintf(msg, len, fmt, ap);
	n = snprintf(line, sizeof(line), "utap-vminit: %s%s\n", prefix, msg);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	/* fd 2 is /dev/console, opened by the kernel before running us */
	if (write(2, line, n) < 0) {
		/* nowhere left to report to */
	}
}

void say(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	console_vwrite("", msg, sizeof(msg), fmt, ap);
	va_end(ap);
}

/* Report on the console and to the host, then stop the guest. */
void fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	console_vwrite("error: ", msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ports.ctl >= 0)
		ctl_send("err %s\n", msg);
	power_off();
}

void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* reboot() only returns on error; PID 1 must not exit */
	for (;;)
		pause();
}

/* The job stays in memory for the whole run: its strings are the command's argv and environment. */
static void read_job(const char *jobdir, struct job *job)
{
	char path[4096], *buf;
	struct stat st;
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/mnt/root%s/%s", jobdir, VM_JOB_FILE);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		fail("cannot read the job file %s: %s", path, strerror(errno));
	buf = malloc(st.st_size + 1);
	if (!buf)
		fail("job file %s: out of memory", path);
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, st.st_size - n);

		if (got <= 0)
			fail("cannot read the job file %s: %s", path, got ? strerror(errno) : "short");
		n += got;
	}
	close(fd);
	if (parse_job(buf, n, job) < 0)
		fail("job file %s is malformed", path);
}

int main(int argc, char **argv)
{
	struct job job;
	const char *jobdir;

	(void)argc;
	if (getpid() != 1) {
		fprintf(stderr, "%s: this is the init of utap's guest; it runs only as PID 1\n",
			argv[0]);
		return 2;
	}
	mount_early();
	if (cmdline_has(VM_PROBE_PARAM))
		power_off();	/* accelerator probe: booting was the test */
	load_modules();
	open_ports();
	jobdir = cmdline_value(VM_JOB_PARAM);
	if (!jobdir)
		fail("no %s= on the kernel command line", VM_JOB_PARAM);
	mount_host_root();
	read_job(jobdir, &job);
	switch_root();
	mount_system();
	mount_shares(&job);
	bring_up_loopback();
	run_job(&job);
	/*
	 * The host answers "bye" once every byte of output has arrived, however
	 * slowly its reader drains it; should the host die, qemu dies with it.
	 */
	ctl_wait_bye(-1);
	power_off();
}
