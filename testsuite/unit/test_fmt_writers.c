/*
 * test_fmt_writers.c - the runner-side writers (translator/runner/trace/) on a
 * synthetic trace of a program assembled for the test: exact drcov bytes,
 * callgrind and lcov text; the validators Debian ships (callgrind_annotate,
 * lcov --summary, genhtml) accept the files and agree with the counts; the
 * project's own drcov and qtrace readers parse them back.
 */
#include "unit.h"
#include "test_fmt_lib.h"
#include "runner/trace/tout.h"
#include "formats/stream.h"
#include "runner/trace/drcov_read.h"
#include "runner/trace/qtrace_read.h"

#include <stdlib.h>

static const char *dir, *bin;

/* Run the trace in B through a tout of FORMAT writing OUT; 0 on success. */
static int write_fmt(const char *format, const char *out, const struct pbuf *b, struct tout_stats *st)
{
	struct tout_opts o = {
		.format = format, .path = out, .fd = -1, .cmd = "fmt", .pid = 100,
		.qt_isa = UTAP_QT_ISA_X86, .creator = "utap-test",
	};
	char err[256];
	struct tout *t = tout_open(&o, err, sizeof(err));

	if (!t) {
		fprintf(stderr, "tout_open: %s\n", err);
		return -1;
	}
	/* in pieces, as the transport delivers them */
	for (size_t off = 0; off < b->n;) {
		size_t n = 0;

		while (off + n < b->n && n < 3 * sizeof(struct utap_trace_step)) {
			uint16_t size;

			memcpy(&size, b->p + off + n + 2, 2);
			n += size;
		}
		tout_feed(t, b->p + off, n);
		off += n;
	}
	if (tout_close(t, st, err, sizeof(err))) {
		fprintf(stderr, "tout_close: %s\n", err);
		return -1;
	}
	return 0;
}

static void check_text(const char *path, const char *want)
{
	char *got = slurp(path, NULL);

	CHECK(got != NULL);
	if (got && strcmp(got, want)) {
		CHECK_STR(got, want);
		fprintf(stderr, "--- got:\n%s--- want:\n%s", got, want);
	}
	free(got);
}

static const char callgrind_want[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: utap-test\n"
	"pid: 100\n"
	"cmd: fmt\n"
	"part: 1\n"
	"\n"
	"positions: instr line\n"
	"events: Ir\n"
	"summary: 18\n"
	"\n"
	"ob=(1) @BIN@\n"
	"fl=(1) @DIR@/fmt.c\n"
	"fn=(1) loop\n"
	"0x401000 3 1\n"
	"0x401002 4 3\n"
	"0x401005 5 3\n"
	"0x401008 5 3\n"
	"jcnd=2/3 0x401002 4\n"
	"0x401008 5\n"
	"0x40100a 6 1\n"
	"\n"
	"fl=(1)\n"
	"fn=(2) _start\n"
	"0x40100b 9 1\n"
	"0x401010 9 1\n"
	"cfi=(1)\n"
	"cfn=(1)\n"
	"calls=1 0x401000 3\n"
	"0x401010 9 11\n"
	"0x401015 10 1\n"
	"0x401018 10 1\n"
	"jcnd=0/1 0x40101d 12\n"
	"0x401018 10\n"
	"0x40101a 11 1\n"
	"0x40101d 12 1\n"
	"0x401022 12 1\n"
	"\n"
	"totals: 18\n";

TEST(callgrind_exact)
{
	struct pbuf b = { 0 };
	struct tout_stats st;
	char *out = path_in(dir, "cg.out"), *want = subst(callgrind_want, "BIN", bin, "DIR", dir,
							  NULL);

	fmt_prog_trace(&b, bin, 7, false);
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	check_text(out, want);
	CHECK_INT(st.steps, 18);
	CHECK_INT(st.branches, 6);
	CHECK_INT(st.taken, 4);
	CHECK_INT(st.threads, 1);
	CHECK_INT(st.modules, 1);
	CHECK_INT(st.bad, 0);

	/* the same with the tracer's next_ip filled in */
	pb_free(&b);
	fmt_prog_trace(&b, bin, 7, true);
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	check_text(out, want);
	pb_free(&b);
	free(out);
	free(want);
}

/* callgrind_annotate reads it and prints the same totals */
TEST(callgrind_annotate_agrees)
{
	char *out = path_in(dir, "cg.out"), *cmd, *text = NULL;
	struct pbuf b = { 0 };
	struct tout_stats st;
	int rc;

	fmt_prog_trace(&b, bin, 7, false);
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	if (asprintf(&cmd, "callgrind_annotate --inclusive=yes '%s'", out) < 0)
		exit(2);
	rc = run_cmd(cmd, &text);
	CHECK_INT(rc, 0);
	CHECK(strstr(text, "18 (100.0%)  PROGRAM TOTALS") != NULL);
	{
		char *a = subst("18 (100.0%)  @DIR@/fmt.c:_start [@BIN@]\n", "DIR", dir, "BIN", bin,
				NULL);
		char *l = subst("11 (61.11%)  @DIR@/fmt.c:loop [@BIN@]\n", "DIR", dir, "BIN", bin,
				NULL);

		CHECK(strstr(text, a) != NULL);
		CHECK(strstr(text, l) != NULL);
		free(a);
		free(l);
	}
	if (!strstr(text, "PROGRAM TOTALS"))
		fprintf(stderr, "%s\n", text);
	free(cmd);
	free(text);
	if (asprintf(&cmd, "callgrind_annotate '%s'", out) < 0)
		exit(2);
	rc = run_cmd(cmd, &text);
	CHECK_INT(rc, 0);
	CHECK(strstr(text, "11 (61.11%)  ") != NULL);	/* loop: self cost 11 */
	CHECK(strstr(text, " 7 (38.89%)  ") != NULL);	/* _start: self cost 7 */
	free(cmd);
	free(text);
	pb_free(&b);
	free(out);
}

static const char lcov_want[] =
	"TN:\n"
	"SF:@DIR@/fmt.c\n"
	"FN:3,loop\n"
	"FN:9,_start\n"
	"FNDA:1,loop\n"
	"FNDA:1,_start\n"
	"FNF:2\n"
	"FNH:2\n"
	"BRDA:5,0,0,2\n"
	"BRDA:5,0,1,1\n"
	"BRDA:10,0,0,0\n"
	"BRDA:10,0,1,1\n"
	"BRF:4\n"
	"BRH:3\n"
	"DA:3,1\n"
	"DA:4,3\n"
	"DA:5,3\n"
	"DA:6,1\n"
	"DA:9,1\n"
	"DA:10,1\n"
	"DA:11,1\n"
	"DA:12,1\n"
	"LF:8\n"
	"LH:8\n"
	"end_of_record\n";

TEST(lcov_exact_and_valid)
{
	char *out = path_in(dir, "cov.info"), *want = subst(lcov_want, "DIR", dir, NULL);
	char *cmd, *text = NULL;
	struct pbuf b = { 0 };
	struct tout_stats st;

	fmt_prog_trace(&b, bin, 7, false);
	CHECK_INT(write_fmt("lcov", out, &b, &st), 0);
	check_text(out, want);

	if (asprintf(&cmd, "lcov --rc lcov_branch_coverage=1 --summary '%s'", out) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &text), 0);
	CHECK(strstr(text, "lines......: 100.0% (8 of 8 lines)") != NULL);
	CHECK(strstr(text, "functions..: 100.0% (2 of 2 functions)") != NULL);
	CHECK(strstr(text, "branches...: 75.0% (3 of 4 branches)") != NULL);
	if (!strstr(text, "8 of 8 lines"))
		fprintf(stderr, "%s\n", text);
	free(cmd);
	free(text);

	if (asprintf(&cmd, "genhtml --branch-coverage -q -o '%s/html' '%s'", dir, out) < 0)
		exit(2);
	CHECK_INT(run_cmd(cmd, &text), 0);
	free(cmd);
	free(text);
	/* the source page marks line 4 as hit 3 times */
	{
		char *page = path_in(dir, "html/fmt.c.gcov.html");
		char *html = slurp(page, NULL);

		if (!html) {	/* genhtml puts the page under the directory's name */
			free(page);
			if (asprintf(&cmd, "find '%s/html' -name fmt.c.gcov.html", dir) < 0)
				exit(2);
			run_cmd(cmd, &text);
			text[strcspn(text, "\n")] = 0;
			html = slurp(text, NULL);
			free(cmd);
			free(text);
		} else {
			free(page);
		}
		CHECK(html != NULL);
		CHECK(html && strstr(html, "lineCov\">          3 :"));
		free(html);
	}
	pb_free(&b);
	free(out);
	free(want);
}

/* a partial run: the loop never finishes, nothing after it runs */
TEST(lcov_unexecuted)
{
	char *out = path_in(dir, "part.info"), *text;
	struct pbuf b = { 0 };
	struct tout_stats st;

	pb_map(&b, 100, 0x401000, 0x402000, 0x1000, 0, bin);
	pb_step(&b, 9, 0x401000, "31c0", 0, 0);
	pb_step(&b, 9, 0x401002, "4801f8", 0, 0);
	CHECK_INT(write_fmt("lcov", out, &b, &st), 0);
	text = slurp(out, NULL);
	CHECK(text && strstr(text, "FNDA:1,loop\nFNDA:0,_start\nFNF:2\nFNH:1\n"));
	CHECK(text && strstr(text, "BRDA:5,0,0,-\nBRDA:5,0,1,-\nBRDA:10,0,0,-\nBRDA:10,0,1,-\n"
			     "BRF:4\nBRH:0\n"));
	CHECK(text && strstr(text, "DA:3,1\nDA:4,1\nDA:5,0\nDA:6,0\nDA:9,0\n"));
	CHECK(text && strstr(text, "LF:8\nLH:2\n"));
	free(text);
	pb_free(&b);
	free(out);
}

static const char drcov_want_text[] =
	"DRCOV VERSION: 2\n"
	"DRCOV FLAVOR: drcov-64\n"
	"Module Table: version 2, count 1\n"
	"Columns: id, base, end, entry, path\n"
	"  0, 0x0000000000400000, 0x0000000000402000, 0x000000000040100b, @BIN@\n"
	"BB Table: 6 bbs\n";

static const char drcov_want_bbs[] =
	"0b100000 0a00 0000"	/* _start: mov, call */
	"00100000 0a00 0000"	/* loop: xor .. jne */
	"02100000 0800 0000"	/* add .. jne (again, twice: written once) */
	"0a100000 0100 0000"	/* ret */
	"15100000 0500 0000"	/* test, je */
	"1a100000 0a00 0000";	/* mov, mov, syscall */

TEST(drcov_exact_and_read)
{
	char *out = path_in(dir, "cov.drcov"), *want = subst(drcov_want_text, "BIN", bin, NULL);
	uint8_t bbs[64];
	size_t nb = unhex(drcov_want_bbs, bbs), len;
	char *got, err[256];
	struct pbuf b = { 0 };
	struct tout_stats st;
	struct drcov_file f;

	fmt_prog_trace(&b, bin, 7, false);
	CHECK_INT(write_fmt("drcov", out, &b, &st), 0);
	CHECK_INT(st.bbs, 6);
	got = slurp(out, &len);
	CHECK(got != NULL);
	CHECK_INT(len, strlen(want) + nb);
	if (got && len == strlen(want) + nb) {
		CHECK_MEM(got, want, strlen(want));
		CHECK_MEM(got + strlen(want), bbs, nb);
	}

	CHECK_INT(drcov_parse(got, len, &f, err, sizeof(err)), 0);
	CHECK_INT(f.version, 2);
	CHECK_INT(f.table_version, 2);
	CHECK_INT(f.nmods, 1);
	CHECK_INT(f.nbbs, 6);
	if (f.nmods == 1 && f.nbbs == 6) {
		CHECK_STR(f.mods[0].path, bin);
		CHECK_HEX(f.mods[0].base, 0x400000);
		CHECK_HEX(f.mods[0].end, 0x402000);
		CHECK_HEX(f.mods[0].entry, 0x40100b);
		CHECK_HEX(f.bbs[2].start, 0x1002);
		CHECK_INT(f.bbs[2].size, 8);
		CHECK_INT(f.bbs[5].mod, 0);
	}
	drcov_free(&f);
	free(got);
	pb_free(&b);
	free(out);
	free(want);
}

/* streams encoded in the runner: one file per thread, the encoder's bytes */
TEST(streams_per_thread)
{
	char *base = path_in(dir, "trace.qt"), *f7, *f8, *data;
	struct pbuf b = { 0 };
	struct tout_stats st;
	size_t len;
	struct qt_reader r;
	struct qt_rec rec;
	int n = 0;

	fmt_prog_trace(&b, bin, 7, false);
	fmt_prog_trace(&b, bin, 8, true);
	CHECK_INT(write_fmt("qtrace", base, &b, &st), 0);
	CHECK_INT(st.threads, 2);
	f7 = path_in(dir, "trace.qt.7");
	f8 = path_in(dir, "trace.qt.8");
	data = slurp(f7, &len);
	CHECK(data != NULL);
	if (data) {
		char *other = slurp(f8, NULL);

		qt_reader_init(&r, data, len);
		while (qt_next(&r, &rec) == 1)
			n++;
		CHECK(r.error == NULL);
		CHECK_INT(n, 18);
		CHECK(other && !memcmp(other, data, len));	/* next_ip or not: same bytes */
		/* header, then "bf030000 0041 0000 000000000040101" (mov, len 5) */
		CHECK(len > 38 && !memcmp(data + 22, "\xbf\x03\x00\x00\x00\x41\x00\x00", 8));
		free(other);
	}
	free(data);
	pb_free(&b);

	fmt_prog_trace(&b, bin, 7, false);
	CHECK_INT(write_fmt("lackey", base, &b, &st), 0);
	data = slurp(f7, NULL);
	CHECK(data && !strncmp(data, "I  0040100b,5\nI  00401010,5\nI  00401000,2\n", 42));
	CHECK(data && strstr(data, "I  00401022,2\n") && strlen(data) == 18 * 14);
	free(data);
	pb_free(&b);
	free(base);
	free(f7);
	free(f8);
}

/*
 * The runner's qtrace of a thread traced in windows (thread off, on again
 * elsewhere, a one-instruction window, steps reported lost): one stream with
 * one header, every record where qtrace-tools put it = where it ran, as the
 * module writes it.
 */
TEST(streams_windows)
{
	static const int win[] = { 0, 1, 2, 3, -1, 12, 13, 14, -2, 16, -1, 5, -1, 17 };
	char *base = path_in(dir, "win.qt"), *f7 = path_in(dir, "win.qt.7"), *data;
	struct pbuf b = { 0 };
	struct tout_stats st;
	uint64_t ips[ARRAY_SIZE(win)];
	size_t n = 0, len;

	pb_map(&b, 100, 0x401000, 0x402000, 0x1000, 0, bin);
	pb_thread(&b, 7, 100, true);
	for (size_t i = 0; i < ARRAY_SIZE(win); i++) {
		if (win[i] == -1) {		/* itrace_off(), then itrace_on() */
			pb_thread(&b, 7, 100, false);
			pb_thread(&b, 7, 100, true);
		} else if (win[i] == -2) {	/* steps the engine could not send */
			pb_lost(&b, 7, 1);
		} else {
			ips[n++] = pb_run_step(&b, (unsigned int)win[i], 7, false);
		}
	}
	pb_thread(&b, 7, 100, false);
	CHECK_INT(write_fmt("qtrace", base, &b, &st), 0);
	CHECK_INT(st.lost, 1);
	data = slurp(f7, &len);
	CHECK(data && qtools_expect(data, len, ips, n, 0x401024));
	free(data);
	pb_free(&b);
	free(base);
	free(f7);
}

/* lost steps, unknown kinds and broken records are counted, not fatal */
TEST(records_robust)
{
	char *out = path_in(dir, "x.cg");
	struct pbuf b = { 0 };
	struct tout_stats st;
	uint8_t junk[8] = { 9, 0, 8, 0, 1, 2, 3, 4 };	/* kind 9, size 8 */

	fmt_prog_trace(&b, bin, 7, false);
	pb_lost(&b, 7, 5);
	memcpy(b.p + b.n, junk, 0);
	{
		struct pbuf j = { 0 };

		pb_step(&j, 7, 0x401000, "31c0", 0, 0);
		/* append the junk record and a step with a bad length */
		b.p = realloc(b.p, b.n + sizeof(junk) + j.n);
		memcpy(b.p + b.n, junk, sizeof(junk));
		b.n += sizeof(junk);
		j.p[6] = 16;	/* len 16 > 15 */
		memcpy(b.p + b.n, j.p, j.n);
		b.n += j.n;
		pb_free(&j);
	}
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	CHECK_INT(st.steps, 18);
	CHECK_INT(st.lost, 5);
	CHECK_INT(st.bad, 2);
	{
		char *text = slurp(out, NULL);

		CHECK(text && strstr(text, "# utap: 5 executed instructions were not recorded\n"));
		free(text);
	}
	pb_free(&b);
	free(out);
}

/* steps outside every mapping still count; their object is ??? */
TEST(unmapped_steps)
{
	char *out = path_in(dir, "u.cg"), *text;
	struct pbuf b = { 0 };
	struct tout_stats st;

	pb_step(&b, 3, 0x7000, "90", 0, 0);
	pb_step(&b, 3, 0x7001, "c3", UTAP_STEP_BRANCH | UTAP_STEP_RET, 0);
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	CHECK_INT(st.unmapped, 2);
	text = slurp(out, NULL);
	CHECK(text && strstr(text, "ob=(1) ???\nfl=(1) ???\nfn=(1) ???\n0x7000 0 1\n0x7001 0 1\n"));
	free(text);
	pb_free(&b);
	free(out);
}

/* a file name with a newline cannot break a line-based format */
/* -T NAME: whole-run writers and streaming encoders by name, a length-bounded name too */
TEST(format_names)
{
	CHECK(tout_format_known("drcov", 5) && tout_format_known("callgrind", 9));
	CHECK(tout_format_known("lcovx", 4) && !tout_format_known("lcovx", 5));
	CHECK(tout_format_known("qtrace", 6) && tout_format_known("lackey", 6));
	CHECK(!tout_format_known("none", 4) && !tout_format_known("lcov", 3));
	CHECK_STR(tout_writer_name(0), "drcov");
	CHECK_STR(tout_writer_name(1), "callgrind");
	CHECK_STR(tout_writer_name(2), "lcov");
	CHECK_STR(tout_writer_name(3), "pprof");
	CHECK(!tout_writer_name(4));
}

TEST(newline_in_path)
{
	char *out = path_in(dir, "nl.drcov"), *text, err[256];
	struct pbuf b = { 0 };
	struct tout_stats st;
	struct drcov_file f;
	size_t len;

	pb_map(&b, 1, 0x401000, 0x402000, 0x1000, 0, "/no/such\nfile\r");
	pb_step(&b, 3, 0x401000, "90", 0, 0);
	CHECK_INT(write_fmt("drcov", out, &b, &st), 0);
	text = slurp(out, &len);
	CHECK(text && drcov_parse(text, len, &f, err, sizeof(err)) == 0);
	if (text && f.nmods == 1)
		CHECK_STR(f.mods[0].path, "/no/such?file?");
	drcov_free(&f);
	free(text);
	free(out);
	out = path_in(dir, "nl.cg");
	CHECK_INT(write_fmt("callgrind", out, &b, &st), 0);
	text = slurp(out, NULL);
	CHECK(text && strstr(text, "\nob=(1) /no/such?file?\n"));
	free(text);
	pb_free(&b);
	free(out);
}

int main(void)
{
	unit_prog = "test_fmt_writers";
	dir = fmt_tmpdir();
	bin = fmt_build_prog(dir);
	if (!bin) {
		printf("FAIL unit/test_fmt_writers/setup: cannot assemble the test program\n");
		return 1;
	}
	RUN(callgrind_exact);
	RUN(callgrind_annotate_agrees);
	RUN(lcov_exact_and_valid);
	RUN(lcov_unexecuted);
	RUN(drcov_exact_and_read);
	RUN(streams_per_thread);
	RUN(streams_windows);
	RUN(records_robust);
	RUN(unmapped_steps);
	RUN(newline_in_path);
	RUN(format_names);
	fmt_cleanup();
	return unit_done();
}
