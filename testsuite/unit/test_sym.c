/*
 * test_sym.c - the runtime side of symbols: SystemTap's output formats,
 * byte for byte, in every mode and fallback; lookups; and validation of
 * corrupt table blobs.
 *
 * The tables are packed from hand-written symbols that reproduce what
 * SystemTap 4.8 printed on Debian 12:
 *   0x55fbdc1872c0 : c+0x0/0xd0 [/path/chain]
 *   0x7fa1578e124a : __libc_start_call_main+0x7a/0xb0 [.../libc.so.6]
 */
#include "unit.h"
#include "unwind/sym.h"
#include "elf/symtab.h"

#define CHAIN "/path/chain"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define CHAIN_BIAS 0x55fbdc186000ull	/* 0x55fbdc1872c0 - c at 0x12c0 */
#define LIBC_BIAS 0x7fa1578ba000ull	/* 0x7fa1578e124a - 0x2724a */

/* "chain": the observed sizes are distances to the next symbol. */
static const struct utap_sym_in chain_syms[] = {
	{ 0x10c0, "main" },		/* main+0x4b/0x110 */
	{ 0x11d0, "_start" },		/* _start+0x21/0x30 */
	{ 0x1200, "deregister_tm_clones" },
	{ 0x1230, "register_tm_clones" },
	{ 0x1270, "__do_global_dtors_aux" },
	{ 0x12b0, "frame_dummy" },
	{ 0x12c0, "c" },		/* c+0x0/0xd0 */
	{ 0x1390, "b" },		/* b+0x9/0x30 */
	{ 0x13c0, "a" },		/* a+0x9/0x24 */
	{ 0x13e4, "_fini" },
	{ 0x1000, ".dotted" },		/* printed as "dotted" */
};

/* libc's aliases at one address; the last one given wins. */
static const struct utap_sym_in libc_syms[] = {
	{ 0x271c0, "__libc_init_first" },
	{ 0x271d0, "__libc_start_call_main" },
	{ 0x27280, "__libc_start_main_alias_2" },
	{ 0x27280, "__libc_start_main_impl" },
	{ 0x27280, "__libc_start_main@@GLIBC_2.34" },
	{ 0x27280, "__libc_start_main@GLIBC_2.2.5" },
	{ 0x273d0, "__libc_print_version" },
};

static const struct utap_symtab_seg libc_segs[] = {
	{ 0x0, 0x25388, 0x0, 0x25388, UTAP_SEG_R, 0 },
	{ 0x26000, 0x1550fc, 0x26000, 0x1550fc, UTAP_SEG_R | UTAP_SEG_X, 0 },
	{ 0x17c000, 0x52c31, 0x17c000, 0x52c31, UTAP_SEG_R, 0 },
	{ 0x1cf8d0, 0x12680, 0x1cf8d0, 0x4f98, UTAP_SEG_R | UTAP_SEG_W, 0 },
};

/* Lines of "chain": c has a line, a compiler line-0 row and a row without file. */
static const char *const chain_files[] = { "/src/chain.c", "/usr/include/stdio.h" };
static const struct utap_line_in chain_rows[] = {
	{ 0x10c0, 40, 0 },
	{ 0x1100, 0, UTAP_LINE_GAP },
	{ 0x12c0, 12, 0 },		/* c */
	{ 0x12d0, 0, 0 },		/* c+0x10: line 0 */
	{ 0x12e0, 7, UTAP_LINE_NOFILE },	/* c+0x20: file unknown */
	{ 0x12f0, 14, 0 },
	{ 0x1390, 0, UTAP_LINE_GAP },	/* b, a: no lines */
};

static struct utap_blob chain_blob, libc_blob, line_blob;
static struct utap_symtab chain_tab, libc_tab;
static struct utap_linetab chain_lines;

static void setup(void)
{
	struct utap_symtab_info chain_info = { UTAP_SYMTAB_ET_DYN, NULL, NULL, 0, false };
	struct utap_symtab_info libc_info = { UTAP_SYMTAB_ET_DYN, NULL, libc_segs,
					      ARRAY_SIZE(libc_segs), false };

	if (utap_symtab_pack(chain_syms, ARRAY_SIZE(chain_syms), &chain_info, &chain_blob) ||
	    utap_symtab_pack(libc_syms, ARRAY_SIZE(libc_syms), &libc_info, &libc_blob) ||
	    utap_linetab_pack(chain_rows, ARRAY_SIZE(chain_rows), chain_files,
			      ARRAY_SIZE(chain_files), NULL, &line_blob) ||
	    utap_symtab_init(&chain_tab, chain_blob.data, chain_blob.size) ||
	    utap_symtab_init(&libc_tab, libc_blob.data, libc_blob.size) ||
	    utap_linetab_init(&chain_lines, line_blob.data, line_blob.size)) {
		fprintf(stderr, "test_sym: cannot set up tables\n");
		exit(1);
	}
}

/* Mapping contexts: full, without module path, module only, unknown. */
static struct utap_sym_ctx chain_ctx(void)
{
	return (struct utap_sym_ctx){ CHAIN, CHAIN_BIAS, CHAIN_BIAS + 0x5000, CHAIN_BIAS,
				      &chain_tab, &chain_lines };
}

static struct utap_sym_ctx libc_ctx(void)
{
	struct utap_sym_ctx ctx = { LIBC, 0, 0, LIBC_BIAS, &libc_tab, NULL };

	utap_symtab_extent(&libc_tab, LIBC_BIAS, &ctx.start, &ctx.end);
	return ctx;
}

static char out[1024];

static const char *fmt(uint64_t addr, const struct utap_sym_ctx *ctx, unsigned mode)
{
	int n = utap_sym_format(out, sizeof(out), addr, ctx, mode);

	CHECK_INT(n, strlen(out));
	return out;
}

/* The backtrace SystemTap printed for a uprobe on c(), line by line. */
static void test_full_observed(void)
{
	struct utap_sym_ctx chain = chain_ctx(), libc = libc_ctx();

	CHECK_STR(fmt(0x55fbdc1872c0, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc1872c0 : c+0x0/0xd0 [/path/chain]\n");
	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc187399 : b+0x9/0x30 [/path/chain]\n");
	CHECK_STR(fmt(0x55fbdc1873c9, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc1873c9 : a+0x9/0x24 [/path/chain]\n");
	CHECK_STR(fmt(0x55fbdc18710b, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc18710b : main+0x4b/0x110 [/path/chain]\n");
	CHECK_STR(fmt(0x7fa1578e124a, &libc, UTAP_SYM_FULL),
		  " 0x7fa1578e124a : __libc_start_call_main+0x7a/0xb0 [" LIBC "]\n");
	CHECK_STR(fmt(0x7fa1578e1305, &libc, UTAP_SYM_FULL),
		  " 0x7fa1578e1305 : __libc_start_main@GLIBC_2.2.5+0x85/0x150 [" LIBC "]\n");
	CHECK_STR(fmt(0x55fbdc1871f1, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc1871f1 : _start+0x21/0x30 [/path/chain]\n");
}

/* FULL's fallbacks: no module path, module only (against the extent), nothing. */
static void test_full_fallbacks(void)
{
	struct utap_sym_ctx chain = chain_ctx(), libc = libc_ctx();
	struct utap_sym_ctx nomod = chain, modonly = libc;
	uint64_t other_libc = 0x7f8a19845000ull;

	nomod.path = NULL;
	CHECK_STR(fmt(0x55fbdc1872c0, &nomod, UTAP_SYM_FULL), " 0x55fbdc1872c0 : c+0x0/0xd0\n");
	/* the observed walk end without --ldd: libc mapped, no tables for it */
	modonly.syms = NULL;
	utap_symtab_extent(&libc_tab, other_libc, &modonly.start, &modonly.end);
	modonly.bias = other_libc;
	CHECK_STR(fmt(0x7f8a1986c24a, &modonly, UTAP_SYM_FULL),
		  " 0x7f8a1986c24a [" LIBC "+0x2724a/0x1e2000]\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_FULL), " 0xdeadbeef\n");
	/* below the first symbol of a module with tables: module only */
	CHECK_STR(fmt(CHAIN_BIAS + 0x40, &chain, UTAP_SYM_FULL),
		  " 0x55fbdc186040 [/path/chain+0x40/0x5000]\n");
}

static void test_simple(void)
{
	struct utap_sym_ctx chain = chain_ctx(), libc = libc_ctx(), nomod = chain_ctx();
	struct utap_sym_ctx modonly = libc_ctx();

	CHECK_STR(fmt(0x55fbdc1872c0, &chain, UTAP_SYM_SIMPLE), "c+0x0 [chain]\n");
	CHECK_STR(fmt(0x7fa1578e124a, &libc, UTAP_SYM_SIMPLE),
		  "__libc_start_call_main+0x7a [libc.so.6]\n");
	nomod.path = NULL;
	CHECK_STR(fmt(0x55fbdc187399, &nomod, UTAP_SYM_SIMPLE), "b+0x9\n");
	modonly.syms = NULL;
	CHECK_STR(fmt(0x7fa1578e124a, &modonly, UTAP_SYM_SIMPLE),
		  "0x7fa1578e124a [libc.so.6+0x2724a]\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_SIMPLE), "0xdeadbeef\n");
}

static void test_brief_and_hex(void)
{
	struct utap_sym_ctx chain = chain_ctx();

	CHECK_STR(fmt(0x55fbdc18710b, &chain, UTAP_SYM_BRIEF), "main+0x4b\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_BRIEF), "0xdeadbeef\n");
	/* ubacktrace(): every frame "ADDR " */
	CHECK_STR(fmt(0x55fbdc18710b, &chain, UTAP_SYM_NONE), "0x55fbdc18710b ");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_NONE), "0x0 ");
}

/* usymdata() and usymname() */
static void test_data_and_symbol(void)
{
	struct utap_sym_ctx chain = chain_ctx(), nomod = chain_ctx(), modonly = libc_ctx();

	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_DATA), "b+0x9/0x30 [/path/chain]");
	nomod.path = NULL;
	CHECK_STR(fmt(0x55fbdc187399, &nomod, UTAP_SYM_DATA), "b+0x9/0x30");
	modonly.syms = NULL;
	CHECK_STR(fmt(0x7fa1578e124a, &modonly, UTAP_SYM_DATA),
		  "0x7fa1578e124a [" LIBC "+0x2724a/0x1e2000]");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_DATA), "0xdeadbeef");
	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_SYMBOL), "b");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_SYMBOL), "0xdeadbeef");
	CHECK_STR(fmt(0x7fa1578e124a, &modonly, UTAP_SYM_SYMBOL), "0x7fa1578e124a");
}

/* print_ubacktrace_fileline(): every row kind and every fallback */
static void test_fuller(void)
{
	struct utap_sym_ctx chain = chain_ctx(), nomod = chain_ctx(), modonly = chain_ctx();

	CHECK_STR(fmt(0x55fbdc1872c4, &chain, UTAP_SYM_FULLER),
		  " 0x55fbdc1872c4 : c+0x4/0xd0 at /src/chain.c:12 [/path/chain]\n");
	/* line 0: "at FILE" */
	CHECK_STR(fmt(0x55fbdc1872d0, &chain, UTAP_SYM_FULLER),
		  " 0x55fbdc1872d0 : c+0x10/0xd0 at /src/chain.c [/path/chain]\n");
	/* no file name: as FULL */
	CHECK_STR(fmt(0x55fbdc1872e0, &chain, UTAP_SYM_FULLER),
		  " 0x55fbdc1872e0 : c+0x20/0xd0 [/path/chain]\n");
	/* no line row: as FULL */
	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_FULLER),
		  " 0x55fbdc187399 : b+0x9/0x30 [/path/chain]\n");
	nomod.path = NULL;
	CHECK_STR(fmt(0x55fbdc1872f3, &nomod, UTAP_SYM_FULLER),
		  " 0x55fbdc1872f3 : c+0x33/0xd0 at /src/chain.c:14\n");
	CHECK_STR(fmt(0x55fbdc1872d0, &nomod, UTAP_SYM_FULLER),
		  " 0x55fbdc1872d0 : c+0x10/0xd0 at /src/chain.c\n");
	modonly.syms = NULL;
	CHECK_STR(fmt(0x55fbdc1872c4, &modonly, UTAP_SYM_FULLER),
		  " 0x55fbdc1872c4 [/path/chain+0x12c4/0x5000] at /src/chain.c:12\n");
	CHECK_STR(fmt(0x55fbdc1872d0, &modonly, UTAP_SYM_FULLER),
		  " 0x55fbdc1872d0 [/path/chain+0x12d0/0x5000] at /src/chain.c\n");
	CHECK_STR(fmt(0x55fbdc1872e0, &modonly, UTAP_SYM_FULLER),
		  " 0x55fbdc1872e0 [/path/chain+0x12e0/0x5000]\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_FULLER), " 0xdeadbeef\n");
}

/* usymfileline(), usymfile(), usymline() */
static void test_fileline(void)
{
	struct utap_sym_ctx chain = chain_ctx();

	CHECK_STR(fmt(0x55fbdc1872c4, &chain, UTAP_SYM_FILELINE), "/src/chain.c:12");
	CHECK_STR(fmt(0x55fbdc1872d0, &chain, UTAP_SYM_FILELINE), "/src/chain.c");
	CHECK_STR(fmt(0x55fbdc1872e0, &chain, UTAP_SYM_FILELINE), "??:7");
	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_FILELINE), "0x55fbdc187399");
	CHECK_STR(fmt(0x55fbdc1872c4, &chain, UTAP_SYM_FILENAME), "/src/chain.c");
	CHECK_STR(fmt(0x55fbdc1872e0, &chain, UTAP_SYM_FILENAME), "0x55fbdc1872e0");
	CHECK_STR(fmt(0x55fbdc1872c4, &chain, UTAP_SYM_LINENUMBER), "12");
	CHECK_STR(fmt(0x55fbdc1872e0, &chain, UTAP_SYM_LINENUMBER), "7");
	CHECK_STR(fmt(0x55fbdc1872d0, &chain, UTAP_SYM_LINENUMBER), "0x55fbdc1872d0");
	CHECK_STR(fmt(0x55fbdc187399, &chain, UTAP_SYM_LINENUMBER), "0x55fbdc187399");
	/* the row before the gap ends exactly at it */
	CHECK_STR(fmt(CHAIN_BIAS + 0x10ff, &chain, UTAP_SYM_FILELINE), "/src/chain.c:40");
	CHECK_STR(fmt(CHAIN_BIAS + 0x1100, &chain, UTAP_SYM_FILELINE), "0x55fbdc187100");
}

/* Address 0 is never looked up: "0x0" in every mode. */
static void test_address_zero(void)
{
	struct utap_sym_ctx chain = chain_ctx();

	chain.bias = 0;		/* make 0 fall inside the module on purpose */
	chain.start = 0;
	CHECK_STR(fmt(0, &chain, UTAP_SYM_FULL), " 0x0\n");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_FULLER), " 0x0\n");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_SIMPLE), "0x0\n");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_DATA), "0x0");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_SYMBOL), "0x0");
	CHECK_STR(fmt(0, &chain, UTAP_SYM_FILELINE), "0x0");
}

/* A leading '.' is dropped; the last symbol has size 0 and covers the rest. */
static void test_names_and_sizes(void)
{
	struct utap_sym_ctx chain = chain_ctx();
	struct utap_sym_hit hit;
	char buf[UTAP_SYM_NAME_MAX];

	CHECK_STR(fmt(CHAIN_BIAS + 0x1004, &chain, UTAP_SYM_DATA),
		  "dotted+0x4/0xc0 [/path/chain]");
	CHECK_STR(fmt(CHAIN_BIAS + 0x13f0, &chain, UTAP_SYM_DATA),
		  "_fini+0xc/0x0 [/path/chain]");
	CHECK_STR(fmt(CHAIN_BIAS + 0x4000, &chain, UTAP_SYM_SYMBOL), "_fini");
	CHECK(utap_symtab_lookup(&chain_tab, 0x1000, &hit, buf, sizeof(buf)));
	CHECK_STR(hit.name, ".dotted");
	CHECK(!utap_symtab_lookup(&chain_tab, 0xfff, &hit, buf, sizeof(buf)));
	CHECK(utap_symtab_lookup(&chain_tab, 0x10c0, &hit, buf, sizeof(buf)));
	CHECK_STR(hit.name, "main");
	CHECK_HEX(hit.offset, 0);
	CHECK_HEX(hit.size, 0x110);
	CHECK(utap_symtab_lookup(&libc_tab, 0x27280, &hit, buf, sizeof(buf)));
	CHECK_STR(hit.name, "__libc_start_main@GLIBC_2.2.5");
	CHECK_INT(libc_tab.nsyms, 4);
}

static void test_flag_sets(void)
{
	struct utap_sym_ctx chain = chain_ctx();

	/* kernel fallbacks mark frames " (inexact)" */
	CHECK_STR(fmt(0x55fbdc1872c0, &chain, UTAP_SYM_FULL | UTAP_SYM_INEXACT),
		  " 0x55fbdc1872c0 : c+0x0/0xd0 [/path/chain] (inexact)\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_FULL | UTAP_SYM_INEXACT),
		  " 0xdeadbeef (inexact)\n");
	CHECK_STR(fmt(0xdeadbeef, NULL, UTAP_SYM_NONE | UTAP_SYM_INEXACT), "0xdeadbeef ");
	/* a flag set that is no SystemTap mode prints the address, like stap */
	CHECK_STR(fmt(0x55fbdc1872c0, &chain, UTAP_SYM_SYMBOL | UTAP_SYM_NEWLINE),
		  "0x55fbdc1872c0\n");
	/* POST_SPACE wins over NEWLINE */
	CHECK_STR(fmt(0xabc, NULL, UTAP_SYM_POST_SPACE | UTAP_SYM_NEWLINE), "0xabc ");
}

static void test_modname_and_markers(void)
{
	struct utap_sym_ctx libc = libc_ctx();
	bool unknown = false;
	int n;

	n = utap_sym_modname(out, sizeof(out), &libc, &unknown);
	CHECK_STR(out, LIBC);
	CHECK_INT(n, strlen(LIBC));
	CHECK(!unknown);
	utap_sym_modname(out, sizeof(out), NULL, &unknown);
	CHECK_STR(out, "<unknown>");
	CHECK(unknown);
	utap_sym_no_backtrace(out, sizeof(out), "perf.type(1).config(0).sample(1000000)",
			      UTAP_SYM_FULL, false);
	CHECK_STR(out, "<no user backtrace at perf.type(1).config(0).sample(1000000)>\n");
	utap_sym_no_backtrace(out, sizeof(out), "begin", UTAP_SYM_SIMPLE, true);
	CHECK_STR(out, "<no kernel backtrace at begin>\n");
	n = utap_sym_no_backtrace(out, sizeof(out), "begin", UTAP_SYM_NONE, false);
	CHECK_STR(out, "\n");
	CHECK_INT(n, 1);
}

/* snprintf semantics: full length returned, output cut and terminated. */
static void test_truncation(void)
{
	struct utap_sym_ctx chain = chain_ctx();
	const char *full = " 0x55fbdc1872c0 : c+0x0/0xd0 [/path/chain]\n";
	char small[16];
	size_t size;

	for (size = 0; size <= sizeof(small); size++) {
		memset(small, 'X', sizeof(small));
		CHECK_INT(utap_sym_format(small, size, 0x55fbdc1872c0, &chain, UTAP_SYM_FULL),
			  strlen(full));
		if (size) {
			CHECK_INT(strlen(small), size - 1);
			CHECK(strncmp(small, full, size - 1) == 0);
		} else {
			CHECK(small[0] == 'X');
		}
	}
	CHECK_INT(utap_sym_format(NULL, 0, 0x55fbdc1872c0, &chain, UTAP_SYM_FULL), strlen(full));
}

static void test_load_bias_and_extent(void)
{
	uint64_t bias = 0, start, end;

	/* the r-x mapping of libc: file offset 0x26000 */
	CHECK_INT(utap_symtab_load_bias(&libc_tab, LIBC_BIAS + 0x26000, 0x26000, &bias), 0);
	CHECK_HEX(bias, LIBC_BIAS);
	/* the rw mapping starts at the page of offset 0x1cf8d0 */
	CHECK_INT(utap_symtab_load_bias(&libc_tab, LIBC_BIAS + 0x1cf000, 0x1cf000, &bias), 0);
	CHECK_HEX(bias, LIBC_BIAS);
	CHECK_INT(utap_symtab_load_bias(&libc_tab, 0x1000, 0x900000, &bias), -ENOENT);
	CHECK_INT(utap_symtab_load_bias(&chain_tab, 0x1000, 0, &bias), -ENOENT);
	utap_symtab_extent(&libc_tab, LIBC_BIAS, &start, &end);
	CHECK_HEX(start, LIBC_BIAS);
	CHECK_HEX(end - start, 0x1e2000);
}

/* ---- validation ------------------------------------------------------- */

/* A copy of BLOB in 8-aligned memory of exactly SIZE bytes (ASan sees overruns). */
static void *aligned_copy(const void *blob, size_t size)
{
	void *p = aligned_alloc(8, (size + 7) & ~(size_t)7);

	memcpy(p, blob, size);
	return p;
}

/* Use whatever a validator accepted; ASan/UBSan watch. */
static void exercise_symtab(const struct utap_symtab *t, const struct utap_linetab *l)
{
	struct utap_sym_ctx ctx = { "/m", 0x1000, 0x9000, 0, t, l };
	static const uint64_t addrs[] = { 0, 1, 0x10c0, 0x12c5, 0x13e4, 0x27280, ~0ull };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		utap_sym_format(out, sizeof(out), addrs[i], &ctx, UTAP_SYM_FULLER);
		utap_sym_format(out, sizeof(out), addrs[i], &ctx, UTAP_SYM_SIMPLE);
	}
}

static int try_symtab(const void *blob, size_t size)
{
	struct utap_symtab t;
	void *copy = aligned_copy(blob, size);
	int err = utap_symtab_init(&t, copy, size);

	if (!err)
		exercise_symtab(&t, NULL);
	free(copy);
	return err;
}

static int try_linetab(const void *blob, size_t size)
{
	struct utap_linetab l;
	void *copy = aligned_copy(blob, size);
	int err = utap_linetab_init(&l, copy, size);

	if (!err)
		exercise_symtab(NULL, &l);
	free(copy);
	return err;
}

/*
 * Cut at every byte: rejected; also when the header claims the cut size,
 * unless only the final alignment padding after the strings went.
 */
static void test_truncated_blobs_rejected(void)
{
	const struct utap_blob *blobs[] = { &chain_blob, &libc_blob, &line_blob };
	size_t b, cut;

	for (b = 0; b < ARRAY_SIZE(blobs); b++) {
		int (*try)(const void *, size_t) = b < 2 ? try_symtab : try_linetab;
		unsigned char *p = malloc(blobs[b]->size);
		const struct utap_symtab_hdr *h = blobs[b]->data;
		const struct utap_linetab_hdr *lh = blobs[b]->data;
		size_t needed = b < 2 ? h->tok_str_off + h->tok_size : lh->str_off + lh->str_size;

		CHECK_INT(try(blobs[b]->data, blobs[b]->size), 0);
		for (cut = 0; cut < blobs[b]->size; cut++) {
			memcpy(p, blobs[b]->data, blobs[b]->size);
			CHECK_INT(try(p, cut), -EINVAL);
			if (cut >= 12) {
				uint32_t claimed = (uint32_t)cut;

				memcpy(p + 8, &claimed, 4);	/* total_size */
				CHECK_INT(try(p, cut), cut < needed ? -EINVAL : 0);
			}
		}
		free(p);
	}
}

/* Every single-bit flip: never a crash; flips of checked fields rejected. */
static void test_bit_flips(void)
{
	const struct utap_blob *blobs[] = { &chain_blob, &libc_blob, &line_blob };
	size_t b, i, accepted = 0, total = 0;
	int bit;

	for (b = 0; b < ARRAY_SIZE(blobs); b++) {
		int (*try)(const void *, size_t) = b < 2 ? try_symtab : try_linetab;
		unsigned char *p = malloc(blobs[b]->size);

		for (i = 0; i < blobs[b]->size; i++) {
			for (bit = 0; bit < 8; bit++) {
				memcpy(p, blobs[b]->data, blobs[b]->size);
				p[i] ^= (unsigned char)(1 << bit);
				accepted += try(p, blobs[b]->size) == 0;
				total++;
				/* magic, version, header size, total size: always fatal */
				if (i < 12)
					CHECK_INT(try(p, blobs[b]->size), -EINVAL);
			}
		}
		free(p);
	}
	/* flips inside names, build-id bytes, line numbers and the like survive */
	CHECK(accepted > 0 && accepted < total);
}

static void *edit_copy(const struct utap_blob *b)
{
	return aligned_copy(b->data, b->size);
}

/*
 * Two rows, {0x10 line 1 file 0} and the closing gap at 0x20, encode as
 * 03 00 | 0f 7f ff ff 03; spelling the gap's file 0xffff as a (long) 0
 * makes the last row a real one, which must be refused.
 */
static void test_last_row_must_be_gap(void)
{
	static const struct utap_line_in rows[] = { { 0x10, 1, 0 }, { 0x20, 0, UTAP_LINE_GAP } };
	static const unsigned char enc[] = { 0x03, 0x00, 0x0f, 0x7f, 0xff, 0xff, 0x03 };
	static const unsigned char as_zero[] = { 0x80, 0x80, 0x00 };
	struct utap_linetab_hdr *h;
	struct utap_linetab l;
	struct utap_blob b;

	CHECK_INT(utap_linetab_pack(rows, 2, chain_files, 1, NULL, &b), 0);
	h = b.data;
	CHECK_INT(h->data_size, sizeof(enc));
	CHECK_MEM((char *)b.data + h->data_off, enc, sizeof(enc));
	CHECK_INT(utap_linetab_init(&l, b.data, b.size), 0);
	memcpy((char *)b.data + h->data_off + 4, as_zero, sizeof(as_zero));
	CHECK_INT(utap_linetab_init(&l, b.data, b.size), -EINVAL);
	utap_blob_free(&b);
}

/* Specific malformations, each caught by its own check. */
static void test_targeted_corruption(void)
{
	struct utap_symtab_hdr *h;
	struct utap_linetab_hdr *lh;
	struct utap_symtab t;
	struct utap_linetab l;
	unsigned char *raw;

	h = edit_copy(&chain_blob);	/* the first group's bytes not at the start */
	((struct utap_sym_group *)((char *)h + h->groups_off))[0].data = 1;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* a name running past its group */
	((unsigned char *)h)[h->data_off] = 0x7f;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* tokens out of order */
	((uint16_t *)((char *)h + h->tok_off))[65] = 0xffff;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* a NUL inside a token */
	((char *)h)[h->tok_str_off] = 0;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* misaligned array */
	h->groups_off += 2;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* symbol and group counts disagree */
	h->nsyms = 0x40000000;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&libc_blob);	/* segment with filesz > memsz */
	((struct utap_symtab_seg *)((char *)h + h->segs_off))[1].filesz = ~0ull;
	CHECK_INT(utap_symtab_init(&t, h, libc_blob.size), -EINVAL);
	free(h);
	h = edit_copy(&chain_blob);	/* base + offset wraps around */
	h->base = ~0ull - 0x10;
	CHECK_INT(utap_symtab_init(&t, h, chain_blob.size), -EINVAL);
	free(h);
	lh = edit_copy(&line_blob);	/* file index past the file table */
	lh->nfiles = 0;		/* rows use file 0 */
	CHECK_INT(utap_linetab_init(&l, lh, line_blob.size), -EINVAL);
	free(lh);
	lh = edit_copy(&line_blob);	/* row count and block count disagree */
	lh->nrows += UTAP_LINE_BLOCK;
	CHECK_INT(utap_linetab_init(&l, lh, line_blob.size), -EINVAL);
	free(lh);
	lh = edit_copy(&line_blob);	/* rows that do not fill their bytes */
	lh->data_size--;
	CHECK_INT(utap_linetab_init(&l, lh, line_blob.size), -EINVAL);
	free(lh);
	test_last_row_must_be_gap();
	/* a blob at an odd address */
	raw = malloc(chain_blob.size + 8);
	memcpy(raw + 1, chain_blob.data, chain_blob.size);
	CHECK_INT(utap_symtab_init(&t, raw + 1, chain_blob.size), -EINVAL);
	free(raw);
	CHECK_INT(utap_symtab_init(&t, NULL, 0), -EINVAL);
	/* one kind of table is not the other */
	CHECK_INT(try_symtab(line_blob.data, line_blob.size), -EINVAL);
	CHECK_INT(try_linetab(chain_blob.data, chain_blob.size), -EINVAL);
}

/* The packers refuse what the validator would refuse. */
static void test_packers_refuse(void)
{
	static const struct utap_line_in unsorted[] = {
		{ 0x20, 1, 0 }, { 0x10, 2, 0 }, { 0x30, 0, UTAP_LINE_GAP },
	};
	static const struct utap_line_in no_end[] = { { 0x10, 1, 0 } };
	static const struct utap_sym_in far[] = { { 0x1000, "lo" }, { 0x200000000ull, "hi" } };
	struct utap_symtab_info info = { UTAP_SYMTAB_ET_DYN, NULL, NULL, 0, false };
	struct utap_blob b;

	CHECK_INT(utap_linetab_pack(unsorted, 3, chain_files, 2, NULL, &b), -EINVAL);
	CHECK_INT(utap_linetab_pack(no_end, 1, chain_files, 2, NULL, &b), -EINVAL);
	static const struct utap_symtab_seg bad_seg = { 0x1000, 0x10, 0, 0x20, UTAP_SEG_R, 0 };

	CHECK_INT(utap_symtab_pack(far, 2, &info, &b), -E2BIG);
	info.segs = &bad_seg;		/* more file bytes than memory */
	info.nsegs = 1;
	CHECK_INT(utap_symtab_pack(far, 1, &info, &b), -EINVAL);
	info.nsegs = 0;
	CHECK_INT(utap_symtab_pack(NULL, 0, &info, &b), 0);
	CHECK_INT(try_symtab(b.data, b.size), 0);
	utap_blob_free(&b);
}

/* Rows at the very top of the address space: valid, found, no wrap-around. */
static void test_lines_at_top(void)
{
	static const struct utap_line_in rows[] = {
		{ ~0ull - 0x30, 5, 0 }, { ~0ull - 0x20, 6, 1 }, { ~0ull - 0x10, 0, UTAP_LINE_GAP },
	};
	struct utap_linetab l;
	struct utap_blob b;
	const char *file = NULL;
	uint32_t line = 0;

	CHECK_INT(utap_linetab_pack(rows, 3, chain_files, 2, NULL, &b), 0);
	CHECK_INT(try_linetab(b.data, b.size), 0);
	if (utap_linetab_init(&l, b.data, b.size) == 0) {
		CHECK(utap_linetab_lookup(&l, ~0ull - 0x1f, &file, &line));
		CHECK_STR(file, "/usr/include/stdio.h");
		CHECK_INT(line, 6);
		CHECK(!utap_linetab_lookup(&l, ~0ull, &file, &line));
		CHECK(!utap_linetab_lookup(&l, 0x10, &file, &line));
	}
	utap_blob_free(&b);
}

int main(void)
{
	unit_prog = "test_sym";
	setup();
	RUN(test_full_observed);
	RUN(test_full_fallbacks);
	RUN(test_simple);
	RUN(test_brief_and_hex);
	RUN(test_data_and_symbol);
	RUN(test_fuller);
	RUN(test_fileline);
	RUN(test_address_zero);
	RUN(test_names_and_sizes);
	RUN(test_flag_sets);
	RUN(test_modname_and_markers);
	RUN(test_truncation);
	RUN(test_load_bias_and_extent);
	RUN(test_truncated_blobs_rejected);
	RUN(test_bit_flips);
	RUN(test_targeted_corruption);
	RUN(test_packers_refuse);
	RUN(test_lines_at_top);
	utap_blob_free(&chain_blob);
	utap_blob_free(&libc_blob);
	utap_blob_free(&line_blob);
	return unit_done();
}
