/*
 * it_count.c - target of the instruction-tracing tests: hand-written
 * functions whose instruction and taken-branch counts are known statically,
 * and a few scenarios around them.
 *
 *   it_loop(n)    push %rbp; xor %eax,%eax; n x (add %rdi,%rax; dec %rdi;
 *                 jnz); pop %rbp; ret
 *                 3n + 4 instructions, n taken branches (n-1 jnz, the ret).
 *                 Its first instruction (push) is emulated by uprobes.
 *   it_calls(n)   mov %rdi,%rcx; xor %eax,%eax; n x (call it_leaf; dec
 *                 %rcx; jnz); ret        it_leaf: inc %rax; ret
 *                 5n + 3 instructions, 3n taken branches. Its first
 *                 instruction (mov) is stepped out of line by uprobes.
 *   it_sys()      push %rbp; mov $110,%eax; syscall (getppid); nop; pop
 *                 %rbp; ret: 6 instructions at offsets 0 1 6 8 9 10.
 *   it_sigfn()    getpid, then kill(self, SIGUSR1) with raw syscalls: 9
 *                 instructions; the handler it_handler is 2 and the signal
 *                 return it_restorer 2 (no libc code on the way).
 *   it_mark()     an empty function called before each of the above, where
 *                 a debugger can stop without meeting a uprobe.
 *
 * usage: it_count loop N [REPEAT] | calls N | sys | signal | fork | exec |
 *                 threads N | spin [FILE] | waittf | gap | wait N READY GO
 *
 * wait: writes its pid to the FIFO READY, waits for a byte on the FIFO GO,
 * then runs it_calls(N): a debugger attaches between the two, without timing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long it_loop(long n);
long it_calls(long n);
long it_sys(void);
long it_sigfn(void);
void it_mark(void);
void it_handler(int sig);
void it_restorer(void);
volatile long it_handled;

__asm__(
	".text\n"
	".globl it_loop\n.type it_loop,@function\n"
	"it_loop:\n"
	"	push %rbp\n"
	"	xor %eax,%eax\n"
	"1:	add %rdi,%rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	pop %rbp\n"
	"	ret\n"
	".size it_loop,.-it_loop\n"

	".globl it_calls\n.type it_calls,@function\n"
	"it_calls:\n"
	"	mov %rdi,%rcx\n"
	"	xor %eax,%eax\n"
	"2:	call it_leaf\n"
	"	dec %rcx\n"
	"	jnz 2b\n"
	"	ret\n"
	".size it_calls,.-it_calls\n"

	".globl it_leaf\n.type it_leaf,@function\n"
	"it_leaf:\n"
	"	inc %rax\n"
	"	ret\n"
	".size it_leaf,.-it_leaf\n"

	".globl it_sys\n.type it_sys,@function\n"
	"it_sys:\n"
	"	push %rbp\n"
	"	mov $110,%eax\n"
	"	syscall\n"
	"	nop\n"
	"	pop %rbp\n"
	"	ret\n"
	".size it_sys,.-it_sys\n"

	".globl it_sigfn\n.type it_sigfn,@function\n"
	"it_sigfn:\n"
	"	push %rbp\n"
	"	mov $39,%eax\n"
	"	syscall\n"
	"	mov %eax,%edi\n"
	"	mov $10,%esi\n"
	"	mov $62,%eax\n"
	"	syscall\n"
	"	pop %rbp\n"
	"	ret\n"
	".size it_sigfn,.-it_sigfn\n"

	".globl it_handler\n.type it_handler,@function\n"
	"it_handler:\n"
	"	incq it_handled(%rip)\n"
	"	ret\n"
	".size it_handler,.-it_handler\n"

	".globl it_restorer\n.type it_restorer,@function\n"
	"it_restorer:\n"
	"	mov $15,%eax\n"
	"	syscall\n"
	".size it_restorer,.-it_restorer\n"

	".globl it_mark\n.type it_mark,@function\n"
	"it_mark:\n"
	"	ret\n"
	".size it_mark,.-it_mark\n"
);

/* The kernel's struct for rt_sigaction: the handler returns through it_restorer. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

#define SA_RESTORER_FLAG 0x04000000

static void install_handler(void)
{
	struct ksigaction ka = { it_handler, SA_RESTORER_FLAG, it_restorer, 0 };

	if (syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, 8)) {
		perror("rt_sigaction");
		exit(1);
	}
}

/* A function to probe: fork, the child runs /bin/true. Returns its status. */
__attribute__((noinline)) int it_forkfn(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

/* A function to probe that ends the program's image: exec /bin/true. */
__attribute__((noinline)) void it_execfn(void)
{
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

static void *thread_main(void *arg)
{
	long n = (long)arg;

	it_mark();
	return (void *)it_loop(n);
}

/* Spins in user mode until its trap flag is set (someone started tracing it). */
__attribute__((noinline)) void it_waittf(void)
{
	unsigned long flags;

	do {
		__asm__ volatile("pushf; pop %0" : "=r"(flags));
	} while (!(flags & 0x100));
}

/* The probe point a script turns into itrace_on(tid). */
__attribute__((noinline)) void it_request(long tid)
{
	__asm__ volatile("" : : "r"(tid) : "memory");
}

static volatile int waiter_ready;

/* Tell READY who we are, then block until GO delivers a byte. */
static int wait_for_go(const char *ready, const char *go)
{
	/* read-write: we hold a writer ourselves, so read() waits for data, never sees EOF */
	int gofd = open(go, O_RDWR);
	FILE *r = fopen(ready, "w");
	char c;

	if (gofd < 0 || !r) {
		perror(gofd < 0 ? go : ready);
		return -1;
	}
	fprintf(r, "%d\n", getpid());
	fclose(r);
	while (read(gofd, &c, 1) < 0)
		if (errno != EINTR) {
			perror("read");
			return -1;
		}
	close(gofd);
	return 0;
}

static void *waiter_main(void *arg)
{
	it_mark();
	waiter_ready = 1;
	it_waittf();
	return (void *)it_loop(1000);
}

static void pin(int cpu, int fifo)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (fifo) {
		struct sched_param sp = { .sched_priority = 50 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			perror("sched_setscheduler");
	}
}

/*
 * Thread B (pinned to CPU 1, real-time) spins until it is traced; thread A
 * (CPU 0) asks for that with it_request(tid of B) while B runs, so the
 * request takes effect late. B then runs it_loop(1000).
 */
static void *gap_b(void *arg)
{
	pin(1, 1);
	*(long *)arg = syscall(SYS_gettid);
	return waiter_main(NULL);
}

static int gap(void)
{
	pthread_t b;
	long tid = 0;
	void *r;

	pin(0, 0);
	if (pthread_create(&b, NULL, gap_b, &tid))
		return 1;
	while (!waiter_ready)
		;
	it_request(tid);
	pthread_join(b, &r);
	printf("waiter done %ld\n", (long)r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	long n = argc > 2 ? atol(argv[2]) : 1000;

	if (!strcmp(mode, "loop")) {
		long rep = argc > 3 ? atol(argv[3]) : 1, r = 0;

		for (long i = 0; i < rep; i++) {
			it_mark();
			r = it_loop(n);
		}
		printf("loop %ld\n", r);
	} else if (!strcmp(mode, "calls")) {
		it_mark();
		printf("calls %ld\n", it_calls(n));
	} else if (!strcmp(mode, "sys")) {
		it_mark();
		printf("sys %d\n", it_sys() == getppid());
	} else if (!strcmp(mode, "signal")) {
		install_handler();
		it_mark();
		it_sigfn();
		printf("handled %ld\n", it_handled);
	} else if (!strcmp(mode, "fork")) {
		int st = it_forkfn();

		printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else if (!strcmp(mode, "exec")) {
		printf("exec\n");
		fflush(stdout);
		it_execfn();
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[64];
		long sum = 0;
		void *r;

		if (n > 64)
			n = 64;
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)100);
		for (long i = 0; i < n; i++) {
			pthread_join(t[i], &r);
			sum += (long)r;
		}
		printf("threads %ld sum %ld\n", n, sum);
	} else if (!strcmp(mode, "spin")) {
		const char *stop = argc > 2 ? argv[2] : NULL;
		struct stat sb;

		printf("spinning\n");
		fflush(stdout);
		for (;;) {
			it_loop(100);
			if (stop && !stat(stop, &sb))
				break;
		}
		printf("stopped\n");
	} else if (!strcmp(mode, "waittf")) {
		it_mark();
		it_waittf();
		printf("loop %ld\n", it_loop(1000));
	} else if (!strcmp(mode, "gap")) {
		return gap();
	} else if (!strcmp(mode, "wait") && argc == 5) {
		if (wait_for_go(argv[3], argv[4]) < 0)
			return 1;
		it_mark();
		printf("calls %ld\n", it_calls(n));
	} else {
		fprintf(stderr, "usage: it_count loop N [REPEAT] | calls N | sys | signal | fork | exec | "
			"threads N | spin [FILE] | waittf | gap | wait N READY GO\n");
		return 2;
	}
	return 0;
}
