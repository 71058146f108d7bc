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
 *   fmt-dump -r qtrace FILE   the address sequence relative to the first
 *                             record, one hex offset a line, then "end OFF"
 *                             for the last record's successor
 *   fmt-dump -t qtrace FILE   the same as qtrace-tools read the file
 *                             (testsuite/unit/qtools_read.h), each offset
 *                             followed by the instruction word; exit status
 *                             1 where qtdis and qtreader would not agree
 *   fmt-dump -r lackey FILE   the same from lackey text (no "end" line)
 *   fmt-dump -r qemu LOG PROG FUNC N
 *                             the same from a qemu-x86_64 -singlestep
 *                             -d page,exec,nochain log of PROG: N addresses
 *                             from the first entry to FUNC, then "end OFF"
 *                             for the one after them
 *
 * Exit status 1 (and a message naming the offset) for a malformed file.
 */
#include "formats/qtrace.h"
#include "runner/trace/qtrace_read.h"
#include "runner/trace/drcov_read.h"
#include "qtools_read.h"
#include "elf/symtab.h"
#include "unwind/sym.h"
#include "base/base.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
	char *buf = slurp_file(path, len);

	if (!buf) {
		perror(path);
		exit(2);
	}
	return buf;
}

/* A qtrace file read by utap's reader, or (tools) as qtrace-tools read it. */
struct qtr {
	bool tools;
	struct qt_reader u;
	struct qtools t;
};

static int qtr_next(struct qtr *r, uint64_t *ip, uint64_t *next, uint32_t *word)
{
	struct qt_rec u;
	struct qtools_rec t;
	int rc;

	if (r->tools) {
		rc = qtools_next(&r->t, &t);
		*ip = t.ip, *next = t.next, *word = t.word;
	} else {
		rc = qt_next(&r->u, &u);
		*ip = u.ip, *next = u.next, *word = u.word;
	}
	return rc;
}

/* -r and -t: offsets from the first record (-t: and the words), then "end OFF". */
static int qtrace_rel(const char *path, bool tools)
{
	size_t len;
	char *data = slurp(path, &len);
	struct qtr r = { .tools = tools };
	uint64_t first = 0, next = 0, ip, nx;
	uint32_t word;
	bool any = false;
	int rc;

	qt_reader_init(&r.u, data, len);
	qtools_init(&r.t, data, len);
	while ((rc = qtr_next(&r, &ip, &nx, &word)) == 1) {
		if (!any)
			first = ip;
		any = true;
		if (tools)
			printf("%" PRIx64 " %08" PRIx32 "\n", ip - first, word);
		else
			printf("%" PRIx64 "\n", ip - first);
		next = nx;
	}
	if (any)
		printf("end %" PRIx64 "\n", next - first);
	free(data);
	if (rc < 0) {
		fprintf(stderr, "fmt-dump: %s: %s at byte %zu\n", path,
			tools ? r.t.error : r.u.error, tools ? r.t.error_off : r.u.error_off);
		return 1;
	}
	return 0;
}

static int lackey_rel(const char *path)
{
	size_t len;
	char *data = slurp(path, &len), *p = data, *end = data + len;
	uint64_t first = 0;
	bool any = false;

	while (p < end) {
		char *eol = memchr(p, '\n', end - p);
		uint64_t ip;

		if (!eol || strncmp(p, "I  ", 3)) {
			fprintf(stderr, "fmt-dump: %s: not a lackey line at byte %zu\n", path,
				(size_t)(p - data));
			free(data);
			return 1;
		}
		ip = strtoull(p + 3, NULL, 16);
		if (!any)
			first = ip;
		any = true;
		printf("%" PRIx64 "\n", ip - first);
		p = eol + 1;
	}
	free(data);
	return 0;
}

/* FUNC's file-relative address and the lowest executable segment's vaddr in PROG. */
static bool prog_func(const char *prog, const char *func, uint64_t *addr, uint64_t *xlo)
{
	struct utap_blob blob = { 0 };
	struct utap_symtab t;
	bool found = false;

	if (utap_symtab_build_path(prog, NULL, &blob) || utap_symtab_init(&t, blob.data, blob.size))
		return false;
	*xlo = UINT64_MAX;
	for (uint32_t i = 0; i < t.nsegs; i++)
		if ((t.segs[i].flags & UTAP_SEG_X) && t.segs[i].vaddr < *xlo)
			*xlo = t.segs[i].vaddr;
	for (uint32_t i = 0; i < t.nsyms && !found; i++) {
		char name[UTAP_SYM_NAME_MAX];

		utap_symtab_entry(&t, i, addr, name, sizeof(name));
		found = !strcmp(name, func);
	}
	utap_blob_free(&blob);
	return found && *xlo != UINT64_MAX;
}

static int qemu_rel(const char *log, const char *prog, const char *func, uint64_t n)
{
	size_t len;
	char *data = slurp(log, &len), *p = data, *end = data + len, *sc;
	uint64_t addr = 0, xlo = 0, entry, k = 0;
	bool on = false;

	if (!prog_func(prog, func, &addr, &xlo)) {
		fprintf(stderr, "fmt-dump: no function %s in %s\n", func, prog);
		return 2;
	}
	sc = memmem(data, len, "start_code", 10);
	if (!sc) {
		fprintf(stderr, "fmt-dump: %s: no start_code (run qemu with -d page,exec)\n", log);
		return 1;
	}
	/* qemu's start_code is the executable segment's run-time start */
	entry = strtoull(sc + 10, NULL, 16) - (xlo & ~0xfffull) + addr;
	while (p < end && k <= n) {
		char *eol = memchr(p, '\n', end - p), *b, *slash;
		uint64_t pc;

		if (!eol)
			break;
		b = memchr(p, '[', eol - p);
		slash = b && !strncmp(p, "Trace ", 6) ? memchr(b, '/', eol - b) : NULL;
		p = eol + 1;
		if (!slash)
			continue;
		pc = strtoull(slash + 1, NULL, 16);
		on = on || pc == entry;
		if (!on)
			continue;
		printf(k == n ? "end %" PRIx64 "\n" : "%" PRIx64 "\n", pc - entry);
		k++;
	}
	free(data);
	return k == n + 1 ? 0 : 1;
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

	if (argc == 4 && !strcmp(argv[1], "-r") && !strcmp(argv[2], "qtrace"))
		return qtrace_rel(argv[3], false);
	if (argc == 4 && !strcmp(argv[1], "-t") && !strcmp(argv[2], "qtrace"))
		return qtrace_rel(argv[3], true);
	if (argc == 4 && !strcmp(argv[1], "-r") && !strcmp(argv[2], "lackey"))
		return lackey_rel(argv[3]);
	if (argc == 7 && !strcmp(argv[1], "-r") && !strcmp(argv[2], "qemu"))
		return qemu_rel(argv[3], argv[4], argv[5], strtoull(argv[6], NULL, 10));
	argv += counts;
	argc -= counts;
	if (argc == 3 && !strcmp(argv[1], "qtrace"))
		return qtrace(argv[2], counts);
	if (argc == 3 && !strcmp(argv[1], "drcov"))
		return drcov(argv[2], counts);
	fprintf(stderr, "usage: fmt-dump [-c] qtrace|drcov FILE\n"
		"       fmt-dump -r qtrace|lackey FILE\n"
		"       fmt-dump -t qtrace FILE\n"
		"       fmt-dump -r qemu LOG PROG FUNC N\n");
	return 2;
}
