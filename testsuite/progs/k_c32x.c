/*
 * k_c32x.c - a 32-bit (ia32) task making the compat calls whose arguments
 * have 32-bit structures (adjtimex, futex, signalfd, recvmmsg, ipc MSGRCV,
 * socketcall SEND/RECV/SENDMSG/RECVMSG, rt_sigaction, sigaction, execve,
 * execveat) and the ia32-only ftruncate64 and fadvise64_64, through
 * int $0x80, each once with known arguments. The structures whose address
 * argstr shows are in a page mapped at 0x50000000. Built as k_c32 is.
 */
#include "c32_syscall.h"

#define PAGE 0x50000000L
#define AT(off) ((int *)(PAGE + (off)))

static const char missing[] = "/nonexistent/k_c32x";
static const char *argv[] = { "a", "b", 0 }, *envp[] = { "E=1", 0 };
static int tx[32] = { 0, 1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 9 };	/* struct old_timex32 */

static void fill(int off, const int *v, int n)
{
	for (int i = 0; i < n; i++)
		AT(off)[i] = v[i];
}

void _start(void)
{
	sys6(192, PAGE, 4096, 3, 0x32, -1, 0);	/* mmap2(MAP_FIXED|MAP_ANONYMOUS|MAP_PRIVATE) */
	fill(0x10, (int[]){ 0, 1000 }, 2);		/* a 1 us timespec */
	fill(0x200, (int[]){ 1 << 1, 0 }, 2);		/* a signal set: [SIGINT] */
	fill(0x400, (int[]){ 0x50000500, 7 }, 2);	/* ipc_kludge: msgp, msgtyp */
	fill(0x600, (int[]){ -1, 0x50000700, 0x40 }, 3);	/* socketcall: fd, msg, MSG_DONTWAIT */
	fill(0x620, (int[]){ -1, 0x50000800, 2, 0 }, 4);	/* fd, buf, len, flags */
	fill(0x640, (int[]){ -1, 0x50000800, 16, 2 }, 4);	/* ..., MSG_PEEK */
	fill(0x800, (int[]){ 'h' | 'i' << 8 }, 1);
	/* rt_sigaction's: handler, SA_RESTART|SA_RESTORER, restorer, [SIGINT] */
	fill(0x900, (int[]){ 0x8049000, 0x14000000, 0x8049010, 1 << 1, 0 }, 5);
	/* sigaction's: handler, [SIGTERM], SA_NODEFER, restorer */
	fill(0xa00, (int[]){ 0x8049020, 1 << 14, 0x40000000, 0 }, 4);
	/* compat siginfo: SIGUSR1, SI_QUEUE from pid 42, uid 7 */
	fill(0xb00, (int[]){ 10, 0, -1, 42, 7 }, 5);
	fill(0xc00, (int[]){ 0x50000f00, 1, 8192 }, 3);	/* compat stack_t, SS_ONSTACK */
	fill(0xd00, (int[]){ 1, 500000, 2, 0 }, 4);		/* old_itimerspec32 */

	sys3(124, (long)tx, 0, 0);			/* adjtimex: a query */
	sys6(240, PAGE, 0, 1, PAGE + 0x10, 0, 0);	/* futex(FUTEX_WAIT, 1): EAGAIN */
	sys5(316, -1, PAGE + 0x100, 1, 2, 0);		/* vmsplice(SPLICE_F_NONBLOCK) */
	sys5(327, -2, PAGE + 0x200, 8, 02000000, 0);	/* signalfd4(SFD_CLOEXEC) */
	sys3(321, -2, PAGE + 0x200, 8);			/* signalfd */
	sys5(337, -1, PAGE + 0x300, 1, 0, PAGE + 0x10);	/* recvmmsg */
	sys5(117, 12, 999999, 8, 04000, PAGE + 0x400);	/* ipc MSGRCV, version 0 */
	sys6(117, 12 | 1 << 16, 999999, 8, 04000, 0x50000500, 3);	/* version 1 */
	sys3(102, 16, PAGE + 0x600, 0);			/* socketcall SENDMSG */
	sys3(102, 17, PAGE + 0x600, 0);			/* RECVMSG */
	sys3(102, 9, PAGE + 0x620, 0);			/* SEND */
	sys3(102, 10, PAGE + 0x640, 0);			/* RECV */
	sys5(174, 10, PAGE + 0x900, 0, 8, 0);		/* rt_sigaction(SIGUSR1) */
	sys3(67, 12, PAGE + 0xa00, 0);			/* sigaction(SIGUSR2) */
	sys3(194, -1, 0x1000, 1);			/* ftruncate64 */
	sys6(272, -1, 0, 0, 4096, 0, 4);		/* fadvise64_64(POSIX_FADV_DONTNEED) */
	sys3(11, (long)missing, (long)argv, (long)envp);	/* execve: ENOENT */
	sys5(358, -100, (long)missing, (long)argv, (long)envp, 0);	/* execveat */
	sys3(1, 0, 0, 0);				/* exit(0) */
	for (;;)
		;
}
