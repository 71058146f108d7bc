// SPDX-License-Identifier: GPL-2.0
/*
 * symdump.c - developer tool: build the symbol (and line) table of an ELF
 * file and show it, format addresses with it, or measure it.
 *
 *   symdump [-r ROOT] [-s] [-L] [-b] [-o FILE] [-O FILE] PATH [ADDR...]
 *     -r ROOT  debug root instead of /usr/lib/debug
 *     -o FILE  write the symbol table blob to FILE (-O: the line table)
 *     -s       list every symbol: address, printed size, name
 *     -L       also build the line table (and list rows with -s)
 *     -b       measure: build time, blob sizes, ns per lookup and per format
 *     ADDR     file-relative addresses to print in FULL (FULLER with -L) mode
 */
#include "elf/symtab.h"
#include "unwind/sym.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct options {
	const char *root;
	const char *sym_out, *line_out;
	bool list, lines, bench;
};

static int write_blob(const char *file, const struct utap_blob *b)
{
	FILE *f = fopen(file, "wb");
	int ok = f && fwrite(b->data, 1, b->size, f) == b->size;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -EIO;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void list_symbols(const struct utap_symtab *t)
{
	struct utap_sym_hit hit;
	char name[UTAP_SYM_NAME_MAX];
	uint32_t i;

	for (i = 0; i < t->nsyms; i++) {
		uint64_t a;

		utap_symtab_entry(t, i, &a, name, sizeof(name));
		if (utap_symtab_lookup(t, a, &hit, name, sizeof(name)))
			printf("%#" PRIx64 " %#" PRIx64 " %s\n", a, hit.size, hit.name);
	}
}

static void list_rows(const struct utap_linetab *t)
{
	struct utap_line_iter it;
	struct utap_line_row row;

	utap_linetab_iter(&it, t);
	while (utap_linetab_next(&it, &row)) {
		const char *file = utap_linetab_file(t, row.file);

		printf("%#" PRIx64 " ", row.addr);
		if (row.file == UTAP_LINE_GAP)
			printf("-\n");
		else
			printf("%s:%u\n", file ? file : "??", row.line);
	}
}

/* A cheap deterministic stream of addresses over the table's own range. */
static uint64_t next_addr(uint64_t *x, const struct utap_symtab *t)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	/* up to the last group's first symbol: close enough to the end */
	return t->base + *x % ((uint64_t)t->groups[t->ngroups - 1].addr + 1);
}

/*
 * ns per call of a symbol lookup, a FULL format and (with lines) a FULLER
 * format: the best of 5 rounds, so other load on the machine counts less.
 */
static void bench_lookups(const struct utap_symtab *t, const struct utap_sym_ctx *ctx)
{
	enum { N = 200000, ROUNDS = 5 };
	double best[3] = { 1e30, 1e30, 1e30 }, t0;
	struct utap_sym_hit hit;
	uint64_t x = 88172645463325252ull, sink = 0;
	char buf[512];
	int r, i, kind;

	if (!t->nsyms)
		return;
	for (r = 0; r < ROUNDS; r++) {
		for (kind = 0; kind < (ctx->lines ? 3 : 2); kind++) {
			t0 = now_ms();
			for (i = 0; i < N; i++) {
				uint64_t a = next_addr(&x, t);

				if (kind == 0)
					sink += utap_symtab_lookup(t, a, &hit, buf, sizeof(buf)) ?
						hit.offset : 0;
				else
					sink += (uint64_t)utap_sym_format(buf, sizeof(buf), a, ctx,
						kind == 1 ? UTAP_SYM_FULL : UTAP_SYM_FULLER);
			}
			if ((now_ms() - t0) * 1e6 / N < best[kind])
				best[kind] = (now_ms() - t0) * 1e6 / N;
		}
	}
	printf("lookup: %.1f ns, format FULL: %.1f ns", best[0], best[1]);
	if (ctx->lines)
		printf(", format FULLER: %.1f ns", best[2]);
	printf(" (%" PRIu64 ")\n", sink & 1);
}

static int build(const struct options *o, const char *path, struct utap_blob *sym,
		 struct utap_blob *line)
{
	struct utap_debuginfo di;
	double t0 = now_ms(), t1, t2;
	int err;

	err = utap_debuginfo_open(&di, path, o->root, UTAP_DI_ALL);
	if (err)
		return err;
	err = utap_symtab_build(&di, 0, sym);
	t1 = now_ms();
	if (!err && o->lines)
		err = utap_linetab_build(&di, path, line);
	t2 = now_ms();
	if (o->bench) {
		printf("sources: separate %s, minidebuginfo %s\n", di.separate.path ? di.separate.path : "-",
		       di.mini.elf ? "yes" : "no");
		printf("symbols: %zu bytes in %.1f ms\n", sym->size, t1 - t0);
		if (o->lines)
			printf("lines: %zu bytes in %.1f ms\n", line->size, t2 - t1);
	}
	utap_debuginfo_close(&di);
	return err;
}

static int run(const struct options *o, const char *path, char **addrs, int naddrs)
{
	struct utap_blob sym = { 0 }, line = { 0 };
	struct utap_symtab st;
	struct utap_linetab lt;
	struct utap_sym_ctx ctx = { .path = path };
	char buf[1024];
	int err, i;

	err = build(o, path, &sym, &line);
	if (!err)
		err = utap_symtab_init(&st, sym.data, sym.size);
	if (!err && o->lines)
		err = utap_linetab_init(&lt, line.data, line.size);
	if (err) {
		fprintf(stderr, "symdump: %s: %s\n", path, strerror(-err));
		goto out;
	}
	if (o->sym_out)
		err = write_blob(o->sym_out, &sym);
	if (!err && o->line_out)
		err = write_blob(o->line_out, &line);
	if (err) {
		fprintf(stderr, "symdump: cannot write: %s\n", strerror(-err));
		goto out;
	}
	ctx.syms = &st;
	ctx.lines = o->lines ? &lt : NULL;
	utap_symtab_extent(&st, 0, &ctx.start, &ctx.end);
	if (o->bench)
		printf("%u symbols, %u rows, %u files\n", st.nsyms, o->lines ? lt.nrows : 0,
		       o->lines ? lt.nfiles : 0);
	if (o->list)
		list_symbols(&st);
	if (o->list && o->lines)
		list_rows(&lt);
	for (i = 0; i < naddrs; i++) {
		utap_sym_format(buf, sizeof(buf), strtoull(addrs[i], NULL, 0), &ctx,
				o->lines ? UTAP_SYM_FULLER : UTAP_SYM_FULL);
		fputs(buf, stdout);
	}
	if (o->bench)
		bench_lookups(&st, &ctx);
out:
	utap_blob_free(&sym);
	utap_blob_free(&line);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int c;

	while ((c = getopt(argc, argv, "r:sLbo:O:")) != -1) {
		switch (c) {
		case 'r': o.root = optarg; break;
		case 'o': o.sym_out = optarg; break;
		case 'O': o.line_out = optarg; o.lines = true; break;
		case 's': o.list = true; break;
		case 'L': o.lines = true; break;
		case 'b': o.bench = true; break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	return run(&o, argv[optind], argv + optind + 1, argc - optind - 1);
usage:
	fprintf(stderr, "usage: symdump [-r ROOT] [-s] [-L] [-b] [-o FILE] [-O FILE] PATH [ADDR...]\n");
	return 2;
}
