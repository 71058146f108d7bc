/*
 * k_calls2 - more system calls with known arguments for the syscall tapset
 * tests (k_calls.c has the first set). Each is made once, directly, in this
 * order; most fail early on a bad descriptor or id, so their result is fixed:
 *   personality(0xffffffff)                          -> current persona (0)
 *   sched_getscheduler(0), sched_getparam(0, &sp), sched_setparam(0, NULL) -> EINVAL
 *   sched_getaffinity(0, 128, mask), sched_rr_get_interval(0, &ts)
 *   poll(NULL, 0, 1), time(NULL)
 *   tee(-1, -1, 4096, 0), sendfile(-1, -1, NULL, 10), readahead(-1, 4096, 100) -> EBADF
 *   renameat(AT_FDCWD, "/nonexistent/k_calls2", AT_FDCWD, "/nonexistent/k_calls2.new"),
 *   symlinkat("/nonexistent/k_calls2", AT_FDCWD, "/nonexistent/k_calls2.new") -> ENOENT
 *   mq_unlink("k_calls2") -> ENOENT, mq_notify(-1, NULL), mq_getsetattr(-1, NULL, NULL),
 *   mq_timedsend(-1, NULL, 5, 1, NULL), mq_timedreceive(-1, NULL, 5, NULL, NULL) -> EBADF
 *   timer_delete(12345), timer_getoverrun(12345), timer_gettime(12345, NULL) -> EINVAL
 *   timerfd_gettime(-1, NULL) -> EBADF, set_robust_list(NULL, 0) -> EINVAL
 *   process_vm_readv(0, NULL, 0, NULL, 0, 1), process_vm_writev(same) -> EINVAL
 *   ioperm(0x3ff, 1, 0) -> 0, pkey_free(-1), semop(-1, NULL, 0), shmdt(NULL) -> EINVAL
 *   io_getevents(0, 0, 0, NULL, NULL) -> EINVAL
 *   madvise(NULL, 0, MADV_NORMAL), msync(NULL, 0, MS_SYNC) -> 0, mlockall(MCL_ONFAULT) -> EINVAL
 *   fcntl(-1, F_GETFL, 0), shutdown(-1, SHUT_RDWR) -> EBADF, getrandom(buf, 16, GRND_NONBLOCK)
 *   memfd_create("k_calls2", MFD_CLOEXEC|0x100) -> EINVAL
 *   sched_get_priority_max(SCHED_FIFO) -> 99, sched_get_priority_min(SCHED_OTHER) -> 0
 *   mlock2(NULL, 0, MLOCK_ONFAULT) -> 0, sched_setscheduler(0, SCHED_FIFO, NULL) -> EINVAL
 *   sethostname("k_calls2", -1), setdomainname("k_calls2", -1) -> EINVAL
 *   pivot_root("/nonexistent/k_calls2", "/nonexistent/k_calls2.new") -> ENOENT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/memfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void sched(void)
{
	struct sched_param sp;
	struct timespec ts;
	uint64_t mask[16];

	syscall(SYS_personality, 0xffffffffUL);
	syscall(SYS_sched_getscheduler, 0);
	syscall(SYS_sched_getparam, 0, &sp);
	syscall(SYS_sched_setparam, 0, NULL);
	syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
	syscall(SYS_sched_rr_get_interval, 0, &ts);
	syscall(SYS_poll, NULL, 0, 1);
	syscall(SYS_time, NULL);
}

/* Paths on the stack: a string in a page not yet touched is unreadable to the probe. */
static void files(void)
{
	char old[] = "/nonexistent/k_calls2", new[] = "/nonexistent/k_calls2.new";

	syscall(SYS_tee, -1, -1, 4096, 0);
	syscall(SYS_sendfile, -1, -1, NULL, 10);
	syscall(SYS_readahead, -1, 4096, 100);
	syscall(SYS_renameat, AT_FDCWD, old, AT_FDCWD, new);
	syscall(SYS_symlinkat, old, AT_FDCWD, new);
}

static void ipc(void)
{
	char mq[] = "k_calls2";

	syscall(SYS_mq_unlink, mq);
	syscall(SYS_mq_notify, -1, NULL);
	syscall(SYS_mq_getsetattr, -1, NULL, NULL);
	syscall(SYS_mq_timedsend, -1, NULL, 5, 1, NULL);
	syscall(SYS_mq_timedreceive, -1, NULL, 5, NULL, NULL);
	syscall(SYS_timer_delete, 12345);
	syscall(SYS_timer_getoverrun, 12345);
	syscall(SYS_timer_gettime, 12345, NULL);
	syscall(SYS_timerfd_gettime, -1, NULL);
	syscall(SYS_set_robust_list, NULL, 0);
}

static void misc(void)
{
	syscall(SYS_process_vm_readv, 0, NULL, 0, NULL, 0, 1);
	syscall(SYS_process_vm_writev, 0, NULL, 0, NULL, 0, 1);
	syscall(SYS_ioperm, 0x3ff, 1, 0);
	syscall(SYS_pkey_free, -1);
	syscall(SYS_semop, -1, NULL, 0);
	syscall(SYS_shmdt, NULL);
	syscall(SYS_io_getevents, 0, 0, 0, NULL, NULL);
}

static void flags(void)
{
	char buf[16] = { 0 }, name[] = "k_calls2";

	syscall(SYS_madvise, NULL, 0, MADV_NORMAL);
	syscall(SYS_msync, NULL, 0, MS_SYNC);
	syscall(SYS_mlockall, MCL_ONFAULT);
	syscall(SYS_fcntl, -1, F_GETFL, 0);
	syscall(SYS_shutdown, -1, SHUT_RDWR);
	syscall(SYS_getrandom, buf, sizeof(buf), GRND_NONBLOCK);
	syscall(SYS_memfd_create, name, MFD_CLOEXEC | 0x100);
	syscall(SYS_sched_get_priority_max, SCHED_FIFO);
	syscall(SYS_sched_get_priority_min, SCHED_OTHER);
}

static void admin(void)
{
	char name[] = "k_calls2", old[] = "/nonexistent/k_calls2", new[] = "/nonexistent/k_calls2.new";

	syscall(SYS_mlock2, NULL, 0, MLOCK_ONFAULT);
	syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, NULL);
	syscall(SYS_sethostname, name, -1);
	syscall(SYS_setdomainname, name, -1);
	syscall(SYS_pivot_root, old, new);
}

int main(void)
{
	sched();
	files();
	ipc();
	misc();
	flags();
	admin();
	return 0;
}
