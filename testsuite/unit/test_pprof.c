/*
 * test_pprof.c - the protobuf encoder (runner/trace/proto.c) byte by byte,
 * and the pprof writer (runner/trace/pprof.c) on sample records built by
 * hand against the formats' test program (test_fmt_lib.h): its file is
 * read back by protoc --decode_raw and by go tool pprof, the consumers a
 * user has.
 */
#include "unit.h"
#include "test_fmt_lib.h"
#include "runner/trace/proto.h"
#include "runner/trace/tout.h"

#include <zlib.h>

static const char *dir, *bin;

static bool bytes_are(const struct proto *b, const char *hex)
{
	uint8_t want[64];
	size_t n = unhex(hex, want);

	return b->len == n && !memcmp(b->buf, want, n);
}

TEST(varints)
{
	struct proto b = { 0 };

	proto_varint(&b, 0);
	CHECK(bytes_are(&b, "00"));
	b.len = 0;
	proto_varint(&b, 300);
	CHECK(bytes_are(&b, "ac02"));
	b.len = 0;
	proto_varint(&b, UINT64_MAX);
	CHECK(bytes_are(&b, "ffffffffffffffffff01"));
	b.len = 0;
	proto_int(&b, 1, -1);	/* int64: ten bytes, not zigzag */
	CHECK(bytes_are(&b, "08ffffffffffffffffff01"));
	b.len = 0;
	proto_uint(&b, 2, 0);	/* proto3 leaves defaults out */
	CHECK_INT(b.len, 0);
	proto_uint0(&b, 2, 0);
	CHECK(bytes_are(&b, "1000"));
	proto_free(&b);
}

TEST(fields)
{
	struct proto b = { 0 }, sub = { 0 };
	uint64_t v[] = { 1, 150, 3 };

	proto_bytes(&b, 6, "ab", 2);
	CHECK(bytes_are(&b, "32026162"));
	b.len = 0;
	proto_packed(&b, 1, v, 3);
	CHECK(bytes_are(&b, "0a0401960103"));
	b.len = 0;
	proto_packed(&b, 1, v, 0);
	CHECK_INT(b.len, 0);
	proto_uint(&sub, 1, 7);
	proto_msg(&b, 4, &sub);
	CHECK(bytes_are(&b, "22020807"));
	CHECK_INT(sub.len, 0);	/* emptied for the next message */
	proto_free(&b);
	proto_free(&sub);
}

TEST(string_table)
{
	struct proto_strtab t = { 0 };
	struct proto b = { 0 };
	char name[32];

	CHECK_INT(proto_str(&t, ""), 0);
	CHECK_INT(proto_str(&t, "spin"), 1);
	CHECK_INT(proto_str(&t, "main"), 2);
	CHECK_INT(proto_str(&t, "spin"), 1);
	CHECK_INT(proto_str(&t, NULL), 0);
	for (int i = 0; i < 1000; i++) {	/* through several rehashes */
		snprintf(name, sizeof(name), "f%d", i);
		CHECK_INT(proto_str(&t, name), 3 + i);
	}
	CHECK_INT(proto_str(&t, "f500"), 503);
	CHECK_INT(proto_str(&t, "main"), 2);
	proto_strings(&b, 6, &t);
	CHECK(b.len > 6 && !memcmp(b.buf, "\x32\x00\x32\x04spin", 8));
	proto_free(&b);
	proto_strtab_free(&t);
}

/* TEXT has FMT with the scratch directory for its %s. */
static bool has_line(const char *text, const char *fmt)
{
	char want[512];

	snprintf(want, sizeof(want), fmt, dir);
	return strstr(text, want) != NULL;
}

/* A sample piece: header and N words (frames, then pylen bytes of Python text). */
static void piece_py(struct pbuf *b, uint16_t cpu, uint32_t seq, uint16_t flags, uint16_t nk,
		     uint16_t nu, uint16_t first, uint16_t n, const uint64_t *pcs, uint16_t pylen)
{
	struct utap_trace_sample h = {
		.kind = UTAP_TRACE_SAMPLE, .size = sizeof(h) + 8 * n, .tid = 42, .pid = 42,
		.cpu = cpu, .flags = flags | UTAP_SAMPLE_NS, .seq = seq, .nkernel = nk,
		.nuser = nu, .first = first, .n = n, .pylen = pylen, .period = 1000000,
	};

	if (b->n + h.size > b->cap) {
		b->cap = (b->n + h.size) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(2);
	}
	memcpy(b->p + b->n, &h, sizeof(h));
	memcpy(b->p + b->n + sizeof(h), pcs + first, 8 * n);
	b->n += h.size;
}

static void piece(struct pbuf *b, uint16_t cpu, uint32_t seq, uint16_t flags, uint16_t nk,
		  uint16_t nu, uint16_t first, uint16_t n, const uint64_t *pcs)
{
	piece_py(b, cpu, seq, flags, nk, nu, first, n, pcs, 0);
}

enum { F = UTAP_SAMPLE_FIRST, L = UTAP_SAMPLE_LAST };

/*
 * The program's run as samples: 3 in loop called from _start, one with a
 * kernel frame on top, and one 100 frames deep sent in two pieces with
 * another CPU's sample between them; a piece whose first one is missing.
 */
static char *write_profile(struct tout_stats *st)
{
	char *out = path_in(dir, "p.pb.gz"), err[256];
	struct tout_opts o = { .format = "pprof", .path = out };
	struct pbuf b = { 0 };
	uint64_t two[] = { 0x401005, 0x401015 };
	uint64_t kern[] = { 0xffffffff81000010, 0x401022, 0x401015 };
	uint64_t deep[100];
	struct tout *t = tout_open(&o, err, sizeof(err));

	CHECK(t != NULL);
	if (!t)
		return out;
	deep[0] = 0x401008;
	for (int i = 1; i < 99; i++)
		deep[i] = 0x401015;
	deep[99] = 0x401015;
	pb_map(&b, 42, 0x401000, 0x402000, 0x1000, 0, bin);
	for (uint32_t i = 0; i < 3; i++)
		piece(&b, 0, i, F | L, 0, 2, 0, 2, two);
	piece(&b, 1, 7, F, 0, 100, 0, 64, deep);
	piece(&b, 0, 3, F | L, 1, 2, 0, 3, kern);
	piece(&b, 1, 7, L, 0, 100, 64, 36, deep);
	piece(&b, 2, 9, L, 0, 100, 64, 36, deep);	/* its first piece was dropped */
	tout_feed(t, b.p, b.n);
	pb_free(&b);
	CHECK_INT(tout_close(t, st, err, sizeof(err)), 0);
	return out;
}

/* The profile, gunzipped, into RAW (a file beside it). */
static bool gunzip(const char *gz, const char *raw)
{
	gzFile in = gzopen(gz, "rb");
	FILE *out = fopen(raw, "wb");
	char buf[4096];
	int n;

	if (!in || !out)
		return false;
	while ((n = gzread(in, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, out);
	gzclose(in);
	return fclose(out) == 0 && n == 0;
}

/* The exit status of shell command FMT with FILE for its %s; its output in *TEXT. */
static int run_on(const char *fmt, const char *file, char **text)
{
	char *cmd;
	int rc;

	if (asprintf(&cmd, fmt, file) < 0)
		exit(2);
	rc = run_cmd(cmd, text);
	free(cmd);
	return rc;
}

TEST(profile_decodes)
{
	struct tout_stats st;
	char *out = write_profile(&st), *raw = path_in(dir, "p.pb"), *text;

	CHECK_INT(st.samples, 5);
	CHECK_INT(st.samples_lost, 1);
	CHECK(gunzip(out, raw));
	/* protoc's own parser: the wire format is valid, the strings are in field 6 */
	CHECK_INT(run_on("protoc --decode_raw < %s", raw, &text), 0);
	CHECK(strstr(text, "6: \"\"\n6: \"samples\"\n6: \"count\"\n") != NULL);
	CHECK(strstr(text, "6: \"loop\"\n") && strstr(text, "6: \"_start\"\n") != NULL);
	CHECK(strstr(text, "12: 1000000\n") != NULL);
	free(text);
	/* pprof's: samples with their counts, locations with lines, the mapping and period */
	CHECK_INT(run_on("go tool pprof -raw %s", out, &text), 0);
	CHECK(strstr(text, "PeriodType: cpu nanoseconds\nPeriod: 1000000\n") != NULL);
	CHECK(strstr(text, "Samples:\nsamples/count\n") != NULL);
	CHECK(strstr(text, "          3: 1 2 \n") != NULL);
	CHECK(has_line(text, " 1: 0x401005 M=1 loop %s/fmt.c:5 s=0\n"));
	CHECK(has_line(text, " 2: 0x401014 M=1 _start %s/fmt.c:9 s=0\n"));
	CHECK(has_line(text, " 5: 0x401022 M=1 _start %s/fmt.c:12 s=0\n"));
	CHECK(strstr(text, " 4: 0xffffffff81000010 M=2 ") != NULL);
	CHECK(has_line(text, "1: 0x401000/0x402000/0x1000 %s/fmt  [FN][FL][LN]\n"));
	CHECK(strstr(text, "2: 0xffffffff81000010/0xffffffff81000011/0x0 [kernel.kallsyms]") != NULL);
	free(text);
	/* the deep sample whole: loop on top of 99 frames of _start (and 3 more in the others) */
	CHECK_INT(run_on("go tool pprof -traces %s | grep -c '^             _start$'", out, &text), 0);
	CHECK_STR(text, "102\n");
	free(text);
	free(raw);
	free(out);
}

/*
 * A program shaped like a Python interpreter: _start calls the eval loop,
 * which calls PyObject_Call, which calls the eval loop again (a C function
 * calling back into Python), which calls PyObject_Call, where samples hit.
 */
static char *build_pyprog(void)
{
	char *exe = path_in(dir, "py"), *cmd, *out = NULL;
	int rc;

	if (asprintf(&cmd, "cd '%s' && for f in _start:_PyEval_EvalFrameDefault "
		     "_PyEval_EvalFrameDefault:PyObject_Call PyObject_Call:_PyEval_EvalFrameDefault; "
		     "do printf '.type %%s, @function\\n%%s: call %%s\\n.fill 11, 1, 0x90\\n"
		     ".size %%s, 16\\n' ${f%%:*} ${f%%:*} ${f#*:} ${f%%:*}; done > py.s && "
		     "as --64 -o py.o py.s && ld --build-id=none -Ttext=0x401000 -o py py.o", dir) < 0)
		exit(2);
	rc = run_cmd(cmd, &out);
	if (rc)
		fprintf(stderr, "building the Python-shaped program failed: %s\n", out);
	free(cmd);
	free(out);
	return exe;
}

/* A sample of NU user frames and a pybacktrace() string, in pieces of at most 4 words. */
static void pysample(struct pbuf *b, uint32_t seq, uint16_t nu, const uint64_t *pcs,
		     const char *py)
{
	uint64_t w[64] = { 0 };
	size_t len = strlen(py), n = nu + (len + 7) / 8;

	memcpy(w, pcs, 8 * nu);
	memcpy(w + nu, py, len);
	for (size_t at = 0; at < n; at += 4)
		piece_py(b, 3, seq, (at ? 0 : F) | (at + 4 >= n ? L : 0), 0, nu, at,
			 n - at < 4 ? n - at : 4, w, len);
}

/*
 * pprof_pysample()'s samples: each eval loop frame is replaced by its
 * group of Python frames (the innermost C call's is group 0), or keeps its
 * name when the string has no group for it (a marker, a cut string).
 */
TEST(python_frames)
{
	char *exe = build_pyprog(), *out = path_in(dir, "py.pb.gz"), err[256], *text;
	struct tout_opts o = { .format = "pprof", .path = out };
	uint64_t pcs[] = { 0x401025, 0x401015, 0x401025, 0x401015, 0x401005 };
	struct tout *t = tout_open(&o, err, sizeof(err));
	struct tout_stats st;
	struct pbuf b = { 0 };

	CHECK(t != NULL);
	if (!t)
		return;
	pb_map(&b, 42, 0x401000, 0x402000, 0x1000, 0, exe);
	pysample(&b, 1, 5, pcs, "key\t/x/p.py\t52\tE\nsort_it\t/x/p.py\t57\n"
		 "<module>\t/x/p.py\t93\tE\n");
	pysample(&b, 2, 5, pcs, "key\t/x/p.py\t52\tE\nsort_it\t/x/p.py\t57\n"
		 "<module>\t/x/p.py\t93\tE\n");
	pysample(&b, 3, 5, pcs, "key\t/x/p.py\t52\tE\nsort_it\t/x/p.py\t5");	/* cut */
	pysample(&b, 4, 5, pcs, "<no Python frames: not a Python thread>\n");
	tout_feed(t, b.p, b.n);
	pb_free(&b);
	CHECK_INT(tout_close(t, &st, err, sizeof(err)), 0);
	CHECK_INT(st.samples, 4);
	CHECK_INT(st.samples_lost, 0);
	CHECK_INT(run_on("go tool pprof -traces %s 2>/dev/null | tr -s ' \n' ' '", out, &text), 0);
	CHECK(strstr(text, "- 2 PyObject_Call key PyObject_Call sort_it <module> _start -") != NULL);
	CHECK(strstr(text, "- 1 PyObject_Call key PyObject_Call _PyEval_EvalFrameDefault _start -") != NULL);
	CHECK(strstr(text, "- 1 PyObject_Call _PyEval_EvalFrameDefault PyObject_Call "
			   "_PyEval_EvalFrameDefault _start -") != NULL);
	free(text);
	/* the Python frames' files and lines, and their functions in -top */
	CHECK_INT(run_on("go tool pprof -traces -lines %s 2>/dev/null", out, &text), 0);
	CHECK(strstr(text, "   key /x/p.py:52\n             PyObject_Call\n"
			   "             sort_it /x/p.py:57\n             <module> /x/p.py:93\n") != NULL);
	free(text);
	CHECK_INT(run_on("go tool pprof -top -cum %s 2>/dev/null", out, &text), 0);
	CHECK(strstr(text, " 3 75.00%  key\n") != NULL);
	CHECK(strstr(text, " 2 50.00%  sort_it\n") != NULL);
	free(text);
	free(exe);
	free(out);
}

int main(void)
{
	unit_prog = "test_pprof";
	dir = fmt_tmpdir();
	bin = fmt_build_prog(dir);
	if (!bin) {
		printf("FAIL unit/test_pprof/setup: cannot assemble the test program\n");
		return 1;
	}
	RUN(varints);
	RUN(fields);
	RUN(string_table);
	RUN(profile_decodes);
	RUN(python_frames);
	fmt_cleanup();
	return unit_done();
}
