/*
 * k_calls4 FAMILY - system calls with known arguments for the syscall
 * tapset tests of kernel services: keys (keys), modules (module), NUMA
 * memory policies (numa), x86 descriptors, reboot, swap and the other
 * administration calls (sys), kexec, perf and bpf (load), fanotify and
 * file handles (fan), the kernel clock (clock) and disk quotas (quota). Every structure an argument points to sits
 * in a mapping at the fixed address 0x50000000 (AREA), so the addresses
 * the tapset prints are known too; each call is made once, directly, in
 * the order below, fails or changes nothing, and prints nothing.
 */
#define _GNU_SOURCE
#include <asm/ldt.h>
#include <fcntl.h>
#include <linux/fanotify.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/bpf.h>
#include <linux/module.h>
#include <linux/mempolicy.h>
#include <linux/reboot.h>
#include <string.h>
#include <sys/quota.h>
#include <sys/mman.h>
#include <sys/timex.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utime.h>

#define AREA 0x50000000UL
#define AT(off) ((void *)(AREA + (off)))

static const char *const missing = "/nonexistent/k_calls4";

/* the payload at +0x20, a buffer at +0x40 */
static void keys(void)
{
	strcpy(AT(0x20), "secret");
	syscall(SYS_add_key, "nosuchtype", "utap:k4", AT(0x20), 6, KEY_SPEC_PROCESS_KEYRING);
	syscall(SYS_request_key, "user", "utap:none", NULL, 0);
	syscall(SYS_keyctl, KEYCTL_REVOKE, 999999);
	syscall(SYS_keyctl, KEYCTL_READ, 999999, AT(0x40), 64);
	syscall(SYS_keyctl, KEYCTL_SETPERM, 999999, 0x01000000 | 0x00020000 | 0x40);
	syscall(SYS_keyctl, KEYCTL_SET_REQKEY_KEYRING, KEY_REQKEY_DEFL_NO_CHANGE);
	syscall(SYS_keyctl, 99, 1, 2, 3, 4);
}

/* a module image too short to be one at +0x100 */
static void module(void)
{
	syscall(SYS_init_module, AT(0x100), 16, "x=1");
	syscall(SYS_finit_module, -1, "", MODULE_INIT_IGNORE_VERMAGIC);
	syscall(SYS_delete_module, "utap_nosuch", O_NONBLOCK);
}

/* the policy at +0x20, a page list at +0x40, the status at +0x60, a page at +0x1000 */
static void numa(void)
{
	void **pages = AT(0x40);

	pages[0] = AT(0x1000);
	*(char *)AT(0x1000) = 1;
	syscall(SYS_get_mempolicy, AT(0x20), NULL, 0, NULL, 0);
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	syscall(SYS_set_mempolicy, MPOL_BIND | MPOL_F_STATIC_NODES, NULL, 0);
	syscall(SYS_mbind, AT(0x1000), 4096, MPOL_DEFAULT, NULL, 0, MPOL_MF_STRICT);
	syscall(SYS_move_pages, 0, 1, pages, NULL, AT(0x60), 0);
}

/* user_descs at +0x200 and +0x240, a utimbuf at +0x280, buffers at +0x300 */
static void sys(void)
{
	struct user_desc *tls = AT(0x200), *bad = AT(0x240);
	struct utimbuf *times = AT(0x280);

	tls->entry_number = 12;
	bad->entry_number = 99;
	bad->base_addr = 4096;
	bad->seg_32bit = 1;
	bad->useable = 1;
	times->actime = 1;
	times->modtime = 2;
	syscall(SYS_iopl, 4);
	syscall(SYS_modify_ldt, 99, AT(0x300), 16);
	syscall(SYS_get_thread_area, tls);
	syscall(SYS_set_thread_area, bad);
	syscall(SYS_sysfs, 1, "nosuchfs");
	syscall(SYS_sysfs, 2, 99999, AT(0x300));
	syscall(SYS_sysfs, 9, 1, 2);
	syscall(SYS_ustat, 0, AT(0x300));
	syscall(SYS_utime, missing, times);
	syscall(SYS_uselib, missing);
	syscall(SYS_swapon, missing, SWAP_FLAG_PREFER | 5);
	syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0, LINUX_REBOOT_CMD_CAD_OFF, NULL);
	syscall(SYS_remap_file_pages, AT(0x1000), 4096, 0, 0, MAP_NONBLOCK);
	syscall(SYS_memfd_secret, O_CLOEXEC);
	syscall(SYS_lookup_dcookie, 0x1234, AT(0x300), 64);
}

/* a zeroed perf_event_attr and bpf_attr at +0x400 */
static void load(void)
{
	syscall(SYS_kexec_load, 0, 0, NULL, KEXEC_ARCH_X86_64 | 0x100);
	syscall(SYS_kexec_file_load, -1, -1, 1, "", KEXEC_FILE_NO_INITRAMFS);
	syscall(SYS_perf_event_open, AT(0x400), 0, -1, -1, PERF_FLAG_FD_CLOEXEC | 0x100);
	syscall(SYS_bpf, BPF_MAP_CREATE, AT(0x400), 72);
	syscall(SYS_bpf, 99, NULL, 0);
}

/* a file handle with no room at +0x400, the mount id at +0x480 */
static void fan(void)
{
	int fd = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);

	syscall(SYS_fanotify_mark, fd, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE, AT_FDCWD, "/tmp");
	close(fd);
	syscall(SYS_name_to_handle_at, AT_FDCWD, "/proc", AT(0x400), AT(0x480), AT_SYMLINK_FOLLOW);
	syscall(SYS_open_by_handle_at, AT_FDCWD, AT(0x400), O_RDONLY);
}

/* timexes at +0x500 (a query) and +0x600 (for a clock that does not exist) */
static void clock(void)
{
	struct timex *query = AT(0x500), *bad = AT(0x600);

	bad->modes = ADJ_OFFSET_SINGLESHOT | ADJ_STATUS;
	bad->constant = -1;
	syscall(SYS_adjtimex, query);
	syscall(SYS_clock_adjtime, 99, bad);
}

/* a dqblk at +0x700, a dqinfo at +0x780, the format at +0x7c0 */
static void quota(void)
{
	memset(AT(0x700), 0, 0x100);	/* as a caller fills them: the page is there */
	syscall(SYS_quotactl, QCMD(Q_SYNC, GRPQUOTA), NULL, 0, NULL);
	syscall(SYS_quotactl, QCMD(Q_QUOTAON, USRQUOTA), missing, QFMT_VFS_V1, "/aquota.user");
	syscall(SYS_quotactl, QCMD(Q_GETQUOTA, USRQUOTA), missing, 1000, AT(0x700));
	syscall(SYS_quotactl, QCMD(Q_GETINFO, 5), missing, 0, AT(0x780));
	syscall(SYS_quotactl, QCMD(Q_GETFMT, USRQUOTA), missing, 0, AT(0x7c0));
	syscall(SYS_quotactl, QCMD(0x99, USRQUOTA), NULL, 0, NULL);
}

static const struct {
	const char *name;
	void (*run)(void);
} families[] = {
	{ "keys", keys }, { "module", module }, { "numa", numa }, { "sys", sys },
	{ "load", load }, { "fan", fan }, { "clock", clock }, { "quota", quota },
};

int main(int argc, char **argv)
{
	if (argc != 2 || mmap(AT(0), 0x10000, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != AT(0))
		return 2;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(argv[1], families[i].name)) {
			families[i].run();
			return 0;
		}
	return 2;
}
