/*
 * vminit_setup.c - turn a bare kernel into a copy of the host to run a job in:
 * modules, control ports, the host's root file system, scratch space.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "vminit.h"
#include "vm_proto.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

/* 9p moves file data in messages of up to msize bytes; bigger is faster */
#define P9_OPTS "trans=virtio,version=9p2000.L,msize=262144"

static bool overlay_root;

static void mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		mkdir(buf, mode);
		buf[i] = path[i];
	}
}

static int mount_at(const char *src, const char *dir, const char *type,
		    unsigned long flags, const char *opts)
{
	mkdir_p(dir, 0755);
	return mount(src, dir, type, flags, opts);
}

static void must_mount(const char *src, const char *dir, const char *type,
		       unsigned long flags, const char *opts)
{
	if (mount_at(src, dir, type, flags, opts) < 0)
		fail("mount %s on %s (%s): %s", src, dir, type, strerror(errno));
}

void mount_early(void)
{
	must_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	must_mount("proc", "/proc", "proc", 0, NULL);
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void load_module(const char *path)
{
	int flags = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open module %s: %s", path, strerror(errno));
	if (has_suffix(path, ".xz") || has_suffix(path, ".zst") || has_suffix(path, ".gz"))
		flags |= MODULE_INIT_COMPRESSED_FILE;
	if (syscall(SYS_finit_module, fd, "", flags) < 0 && errno != EEXIST)
		fail("load module %s: %s", path, strerror(errno));
	close(fd);
}

/* The host wrote the list in dependency order: dependencies first. */
void load_modules(void)
{
	char line[4096];
	FILE *f = fopen(VM_MODULE_LIST, "r");

	if (!f)
		fail("no module list %s in the initramfs", VM_MODULE_LIST);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			load_module(line);
	}
	fclose(f);
}

static int read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int *port_slot(const char *name)
{
	if (strcmp(name, VM_PORT_STDOUT) == 0)
		return &ports.out;
	if (strcmp(name, VM_PORT_STDERR) == 0)
		return &ports.err;
	if (strcmp(name, VM_PORT_CTL) == 0)
		return &ports.ctl;
	return NULL;
}

/* One pass over the virtio ports the kernel has named so far. */
static void scan_ports(void)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *e;
	char path[512], name[128];
	int *slot;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
		if (read_small_file(path, name, sizeof(name)) < 0)
			continue;	/* the name arrives after the port */
		slot = port_slot(name);
		if (!slot || *slot >= 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		*slot = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	}
	closedir(d);
}

/* Ports show up asynchronously after virtio_console loads; wait a bounded time. */
void open_ports(void)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 };
	int i;

	for (i = 0; i < 4000; i++) {
		scan_ports();
		if (ports.out >= 0 && ports.err >= 0 && ports.ctl >= 0)
			return;
		nanosleep(&nap, NULL);
	}
	fail("virtio-serial ports %s/%s/%s did not appear", VM_PORT_STDOUT,
	     VM_PORT_STDERR, VM_PORT_CTL);
}

void mount_host_root(void)
{
	must_mount(VM_ROOT_TAG, "/mnt/root", "9p", MS_RDONLY, P9_OPTS ",cache=loose");
}

/* A tmpfs upper layer over the read-only host root: everything writable, nothing reaches the host. */
static int mount_overlay(const char *lower, const char *scratch, const char *dir)
{
	char opts[2048], upper[512], work[512];

	if (mount_at("tmpfs", scratch, "tmpfs", 0, "mode=0755") < 0)
		return -1;
	snprintf(upper, sizeof(upper), "%s/upper", scratch);
	snprintf(work, sizeof(work), "%s/work", scratch);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	if (mount_at("overlay", dir, "overlay", 0, opts) < 0) {
		umount(scratch);
		return -1;
	}
	return 0;
}

static void enter_root(const char *dir)
{
	if (chdir(dir) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0)
		fail("switch to the host root at %s: %s", dir, strerror(errno));
}

/* Without overlay: scratch tmpfs where programs usually write, a layered /tmp if possible. */
static void mount_fallback_scratch(void)
{
	static const char *const dirs[] = { "/var/tmp", "/root" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mount("tmpfs", dirs[i], "tmpfs", 0, "mode=0755") < 0)
			say("tmpfs on %s: %s", dirs[i], strerror(errno));
	/* the lower path is resolved before the overlay covers it */
	if (mount_overlay("/tmp", "/run/utap-tmp-rw", "/tmp") < 0)
		say("writable /tmp: %s; /tmp stays read-only", strerror(errno));
}

void switch_root(void)
{
	if (cmdline_has(VM_NO_OVERLAY_PARAM)) {
		say("overlay over the 9p root not tried (%s)", VM_NO_OVERLAY_PARAM);
		enter_root("/mnt/root");
	} else if (mount_overlay("/mnt/root", "/mnt/rw", "/newroot") == 0) {
		overlay_root = true;
		enter_root("/newroot");
	} else {
		say("overlay over the 9p root failed (%s); using tmpfs scratch directories",
		    strerror(errno));
		enter_root("/mnt/root");
	}
	must_mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	if (!overlay_root)
		mount_fallback_scratch();
}

static void try_mount(const char *src, const char *dir, const char *type, const char *opts)
{
	if (mount_at(src, dir, type, 0, opts) < 0)
		say("mount %s on %s: %s", type, dir, strerror(errno));
}

void mount_system(void)
{
	must_mount("proc", "/proc", "proc", 0, NULL);
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
	must_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	try_mount("devpts", "/dev/pts", "devpts", "mode=620,ptmxmode=666");
	try_mount("tmpfs", "/dev/shm", "tmpfs", "mode=1777");
	try_mount("debugfs", "/sys/kernel/debug", "debugfs", NULL);
	try_mount("tracefs", "/sys/kernel/tracing", "tracefs", NULL);
	if (sethostname("utap-vm", 7) < 0)
		say("sethostname: %s", strerror(errno));
}

void mount_shares(const struct job *job)
{
	int i;

	for (i = 0; i < job->nshares; i++)
		if (mount_at(job->shares[i].tag, job->shares[i].dir, "9p",
			     job->shares[i].writable ? 0 : MS_RDONLY, P9_OPTS) < 0)
			fail("mount the shared directory %s on %s: %s", job->shares[i].tag,
			     job->shares[i].dir, strerror(errno));
}

void bring_up_loopback(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0) {
		say("socket: %s", strerror(errno));
		return;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	/* the kernel gives lo 127.0.0.1/8 by itself when it goes up */
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP | IFF_RUNNING, ioctl(s, SIOCSIFFLAGS, &ifr) < 0))
		say("bring up lo: %s", strerror(errno));
	close(s);
}
