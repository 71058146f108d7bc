/*
 * k_calls - a fixed sequence of system calls with known arguments, for the
 * syscall tapset tests. Each is made once, directly, in this order:
 *   openat(AT_FDCWD, "/nonexistent/k_calls", O_RDONLY)          -> ENOENT
 *   open("/nonexistent/k_calls.out", O_WRONLY|O_CREAT|O_TRUNC, 0640) -> ENOENT
 *   access("/nonexistent/k_calls", F_OK)                         -> ENOENT
 *   openat(AT_FDCWD, "/dev/zero", O_RDONLY), read(fd, buf, 300), dup3(fd, 20, O_CLOEXEC)
 *   mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
 *   mprotect(p, 4096, PROT_READ), munmap(p, 8192)
 *   nanosleep({0, 1000000}, NULL)
 *   socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP), socket(AF_UNIX, SOCK_DGRAM, 0)
 *   umask(022), unlink("/nonexistent/k_calls"), mkdir("/nonexistent/k_calls", 0755)
 *   kill(getpid(), SIGUSR2) with a handler
 *   getpriority(PRIO_PROCESS, 0), getrlimit(RLIMIT_NOFILE, &rl), getrusage(RUSAGE_SELF, &ru),
 *   flock(20, LOCK_SH|LOCK_NB), flock(20, LOCK_UN)
 *   write(1, "k_calls\n", 8) only with -w
 *   fork() (clone); the child execve("/bin/true", ["true", "k_calls"], ["K=1"])
 *   wait4(child, &status, 0, NULL), exit_group(0)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr2(int sig)
{
	got = sig;
}

static int files(void)
{
	static char buf[300];
	int fd;

	if (syscall(SYS_openat, AT_FDCWD, "/nonexistent/k_calls", O_RDONLY) >= 0)
		return 1;
	if (syscall(SYS_open, "/nonexistent/k_calls.out", O_WRONLY | O_CREAT | O_TRUNC, 0640) >= 0)
		return 1;
	if (syscall(SYS_access, "/nonexistent/k_calls", F_OK) >= 0)
		return 1;
	fd = syscall(SYS_openat, AT_FDCWD, "/dev/zero", O_RDONLY);
	if (fd < 0 || syscall(SYS_read, fd, buf, sizeof(buf)) != sizeof(buf))
		return 1;
	return syscall(SYS_dup3, fd, 20, O_CLOEXEC) == 20 ? 0 : 1;
}

static int memory(void)
{
	struct timespec ts = { 0, 1000000 };
	void *p = (void *)syscall(SYS_mmap, NULL, 8192, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || syscall(SYS_mprotect, p, 4096, PROT_READ) ||
	    syscall(SYS_munmap, p, 8192))
		return 1;
	return syscall(SYS_nanosleep, &ts, NULL) ? 1 : 0;
}

static int misc(void)
{
	if (syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP) < 0 ||
	    syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0) < 0)
		return 1;
	syscall(SYS_umask, 022);
	if (syscall(SYS_unlink, "/nonexistent/k_calls") >= 0 ||
	    syscall(SYS_mkdir, "/nonexistent/k_calls", 0755) >= 0)
		return 1;
	signal(SIGUSR2, on_usr2);
	syscall(SYS_kill, getpid(), SIGUSR2);
	return got == SIGUSR2 ? 0 : 1;
}

static int limits(void)
{
	struct rlimit rl;
	struct rusage ru;

	syscall(SYS_getpriority, PRIO_PROCESS, 0);
	if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) || syscall(SYS_getrusage, RUSAGE_SELF, &ru))
		return 1;
	return syscall(SYS_flock, 20, LOCK_SH | LOCK_NB) || syscall(SYS_flock, 20, LOCK_UN);
}

int main(int argc, char **argv)
{
	char *args[] = { "true", "k_calls", NULL }, *env[] = { "K=1", NULL };
	int status;
	pid_t child;

	if (files() || memory() || misc() || limits())
		return 1;
	if (argc > 1 && !strcmp(argv[1], "-w") && syscall(SYS_write, 1, "k_calls\n", 8) != 8)
		return 1;
	child = fork();
	if (child == 0) {
		syscall(SYS_execve, "/bin/true", args, env);
		_exit(127);
	}
	if (child < 0 || syscall(SYS_wait4, child, &status, 0, NULL) != child)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
