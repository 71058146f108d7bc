/*
 * k_c32.c - a 32-bit (ia32) task making system calls through int $0x80,
 * for the syscall tapset's tests of 32-bit tasks: each call once, in the
 * order below, with known arguments. Built -m32 without a C library, as
 * us_c32 is. Numbers are i386's; the x86-64 call of the same number is
 * another one (getuid32 199 is fremovexattr there, open 5 is fstat, nice
 * 34 pause, waitpid 7 poll). The second half makes calls only ia32 has.
 */
#include "c32_syscall.h"

static const char missing[] = "/nonexistent/k_c32";

/* 32-bit time structures: a timespec, a timeval pair, an itimerval, a utimbuf */
static int ts[2] = { 0, 1000 };
static int ts2[4] = { 1, 2, 0, (1 << 30) - 1 };	/* UTIME_NOW */
static int tv[4] = { 1, 2, 3, 4 };
static int badtv[2] = { 0, 2000000 };
static int itv[4] = { 0, 0, 100, 0 };
static int times[2] = { 1, 2 };
static int tv1[2] = { 0, 1000 };
static int ts3[2] = { 0, 1000 }, ts4[2] = { 0, 1000 }, ts5[2] = { 0, 1000 };

void _start(void)
{
	long fd1, fd2;

	sys3(199, 0, 0, 0);			/* getuid32 */
	sys3(4, -1, (long)"abc", 3);		/* write */
	sys3(33, (long)missing, 4, 0);		/* access(R_OK) */
	sys3(5, (long)missing, 0, 0);		/* open: compat_sys_open */
	fd1 = sys3(328, 3, 02000000, 0);	/* eventfd2(EFD_CLOEXEC) */
	fd2 = sys3(323, 7, 0, 0);		/* eventfd */
	sys3(6, fd1, 0, 0);			/* close */
	sys3(6, fd2, 0, 0);
	sys3(34, 0, 0, 0);			/* nice(0) */
	sys3(7, 999999, 0, 1);			/* waitpid(WNOHANG) */
	sys3(48, 10, 1, 0);			/* signal(SIGUSR1, SIG_IGN) */
	sys3(69, 1 << 11, 0, 0);		/* ssetmask([SIGUSR2]) */
	sys3(68, 0, 0, 0);			/* sgetmask */
	sys5(140, -1, 0, 16, 0, 1);		/* _llseek(SEEK_CUR) */
	sys3(25, 0, 0, 0);			/* stime(NULL): EFAULT, the clock stays */
	sys3(89, -1, 0, 1);			/* readdir */
	sys3(73, 0, 0, 0);			/* sigpending(NULL) */
	sys3(126, 0, 0, 0);			/* sigprocmask(SIG_BLOCK, NULL, NULL) */
	sys3(134, 1, 0, 0);			/* bdflush: none in 6.1 */
	sys3(149, 0, 0, 0);			/* _sysctl: none in 6.1 */
	sys3(268, (long)missing, 84, 0);	/* statfs64 */
	sys3(269, -1, 84, 0);			/* fstatfs64 */
	sys3(182, (long)missing, 0xffff, 0);	/* chown, 16-bit ids: (u16)-1 */
	sys3(16, (long)missing, 0, 0xffff);	/* lchown */
	sys3(95, -1, 0, 0);			/* fchown */
	sys3(70, 0xffff, 0xffff, 0);		/* setreuid(-1, -1): no change */
	sys3(71, 0xffff, 0xffff, 0);		/* setregid */
	sys3(164, 0xffff, 0xffff, 0xffff);	/* setresuid */
	sys3(170, 0xffff, 0xffff, 0xffff);	/* setresgid */
	sys3(62, 0, 0, 0);			/* ustat: compat_sys_ustat */
	sys3(105, 0, 0, 0);			/* getitimer(ITIMER_REAL, NULL) */
	sys3(162, (long)ts, 0, 0);		/* nanosleep */
	sys5(267, 1, 0, (long)ts, 0, 0);	/* clock_nanosleep(CLOCK_MONOTONIC) */
	sys3(104, 1, (long)itv, 0);		/* setitimer(ITIMER_VIRTUAL) */
	sys3(79, (long)badtv, 0, 0);		/* settimeofday: EINVAL */
	sys3(30, (long)missing, (long)times, 0);	/* utime */
	sys3(271, (long)missing, (long)tv, 0);	/* utimes */
	sys3(299, -100, (long)missing, 0);	/* futimesat(AT_FDCWD) */
	sys5(320, -100, (long)missing, (long)ts2, 0x100, 0);	/* utimensat */
	/* 64-bit arguments in two registers, low word first */
	sys3(194, -1, 0x1000, 1);		/* ftruncate64 */
	sys3(193, (long)missing, 16, 0);	/* truncate64 */
	sys5(250, -1, 0, 1, 100, 3);		/* fadvise64(POSIX_FADV_WILLNEED) */
	sys6(272, -1, 0, 0, 4096, 0, 4);	/* fadvise64_64(POSIX_FADV_DONTNEED) */
	sys6(324, -1, 1, 0x1000, 0, 100, 0);	/* fallocate(FALLOC_FL_KEEP_SIZE) */
	sys5(253, 0x1234, 0, 0, 64, 0);		/* lookup_dcookie: none in 6.1 */
	sys5(225, -1, 0, 0, 4096, 0);		/* readahead */
	sys5(181, -1, (long)"abc", 3, 16, 0);	/* pwrite64 */
	sys5(142, 0, 0, 0, 0, (long)tv1);	/* _newselect: a 1 ms timeout */
	sys6(308, 0, 0, 0, 0, (long)ts3, 0);	/* pselect6 */
	sys5(309, 0, 0, (long)ts4, 0, 8);	/* ppoll */
	sys6(117, 4, 999999, 1, 0, 0, (long)ts5);	/* ipc SEMTIMEDOP: no sops */
	/* ipc(call, first, second, third, ptr) on an id that does not exist */
	sys5(117, 14, 999999, 2, 0, 0);		/* MSGCTL, IPC_STAT */
	sys5(117, 11, 999999, 8, 04000, 0);	/* MSGSND, IPC_NOWAIT */
	sys5(117, 3, 999999, 0, 12, 0);		/* SEMCTL, GETVAL */
	sys5(117, 21, 999999, 010000, 0, 0);	/* SHMAT, SHM_RDONLY */
	sys5(117, 24, 999999, 0, 0, 0);		/* SHMCTL, IPC_RMID */
	sys3(1, 0, 0, 0);			/* exit(0) */
	for (;;)
		;
}
