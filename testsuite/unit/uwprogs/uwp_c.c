// SPDX-License-Identifier: GPL-2.0
/*
 * uwp_c - capture targets for the unwinder tests, built like Debian builds
 * C (-O2 -g, no frame pointers; a second build keeps frame pointers).
 *
 *   uwp_c SCENARIO     writes $UWCAP_DIR/SCENARIO.snap
 *
 * Every function on a captured path is noipa and uses its callee's result,
 * so the compiler keeps the frames (no inlining, cloning or tail calls).
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "uwcap.h"

#define KEEP __attribute__((noinline, noipa))

static volatile int sink;
static const char *tag;

/* main -> a -> b -> c: the plain chain */
KEEP static int c(int x)
{
	uwcap_snapshot(tag);
	return x + sink;
}

KEEP static int b(int x)
{
	return c(x + 1) + sink;
}

KEEP static int a(int x)
{
	return b(x + 1) + sink;
}

/* 30 frames of recursion */
KEEP static int rec(int n)
{
	if (n == 0) {
		uwcap_snapshot(tag);
		return sink;
	}
	return rec(n - 1) + sink;
}

static void on_signal(int sig)
{
	(void)sig;
	uwcap_snapshot(tag);
}

KEEP static int raise_it(int x)
{
	raise(SIGUSR1);
	return x + sink;
}

static void install(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(SIGUSR1, &sa, NULL);
}

/* SIGUSR1 sent by another thread while main sleeps in sigsuspend() */
static void *sender(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	return arg;
}

KEEP static int wait_for_signal(int x)
{
	sigset_t none;

	sigemptyset(&none);
	sigsuspend(&none);
	return x + sink;
}

static int sigkill_scenario(void)
{
	sigset_t set;
	pthread_t t;
	int r;

	install(0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&t, NULL, sender, NULL);
	r = wait_for_signal(1);
	pthread_join(t, NULL);
	return r;
}

static int sigalt_scenario(void)
{
	stack_t ss;

	ss.ss_size = 1 << 16;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	install(SA_ONSTACK);
	return a(0) + raise_it(1);
}

/* a libc callback: qsort calls us */
static int cmp(const void *x, const void *y)
{
	static int done;

	if (!done++)
		uwcap_snapshot(tag);
	return *(const int *)x - *(const int *)y;
}

KEEP static int sort_them(int x)
{
	int v[] = { 5, 3, 9, 1, 7, 2 };

	qsort(v, 6, sizeof(v[0]), cmp);
	return v[0] + x + sink;
}

/* a thread: the stack ends in start_thread / clone3 */
KEEP static int tb(int x)
{
	uwcap_snapshot(tag);
	return x + sink;
}

KEEP static int ta(int x)
{
	return tb(x + 1) + sink;
}

static void *thread_main(void *arg)
{
	sink = ta(1);
	return arg;
}

/* a frame-pointer function (the VLA forces one) over two leaves */
KEEP static int leaf2(int x)
{
	uwcap_snapshot(tag);
	return x + sink;
}

KEEP static int leaf1(int x)
{
	return leaf2(x + 1) + sink;
}

KEEP static int with_vla(int n)
{
	volatile char buf[n];

	buf[0] = 1;
	return leaf1(buf[0]) + sink;
}

/* stack realignment with a DRAP register: aligned local plus alloca */
KEEP static int drap_callee(int *x, char *p)
{
	uwcap_snapshot(tag);
	return x[0] + p[0] + sink;
}

KEEP static int drap(int n)
{
	int x[8] __attribute__((aligned(32)));
	char *p = __builtin_alloca(n);

	memset(x, 0, sizeof(x));
	p[0] = 1;
	return drap_callee(x, p) + sink;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	tag = argv[1];
	if (!strcmp(tag, "chain"))
		return a(0) & 0;
	if (!strcmp(tag, "recurse"))
		return rec(29) & 0;
	if (!strcmp(tag, "sigraise")) {
		install(0);
		return raise_it(0) & 0;
	}
	if (!strcmp(tag, "sigkill"))
		return sigkill_scenario() & 0;
	if (!strcmp(tag, "sigalt"))
		return sigalt_scenario() & 0;
	if (!strcmp(tag, "qsort"))
		return sort_them(0) & 0;
	if (!strcmp(tag, "thread")) {
		pthread_create(&t, NULL, thread_main, NULL);
		pthread_join(t, NULL);
		return 0;
	}
	if (!strcmp(tag, "partial"))
		return with_vla(16) & 0;
	if (!strcmp(tag, "drap"))
		return drap(16) & 0;
	return 2;
}
