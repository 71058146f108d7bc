/*
 * us_sig.c - user stacks through a signal frame. main -> a -> b; b makes
 * the signal arrive, and the handler calls h_outer -> h_inner -> getppid().
 * A backtrace in h_inner (or in the getppid syscall) must go on through
 * __restore_rt to the interrupted code and down to main.
 *
 *   us_sig kill [N]    b sends SIGUSR1 with kill(): interrupted in libc's kill
 *   us_sig alt [N]     the same on an alternate signal stack (sigaltstack)
 *   us_sig spin [N]    a profiling timer interrupts b's busy loop (user code)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile int hits;

__attribute__((noinline)) int h_inner(int x)
{
	return x + (int)getppid() * 0 + 1;
}

__attribute__((noinline)) void h_outer(int x)
{
	hits += h_inner(x);
	asm volatile("" ::: "memory");
}

static void on_signal(int sig)
{
	h_outer(sig);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) int b(int x, int spin)
{
	int before = hits;

	if (spin) {
		struct itimerval it = { .it_value = { 0, 2000 } };

		setitimer(ITIMER_PROF, &it, NULL);
		while (hits == before)	/* user code the timer's signal interrupts */
			x = x * 7 + 1;
	} else {
		kill(getpid(), SIGUSR1);
	}
	asm volatile("" ::: "memory");
	return x + hits;
}

__attribute__((noinline)) int a(int x, int spin)
{
	int r = b(x + 1, spin);

	asm volatile("" ::: "memory");
	return r * 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kill";
	int n = argc > 2 ? atoi(argv[2]) : 2, spin = !strcmp(mode, "spin"), total = 0;
	struct sigaction sa;
	static char altstack[64 * 1024];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (!strcmp(mode, "alt")) {
		stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

		sigaltstack(&ss, NULL);
		sa.sa_flags = SA_ONSTACK;
	}
	sigaction(spin ? SIGPROF : SIGUSR1, &sa, NULL);
	for (int i = 0; i < n; i++)
		total += a(i, spin);
	printf("sig %s %d\n", mode, hits > 0);
	return total == 12345;
}
