/*
 * tap_life - a process doing known things, for the kernel tapset tests: it
 * forks a child that sleeps 10 ms and exits with status 7, waits for it,
 * sends itself SIGUSR1 (caught) with kill() and again with tgkill(), maps, touches and unmaps four anonymous
 * pages, and grows its heap by 64 KiB. Its arguments are ignored, so tests
 * can pass some for cmdline_*().
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	caught = sig;
}

int main(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	pid_t pid = fork();
	char *p;

	if (pid == 0) {
		nanosleep(&ts, NULL);
		_exit(7);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	signal(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGUSR1);
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		for (int i = 0; i < 4; i++)
			p[i * 4096] = (char)i;
		munmap(p, 4 * 4096);
	}
	if (sbrk(65536) == (void *)-1)
		return 1;
	return caught == SIGUSR1 ? 0 : 2;
}
