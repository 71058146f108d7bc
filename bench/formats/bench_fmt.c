/*
 * bench_fmt.c - build/bench/formats: steps per second of each trace format's
 * code in user space (the module runs the same pure-core encoders), of the
 * runner-side writers fed as the runner feeds them, and of the readers.
 *
 * The step stream is the 18-step run of the test program (a call, a loop,
 * a return, a conditional branch, a syscall: testsuite/vm/formats/fmtrun.h)
 * over and over; for the writers it is a mapped module without a file, so
 * the figures are the per-step cost, not symbol loading.
 */
#include "formats/stream.h"
#include "runner/trace/tout.h"
#include "runner/trace/qtrace_read.h"
#include "../../testsuite/vm/formats/fmtrun.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>


#define NSTEPS_ENC (20u * 1000 * 1000)
#define NSTEPS_RUN (4u * 1000 * 1000)
#define BATCH 64

static struct utap_trace_step steps[18];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_steps(void)
{
	for (unsigned int i = 0; i < 18; i++)
		utap_fmtrun_step(&steps[i], i, 7, false);
}

static void report(const char *what, uint64_t n, double secs, double bytes)
{
	printf("%-34s %8.1f M steps/s  %6.1f ns/step", what, n / secs / 1e6, secs * 1e9 / n);
	if (bytes > 0)
		printf("  %5.1f bytes/step", bytes / n);
	putchar('\n');
}

static uint8_t *outbuf;
static size_t outsize;

/* An encoder over NSTEPS_ENC steps into a big buffer (recycled every 64 MB). */
static size_t bench_stream(const char *name, const char *fmt, unsigned int isa)
{
	struct utap_fmt_stream st;
	size_t n = 0, total = 0;
	double t0, t1;

	utap_fmt_stream_init(&st, utap_fmt_codec(fmt, strlen(fmt)), isa);
	t0 = now();
	for (uint32_t k = 0; k < NSTEPS_ENC; k++) {
		int r = utap_fmt_stream_step(&st, &steps[k % 18], outbuf + n, outsize - n);

		n += (size_t)r;
		if (outsize - n < UTAP_FMT_STEP_MAX) {
			total += n;
			n = 0;
		}
	}
	n += (size_t)utap_fmt_stream_flush(&st, outbuf + n, outsize - n);
	t1 = now();
	total += n;
	report(name, NSTEPS_ENC, t1 - t0, (double)total);
	return n;
}

static void bench_writer(const char *name, const char *fmt)
{
	int fd = memfd_create("bench", 0);
	struct tout_opts o = { .format = fmt, .fd = fd, .qt_isa = UTAP_QT_ISA_X86 };
	static uint8_t payload[BATCH * sizeof(struct utap_trace_step)];
	struct utap_trace_map m = {
		.kind = UTAP_TRACE_MAP, .size = sizeof(m) + 8, .pid = 1, .start = 0x401000,
		.end = 0x402000, .offset = 0x1000, .path_len = 8,
	};
	uint8_t mrec[sizeof(m) + 8];
	struct tout_stats st;
	char err[256];
	struct tout *t = tout_open(&o, err, sizeof(err));
	double t0, t1;

	if (!t) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	memcpy(mrec, &m, sizeof(m));
	memcpy(mrec + sizeof(m), "/no/file", 8);
	tout_feed(t, mrec, sizeof(mrec));
	t0 = now();
	for (uint32_t k = 0; k < NSTEPS_RUN; k += BATCH) {
		for (uint32_t i = 0; i < BATCH; i++)
			memcpy(payload + i * sizeof(struct utap_trace_step), &steps[(k + i) % 18],
			       sizeof(struct utap_trace_step));
		tout_feed(t, payload, sizeof(payload));
	}
	tout_close(t, &st, err, sizeof(err));
	t1 = now();
	report(name, NSTEPS_RUN, t1 - t0, 0);
	close(fd);
}

int main(void)
{
	size_t n;
	double t0, t1;

	outsize = 64u << 20;
	outbuf = malloc(outsize);
	if (!outbuf)
		return 1;
	make_steps();
	printf("# trace formats, user space (%u steps per encoder, %u per writer)\n",
	       NSTEPS_ENC, NSTEPS_RUN);
	bench_stream("encode qtrace, x86-64 address flow", "qtrace", UTAP_QT_ISA_X86);
	bench_stream("encode qtrace, native 4-byte", "qtrace", UTAP_QT_ISA_BE4);
	bench_stream("encode lackey text", "lackey", 0);

	/* the reader on one encoder buffer */
	{
		struct utap_fmt_stream st;
		struct qt_reader r;
		struct qt_rec rec;
		uint64_t k = 0;

		utap_fmt_stream_init(&st, utap_fmt_codec("qtrace", 6), UTAP_QT_ISA_X86);
		n = 0;
		while (outsize - n >= UTAP_FMT_STEP_MAX)
			n += (size_t)utap_fmt_stream_step(&st, &steps[k++ % 18], outbuf + n,
							  outsize - n);
		t0 = now();
		qt_reader_init(&r, outbuf, n);
		k = 0;
		while (qt_next(&r, &rec) == 1)
			k++;
		t1 = now();
		report("read qtrace (fmt-dump's reader)", k, t1 - t0, (double)n);
	}
	bench_writer("runner: qtrace from raw steps", "qtrace");
	bench_writer("runner: drcov (basic blocks)", "drcov");
	bench_writer("runner: callgrind (Ir, jumps, calls)", "callgrind");
	bench_writer("runner: lcov (per instruction)", "lcov");
	free(outbuf);
	return 0;
}
