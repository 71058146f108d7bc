/*
 * test_fmt_e2e.c - every format for one real, deterministic function, on
 * the host: build/fmt-ptrace single-steps work(100) of build/progs/fmt_work
 * (-O2 -g, PIE) and writes each format through the runner's own writers.
 *
 *   - the formats agree with each other: instruction counts (qtrace
 *     records, lackey lines, callgrind totals, the stepper's count),
 *     branch counts (qtrace termination codes, callgrind jcnd lines, lcov
 *     BRDA), and the bytes drcov's blocks cover equal the bytes of the
 *     executed instructions;
 *   - the address sequence, relative to the function's entry, equals what
 *     qemu-x86_64 -singlestep -d exec,nochain reports for the same binary
 *     and input (the next address after the last one too: the return);
 *   - the per-instruction Ir equals valgrind's callgrind with
 *     --toggle-collect=work, and callgrind_annotate prints our total;
 *   - lcov --summary and genhtml accept the .info and mark the loop's lines;
 *   - calls through the PLT are charged to NAME@plt.
 */
#include "unit.h"
#include "test_fmt_lib.h"
#include "formats/qtrace.h"
#include "runner/trace/qtrace_read.h"
#include "runner/trace/drcov_read.h"

#include <ctype.h>
#include <glob.h>
#include <stdlib.h>

#define N_ARG "100"

static const char *dir;
static char *prog, *ptrace_tool;

struct seq {
	uint64_t *ip;
	uint8_t *term;
	size_t n;
	uint64_t last_next;
	uint64_t ea_count;
};

/* Run fmt-ptrace with FORMAT into OUT; its stderr summary in *info. */
static int trace(const char *format, const char *out, char **info)
{
	char *cmd;
	int rc;

	if (asprintf(&cmd, "cd '%s' && '%s' -f %s -o '%s' --func work -- '%s' " N_ARG
		     " > /dev/null", dir, ptrace_tool, format, out, prog) < 0)
		exit(2);
	rc = run_cmd(cmd, info);
	free(cmd);
	return rc;
}

static uint64_t field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : UINT64_MAX;
}

/* The single per-thread file BASE.TID */
static char *thread_file(const char *base)
{
	char *pat, *r = NULL;
	glob_t g;

	if (asprintf(&pat, "%s.[0-9]*", base) < 0)
		exit(2);
	if (!glob(pat, 0, NULL, &g)) {
		if (g.gl_pathc == 1)
			r = strdup(g.gl_pathv[0]);
		globfree(&g);
	}
	free(pat);
	return r;
}

static bool read_qtrace(const char *path, struct seq *s)
{
	size_t len;
	char *data = slurp(path, &len);
	struct qt_reader r;
	struct qt_rec rec;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!data)
		return false;
	s->ip = malloc(len / 8 * sizeof(uint64_t) + 8);
	s->term = malloc(len / 8 + 1);
	qt_reader_init(&r, data, len);
	while ((rc = qt_next(&r, &rec)) == 1) {
		s->ip[s->n] = rec.ip;
		s->term[s->n++] = rec.term;
		s->last_next = rec.next;
		s->ea_count += rec.has_ea;
	}
	free(data);
	if (rc < 0)
		fprintf(stderr, "qtrace reader: %s at %zu\n", r.error, r.error_off);
	return rc == 0;
}

static struct seq qt;		/* the qtrace sequence, shared by the tests */
static char *steps_info;

TEST(formats_agree)
{
	char *base = path_in(dir, "w.qt"), *file, *info = NULL, *text;
	uint64_t steps, branches, cond = 0, uncond = 0;
	size_t lines = 0;

	CHECK_INT(trace("qtrace", base, &steps_info), 0);
	steps = field(steps_info, "steps ");
	branches = field(steps_info, "branches ");
	file = thread_file(base);
	CHECK(file != NULL);
	CHECK(file && read_qtrace(file, &qt));
	CHECK(steps > 1000 && steps < 100000);
	CHECK_INT(qt.n, steps);
	for (size_t i = 0; i < qt.n; i++) {
		cond += qt.term[i] == QT_TERM_COND;
		uncond += qt.term[i] == QT_TERM_UNCOND;
	}
	CHECK_INT(cond + uncond, branches);
	free(file);

	/* lackey: one line per instruction, the same addresses */
	free(base);
	base = path_in(dir, "w.lk");
	CHECK_INT(trace("lackey", base, &info), 0);
	free(info);
	file = thread_file(base);
	text = file ? slurp(file, NULL) : NULL;
	CHECK(text != NULL);
	for (char *p = text; p && *p; p = strchr(p, '\n') + 1) {
		uint64_t ip = strtoull(p + 3, NULL, 16);

		if (lines < qt.n && ip != qt.ip[lines]) {
			CHECK_HEX(ip, qt.ip[lines]);
			break;
		}
		lines++;
	}
	CHECK_INT(lines, qt.n);
	free(text);
	free(file);

	/* callgrind: the total, and the conditional branches of jcnd lines */
	{
		char *cg = path_in(dir, "w.cg");
		uint64_t jcnd = 0, total = 0;
		struct cg_cost *c;
		size_t n;

		CHECK_INT(trace("callgrind", cg, &info), 0);
		free(info);
		text = slurp(cg, NULL);
		CHECK(text != NULL);
		c = text ? cg_parse(text, prog, &n, &total) : NULL;
		CHECK(c != NULL);
		CHECK_INT(total, steps);
		for (char *p = text ? strstr(text, "\njcnd=") : NULL; p; p = strstr(p + 1, "\njcnd="))
			jcnd += strtoull(strchr(p, '/') + 1, NULL, 10);
		CHECK_INT(jcnd, cond);
		free(c);
		free(text);
		free(cg);
	}

	/* lcov: taken + not taken of every executed BRDA pair = conditional branches */
	{
		char *lc = path_in(dir, "w.info");
		uint64_t sum = 0;

		CHECK_INT(trace("lcov", lc, &info), 0);
		free(info);
		text = slurp(lc, NULL);
		CHECK(text != NULL);
		for (char *p = text ? strstr(text, "BRDA:") : NULL; p; p = strstr(p + 1, "BRDA:")) {
			char *v = strchr(strchr(strchr(p, ',') + 1, ',') + 1, ',') + 1;

			if (*v != '-')
				sum += strtoull(v, NULL, 10);
		}
		CHECK_INT(sum, cond);
		free(text);
		free(lc);
	}
	free(base);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* drcov: the blocks cover exactly the bytes of the executed instructions */
TEST(drcov_covers_executed_bytes)
{
	char *out = path_in(dir, "w.drcov"), *info = NULL, *lk = path_in(dir, "w2.lk"), *file;
	char *data, *text, err[256];
	size_t len, nb = 0, ni = 0;
	struct drcov_file f;
	uint64_t *bytes_bb, *bytes_in, base = 0;
	bool found = false;

	CHECK_INT(trace("drcov", out, &info), 0);
	free(info);
	data = slurp(out, &len);
	CHECK(data && drcov_parse(data, len, &f, err, sizeof(err)) == 0);
	if (!data || f.nmods == 0) {
		free(data);
		return;
	}
	for (uint32_t i = 0; i < f.nmods; i++) {
		if (!strcmp(f.mods[i].path, prog)) {
			base = f.mods[i].base;
			found = true;
		}
	}
	CHECK(found);
	for (uint32_t i = 0; i < f.nbbs; i++)
		nb += f.bbs[i].size;
	bytes_bb = malloc((nb + 1) * sizeof(uint64_t));
	nb = 0;
	for (uint32_t i = 0; i < f.nbbs; i++)
		for (uint32_t k = 0; k < f.bbs[i].size; k++)
			bytes_bb[nb++] = base + f.bbs[i].start + k;
	/* every byte of every executed instruction, from the lackey trace */
	CHECK_INT(trace("lackey", lk, &info), 0);
	free(info);
	file = thread_file(lk);
	text = file ? slurp(file, NULL) : NULL;
	bytes_in = malloc((qt.n + 1) * 16 * sizeof(uint64_t));
	for (char *p = text; p && *p; p = strchr(p, '\n') + 1) {
		uint64_t ip = strtoull(p + 3, NULL, 16);
		unsigned int l = (unsigned int)strtoul(strchr(p, ',') + 1, NULL, 10);

		for (unsigned int k = 0; k < l; k++)
			bytes_in[ni++] = ip + k;
	}
	qsort(bytes_bb, nb, sizeof(uint64_t), cmp_u64);
	qsort(bytes_in, ni, sizeof(uint64_t), cmp_u64);
	{
		size_t a = 0, b = 0;

		for (size_t i = 0; i < nb; i++)
			if (!a || bytes_bb[a - 1] != bytes_bb[i])
				bytes_bb[a++] = bytes_bb[i];
		for (size_t i = 0; i < ni; i++)
			if (!b || bytes_in[b - 1] != bytes_in[i])
				bytes_in[b++] = bytes_in[i];
		CHECK_INT(a, b);
		CHECK(a == b && !memcmp(bytes_bb, bytes_in, a * sizeof(uint64_t)));
	}
	free(bytes_bb);
	free(bytes_in);
	free(text);
	free(file);
	drcov_free(&f);
	free(data);
	free(out);
	free(lk);
}

/* One shell line's output as a number (hex with 0x). */
static uint64_t shell_num(const char *cmd)
{
	char *out = NULL;
	uint64_t v;

	run_cmd(cmd, &out);
	v = strtoull(out, NULL, 0);
	free(out);
	return v;
}

TEST(qemu_sequence)
{
	char *log = path_in(dir, "q.log"), *cmd, *out = NULL, *text;
	uint64_t work, xmin, start_code, bias, entry;
	uint64_t *seq = NULL;
	size_t n = 0, cap = 0, tlen;
	bool on = false;

	if (!qt.n)
		return;
	if (asprintf(&cmd, "nm '%s' | awk '$3 == \"work\" { print \"0x\" $1 }'", prog) < 0)
		exit(2);
	work = shell_num(cmd);
	free(cmd);
	if (asprintf(&cmd, "readelf -lW '%s' | awk '$1 == \"LOAD\" && / R?W?E / { print $3 }'",
		     prog) < 0)
		exit(2);
	xmin = shell_num(cmd);
	free(cmd);
	CHECK(work != 0);
	if (asprintf(&cmd, "qemu-x86_64 -singlestep -d page,exec,nochain -D '%s' '%s' " N_ARG,
		     log, prog) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &out), 0);
	free(cmd);
	free(out);
	text = slurp(log, &tlen);
	CHECK(text != NULL);
	if (!text)
		return;
	start_code = strtoull(strstr(text, "start_code") + 10, NULL, 16);
	bias = start_code - (xmin & ~0xfffull);
	entry = bias + work;
	/* "Trace 0: 0xHOST [CS_BASE/PC/FLAGS/CFLAGS]" per executed instruction */
	for (char *p = text, *eol; p < text + tlen; p = eol + 1) {
		char *b, *slash;
		uint64_t pc;

		eol = memchr(p, '\n', text + tlen - p);
		if (!eol)
			break;
		if (strncmp(p, "Trace ", 6))
			continue;
		b = memchr(p, '[', eol - p);
		slash = b ? memchr(b, '/', eol - b) : NULL;
		if (!slash)
			continue;
		pc = strtoull(slash + 1, NULL, 16);

		if (pc == entry)
			on = true;
		if (!on)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			seq = realloc(seq, cap * sizeof(*seq));
		}
		seq[n++] = pc;
		if (n > qt.n)
			break;
	}
	CHECK(n > qt.n);
	for (size_t i = 0; i < qt.n && i < n; i++) {
		if (seq[i] - entry != qt.ip[i] - qt.ip[0]) {
			CHECK_HEX(seq[i] - entry, qt.ip[i] - qt.ip[0]);
			fprintf(stderr, "  first difference at instruction %zu of %zu\n", i, qt.n);
			break;
		}
	}
	/* and both return to the same place */
	if (n > qt.n)
		CHECK_HEX(seq[qt.n] - entry, qt.last_next - qt.ip[0]);
	free(seq);
	free(text);
	free(log);
}

TEST(valgrind_callgrind_agrees)
{
	char *vg = path_in(dir, "vg.cg"), *ours = path_in(dir, "w.cg"), *cmd, *out = NULL;
	char *vt, *ot;
	struct cg_cost *a, *b;
	size_t na, nb;
	uint64_t ta, tb;

	if (asprintf(&cmd, "valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes "
		     "--toggle-collect=work --callgrind-out-file='%s' '%s' " N_ARG, vg, prog) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &out), 0);
	free(cmd);
	free(out);
	vt = slurp(vg, NULL);
	ot = slurp(ours, NULL);
	CHECK(vt && ot);
	if (!vt || !ot)
		return;
	a = cg_parse(vt, prog, &na, &ta);
	b = cg_parse(ot, prog, &nb, &tb);
	CHECK(a && b);
	CHECK_INT(ta, tb);
	CHECK_INT(tb, qt.n);
	CHECK_INT(na, nb);
	CHECK(na > 20);
	for (size_t i = 0; a && b && i < na && i < nb; i++) {
		if (a[i].addr != b[i].addr || a[i].ir != b[i].ir) {
			CHECK_HEX(b[i].addr, a[i].addr);
			CHECK_INT(b[i].ir, a[i].ir);
			break;
		}
	}
	/* callgrind_annotate prints our total */
	if (asprintf(&cmd, "callgrind_annotate '%s' | grep 'PROGRAM TOTALS' | tr -d ,", ours) < 0)
		exit(2);
	run_cmd(cmd, &out);
	CHECK_INT(strtoull(out, NULL, 10), tb);
	free(cmd);
	free(out);
	free(a);
	free(b);
	free(vt);
	free(ot);
	free(vg);
	free(ours);
}

TEST(lcov_validators)
{
	char *info = path_in(dir, "w.info"), *cmd, *out = NULL, *html, *page;
	char *src = realpath(FMT_SRC_DIR "/testsuite/progs/fmt_work.c", NULL);

	if (asprintf(&cmd, "lcov --rc lcov_branch_coverage=1 --summary '%s'", info) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &out), 0);
	CHECK(strstr(out, "functions..: 66.7% (2 of 3 functions)") != NULL);
	free(cmd);
	free(out);
	if (asprintf(&cmd, "cd / && genhtml --branch-coverage -q -o '%s/html' '%s'", dir, info) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &out), 0);
	free(cmd);
	free(out);
	/* the loop body (the else branch, line 22) ran 66 times of 100 */
	if (asprintf(&cmd, "find '%s/html' -name fmt_work.c.gcov.html", dir) < 0)
		exit(2);
	run_cmd(cmd, &page);
	page[strcspn(page, "\n")] = 0;
	html = slurp(page, NULL);
	CHECK(html && strstr(html, "lineCov\">         66 :"));
	CHECK(src != NULL);
	free(html);
	free(page);
	free(cmd);
	free(src);
	free(info);
}

/* calls through the PLT are charged to "name@plt", not to the symbol before .plt */
TEST(plt_names)
{
	char *out = path_in(dir, "whole.cg"), *cmd, *info = NULL, *text;

	if (asprintf(&cmd, "cd '%s' && '%s' -f callgrind -o '%s' -- '%s' 3 > /dev/null", dir,
		     ptrace_tool, out, prog) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &info), 0);
	text = slurp(out, NULL);
	CHECK(text && strstr(text, " strtol@plt\n"));
	/* main calls printf@plt once: "cfn=(ID)" then a calls= line */
	{
		char *p = text ? strstr(text, " printf@plt\n") : NULL, *id = p;
		char want[64];

		CHECK(p != NULL);
		while (id && id > text && id[-1] != '(')
			id--;
		if (p && id > text) {
			snprintf(want, sizeof(want), "\ncfn=(%ld)\ncalls=1 0x", strtol(id, NULL, 10));
			CHECK(strstr(text, want) != NULL);
		}
	}
	free(text);
	free(info);
	free(cmd);
	free(out);
}

int main(void)
{
	unit_prog = "test_fmt_e2e";
	dir = fmt_tmpdir();
	prog = realpath(FMT_BUILD_DIR "/progs/fmt_work", NULL);
	ptrace_tool = realpath(FMT_BUILD_DIR "/fmt-ptrace", NULL);
	if (!prog || !ptrace_tool) {
		printf("FAIL unit/test_fmt_e2e/setup: build/progs/fmt_work or build/fmt-ptrace "
		       "missing\n");
		return 1;
	}
	RUN(formats_agree);
	RUN(drcov_covers_executed_bytes);
	RUN(qemu_sequence);
	RUN(valgrind_callgrind_agrees);
	RUN(lcov_validators);
	RUN(plt_names);
	fmt_cleanup();
	return unit_done();
}
