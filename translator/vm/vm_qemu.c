/*
 * vm_qemu.c - qemu's command line, starting qemu so that it cannot outlive
 * utap, and choosing the accelerator.
 *
 * KVM is only used where a short probe boot shows it works: on hosts with
 * broken nested virtualization a KVM guest spins in the firmware forever.
 * The verdict is cached per host kernel, qemu binary and guest kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vm_internal.h"
#include "vm/guest/vm_proto.h"

/*
 * A working KVM boots this guest and powers it off in about a second; one
 * that needs longer is nested virtualization at its slowest, where TCG is
 * the safer choice (a boot that barely passes can crawl on every 9p read).
 */
#define PROBE_SECONDS 3
#define VERDICT_SECONDS (7 * 24 * 3600)
#define QBOOT "/usr/share/qemu/qboot.rom"
#define MAX_ARGS 96

struct args {
	char *v[MAX_ARGS + 1];
	int n;
};

static void add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s && a->n < MAX_ARGS)
		a->v[a->n++] = s;
	else
		free(s);
}

static void args_free(struct args *a)
{
	while (a->n > 0)
		free(a->v[--a->n]);
}

/* In qemu's option syntax a comma inside a value is written twice. */
static const char *opt_escape(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; *s && i + 2 < len; s++) {
		buf[i++] = *s;
		if (*s == ',')
			buf[i++] = ',';
	}
	buf[i] = '\0';
	return buf;
}

static void add_shares(struct args *a, const struct vm_config *cfg)
{
	char esc[PATH_MAX * 2];
	int i;

	add(a, "-virtfs");
	add(a, "local,path=/,mount_tag=%s,readonly=on,security_model=none,multidevs=remap",
	    VM_ROOT_TAG);
	for (i = 0; i < cfg->nshares; i++) {
		add(a, "-virtfs");
		add(a, "local,path=%s,mount_tag=%s%d,security_model=none,multidevs=remap%s",
		    opt_escape(cfg->shares[i].host_dir, esc, sizeof(esc)), VM_SHARE_TAG, i,
		    cfg->shares[i].writable ? "" : ",readonly=on");
	}
}

static void add_port(struct args *a, const char *id, int fd, const char *name)
{
	add(a, "-chardev");
	add(a, "socket,id=%s,fd=%d", id, fd);
	add(a, "-device");
	add(a, "virtserialport,bus=vs.0,chardev=%s,name=%s", id, name);
}

static void build_args(const struct vm_qemu *q, struct args *a)
{
	const struct vm_config *cfg = q->cfg;
	char esc[PATH_MAX * 2];

	add(a, "%s", q->h->qemu);
	add(a, "-nodefaults");
	add(a, "-no-user-config");
	add(a, "-nographic");
	add(a, "-no-reboot");
	/* q35: PCI interrupts by MSI, so probing the virtio devices skips ACPI link setup (~1 s in TCG) */
	add(a, "-machine");
	add(a, "q35");
	add(a, "-accel");
	add(a, q->kvm ? "kvm" : "tcg,thread=multi");
	add(a, "-cpu");
	add(a, q->kvm ? "host" : "max");
	add(a, "-m");
	add(a, "%u", cfg->mem_mb ? cfg->mem_mb : VM_DEFAULT_MEM_MB);
	add(a, "-smp");
	add(a, "%u", cfg->cpus ? cfg->cpus : VM_DEFAULT_CPUS);
	if (access(QBOOT, R_OK) == 0) {
		/* a minimal firmware: direct kernel boot without SeaBIOS's device scan */
		add(a, "-bios");
		add(a, QBOOT);
	}
	add(a, "-kernel");
	add(a, "%s", q->kernel);
	add(a, "-initrd");
	add(a, "%s", q->initrd);
	add(a, "-append");
	/*
	 * TCG's TSC is the host's: trusting it spares the boot its checks and
	 * gives a fast clock. no_timer_check: on a loaded host the emulated CPU
	 * can miss the early boot's window for timer ticks, and the kernel then
	 * panics "IO-APIC + timer doesn't work" (seen here once in 24 boots at a
	 * load of 9). The crypto self-tests cost half a second of every boot and
	 * test nothing a throwaway guest relies on. UTAP_VM_APPEND adds kernel
	 * parameters for debugging the guest (initcall_debug, loglevel=7).
	 */
	add(a, "console=ttyS0 quiet panic=-1 oops=panic tsc=reliable no_timer_check "
	    "cryptomgr.notests=1 %s%s%s",
	    q->append,
	    getenv("UTAP_VM_APPEND") ? " " : "",
	    getenv("UTAP_VM_APPEND") ? getenv("UTAP_VM_APPEND") : "");
	add(a, "-chardev");
	if (cfg->console)
		add(a, "file,id=con,path=%s", opt_escape(cfg->console, esc, sizeof(esc)));
	else
		add(a, "file,id=con,path=%s/console.log", opt_escape(q->jobdir, esc, sizeof(esc)));
	add(a, "-serial");
	add(a, "chardev:con");
	add(a, "-monitor");
	add(a, "none");
	if (q->out_fd < 0)
		return;
	add_shares(a, cfg);
	add(a, "-device");
	add(a, "virtio-serial-pci,id=vs");
	add_port(a, "uout", q->out_fd, VM_PORT_STDOUT);
	add_port(a, "uerr", q->err_fd, VM_PORT_STDERR);
	add_port(a, "uctl", q->ctl_fd, VM_PORT_CTL);
}

/* The child side of vm_qemu_start(): never returns. */
static void exec_qemu(const struct vm_qemu *q, char **argv, pid_t parent, int log_fd)
{
	int null_fd = open("/dev/null", O_RDONLY);
	int keep[3] = { q->out_fd, q->err_fd, q->ctl_fd };
	sigset_t none;
	int i;

	/* its own process group: a terminal's ^C goes to utap, which decides */
	setpgid(0, 0);
	/* die with utap, however utap ends */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		_exit(127);
	/* only the port sockets pass to qemu, whatever fds utap's caller left open */
	syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */);
	for (i = 0; i < 3; i++)
		if (keep[i] >= 0)
			fcntl(keep[i], F_SETFD, 0);
	execv(argv[0], argv);
	dprintf(2, "utap: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

pid_t vm_qemu_start(const struct vm_qemu *q)
{
	struct args a = { .n = 0 };
	char log[PATH_MAX + 16];
	pid_t parent = getpid(), pid;
	int log_fd, i;

	build_args(q, &a);
	if (q->cfg->verbose > 1) {
		fputs("utap: vm: qemu command:", stderr);
		for (i = 0; i < a.n; i++)
			fprintf(stderr, " %s", a.v[i]);
		fputc('\n', stderr);
	}
	snprintf(log, sizeof(log), "%s/qemu.log", q->jobdir);
	log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log_fd < 0) {
		vm_error("cannot create %s: %s", log, strerror(errno));
		args_free(&a);
		return -1;
	}
	pid = fork();
	if (pid == 0)
		exec_qemu(q, a.v, parent, log_fd);
	if (pid < 0)
		vm_error("fork: %s", strerror(errno));
	close(log_fd);
	args_free(&a);
	return pid;
}

/* Boot the guest with KVM; true if its init got to power off within the bound. */
static bool kvm_boots(const struct vm_config *cfg, const struct vm_host *h, const char *kernel,
		      const char *initrd, const char *jobdir, char *why, size_t whylen)
{
	struct vm_qemu q = { .cfg = cfg, .h = h, .kernel = kernel, .initrd = initrd,
			     .append = VM_PROBE_PARAM,
			     .jobdir = jobdir, .kvm = true, .out_fd = -1, .err_fd = -1,
			     .ctl_fd = -1 };
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	double end = vm_now() + PROBE_SECONDS;
	pid_t pid = vm_qemu_start(&q);
	int st;

	if (pid < 0)
		return false;
	vm_note(cfg, "probing KVM: booting a guest with -accel kvm (at most %d s)",
		PROBE_SECONDS);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (vm_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			snprintf(why, whylen, "a KVM guest did not boot within %d s "
				 "(nested virtualization does not work here)", PROBE_SECONDS);
			return false;
		}
		nanosleep(&nap, NULL);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		snprintf(why, whylen, "a KVM guest booted");
		return true;
	}
	snprintf(why, whylen, "qemu -accel kvm failed (see %s/qemu.log)", jobdir);
	return false;
}

/* The verdict depends on the host kernel, the qemu binary and the guest kernel. */
static void verdict_path(const struct vm_host *h, char *path, size_t len)
{
	struct utsname u;
	struct stat st;
	uint64_t hash = 0;

	uname(&u);
	hash = hash_bytes(u.release, strlen(u.release), hash);
	hash = hash_bytes(u.version, strlen(u.version), hash);
	hash = hash_bytes(h->qemu, strlen(h->qemu), hash);
	if (stat(h->qemu, &st) == 0) {
		hash = hash_bytes(&st.st_size, sizeof(st.st_size), hash);
		hash = hash_bytes(&st.st_mtime, sizeof(st.st_mtime), hash);
	}
	hash = hash_bytes(h->krel, strlen(h->krel), hash);
	snprintf(path, len, "%s/accel-%016llx", h->cache, (unsigned long long)hash);
}

/* A verdict is trusted for a week: a probe that lost to a busy host is not final. */
static const char *cached_verdict(const char *path, char *why, size_t whylen)
{
	char *data;
	size_t len;
	const char *accel = NULL;
	struct stat st;

	if (stat(path, &st) < 0 || st.st_mtime + VERDICT_SECONDS < time(NULL) ||
	    !(data = slurp_file(path, &len)))
		return NULL;
	data[strcspn(data, "\n")] = '\0';
	if (strncmp(data, "kvm ", 4) == 0 || strncmp(data, "tcg ", 4) == 0) {
		accel = data[0] == 'k' ? "kvm" : "tcg";
		snprintf(why, whylen, "%s (cached in %s)", data + 4, path);
	}
	free(data);
	return accel;
}

static const char *auto_accel(const struct vm_config *cfg, const struct vm_host *h,
			      const char *kernel, const char *initrd, const char *jobdir, char *why,
			      size_t whylen)
{
	char path[PATH_MAX + 32], line[600];
	const char *accel;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, whylen, "/dev/kvm: %s", strerror(errno));
		return "tcg";
	}
	close(fd);
	if (h->cache[0]) {
		verdict_path(h, path, sizeof(path));
		accel = cached_verdict(path, why, whylen);
		if (accel)
			return accel;
	}
	accel = kvm_boots(cfg, h, kernel, initrd, jobdir, why, whylen) ? "kvm" : "tcg";
	if (h->cache[0]) {
		snprintf(line, sizeof(line), "%s %s\n", accel, why);
		vm_write_atomic(path, line, strlen(line));
	}
	return accel;
}

/* "kvm" or "tcg", with the reason in WHY; NULL (and the error in WHY) if KVM was forced but is not usable. */
const char *vm_choose_accel(const struct vm_config *cfg, const struct vm_host *h,
			    const char *kernel, const char *initrd, const char *jobdir, char *why,
			    size_t whylen)
{
	/* UTAP_VM_ACCEL pins every nested utap of a run (the test suite's) to one accelerator */
	const char *want = cfg->accel ? cfg->accel :
			   getenv("UTAP_VM_ACCEL") ? getenv("UTAP_VM_ACCEL") : "auto";
	int fd;

	if (strcmp(want, "kvm") == 0) {
		fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, whylen, "--vm-accel kvm: cannot open /dev/kvm (%s): run as "
				 "root or as a member of group kvm, or use --vm-accel tcg",
				 strerror(errno));
			return NULL;
		}
		close(fd);
	}
	if (strcmp(want, "tcg") == 0 || strcmp(want, "kvm") == 0) {
		snprintf(why, whylen, "chosen with %s%s", cfg->accel ? "--vm-accel " :
			 "UTAP_VM_ACCEL=", want);
		return want;
	}
	if (strcmp(want, "auto") != 0) {
		snprintf(why, whylen, "UTAP_VM_ACCEL is auto, tcg or kvm, not '%s'", want);
		return NULL;
	}
	return auto_accel(cfg, h, kernel, initrd, jobdir, why, whylen);
}
