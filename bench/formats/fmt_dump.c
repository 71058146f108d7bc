/*
 * fmt_dump.c - build/fmt-dump: the project's qtrace and drcov readers on
 * the command line, for tests (shell checks) and for people.
 *
 *   fmt-dump qtrace FILE      one line per record: ADDRESS NEXT TERM [EA]
 *   fmt-dump drcov FILE       "module ID BASE END ENTRY PATH" lines, then
 *                             "bb MODULE OFFSET SIZE" lines
 *   fmt-dump -c qtrace FILE   counts: records, branches (records with a
 *                             termination code), conditional, taken
 *                             (a discontinuity), exceptions
 *   fmt-dump -c drcov FILE    counts: modules, blocks, bytes
 *
 * Exit status 1 (and a message naming the offset) for a malformed file.
 */
#include "formats/qtrace.h"
#include "formats/qtrace_read.h"
#include "formats/drcov_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f) {
		perror(path);
		exit(2);
	}
	do {
		if (n + 65536 > cap) {
			cap = (n + 65536) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	*len = n;
	return buf;
}

static int qtrace(const char *path, bool counts)
{
	size_t len;
	char *data = slurp(path, &len);
	struct qt_reader r;
	struct qt_rec rec;
	uint64_t n = 0, br = 0, cond = 0, taken = 0, exc = 0;
	int rc;

	qt_reader_init(&r, data, len);
	while ((rc = qt_next(&r, &rec)) == 1) {
		n++;
		br += rec.term != 0;
		cond += rec.term == QT_TERM_COND;
		exc += rec.term == QT_TERM_EXCEPTION;
		taken += (rec.flags & QT_IAR_CHANGE) != 0;
		if (counts)
			continue;
		printf("%" PRIx64 " %" PRIx64 " %02x", rec.ip, rec.next, rec.term);
		if (rec.has_ea)
			printf(" %" PRIx64, rec.ea);
		putchar('\n');
	}
	if (counts)
		printf("records %" PRIu64 " branches %" PRIu64 " conditional %" PRIu64 " taken %"
		       PRIu64 " exceptions %" PRIu64 " headers %u\n", n, br, cond, taken, exc,
		       r.headers);
	free(data);
	if (rc < 0) {
		fprintf(stderr, "fmt-dump: %s: %s at byte %zu\n", path, r.error, r.error_off);
		return 1;
	}
	return 0;
}

static int drcov(const char *path, bool counts)
{
	size_t len;
	char *data = slurp(path, &len), err[256];
	struct drcov_file f;
	uint64_t bytes = 0;

	if (drcov_parse(data, len, &f, err, sizeof(err))) {
		fprintf(stderr, "fmt-dump: %s: %s\n", path, err);
		free(data);
		return 1;
	}
	for (uint32_t i = 0; i < f.nbbs; i++)
		bytes += f.bbs[i].size;
	if (counts) {
		printf("modules %u bbs %u bytes %" PRIu64 "\n", f.nmods, f.nbbs, bytes);
	} else {
		for (uint32_t i = 0; i < f.nmods; i++)
			printf("module %u %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n", f.mods[i].id,
			       f.mods[i].base, f.mods[i].end, f.mods[i].entry, f.mods[i].path);
		for (uint32_t i = 0; i < f.nbbs; i++)
			printf("bb %u %x %u\n", f.bbs[i].mod, f.bbs[i].start, f.bbs[i].size);
	}
	drcov_free(&f);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	bool counts = argc > 1 && !strcmp(argv[1], "-c");

	argv += counts;
	argc -= counts;
	if (argc == 3 && !strcmp(argv[1], "qtrace"))
		return qtrace(argv[2], counts);
	if (argc == 3 && !strcmp(argv[1], "drcov"))
		return drcov(argv[2], counts);
	fprintf(stderr, "usage: fmt-dump [-c] qtrace|drcov FILE\n");
	return 2;
}
