/*
 * vm_check.c - `utap --vm-check`: show what a --vm run would use and, for
 * each thing missing, what to install or do. Nothing is booted except the
 * short KVM probe when no verdict is cached yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vm_internal.h"

/* The first line qemu prints for --version, e.g. "QEMU emulator version 7.2.22 (...)". */
static void qemu_version(const char *qemu, char *buf, size_t len)
{
	int p[2], st;
	ssize_t n = 0;
	pid_t pid;

	snprintf(buf, len, "version unknown");
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int null_fd = open("/dev/null", O_RDWR);

		dup2(null_fd, 0);
		dup2(p[1], 1);
		dup2(null_fd, 2);
		execl(qemu, qemu, "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0) {
		n = read(p[0], buf, len - 1);
		waitpid(pid, &st, 0);
	}
	close(p[0]);
	if (n > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
	}
}

static int check_headers(const struct vm_host *h, FILE *out)
{
	char build[PATH_MAX + 16];
	struct stat st;

	snprintf(build, sizeof(build), "%s/build", h->moddir);
	if (stat(build, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(out, "  headers:     %s\n", build);
		return 0;
	}
	fprintf(out, "  headers:     %s missing: install the Debian package linux-headers-%s\n",
		build, h->krel);
	return 1;
}

/* The parts that need a temporary directory: the initramfs and the accelerator verdict. */
static int check_boot_files(const struct vm_config *cfg, const struct vm_host *h, FILE *out)
{
	static struct vm_boot b;
	char dir[] = "/tmp/utap-vmcheck-XXXXXX", path[64];
	int rc;

	if (!mkdtemp(dir)) {
		fprintf(out, "  problem:     cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	rc = vm_prepare_boot(cfg, h, dir, &b);
	if (b.initrd[0])
		fprintf(out, "  initramfs:   %s\n", b.initrd);
	else
		fprintf(out, "  initramfs:   cannot be built (see the error above)\n");
	if (b.kernel[0])
		fprintf(out, "  boots:       %s%s\n", b.kernel, strcmp(b.kernel, h->kernel) ?
			" (unpacked once: PVH entry, no decompression)" : "");
	if (b.why[0])
		fprintf(out, "  accelerator: %s%s%s\n", b.accel ? b.accel : "", b.accel ? ": " : "",
			b.why);
	if (strncmp(b.initrd, dir, strlen(dir)) == 0)
		unlink(b.initrd);
	snprintf(path, sizeof(path), "%s/console.log", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/qemu.log", dir);
	unlink(path);
	rmdir(dir);
	return rc < 0 ? 1 : 0;
}

int vm_check(const struct vm_config *cfg, FILE *out)
{
	struct vm_host h;
	char version[128];
	int problems = 0;

	vm_find_host(cfg, &h);
	fprintf(out, "utap --vm would use:\n");
	if (h.qemu[0]) {
		qemu_version(h.qemu, version, sizeof(version));
		fprintf(out, "  qemu:        %s (%s)\n", h.qemu, version);
	}
	if (h.kernel[0])
		fprintf(out, "  kernel:      %s (release %s)\n", h.kernel, h.krel);
	if (h.moddir[0])
		problems += check_headers(&h, out);
	if (h.init[0])
		fprintf(out, "  guest init:  %s\n", h.init);
	fprintf(out, "  cache:       %s\n", h.cache[0] ? h.cache : "none (no writable "
		"$XDG_CACHE_HOME or $HOME): the initramfs is rebuilt on every run");
	fprintf(out, "  guest:       %u MB, %u CPUs, ", cfg->mem_mb ? cfg->mem_mb : VM_DEFAULT_MEM_MB,
		cfg->cpus ? cfg->cpus : VM_DEFAULT_CPUS);
	if (cfg->timeout_s)
		fprintf(out, "timeout %u s\n", cfg->timeout_s);
	else
		fprintf(out, "no timeout\n");
	if (h.problem[0]) {
		char *line = h.problem, *nl;

		while ((nl = strchr(line, '\n'))) {
			fprintf(out, "  problem:     %.*s\n", (int)(nl - line), line);
			problems++;
			line = nl + 1;
		}
	} else {
		problems += check_boot_files(cfg, &h, out);
	}
	if (problems)
		fprintf(out, "--vm would fail: %d problem%s above\n", problems, problems > 1 ? "s" : "");
	else
		fprintf(out, "--vm is ready\n");
	return problems ? 1 : 0;
}
