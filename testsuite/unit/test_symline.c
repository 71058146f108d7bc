/*
 * test_symline.c - line tables: built from the test programs and libc and
 * checked against llvm-addr2line; file names composed as SystemTap composes
 * them; hand-assembled .debug_line units for the corner cases (line 0,
 * unknown files, a row at an end_sequence's address, overlapping units,
 * DWARF 2 to 5 headers, 64-bit DWARF, broken units).
 */
#include "unit.h"
#include "test_sym_lib.h"

#include <dwarf.h>
#include <sys/stat.h>

#define P(name) SYMPROGS_DIR "/" name
#define NO_ROOT "/nonexistent-debug-root"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBC_DEBUG "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"

static char buf[1024];

/* FILE:LINE for file-relative REL, "" when no row covers it. */
static const char *where(const struct utap_linetab *t, uint64_t rel)
{
	const char *file;
	uint32_t line;

	if (!utap_linetab_lookup(t, rel, &file, &line))
		return "";
	snprintf(buf, sizeof(buf), "%s:%u", file ? file : "??", line);
	return buf;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Compare our rows with llvm-addr2line (which, unlike binutils' addr2line,
 * answers from the line table rather than from inlining records) at every
 * STEP-th row start and one byte into the row: same line number, same file
 * base name. Returns the number of mismatches.
 */
static int compare_with_llvm(const char *debug_file, const struct utap_linetab *t,
			     uint32_t step, char *why, size_t whysize)
{
	uint64_t *addrs = malloc(2 * sizeof(*addrs) * ((size_t)t->nrows + 1));
	char list[512], *text, *line, *save = NULL;
	struct utap_line_row row, next;
	struct utap_line_iter it;
	size_t n = 0, k = 0;
	uint32_t i = 0;
	FILE *f;
	int bad = 0;

	utap_linetab_iter(&it, t);
	for (utap_linetab_next(&it, &row); utap_linetab_next(&it, &next); row = next, i++) {
		if (row.file == UTAP_LINE_GAP || i % step)
			continue;
		addrs[n++] = row.addr;
		if (next.addr - row.addr > 1)
			addrs[n++] = row.addr + 1;
	}
	snprintf(list, sizeof(list), "%s/addrs", scratch_dir());
	f = fopen(list, "w");
	for (k = 0; f && k < n; k++)
		fprintf(f, "%#llx\n", (unsigned long long)addrs[k]);
	if (f)
		fclose(f);
	text = run_cmd("llvm-addr2line -e '%s' < %s", debug_file, list);
	why[0] = '\0';
	for (k = 0, line = text ? strtok_r(text, "\n", &save) : NULL; line && k < n;
	     line = strtok_r(NULL, "\n", &save), k++) {
		char ours[1024], *colon = strrchr(line, ':');
		unsigned want_line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		const char *got = where(t, addrs[k]), *got_colon = strrchr(got, ':');

		if (!colon || !got_colon)
			continue;
		*colon = '\0';
		snprintf(ours, sizeof(ours), "%s", got);
		ours[got_colon - got] = '\0';
		if (strtoul(got_colon + 1, NULL, 10) == want_line &&
		    strcmp(base_name(ours), base_name(line)) == 0)
			continue;
		if (!bad++)
			snprintf(why, whysize, "%#llx: %s, llvm-addr2line %s:%u",
				 (unsigned long long)addrs[k], got, line, want_line);
	}
	if (k != n && !bad++)
		snprintf(why, whysize, "llvm-addr2line gave %zu answers for %zu addresses", k, n);
	free(text);
	free(addrs);
	return bad;
}

static void check_program(const char *path, const char *modpath, const char *chain_c)
{
	struct built_linetab b;
	char why[1024];
	uint32_t i, named = 0;

	built_linetab_open(&b, path, NO_ROOT, modpath);
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	CHECK(b.tab.nrows > 20);
	unit_check(compare_with_llvm(path, &b.tab, 1, why, sizeof(why)) == 0, __FILE__,
		   __LINE__, "%s: %s", path, why);
	for (i = 0; i < b.tab.nfiles; i++)
		named += strcmp(b.tab.str + b.tab.files[i], chain_c) == 0;
	unit_check(named == 1, __FILE__, __LINE__, "%s: no file named %s", path, chain_c);
	built_linetab_close(&b);
}

/* DWARF 5: directory "/" name, so the relative directory gcc recorded shows. */
static void test_dwarf5_program(void)
{
	check_program(P("chain-pie"), P("chain-pie"), "testsuite/unit/symprogs/chain.c");
	check_program(P("chain-nopie"), P("chain-nopie"), "testsuite/unit/symprogs/chain.c");
}

/* DWARF 4, file in directory 0: placed in the module's own directory. */
static void test_dwarf4_program(void)
{
	check_program(P("chain-dw4"), P("chain-dw4"), SYMPROGS_DIR "/chain.c");
	check_program(P("chain-dw4"), "/elsewhere/prog", "/elsewhere/chain.c");
}

/* The same rows from separate debuginfo; none from a stripped file. */
static void test_separate_and_stripped(void)
{
	struct built_linetab pie, split, stripped;

	built_linetab_open(&pie, P("chain-pie"), NO_ROOT, P("chain-pie"));
	built_linetab_open(&split, P("chain-split"), P("debugroot"), P("chain-split"));
	built_linetab_open(&stripped, P("chain-stripped"), NO_ROOT, P("chain-stripped"));
	CHECK(!pie.err && !split.err && !stripped.err);
	if (!pie.err && !split.err && !stripped.err) {
		CHECK(split.blob.size == pie.blob.size &&
		      memcmp(split.blob.data, pie.blob.data, pie.blob.size) == 0);
		CHECK_INT(stripped.tab.nrows, 0);
		CHECK_INT(stripped.tab.nfiles, 0);
	}
	built_linetab_close(&pie);
	built_linetab_close(&split);
	built_linetab_close(&stripped);
}

/* libc with libc6-dbg: the observed frames, and a sample against llvm-addr2line. */
static void test_libc(void)
{
	struct stat st;
	struct built_linetab b;
	char why[1024];

	if (stat(LIBC_DEBUG, &st) != 0)
		return;
	built_linetab_open(&b, LIBC, NULL, LIBC);
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	CHECK_STR(where(&b.tab, 0x2724a), "../sysdeps/nptl/libc_start_call_main.h:74");
	CHECK_STR(where(&b.tab, 0x27305), "../csu/libc-start.c:128");
	/* a cold path whose end_sequence shares the address of its last row */
	CHECK_STR(where(&b.tab, 0x26540), "./stdlib/strfrom-skeleton.c:105");
	unit_check(compare_with_llvm(LIBC_DEBUG, &b.tab, 97, why, sizeof(why)) == 0,
		   __FILE__, __LINE__, "libc: %s", why);
	built_linetab_close(&b);
}

/* ---- hand-assembled .debug_line ----------------------------------------- */

struct asm_buf {
	unsigned char b[4096];
	size_t n;
};

static void emit8(struct asm_buf *a, unsigned v)
{
	a->b[a->n++] = (unsigned char)v;
}

static void emitN(struct asm_buf *a, uint64_t v, int bytes)
{
	while (bytes--) {
		emit8(a, v & 0xff);
		v >>= 8;
	}
}

static void uleb(struct asm_buf *a, uint64_t v)
{
	do {
		emit8(a, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void sleb(struct asm_buf *a, int64_t v)
{
	bool more = true;

	while (more) {
		unsigned char byte = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
		emit8(a, byte | (more ? 0x80 : 0));
	}
}

static void str(struct asm_buf *a, const char *s)
{
	memcpy(a->b + a->n, s, strlen(s) + 1);
	a->n += strlen(s) + 1;
}

/* Patch a 4-byte length at AT to cover up to the current end. */
static void patch_len(struct asm_buf *a, size_t at)
{
	uint32_t len = (uint32_t)(a->n - at - 4);

	memcpy(a->b + at, &len, 4);
}

#define OPCODE_BASE 13
#define LINE_BASE (-5)
#define LINE_RANGE 14

/* The header of a DWARF 2-4 unit up to (not including) the tables; returns patch points. */
static void v4_header(struct asm_buf *a, unsigned version, size_t *unit_len, size_t *hdr_len)
{
	static const unsigned char std_len[OPCODE_BASE - 1] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	int i;

	*unit_len = a->n;
	emitN(a, 0, 4);
	emitN(a, version, 2);
	*hdr_len = a->n;
	emitN(a, 0, 4);
	emit8(a, 1);			/* min_inst_length */
	if (version >= 4)
		emit8(a, 1);		/* max_ops */
	emit8(a, 1);			/* default_is_stmt */
	emit8(a, (unsigned char)LINE_BASE);
	emit8(a, LINE_RANGE);
	emit8(a, OPCODE_BASE);
	for (i = 0; i < OPCODE_BASE - 1; i++)
		emit8(a, std_len[i]);
}

static void set_address(struct asm_buf *a, uint64_t addr)
{
	emit8(a, 0);
	uleb(a, 9);
	emit8(a, DW_LNE_set_address);
	emitN(a, addr, 8);
}

static void end_sequence(struct asm_buf *a)
{
	emit8(a, 0);
	uleb(a, 1);
	emit8(a, DW_LNE_end_sequence);
}

/* special opcode: advance address by ADDR and line by LINE, then commit a row */
static void special(struct asm_buf *a, unsigned addr, int line)
{
	if (line < LINE_BASE || line >= LINE_BASE + LINE_RANGE) {
		emit8(a, DW_LNS_advance_line);
		sleb(a, line);
		line = 0;
	}
	if ((unsigned)(line - LINE_BASE) + LINE_RANGE * addr + OPCODE_BASE > 255) {
		emit8(a, DW_LNS_advance_pc);
		uleb(a, addr);
		addr = 0;
	}
	emit8(a, (unsigned)(line - LINE_BASE) + LINE_RANGE * addr + OPCODE_BASE);
}

static struct built_linetab raw_table(const struct asm_buf *line, const struct asm_buf *line_str,
				      const char *modpath)
{
	struct built_linetab b;

	memset(&b, 0, sizeof(b));
	b.err = utap_linetab_build_raw(line->b, line->n, line_str ? line_str->b : NULL,
				       line_str ? line_str->n : 0, NULL, 0, modpath, NULL, &b.blob);
	if (!b.err)
		b.err = utap_linetab_init(&b.tab, b.blob.data, b.blob.size);
	return b;
}

/* A DWARF 4 unit: every opcode kind, line 0, an unknown file, file naming rules. */
static void test_raw_dwarf4(void)
{
	static struct asm_buf a;
	struct built_linetab b;
	size_t ul, hl;

	a.n = 0;
	v4_header(&a, 4, &ul, &hl);
	str(&a, "/inc");			/* directory 1 */
	emit8(&a, 0);
	str(&a, "a.c"); uleb(&a, 0); uleb(&a, 0); uleb(&a, 0);	/* 1: module dir */
	str(&a, "b.h"); uleb(&a, 1); uleb(&a, 0); uleb(&a, 0);	/* 2: /inc/b.h */
	str(&a, "/abs/c.c"); uleb(&a, 1); uleb(&a, 0); uleb(&a, 0);	/* 3 */
	str(&a, "d.c"); uleb(&a, 7); uleb(&a, 0); uleb(&a, 0);	/* 4: no dir 7 */
	emit8(&a, 0);
	patch_len(&a, hl);
	set_address(&a, 0x1000);
	emit8(&a, DW_LNS_advance_line); sleb(&a, 9);	/* line 10 */
	emit8(&a, DW_LNS_copy);				/* 0x1000 a.c:10 */
	special(&a, 4, 2);				/* 0x1004 a.c:12 */
	emit8(&a, DW_LNS_set_file); uleb(&a, 2);
	emit8(&a, DW_LNS_advance_pc); uleb(&a, 4);
	emit8(&a, DW_LNS_advance_line); sleb(&a, -11);	/* line 1 */
	emit8(&a, DW_LNS_copy);				/* 0x1008 b.h:1 */
	emit8(&a, DW_LNS_set_file); uleb(&a, 3);
	emit8(&a, DW_LNS_fixed_advance_pc); emitN(&a, 8, 2);
	special(&a, 0, 4);				/* 0x1010 /abs/c.c:5 */
	emit8(&a, DW_LNS_const_add_pc);			/* +17 */
	emit8(&a, DW_LNS_advance_line); sleb(&a, -5);	/* line 0 */
	emit8(&a, DW_LNS_copy);				/* 0x1021 c.c:0 */
	emit8(&a, DW_LNS_set_file); uleb(&a, 9);		/* no such file */
	special(&a, 2, 3);				/* 0x1023 ??:3 */
	emit8(&a, DW_LNS_set_file); uleb(&a, 4);
	special(&a, 2, 1);				/* 0x1025 d.c (no dir 7): ??:4 */
	special(&a, 3, 0);				/* 0x1028 */
	end_sequence(&a);
	patch_len(&a, ul);

	b = raw_table(&a, NULL, "/mod/dir/prog");
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	CHECK_STR(where(&b.tab, 0xfff), "");
	CHECK_STR(where(&b.tab, 0x1000), "/mod/dir/a.c:10");
	CHECK_STR(where(&b.tab, 0x1003), "/mod/dir/a.c:10");
	CHECK_STR(where(&b.tab, 0x1004), "/mod/dir/a.c:12");
	CHECK_STR(where(&b.tab, 0x1008), "/inc/b.h:1");
	CHECK_STR(where(&b.tab, 0x1010), "/abs/c.c:5");
	CHECK_STR(where(&b.tab, 0x1021), "/abs/c.c:0");
	CHECK_STR(where(&b.tab, 0x1023), "??:3");
	CHECK_STR(where(&b.tab, 0x1025), "??:4");
	CHECK_STR(where(&b.tab, 0x1027), "??:4");
	CHECK_STR(where(&b.tab, 0x1028), "");		/* the end_sequence row covers nothing */
	built_linetab_close(&b);
}

/*
 * A sequence whose last row shares the end_sequence's address, then the
 * next function's sequence at that address (glibc's cold paths), then a
 * second unit overlapping the first: the first unit wins.
 */
static void test_raw_sequences_and_overlap(void)
{
	static struct asm_buf a;
	struct built_linetab b;
	size_t ul, hl;
	int unit;

	a.n = 0;
	for (unit = 0; unit < 2; unit++) {
		v4_header(&a, 3, &ul, &hl);	/* DWARF 3: no max_ops byte */
		emit8(&a, 0);
		str(&a, unit ? "second.c" : "first.c"); uleb(&a, 0); uleb(&a, 0); uleb(&a, 0);
		emit8(&a, 0);
		patch_len(&a, hl);
		if (unit == 0) {
			set_address(&a, 0x2000);
			special(&a, 0, 9);	/* 0x2000 :10 */
			special(&a, 5, 1);	/* 0x2005 :11 */
			special(&a, 5, 0);	/* 0x200a :11, then the end at 0x200a */
			end_sequence(&a);
			set_address(&a, 0x200a);
			special(&a, 0, 49);	/* 0x200a :50 */
			special(&a, 6, 1);	/* 0x2010 :51 */
			end_sequence(&a);
		} else {
			set_address(&a, 0x2008);
			special(&a, 0, 99);	/* 0x2008 :100 overlaps the first unit */
			special(&a, 0x20, 1);	/* 0x2028 */
			end_sequence(&a);
		}
		patch_len(&a, ul);
	}
	b = raw_table(&a, NULL, "/m/p");
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	CHECK_STR(where(&b.tab, 0x2004), "/m/first.c:10");
	CHECK_STR(where(&b.tab, 0x2009), "/m/first.c:11");
	CHECK_STR(where(&b.tab, 0x200a), "/m/first.c:50");
	CHECK_STR(where(&b.tab, 0x2010), "/m/second.c:100");	/* first unit ended at 0x2010 */
	CHECK_STR(where(&b.tab, 0x2027), "/m/second.c:100");
	CHECK_STR(where(&b.tab, 0x2028), "");
	built_linetab_close(&b);
}

/* DWARF 5 with .debug_line_str, inline strings, MD5s and 64-bit offsets. */
static void test_raw_dwarf5(void)
{
	static struct asm_buf a, s;
	static const unsigned char std_len[OPCODE_BASE - 1] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	struct built_linetab b;
	size_t hl, i, len_at;

	a.n = s.n = 0;
	str(&s, "/comp");		/* line_str offset 0 */
	str(&s, "sub");			/* 6 */
	str(&s, "x.c");			/* 10 */
	emitN(&a, 0xffffffffu, 4);		/* 64-bit DWARF */
	len_at = a.n;
	emitN(&a, 0, 8);
	emitN(&a, 5, 2);
	emit8(&a, 8);			/* address_size */
	emit8(&a, 0);			/* segment_selector_size */
	hl = a.n;
	emitN(&a, 0, 8);
	emit8(&a, 1); emit8(&a, 1); emit8(&a, 1);
	emit8(&a, (unsigned char)LINE_BASE); emit8(&a, LINE_RANGE); emit8(&a, OPCODE_BASE);
	for (i = 0; i < OPCODE_BASE - 1; i++)
		emit8(&a, std_len[i]);
	emit8(&a, 1);					/* directory format: path, line_strp */
	uleb(&a, DW_LNCT_path); uleb(&a, DW_FORM_line_strp);
	uleb(&a, 2);					/* two directories */
	emitN(&a, 0, 8);
	emitN(&a, 6, 8);
	emit8(&a, 3);					/* file format: path, dir, md5 */
	uleb(&a, DW_LNCT_path); uleb(&a, DW_FORM_string);
	uleb(&a, DW_LNCT_directory_index); uleb(&a, DW_FORM_udata);
	uleb(&a, DW_LNCT_MD5); uleb(&a, DW_FORM_data16);
	uleb(&a, 2);
	str(&a, "main.c"); uleb(&a, 0); emitN(&a, 0, 8); emitN(&a, 0, 8);
	str(&a, "y.c"); uleb(&a, 1); emitN(&a, 0, 8); emitN(&a, 0, 8);
	{
		uint64_t h = a.n - hl - 8, l;

		memcpy(a.b + hl, &h, 8);
		set_address(&a, 0x4000);
		special(&a, 0, 0);			/* file 1 (y.c) :1 */
		emit8(&a, DW_LNS_set_file); uleb(&a, 0);
		special(&a, 4, 1);			/* 0x4004 main.c:2 */
		special(&a, 4, 0);
		end_sequence(&a);
		l = a.n - len_at - 8;
		memcpy(a.b + len_at, &l, 8);
	}
	b = raw_table(&a, &s, "/m/p");
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	CHECK_STR(where(&b.tab, 0x4000), "sub/y.c:1");
	CHECK_STR(where(&b.tab, 0x4006), "/comp/main.c:2");
	built_linetab_close(&b);
}

/* A broken unit ends the scan; what came before stands. Garbage never crashes. */
static void test_raw_broken(void)
{
	static struct asm_buf a;
	struct built_linetab b;
	size_t ul, hl, i;

	a.n = 0;
	v4_header(&a, 2, &ul, &hl);
	emit8(&a, 0);
	str(&a, "ok.c"); uleb(&a, 0); uleb(&a, 0); uleb(&a, 0);
	emit8(&a, 0);
	patch_len(&a, hl);
	set_address(&a, 0x5000);
	special(&a, 0, 6);
	special(&a, 8, 0);
	end_sequence(&a);
	patch_len(&a, ul);
	emitN(&a, 0x30, 4);		/* a unit of version 9 */
	emitN(&a, 9, 2);
	for (i = 0; i < 0x2e; i++)
		emit8(&a, 0xff);
	b = raw_table(&a, NULL, "/m/p");
	CHECK_INT(b.err, 0);
	CHECK_STR(where(&b.tab, 0x5004), "/m/ok.c:7");
	built_linetab_close(&b);
	/* the same bytes cut everywhere: a table (maybe empty) and no crash */
	for (i = 0; i < a.n; i++) {
		struct asm_buf cut = a;

		cut.n = i;
		b = raw_table(&cut, NULL, "/m/p");
		CHECK_INT(b.err, 0);
		built_linetab_close(&b);
	}
}

/*
 * A unit for a discarded section at a linker tombstone address, appended
 * to a real program's .debug_line: dropped, the rest unchanged.
 */
static void test_tombstone_sequence(void)
{
	static struct asm_buf a;
	struct built_linetab orig, patched;
	char extra[512], patched_path[512], *out;
	size_t ul, hl;
	FILE *f;

	a.n = 0;
	v4_header(&a, 4, &ul, &hl);
	emit8(&a, 0);
	str(&a, "gone.c"); uleb(&a, 0); uleb(&a, 0); uleb(&a, 0);
	emit8(&a, 0);
	patch_len(&a, hl);
	set_address(&a, ~0ull - 0x1000);
	special(&a, 0, 1);
	special(&a, 8, 1);
	end_sequence(&a);
	patch_len(&a, ul);
	snprintf(extra, sizeof(extra), "%s/extra", scratch_dir());
	snprintf(patched_path, sizeof(patched_path), "%s/chain-tomb", scratch_dir());
	f = fopen(extra, "wb");
	CHECK(f && fwrite(a.b, 1, a.n, f) == a.n);
	if (f)
		fclose(f);
	out = run_cmd("objcopy --dump-section .debug_line=%s/line %s %s/junk && "
		      "cat %s >> %s/line && "
		      "objcopy --update-section .debug_line=%s/line %s %s",
		      scratch_dir(), P("chain-pie"), scratch_dir(), extra, scratch_dir(),
		      scratch_dir(), P("chain-pie"), patched_path);
	CHECK(out != NULL);
	free(out);
	built_linetab_open(&orig, P("chain-pie"), NO_ROOT, P("chain-pie"));
	built_linetab_open(&patched, patched_path, NO_ROOT, P("chain-pie"));
	CHECK_INT(orig.err, 0);
	CHECK_INT(patched.err, 0);
	if (!orig.err && !patched.err) {
		CHECK_INT(patched.tab.nrows, orig.tab.nrows);
		CHECK_INT(patched.tab.nfiles, orig.tab.nfiles);
	}
	built_linetab_close(&orig);
	built_linetab_close(&patched);
}

int main(void)
{
	unit_prog = "test_symline";
	RUN(test_dwarf5_program);
	RUN(test_dwarf4_program);
	RUN(test_separate_and_stripped);
	RUN(test_libc);
	RUN(test_raw_dwarf4);
	RUN(test_raw_sequences_and_overlap);
	RUN(test_raw_dwarf5);
	RUN(test_raw_broken);
	RUN(test_tombstone_sequence);
	scratch_cleanup();
	return unit_done();
}
