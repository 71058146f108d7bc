/*
 * k_calls3 FAMILY - system calls with known arguments for the syscall
 * tapset tests of futexes and events (events), sockets (net), signals
 * (sig), file systems (fs), clocks and limits (time), more file calls
 * (files) and processes (proc). Every structure an argument points to sits
 * in a mapping at the fixed address 0x50000000 (AREA), so the addresses
 * the tapset prints are known too; each call is made once, directly, in
 * the order below, and prints nothing.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/mount.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <linux/elf.h>
#include <linux/ioprio.h>
#include <linux/kcmp.h>
#include <linux/seccomp.h>
#include <asm/prctl.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define AREA 0x50000000UL
#define AT(off) ((void *)(AREA + (off)))

static const char *const missing = "/nonexistent/k_calls3";

/* futex words at +0 and +4, timespecs at +0x20 and +0x30, a timeval at +0x40 */
static void events(void)
{
	struct timespec *ts = AT(0x20);
	struct timeval *tv = AT(0x40);
	struct itimerspec *its = AT(0x50);
	int ep, in, tfd;

	ts->tv_nsec = 1000;
	tv->tv_usec = 1000;
	syscall(SYS_futex, AT(0), FUTEX_WAKE, 1, NULL, NULL, 0);
	syscall(SYS_futex, AT(0), FUTEX_WAIT, 1, ts, NULL, 0);
	syscall(SYS_futex, AT(0), FUTEX_WAIT_PRIVATE, 1, ts, NULL, 0);
	syscall(SYS_futex, AT(0), FUTEX_WAKE_OP, 1, (void *)1, AT(4),
		FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_GT, 0));
	syscall(SYS_futex, AT(0), FUTEX_CMP_REQUEUE, 1, (void *)2, AT(4), 5);
	syscall(SYS_futex, AT(0), FUTEX_WAKE_BITSET, 1, NULL, NULL, 0xff);
	ep = syscall(SYS_epoll_create, 5);
	close(ep);
	ep = syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
	syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, -1, AT(0x60));
	close(ep);
	syscall(SYS_select, 0, NULL, NULL, NULL, tv);
	syscall(SYS_pselect6, 0, NULL, NULL, NULL, ts, NULL);
	ts->tv_nsec = 1000;	/* pselect6 wrote back what was left: 0 */
	syscall(SYS_ppoll, NULL, 0, ts, NULL, 8);
	syscall(SYS_pipe2, AT(0x80), O_NONBLOCK | O_CLOEXEC);
	close(((int *)AT(0x80))[0]);
	close(((int *)AT(0x80))[1]);
	syscall(SYS_pipe, AT(0x88));
	close(((int *)AT(0x88))[0]);
	close(((int *)AT(0x88))[1]);
	close(syscall(SYS_eventfd2, 3, EFD_CLOEXEC));
	close(syscall(SYS_eventfd, 7));
	sigaddset(AT(0x90), SIGUSR1);
	close(syscall(SYS_signalfd4, -1, AT(0x90), 8, SFD_CLOEXEC));
	close(syscall(SYS_signalfd, -1, AT(0x90), 8));
	close(syscall(SYS_inotify_init));
	in = syscall(SYS_inotify_init1, IN_CLOEXEC);
	syscall(SYS_inotify_add_watch, in, "/tmp", IN_CREATE | IN_DELETE);
	close(in);
	tfd = syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC);
	its->it_value.tv_sec = 5;
	syscall(SYS_timerfd_settime, tfd, 0, its, NULL);
	close(tfd);
}

static void set_inet(struct sockaddr_in *sin, const char *ip, int port)
{
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
}

/* addresses at +0x100 (inet), +0x140 (inet6), +0x180 (unix), data at +0x200 */
static void net(void)
{
	struct sockaddr_in *sin = AT(0x100);
	struct sockaddr_in6 *sin6 = AT(0x140);
	struct sockaddr_un *sun = AT(0x180);
	socklen_t *alen = AT(0x300);
	int s;

	set_inet(sin, "127.0.0.1", 45123);
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(80);
	sin6->sin6_flowinfo = 7;
	inet_pton(AF_INET6, "::1", &sin6->sin6_addr);
	sun->sun_family = AF_UNIX;
	strcpy(sun->sun_path, "/tmp/k_calls3.sock");
	memcpy(AT(0x200), "hello\0x", 7);
	*(int *)AT(0x310) = 1;
	*(socklen_t *)AT(0x318) = sizeof(int);
	*alen = sizeof(struct sockaddr_in);

	s = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, AT(0x310), sizeof(int));
	syscall(SYS_bind, s, sin, sizeof(*sin));
	syscall(SYS_connect, s, sin, sizeof(*sin));
	syscall(SYS_sendto, s, AT(0x200), 7, MSG_DONTWAIT, NULL, 0);
	syscall(SYS_recvfrom, s, AT(0x280), 64, MSG_DONTWAIT, AT(0x2c0), alen);
	syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, AT(0x314), AT(0x318));
	close(s);
	syscall(SYS_connect, -1, sin6, sizeof(*sin6));
	syscall(SYS_bind, -1, sun, sizeof(*sun));
	syscall(SYS_sendto, -1, AT(0x200), 5, MSG_NOSIGNAL | MSG_MORE, sin, sizeof(*sin));
	syscall(SYS_sendmsg, -1, NULL, 0);
	syscall(SYS_recvmsg, -1, NULL, MSG_PEEK | MSG_TRUNC);
	syscall(SYS_sendmmsg, -1, NULL, 2, MSG_DONTWAIT);
	syscall(SYS_recvmmsg, -1, NULL, 1, MSG_WAITFORONE, AT(0x320));
	syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, AT(0x340));
	close(((int *)AT(0x340))[0]);
	close(((int *)AT(0x340))[1]);
}

/* The kernel's struct sigaction (rt_sigaction's, not libc's). */
struct ksigaction {
	unsigned long handler, flags, restorer, mask;
};

/* actions at +0x400, sets at +0x480, siginfo at +0x500, stacks at +0x600 */
static void sig(void)
{
	struct ksigaction *ign = AT(0x400), *act = AT(0x420);
	unsigned long *set = AT(0x480), *wait = AT(0x488);
	siginfo_t *si = AT(0x500);
	stack_t *ss = AT(0x600);
	pid_t pid = getpid();

	ign->handler = (unsigned long)SIG_IGN;
	act->handler = AREA + 0x800;
	act->flags = SA_RESTART | 0x04000000;	/* SA_RESTORER */
	act->restorer = AREA + 0x900;
	act->mask = 1UL << (SIGINT - 1) | 1UL << (SIGTERM - 1);
	*set = 1UL << (SIGUSR1 - 1) | 1UL << (SIGPIPE - 1) | 1UL << (SIGUSR2 - 1);
	*wait = 1UL << (SIGUSR1 - 1);

	syscall(SYS_rt_sigaction, SIGHUP, ign, NULL, 8);
	syscall(SYS_rt_sigaction, SIGUSR2, act, AT(0x440), 8);
	syscall(SYS_rt_sigaction, SIGUSR2, NULL, AT(0x440), 8);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, set, AT(0x490), 8);
	syscall(SYS_rt_sigpending, AT(0x498), 8);
	si->si_signo = SIGUSR1;
	si->si_code = SI_QUEUE;
	si->si_pid = pid;
	si->si_uid = getuid();
	syscall(SYS_rt_sigqueueinfo, pid, SIGUSR1, si);
	syscall(SYS_rt_sigtimedwait, wait, AT(0x580), AT(0x20), 8);
	syscall(SYS_rt_tgsigqueueinfo, pid, pid, SIGUSR1, si);
	syscall(SYS_rt_sigtimedwait, wait, NULL, NULL, 8);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, AT(0x490), NULL, 8);
	ss->ss_sp = AT(0x1000);
	ss->ss_size = 16384;
	syscall(SYS_sigaltstack, ss, AT(0x640));
	ss->ss_sp = NULL;
	ss->ss_size = 0;
	ss->ss_flags = SS_DISABLE;
	syscall(SYS_sigaltstack, ss, NULL);
}

/* values at +0x700, buffers at +0x800, a mapping of its own at +0x8000 */
static void fs(void)
{
	memcpy(AT(0x700), "v1", 3);
	memcpy(AT(0x708), "ab\001", 3);
	syscall(SYS_mremap, AT(0x8000), 0x2000, 0x1000, MREMAP_MAYMOVE);
	syscall(SYS_statx, AT_FDCWD, "/", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, AT(0x800));
	syscall(SYS_mount, "none", missing, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m");
	syscall(SYS_umount2, missing, MNT_DETACH);
	syscall(SYS_setxattr, missing, "user.k", AT(0x700), 3, XATTR_CREATE);
	syscall(SYS_lsetxattr, missing, "user.k", AT(0x708), 3, 0);
	syscall(SYS_fsetxattr, -1, "user.k", AT(0x700), 2, XATTR_REPLACE);
	syscall(SYS_getxattr, missing, "user.k", AT(0x800), 16);
	syscall(SYS_lgetxattr, missing, "user.k", AT(0x800), 16);
	syscall(SYS_fgetxattr, -1, "user.k", AT(0x800), 16);
	syscall(SYS_removexattr, missing, "user.k");
	syscall(SYS_lremovexattr, missing, "user.k");
	syscall(SYS_fremovexattr, -1, "user.k");
}

/* timespecs at +0x20, itimervals at +0x40, a timer id at +0x80, buffers from +0x100 */
static void time_calls(void)
{
	struct itimerval *itv = AT(0x40);
	struct itimerspec *its = AT(0xa0);
	struct timeval *tv = AT(0x180);
	struct rlimit *rl = AT(0x190);
	struct timespec *ts = AT(0x30);

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, AT(0x20));
	syscall(SYS_clock_getres, CLOCK_REALTIME, AT(0x20));
	ts->tv_sec = 1;
	syscall(SYS_clock_settime, CLOCK_MONOTONIC, ts);
	syscall(SYS_getitimer, ITIMER_REAL, AT(0x60));
	itv->it_value.tv_sec = 100;
	syscall(SYS_setitimer, ITIMER_VIRTUAL, itv, AT(0x60));
	syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, AT(0x80));
	its->it_value.tv_sec = 5;
	syscall(SYS_timer_settime, *(int *)AT(0x80), 0, its, NULL);
	syscall(SYS_times, AT(0x100));
	syscall(SYS_sysinfo, AT(0x200));
	tv->tv_usec = 2000000;
	syscall(SYS_settimeofday, tv, NULL);
	rl->rlim_cur = 0;
	rl->rlim_max = RLIM_INFINITY;
	syscall(SYS_setrlimit, RLIMIT_CORE, rl);
	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, AT(0x1a0));
}

/* timespecs and timevals at +0x20, argv and envp at +0x100 */
static void files(void)
{
	static const char *const newpath = "/nonexistent/k_calls3.new";
	struct timespec *ts = AT(0x20);
	struct timeval *tv = AT(0x40);
	const char **argv = AT(0x100), **envp = AT(0x120);

	ts[0].tv_sec = 1;
	ts[0].tv_nsec = 2;
	ts[1].tv_nsec = UTIME_NOW;
	tv[0].tv_sec = 1;
	tv[0].tv_usec = 2;
	tv[1].tv_sec = 3;
	tv[1].tv_usec = 4;
	argv[0] = "k";
	argv[1] = "x";
	envp[0] = "A=1";
	syscall(SYS_mknod, missing, S_IFIFO | 0644, 0);
	syscall(SYS_mknodat, AT_FDCWD, missing, S_IFCHR | 0600, makedev(1, 3));
	syscall(SYS_utimensat, AT_FDCWD, missing, ts, AT_SYMLINK_NOFOLLOW);
	syscall(SYS_utimes, missing, tv);
	syscall(SYS_futimesat, AT_FDCWD, missing, NULL);
	syscall(SYS_fallocate, -1, FALLOC_FL_KEEP_SIZE, 4096, 100);
	syscall(SYS_fadvise64, -1, 0, 100, POSIX_FADV_WILLNEED);
	syscall(SYS_sync_file_range, -1, 0, 4096, SYNC_FILE_RANGE_WRITE);
	syscall(SYS_splice, -1, NULL, -1, NULL, 4096, SPLICE_F_MOVE | SPLICE_F_MORE);
	syscall(SYS_vmsplice, -1, NULL, 0, SPLICE_F_GIFT);
	syscall(SYS_preadv, -1, NULL, 0, 0x1234, 0);
	syscall(SYS_pwritev, -1, NULL, 0, 16, 0);
	syscall(SYS_preadv2, -1, NULL, 0, 0, 0, RWF_HIPRI);
	syscall(SYS_pwritev2, -1, NULL, 0, 0, 0, 0);
	syscall(SYS_renameat2, AT_FDCWD, missing, AT_FDCWD, newpath, RENAME_NOREPLACE);
	syscall(SYS_faccessat2, AT_FDCWD, missing, R_OK | W_OK, AT_EACCESS);
	syscall(SYS_execveat, AT_FDCWD, missing, argv, envp, 0);
}

/* buffers at +0x20, sched_attr at +0x100, a name at +0x180, an iovec at +0x1c0 */
static void proc(void)
{
	struct iovec *iov = AT(0x1c0);
	pid_t pid = getpid();

	strcpy(AT(0x180), "k_calls3x");
	iov->iov_base = AT(0x200);
	iov->iov_len = 216;
	syscall(SYS_waitid, P_PID, 999999, AT(0x20), WEXITED | WNOHANG, NULL);
	syscall(SYS_unshare, CLONE_FILES);
	syscall(SYS_setns, -1, CLONE_NEWNET);
	syscall(SYS_kcmp, pid, pid, KCMP_FILE, 0, 0);
	syscall(SYS_membarrier, 99, 0);
	close(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
	syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0x100, NULL);
	syscall(SYS_pkey_alloc, 1, 2);	/* PKEY_DISABLE_WRITE */
	syscall(SYS_pkey_mprotect, AT(0x8000), 4096, PROT_READ, -1);
	syscall(SYS_ioprio_get, 99, 0);
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4));
	syscall(SYS_sched_getattr, 0, AT(0x100), 48, 0);
	syscall(SYS_sched_setattr, 0, AT(0x100), 0);
	syscall(SYS_arch_prctl, ARCH_GET_FS, AT(0x140));
	syscall(SYS_arch_prctl, 0x9999, 0);
	syscall(SYS_prctl, PR_SET_NAME, AT(0x180), 0, 0, 0);
	syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0);
	syscall(SYS_prctl, PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0);
	syscall(SYS_prctl, 0x12345, 1, 2, 3, 4);
	syscall(SYS_ptrace, PTRACE_PEEKDATA, 999999, AT(0), AT(8));
	syscall(SYS_ptrace, PTRACE_CONT, 999999, 0, SIGUSR1);
	syscall(SYS_ptrace, PTRACE_SETOPTIONS, 999999, 0,
		PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	syscall(SYS_ptrace, PTRACE_GETREGSET, 999999, NT_PRSTATUS, iov);
	syscall(SYS_ptrace, PTRACE_ATTACH, 999999, 0, 0);
	syscall(SYS_ptrace, PTRACE_ARCH_PRCTL, 999999, AT(0x140), ARCH_GET_FS);
	syscall(SYS_ptrace, PTRACE_GETREGS, 999999, 0, AT(0x200));
}

int main(int argc, char **argv)
{
	if (argc != 2 || mmap(AT(0), 0x10000, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != AT(0))
		return 2;
	if (!strcmp(argv[1], "events"))
		events();
	else if (!strcmp(argv[1], "net"))
		net();
	else if (!strcmp(argv[1], "sig"))
		sig();
	else if (!strcmp(argv[1], "fs"))
		fs();
	else if (!strcmp(argv[1], "time"))
		time_calls();
	else if (!strcmp(argv[1], "files"))
		files();
	else if (!strcmp(argv[1], "proc"))
		proc();
	else
		return 2;
	return 0;
}
