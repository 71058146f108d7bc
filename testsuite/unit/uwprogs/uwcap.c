// SPDX-License-Identifier: GPL-2.0
/*
 * uwcap.c - the C half of uwcap_snapshot(): write the snapshot file.
 * Runs in the target program (plain -O2 build, no sanitizers).
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "uwcap.h"

void uwcap_write(const char *tag, const uint64_t *regs);

static char maps[1 << 16];

static size_t read_maps(void)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return 0;
	while (n < sizeof(maps) - 1 && (r = read(fd, maps + n, sizeof(maps) - 1 - n)) > 0)
		n += r;
	close(fd);
	maps[n] = 0;
	return n;
}

/* The mapping holding ADDR (or, with WANT_STACK, the [stack] one). */
static int find_mapping(uint64_t addr, int want_stack, uint64_t *lo, uint64_t *hi)
{
	char *line = maps;

	while (line && *line) {
		unsigned long long a, b;
		char *nl = strchr(line, '\n');

		if (sscanf(line, "%llx-%llx", &a, &b) == 2) {
			int is_stack = nl ? !!memmem(line, nl - line, "[stack]", 7)
					  : !!strstr(line, "[stack]");

			if (want_stack ? is_stack : (addr >= a && addr < b)) {
				*lo = a;
				*hi = b;
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		abort();
}

static void put_region(FILE *f, uint64_t lo, uint64_t hi)
{
	uint64_t len = hi - lo;

	put(f, &lo, 8);
	put(f, &len, 8);
	put(f, (const void *)(uintptr_t)lo, len);
}

void uwcap_write(const char *tag, const uint64_t *regs)
{
	void *bt[256];
	int nr_bt = backtrace(bt, 256);
	uint64_t sp = regs[7], lo, hi, slo = 0, shi = 0;
	const char *dir = getenv("UWCAP_DIR");
	char path[4096];
	uint32_t n, nr_regions;
	size_t maps_len = read_maps();
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.snap", dir ? dir : ".", tag);
	f = fopen(path, "wb");
	if (!f || find_mapping(sp, 0, &lo, &hi))
		abort();
	nr_regions = 1;
	if (!find_mapping(0, 1, &slo, &shi) && !(sp >= slo && sp < shi))
		nr_regions = 2;
	put(f, "UWCAP01\n", 8);
	put(f, regs, 17 * 8);
	put(f, &nr_regions, 4);
	put_region(f, sp, hi);
	if (nr_regions == 2)
		put_region(f, slo, shi);
	n = maps_len;
	put(f, &n, 4);
	put(f, maps, maps_len);
	n = nr_bt;
	put(f, &n, 4);
	for (int i = 0; i < nr_bt; i++) {
		uint64_t v = (uintptr_t)bt[i];

		put(f, &v, 8);
	}
	fclose(f);
}

/* backtrace() loads libgcc_s on first use: do it before any snapshot. */
__attribute__((constructor)) static void uwcap_warm_up(void)
{
	void *bt[4];

	backtrace(bt, 4);
}
