/*
 * k_sys - known system calls with known arguments, for kernel probe tests:
 * read(8, buf, 4321) from /dev/zero, write(9, "hello\n", 6) to /dev/null,
 * an openat of a missing file, close(8), close(9), getpid(), and
 * kill(getpid(), SIGUSR1) with a handler installed; exits 0 when all went as planned.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

int main(void)
{
	static char buf[4321];
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);

	if (zero < 0 || null < 0 || dup2(zero, 8) != 8 || dup2(null, 9) != 9)
		return 1;
	if (read(8, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return 1;
	if (write(9, "hello\n", 6) != 6)
		return 1;
	if (openat(AT_FDCWD, "/nonexistent/k_sys", O_RDONLY | O_CLOEXEC) >= 0)
		return 1;
	close(8);
	close(9);
	syscall(SYS_getpid);
	signal(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	return got == SIGUSR1 ? 0 : 1;
}
