// SPDX-License-Identifier: GPL-2.0
/*
 * uwdump - build the unwind table of ELF files and show it.
 *
 *   uwdump [-r] [-b SHIFT] [-o OUT] FILE...
 *
 * Prints per file: build time, source, FDEs, CFI rows, table rows, rules,
 * bytes (and bytes/row, ratio to .eh_frame+.eh_frame_hdr), text coverage
 * and unsupported rows. -r lists every row with its rule; -o writes the
 * blob of the (last) file to OUT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "elf/uwbuild.h"
#include "unwind/uwtab.h"

static const char *const kind_names[UWT_NR_KINDS] = {
	"none", "cfa", "deref", "plt", "signal",
};
static const char *const reg_names[UWT_NR_REGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};
static const char *const saved_names[UWT_NR_SAVED] = {
	"rbx", "rbp", "r12", "r13", "r14", "r15",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_cfa(const struct uwt_rule *r)
{
	switch (r->kind) {
	case UWT_CFA_REG:
		printf("cfa=%s%+d", reg_names[r->cfa_reg], r->cfa_off);
		break;
	case UWT_CFA_DEREF:
		printf("cfa=*(%s%+d)%+d", reg_names[r->cfa_reg], r->cfa_off,
		       r->cfa_off2);
		break;
	case UWT_PLT:
		printf("cfa=plt(>=%d)", r->cfa_off2);
		break;
	default:
		printf("%s", kind_names[r->kind]);
	}
}

static void print_rule(const struct uwt_rule *r)
{
	int i;

	print_cfa(r);
	if (r->kind == UWT_NONE || r->kind == UWT_SIGNAL)
		return;
	if (r->ra_how == UWT_RA_UNDEF)
		printf(" ra=undef");
	else if (r->ra_how == UWT_RA_IN_REG)
		printf(" ra=%s", reg_names[r->ra_reg]);
	else if (r->ra_off != -8)
		printf(" ra=cfa%+d", r->ra_off);
	if (r->sp_reg != UWT_SP_IS_CFA)
		printf(" sp=%s", reg_names[r->sp_reg]);
	for (i = 0; i < UWT_NR_SAVED; i++) {
		unsigned int k = UWT_SAVE_KIND(r->save_how[i]);
		unsigned int reg = UWT_SAVE_REG(r->save_how[i]);

		if (k == UWT_SAVE_AT_CFA)
			printf(" %s@cfa%+d", saved_names[i], UWT_SAVE_OFF(r, i));
		else if (k == UWT_SAVE_VAL_CFA)
			printf(" %s=cfa%+d", saved_names[i], UWT_SAVE_OFF(r, i));
		else if (k == UWT_SAVE_IN_REG)
			printf(" %s=%s", saved_names[i], reg_names[reg]);
		else if (k == UWT_SAVE_AT_REG)
			printf(" %s@%s%+d", saved_names[i], reg_names[reg],
			       UWT_SAVE_OFF(r, i));
		else if (k == UWT_SAVE_UNDEF)
			printf(" %s=undef", saved_names[i]);
	}
}

static void print_rows(const struct uw_blob *b)
{
	const struct uwt_header *h = b->data;
	u64 pc = h->text_start, start, end;

	while (pc < h->text_end) {
		const struct uwt_rule *r = uw_table_lookup_range(b->data, pc,
								  &start, &end);
		printf("  %#10llx-%#10llx ", (unsigned long long)start,
		       (unsigned long long)end);
		print_rule(r);
		printf("\n");
		pc = end;
	}
}

static void print_stats(const char *path, const struct uw_build_stats *st,
			double ms)
{
	printf("%s: %.1f ms, source %s, %u FDEs (%u bad), %u CFI rows -> "
	       "%u rows, %u rules, %zu bytes (%.2f B/row), eh_frame+hdr %zu "
	       "bytes (ratio %.2f), coverage %.1f%% of %llu text bytes, "
	       "%u unsupported rows (%llu bytes), %u partial, %u PLT synth, "
	       "%u sigreturn synth, %u entry synth\n",
	       path, ms, st->source, st->fdes, st->bad_fdes, st->cfi_rows,
	       st->rows, st->rules, st->bytes,
	       st->rows ? (double)st->bytes / st->rows : 0.0,
	       st->eh_frame_bytes,
	       st->eh_frame_bytes ? (double)st->bytes / st->eh_frame_bytes : 0.0,
	       st->text_bytes ? 100.0 * st->covered_bytes / st->text_bytes : 0.0,
	       (unsigned long long)st->text_bytes, st->unsupported_rows,
	       (unsigned long long)st->unsupported_bytes, st->partial_rows,
	       st->plt_synth, st->sigreturn_synth, st->entry_synth);
}

static int dump_one(const char *path, const struct uw_build_opts *opts,
		    bool rows, const char *outpath)
{
	struct uw_build_stats st;
	struct uw_blob blob;
	char err[512];
	double t0 = now();

	if (uw_build_file(path, opts, &blob, &st, err, sizeof(err))) {
		fprintf(stderr, "uwdump: %s\n", err);
		return 1;
	}
	print_stats(path, &st, (now() - t0) * 1e3);
	if (rows)
		print_rows(&blob);
	if (outpath) {
		FILE *f = fopen(outpath, "wb");

		if (!f || fwrite(blob.data, 1, blob.len, f) != blob.len) {
			perror(outpath);
			uw_blob_free(&blob);
			return 1;
		}
		fclose(f);
	}
	uw_blob_free(&blob);
	return 0;
}

int main(int argc, char **argv)
{
	struct uw_build_opts opts = { 0 };
	const char *outpath = NULL;
	bool rows = false;
	int c, i, ret = 0;

	while ((c = getopt(argc, argv, "rb:o:")) != -1) {
		switch (c) {
		case 'r':
			rows = true;
			break;
		case 'b':
			opts.block_shift = atoi(optarg);
			break;
		case 'o':
			outpath = optarg;
			break;
		default:
			fprintf(stderr, "usage: uwdump [-r] [-b SHIFT] [-o OUT] FILE...\n");
			return 2;
		}
	}
	for (i = optind; i < argc; i++)
		ret |= dump_one(argv[i], &opts, rows, outpath);
	return ret;
}
