/*
 * vminit.c - entry point of the guest's /init: the job, the setup, the run,
 * and the end (vminit_ctl.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vminit.h"
#include "vm_proto.h"

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
