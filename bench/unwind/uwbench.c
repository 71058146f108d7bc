// SPDX-License-Identifier: GPL-2.0
/*
 * uwbench - what the user-space unwinder costs.
 *
 *   build/bench/uwbench [-n ITERS]
 *
 * 1. Table builds: time (best of 5) and size for big Debian files, next
 *    to the .eh_frame + .eh_frame_hdr bytes a SystemTap-style module would
 *    carry, for block sizes 256 B (default) to 4 KiB.
 * 2. The runtime walk (uw_walk, as the module runs it, reader = memcpy
 *    from the captured stack) on the capture scenarios: ns per frame warm
 *    (the same snapshot over and over; best batch, since build machines
 *    are shared) and cold (median, 64 MiB of other data touched before
 *    each walk), next to glibc backtrace() (libgcc's CFI interpreter) on
 *    a stack of the same depth in this process.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "uwprogs/uwsnap.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bench_build(const char *path)
{
	static const unsigned int shifts[] = { 8, 10, 12 };
	struct uw_build_opts opts = { 0 };
	struct uw_build_stats st;
	struct uw_blob b;
	double t[5];
	char err[256];
	size_t sizes[3];
	unsigned int i, k;

	for (k = 0; k < 3; k++) {
		opts.block_shift = shifts[k];
		for (i = 0; i < 5; i++) {
			double t0 = now_ns();

			if (uw_build_file(path, &opts, &b, &st, err, sizeof(err))) {
				printf("%s: %s\n", path, err);
				return;
			}
			t[i] = (now_ns() - t0) / 1e6;
			uw_blob_free(&b);
		}
		sizes[k] = st.bytes;
	}
	qsort(t, 5, sizeof(t[0]), cmp_double);
	printf("%-44s %7.1f ms %8u %7u %5u %8zu %5.2f %8zu %5.2f  %zu / %zu\n",
	       path, t[0], st.cfi_rows, st.rows, st.rules, sizes[0],
	       (double)sizes[0] / st.rows, st.eh_frame_bytes,
	       (double)sizes[0] / st.eh_frame_bytes, sizes[1], sizes[2]);
}

static char *flush_buf;

static void flush_caches(void)
{
	size_t i;

	for (i = 0; i < (64u << 20); i += 64)
		flush_buf[i]++;
}

struct result {
	double warm, cold;
	u32 frames;
};

static int walk_snapshot(const char *prog, const char *scenario,
			 const char *dir, int iters, struct result *res)
{
	char path[4096], file[4096];
	struct uw_walk_ops ops;
	struct uw_trace tr = { 0 };
	struct uwsnap s;
	u64 pcs[128];
	double t0, cold_ns[51];
	int i;

	snprintf(path, sizeof(path), "%s/%s", uwsnap_progdir(), prog);
	snprintf(file, sizeof(file), "%s/%s.snap", dir, scenario);
	if (uwsnap_run(path, scenario, dir) || uwsnap_load(file, &s))
		return -1;
	uwsnap_ops(&s, &ops);
	tr.pcs = pcs;
	tr.max = 128;
	uw_walk(&s.regs, 0, &ops, &tr);		/* warm up */
	/* the machine is shared: keep the best of 100 batches */
	res->warm = 1e18;
	for (i = 0; i < 100; i++) {
		int k, batch = iters / 100 + 1;

		t0 = now_ns();
		for (k = 0; k < batch; k++)
			uw_walk(&s.regs, 0, &ops, &tr);
		t0 = (now_ns() - t0) / batch / tr.nr;
		res->warm = t0 < res->warm ? t0 : res->warm;
	}
	for (i = 0; i < 51; i++) {
		flush_caches();
		t0 = now_ns();
		uw_walk(&s.regs, 0, &ops, &tr);
		cold_ns[i] = (now_ns() - t0) / tr.nr;
	}
	qsort(cold_ns, 51, sizeof(cold_ns[0]), cmp_double);
	res->cold = cold_ns[25];		/* median */
	res->frames = tr.nr;
	uwsnap_free(&s);
	return tr.stop == UW_STOP_END ? 0 : -1;
}

/* glibc backtrace() from DEPTH frames of recursion, per frame. */
static volatile int sink;
static double bt_ns;
static int bt_frames, bt_iters;

__attribute__((noinline, noipa)) static int recurse(int depth)
{
	void *bt[128];
	double t0;
	int i;

	if (depth > 0)
		return recurse(depth - 1) + sink;
	bt_ns = 1e18;
	for (i = 0; i < 100; i++) {
		int k, batch = bt_iters / 100 + 1;

		t0 = now_ns();
		for (k = 0; k < batch; k++)
			bt_frames = backtrace(bt, 128);
		t0 = (now_ns() - t0) / batch / bt_frames;
		bt_ns = t0 < bt_ns ? t0 : bt_ns;
	}
	return sink;
}

int main(int argc, char **argv)
{
	static const char *const files[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libm.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/bin/python3.11",
	};
	static const char *const scen[][2] = {
		{ "uwp_c", "chain" }, { "uwp_c", "recurse" },
		{ "uwp_c", "sigraise" }, { "uwp_c", "qsort" },
		{ "uwp_c", "thread" }, { "uwp_c", "drap" },
		{ "uwp_cxx", "cxx_dtor" },
	};
	char dir[] = "/tmp/uwbench.XXXXXX", cmd[64];
	int iters = 20000, i;
	struct result r;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		iters = atoi(argv[2]);
	printf("== table builds (best of 5; sizes for 256 B blocks unless noted)\n");
	printf("%-44s %10s %8s %7s %5s %8s %5s %8s %5s  %s\n", "file", "build",
	       "cfi-rows", "rows", "rules", "bytes", "B/row", "eh+hdr",
	       "ratio", "bytes@1K / @4K blocks");
	for (i = 0; i < (int)(sizeof(files) / sizeof(files[0])); i++)
		bench_build(files[i]);
	flush_buf = calloc(1, 64u << 20);
	if (!flush_buf || !mkdtemp(dir))
		return 1;
	printf("\n== runtime walk: warm = best of 100 batches of %d walks; cold = median\n"
	       "   of 51 walks each after touching 64 MiB\n", iters / 100 + 1);
	printf("%-22s %6s %12s %12s\n", "scenario", "frames", "warm ns/fr",
	       "cold ns/fr");
	for (i = 0; i < (int)(sizeof(scen) / sizeof(scen[0])); i++) {
		if (walk_snapshot(scen[i][0], scen[i][1], dir, iters, &r)) {
			printf("%-22s failed\n", scen[i][1]);
			continue;
		}
		printf("%-22s %6u %12.1f %12.1f\n", scen[i][1], r.frames, r.warm,
		       r.cold);
	}
	bt_iters = iters / 10;
	recurse(29);
	printf("%-22s %6d %12.1f %12s   (glibc backtrace(), libgcc CFI interpreter)\n",
	       "backtrace() recurse", bt_frames, bt_ns, "-");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}
