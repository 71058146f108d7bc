/*
 * ex_work - known workloads for the tests of examples/:
 *
 *   ex_work cpu SECONDS   user time in crunch_big (2 parts) and crunch_small
 *                         (1 part), kernel time in copy_io (read /dev/zero,
 *                         write /dev/null), until SECONDS of CPU time are used
 *   ex_work sleep N       N rounds of nap_long (20 ms) and nap_short (5 ms)
 *   ex_work malloc        100 x malloc(32) in alloc_small, 10 x malloc(4096)
 *                         in alloc_big
 *   ex_work errors        open_config() of a missing file (ENOENT), then a
 *                         read() of a closed descriptor in read_header (EBADF)
 *   ex_work loop N        ex_loop(N) twice: hand-written, 3N+2 instructions
 *   ex_work deep N SECONDS  descend() N levels deep, then spin() at the
 *                         bottom until SECONDS of CPU time are used
 *
 * Every named function is a real frame (noinline, no tail call); built -O2
 * -g without frame pointers like the other target programs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEEP() asm volatile("" ::: "memory")

/* long ex_loop(long n): n + (n-1) + ... + 1, in exactly 3n+2 instructions (n > 0) */
long ex_loop(long n);
asm(".text\n"
    ".globl ex_loop\n"
    ".type ex_loop, @function\n"
    "ex_loop:\n"
    "	xor %eax, %eax\n"
    "1:	add %rdi, %rax\n"
    "	dec %rdi\n"
    "	jnz 1b\n"
    "	ret\n"
    ".size ex_loop, .-ex_loop\n");

static volatile unsigned long sink;

__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	KEEP();
}

__attribute__((noinline)) void crunch_big(void)
{
	spin(4000000);
	KEEP();
}

__attribute__((noinline)) void crunch_small(void)
{
	spin(2000000);
	KEEP();
}

__attribute__((noinline)) void copy_io(int in, int out)
{
	static char buf[65536];

	for (int i = 0; i < 16; i++)
		if (read(in, buf, sizeof(buf)) > 0 && write(out, buf, sizeof(buf)) < 0)
			break;
	KEEP();
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) int work(double seconds)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	double end = cpu_seconds() + seconds;

	if (in < 0 || out < 0)
		return 1;
	while (cpu_seconds() < end) {
		crunch_big();
		crunch_small();
		copy_io(in, out);
	}
	close(in);
	close(out);
	KEEP();
	return 0;
}

__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
	KEEP();
}

__attribute__((noinline)) void nap_long(void)
{
	nap(20);
	KEEP();
}

__attribute__((noinline)) void nap_short(void)
{
	nap(5);
	KEEP();
}

__attribute__((noinline)) void *alloc_small(void **keep, int n)
{
	for (int i = 0; i < n; i++)
		keep[i] = malloc(32);
	KEEP();
	return keep[0];
}

__attribute__((noinline)) void *alloc_big(void **keep, int n)
{
	for (int i = 0; i < n; i++)
		keep[i] = malloc(4096);
	KEEP();
	return keep[0];
}

/* really recursive: the empty asm after the call keeps it from being a loop or a tail call */
__attribute__((noipa)) int descend(int n, double end)
{
	int r = 0;

	if (n > 1)
		r = descend(n - 1, end);
	else
		while (cpu_seconds() < end)
			spin(100000);
	KEEP();
	return r + 1;
}

__attribute__((noinline)) int open_config(const char *path)
{
	int fd = open(path, O_RDONLY);

	KEEP();
	return fd;
}

__attribute__((noinline)) long read_header(int fd)
{
	char buf[16];
	long n = read(fd, buf, sizeof(buf));

	KEEP();
	return n;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	static void *keep[110];

	if (!strcmp(mode, "cpu")) {
		int rc = work(argc > 2 ? atof(argv[2]) : 1.0);

		KEEP();	/* main stays a frame: no tail call */
		return rc;
	}
	if (!strcmp(mode, "sleep")) {
		for (int i = 0, n = argc > 2 ? atoi(argv[2]) : 10; i < n; i++) {
			nap_long();
			nap_short();
		}
		return 0;
	}
	if (!strcmp(mode, "malloc")) {
		alloc_small(keep, 100);
		alloc_big(keep + 100, 10);
		for (int i = 0; i < 110; i++)
			free(keep[i]);
		return 0;
	}
	if (!strcmp(mode, "errors")) {
		int fd = open_config("/nonexistent/ex_work.conf");

		if (fd >= 0 || errno != ENOENT)
			return 1;
		return read_header(fd) < 0 && errno == EBADF ? 0 : 1;
	}
	if (!strcmp(mode, "loop")) {
		long n = argc > 2 ? atol(argv[2]) : 10;

		printf("loop %ld %ld\n", ex_loop(n), ex_loop(n));
		return 0;
	}
	if (!strcmp(mode, "deep")) {
		int n = argc > 2 ? atoi(argv[2]) : 500;
		int r = descend(n, cpu_seconds() + (argc > 3 ? atof(argv[3]) : 1.0));

		KEEP();
		return r == n ? 0 : 1;
	}
	fprintf(stderr, "usage: ex_work cpu SECONDS | sleep N | malloc | errors | loop N | "
		"deep N SECONDS\n");
	return 2;
}
