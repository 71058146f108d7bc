/*
 * test_symtab.c - symbol tables built from real ELF files: the programs in
 * testsuite/unit/symprogs in every shape (PIE, non-PIE, shared library with
 * versioned symbols, stripped, minidebuginfo, separate debuginfo by build-id
 * and by debuglink) and the system's libc, libstdc++ and python3.11.
 *
 * The oracle is readelf's text output with SystemTap's rules restated in
 * test_sym_lib.c; a few outputs are checked against what SystemTap printed.
 */
#include "unit.h"
#include "test_sym_lib.h"

#include <sys/stat.h>
#include <unistd.h>

#define P(name) SYMPROGS_DIR "/" name
#define DEBUGROOT P("debugroot")
#define NO_ROOT "/nonexistent-debug-root"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
/* libc6 2.36-9+deb12u14, the build SystemTap's outputs were observed with */
#define LIBC_DEBUG "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Build PATH and compare the whole table with the oracle from TABLE of SECFILE. */
static void check_against_readelf(const char *path, const char *root, const char *secfile,
				  const char *table)
{
	struct built_symtab b;
	struct ref_table ref;
	struct ref_expect e;
	char why[1024];

	built_symtab_open(&b, path, root);
	CHECK_INT(b.err, 0);
	CHECK(ref_table_read(secfile, table, &ref));
	CHECK(ref_expect_build(path, &ref, secfile, NULL, NULL, &e));
	if (!b.err) {
		int bad = symtab_mismatches(&b.tab, &e, why, sizeof(why));

		unit_check(bad == 0, __FILE__, __LINE__, "%s: %d mismatches, first: %s", path, bad, why);
	}
	CHECK(e.n > 0 || strcmp(table, ".dynsym") == 0);
	ref_expect_free(&e);
	ref_table_free(&ref);
	built_symtab_close(&b);
}

/* The name the table gives file-relative address REL, or "" */
static const char *name_at(const struct utap_symtab *t, uint64_t rel)
{
	static char bufs[2][UTAP_SYM_NAME_MAX];	/* two calls per check */
	static int turn;
	struct utap_sym_hit hit;
	char *buf = bufs[turn++ & 1];

	return utap_symtab_lookup(t, rel, &hit, buf, UTAP_SYM_NAME_MAX) ? hit.name : "";
}

/* The address of NAME in the table, or 0. */
static uint64_t addr_of(const struct utap_symtab *t, const char *name)
{
	char buf[UTAP_SYM_NAME_MAX];
	uint64_t addr;
	uint32_t i;

	for (i = 0; i < t->nsyms; i++) {
		utap_symtab_entry(t, i, &addr, buf, sizeof(buf));
		if (strcmp(buf, name) == 0)
			return addr;
	}
	return 0;
}

static void test_pie(void)
{
	check_against_readelf(P("chain-pie"), NO_ROOT, P("chain-pie"), ".symtab");
}

static void test_nopie(void)
{
	struct built_symtab b;

	check_against_readelf(P("chain-nopie"), NO_ROOT, P("chain-nopie"), ".symtab");
	built_symtab_open(&b, P("chain-nopie"), NO_ROOT);
	CHECK_INT(b.err, 0);
	if (!b.err) {
		CHECK_INT(b.tab.hdr->elf_type, UTAP_SYMTAB_ET_EXEC);
		CHECK(addr_of(&b.tab, "c") >= 0x400000);
	}
	built_symtab_close(&b);
}

/* STT_GNU_IFUNC dropped, '.' names kept as stored, aliases: the last one. */
static void test_program_specifics(void)
{
	struct built_symtab b;
	struct utap_sym_ctx ctx = { P("chain-pie"), 0, 0, 0x5000000, NULL, NULL };
	char buf[256], want[256];
	uint64_t dotted;

	built_symtab_open(&b, P("chain-pie"), NO_ROOT);
	CHECK_INT(b.err, 0);
	if (b.err)
		return;
	ctx.syms = &b.tab;
	utap_symtab_extent(&b.tab, ctx.bias, &ctx.start, &ctx.end);
	CHECK(addr_of(&b.tab, "picked") == 0);
	CHECK(addr_of(&b.tab, "resolve_pick") != 0);
	CHECK(addr_of(&b.tab, "counter") != 0);		/* objects are kept */
	CHECK(addr_of(&b.tab, "table") != 0);
	CHECK_STR(name_at(&b.tab, addr_of(&b.tab, "alias_target")), "alias_target");
	CHECK(addr_of(&b.tab, "alias_name") == 0);	/* earlier in .symtab: loses */
	dotted = addr_of(&b.tab, ".dotted");
	CHECK(dotted != 0);
	utap_sym_format(buf, sizeof(buf), ctx.bias + dotted, &ctx, UTAP_SYM_SYMBOL);
	CHECK_STR(buf, "dotted");
	snprintf(want, sizeof(want), " %#llx : b+0x4/0x20 [%s]\n",
		 (unsigned long long)(ctx.bias + addr_of(&b.tab, "b") + 4), P("chain-pie"));
	utap_sym_format(buf, sizeof(buf), ctx.bias + addr_of(&b.tab, "b") + 4, &ctx, UTAP_SYM_FULL);
	CHECK_STR(buf, want);
	built_symtab_close(&b);
}

/*
 * --strip-all: only imports remain, so frames print module-only, except in
 * the PLT, whose stubs are named from the relocations (kept by strip).
 */
static void test_stripped(void)
{
	struct built_symtab pie, stripped;
	struct utap_sym_ctx ctx = { P("chain-stripped"), 0, 0, 0x5000000, NULL, NULL };
	char buf[256], want[256];
	uint64_t c;

	check_against_readelf(P("chain-stripped"), NO_ROOT, P("chain-stripped"), ".dynsym");
	built_symtab_open(&pie, P("chain-pie"), NO_ROOT);
	built_symtab_open(&stripped, P("chain-stripped"), NO_ROOT);
	CHECK(!pie.err && !stripped.err);
	if (pie.err || stripped.err)
		goto out;
	/* a gap, printf@plt, __cxa_finalize@plt (.plt.got), a gap after it */
	CHECK_INT(stripped.tab.nsyms, 4);
	CHECK_STR(name_at(&stripped.tab, addr_of(&pie.tab, "printf@plt") + 4), "printf@plt");
	ctx.syms = &stripped.tab;
	utap_symtab_extent(&stripped.tab, ctx.bias, &ctx.start, &ctx.end);
	c = addr_of(&pie.tab, "c");
	utap_sym_format(buf, sizeof(buf), ctx.bias + c, &ctx, UTAP_SYM_FULL);
	snprintf(want, sizeof(want), " %#llx [%s+%#llx/%#llx]\n",
		 (unsigned long long)(ctx.bias + c), P("chain-stripped"), (unsigned long long)c,
		 (unsigned long long)(ctx.end - ctx.start));
	CHECK_STR(buf, want);
out:
	built_symtab_close(&pie);
	built_symtab_close(&stripped);
}

/* .dynsym plus .gnu_debugdata: every function comes back. */
static void test_minidebuginfo(void)
{
	char mini[512], *cmd_out;
	struct ref_table dyn, aux;
	struct ref_expect e;
	struct built_symtab b, pie;
	char why[1024];
	uint32_t i;

	snprintf(mini, sizeof(mini), "%s/mini.elf", scratch_dir());
	cmd_out = run_cmd("objcopy --dump-section .gnu_debugdata=%s/mini.xz %s %s/copy && "
			 "xz -dc %s/mini.xz > %s", scratch_dir(), P("chain-mini"), scratch_dir(),
			 scratch_dir(), mini);
	CHECK(cmd_out != NULL);
	free(cmd_out);
	CHECK(ref_table_read(P("chain-mini"), ".dynsym", &dyn));
	CHECK(ref_table_read(mini, ".symtab", &aux));
	CHECK(ref_expect_build(P("chain-mini"), &dyn, P("chain-mini"), &aux, mini, &e));
	built_symtab_open(&b, P("chain-mini"), NO_ROOT);
	built_symtab_open(&pie, P("chain-pie"), NO_ROOT);
	CHECK(!b.err && !pie.err);
	if (!b.err && !pie.err) {
		int bad = symtab_mismatches(&b.tab, &e, why, sizeof(why));

		unit_check(bad == 0, __FILE__, __LINE__, "%d mismatches, first: %s", bad, why);
		/* the functions (mini keeps no data symbols) name as in the full table */
		for (i = 0; i < b.tab.nsyms; i++) {
			char buf[UTAP_SYM_NAME_MAX];
			uint64_t a;

			utap_symtab_entry(&b.tab, (uint32_t)i, &a, buf, sizeof(buf));

			CHECK_STR(name_at(&b.tab, a), name_at(&pie.tab, a));
		}
		CHECK(addr_of(&b.tab, "local_helper") == addr_of(&pie.tab, "local_helper"));
		CHECK(addr_of(&b.tab, "c") != 0);
	}
	built_symtab_close(&b);
	built_symtab_close(&pie);
	ref_expect_free(&e);
	ref_table_free(&dyn);
	ref_table_free(&aux);
}

/* Separate debuginfo by build-id: the same table as the unstripped file. */
static void test_separate_by_build_id(void)
{
	struct built_symtab pie, split, none;

	built_symtab_open(&pie, P("chain-pie"), NO_ROOT);
	built_symtab_open(&split, P("chain-split"), DEBUGROOT);
	built_symtab_open(&none, P("chain-split"), NO_ROOT);
	CHECK(!pie.err && !split.err && !none.err);
	if (!pie.err && !split.err && !none.err) {
		CHECK_INT(split.blob.size, pie.blob.size);
		CHECK(split.blob.size == pie.blob.size &&
		      memcmp(split.blob.data, pie.blob.data, pie.blob.size) == 0);
		CHECK_INT(none.tab.nsyms, 4);	/* the PLT's entries only */
		CHECK_INT(split.tab.hdr->build_id_len, 20);
	}
	built_symtab_close(&pie);
	built_symtab_close(&split);
	built_symtab_close(&none);
}

/* Separate debuginfo by .gnu_debuglink (CRC-checked), for a file without build-id. */
static void test_separate_by_debuglink(void)
{
	struct built_symtab b;

	check_against_readelf(P("chain-link"), NO_ROOT, P(".debug/chain-link.debug"), ".symtab");
	built_symtab_open(&b, P("chain-link"), NO_ROOT);
	CHECK_INT(b.err, 0);
	if (!b.err) {
		CHECK_INT(b.tab.hdr->build_id_len, 0);
		CHECK(addr_of(&b.tab, "c") != 0);
	}
	built_symtab_close(&b);
}

/* Versioned symbols: .symtab names carry the version, .dynsym names do not. */
static void test_shared_library(void)
{
	struct built_symtab full, dyn;
	uint64_t old_v, new_v;

	check_against_readelf(P("libsym.so"), NO_ROOT, P("libsym.so"), ".symtab");
	check_against_readelf(P("libsym-stripped.so"), NO_ROOT, P("libsym-stripped.so"), ".dynsym");
	built_symtab_open(&full, P("libsym.so"), NO_ROOT);
	built_symtab_open(&dyn, P("libsym-stripped.so"), NO_ROOT);
	CHECK(!full.err && !dyn.err);
	if (!full.err && !dyn.err) {
		old_v = addr_of(&full.tab, "lib_ver@VERS_1");
		new_v = addr_of(&full.tab, "lib_ver@@VERS_2");
		CHECK(old_v && new_v && old_v != new_v);
		CHECK_STR(name_at(&dyn.tab, old_v), "lib_ver");
		CHECK_STR(name_at(&dyn.tab, new_v), "lib_ver");
		CHECK(addr_of(&dyn.tab, "lib_data") == addr_of(&full.tab, "lib_data"));
		CHECK_INT(full.tab.hdr->elf_type, UTAP_SYMTAB_ET_DYN);
	}
	built_symtab_close(&full);
	built_symtab_close(&dyn);
}

/*
 * libc: the whole table against readelf, and the frames SystemTap printed
 * (with and without libc6-dbg) when this exact libc build is installed.
 */
static void test_libc(void)
{
	struct built_symtab dbg, dyn;
	struct utap_sym_ctx ctx = { LIBC, 0, 0, 0x7fa1578ba000ull, NULL, NULL };
	char buf[512];

	check_against_readelf(LIBC, NO_ROOT, LIBC, ".dynsym");
	if (!exists(LIBC_DEBUG))
		return;
	check_against_readelf(LIBC, NULL, LIBC_DEBUG, ".symtab");
	built_symtab_open(&dbg, LIBC, NULL);
	built_symtab_open(&dyn, LIBC, NO_ROOT);
	CHECK(!dbg.err && !dyn.err);
	if (!dbg.err && !dyn.err) {
		ctx.syms = &dbg.tab;
		utap_sym_format(buf, sizeof(buf), 0x7fa1578e124a, &ctx, UTAP_SYM_FULL);
		CHECK_STR(buf, " 0x7fa1578e124a : __libc_start_call_main+0x7a/0xb0 [" LIBC "]\n");
		utap_sym_format(buf, sizeof(buf), 0x7fa1578e1305, &ctx, UTAP_SYM_FULL);
		CHECK_STR(buf, " 0x7fa1578e1305 : __libc_start_main@GLIBC_2.2.5+0x85/0x150 ["
			  LIBC "]\n");
		utap_sym_format(buf, sizeof(buf), 0x7fa1578e124a, &ctx, UTAP_SYM_SIMPLE);
		CHECK_STR(buf, "__libc_start_call_main+0x7a [libc.so.6]\n");
		/* without libc6-dbg SystemTap named the frame after the nearest .dynsym entry */
		ctx.syms = &dyn.tab;
		utap_sym_format(buf, sizeof(buf), 0x7fa1578e124a, &ctx, UTAP_SYM_BRIEF);
		CHECK_STR(buf, "__libc_init_first+0x8a\n");
		/* the module-only end of a walk without --ldd */
		ctx.syms = NULL;
		ctx.bias = 0x7f8a19845000ull;
		utap_symtab_extent(&dbg.tab, ctx.bias, &ctx.start, &ctx.end);
		utap_sym_format(buf, sizeof(buf), 0x7f8a1986c24a, &ctx, UTAP_SYM_FULL);
		CHECK_STR(buf, " 0x7f8a1986c24a [" LIBC "+0x2724a/0x1e2000]\n");
	}
	built_symtab_close(&dbg);
	built_symtab_close(&dyn);
}

/* Big distro binaries: the .dynsym path (their debug files are not installed). */
static void test_system_binaries(void)
{
	static const char *const files[] = {
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/bin/python3.11",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char real[4096];

		if (!realpath(files[i], real))
			continue;
		check_against_readelf(real, NO_ROOT, real, ".dynsym");
	}
}

static void test_errors(void)
{
	struct utap_blob b;

	CHECK_INT(utap_symtab_build_path("/nonexistent/file", NULL, &b), -ENOENT);
	CHECK_INT(utap_symtab_build_path(SYMPROGS_SRC "/chain.c", NULL, &b), -EINVAL);
	CHECK(b.data == NULL);
}

/* The debuginfo.h lookups on their own. */
static void test_debuginfo(void)
{
	struct utap_debuginfo di;
	char hex[2 * UTAP_BUILD_ID_MAX + 1], name[256];
	char *readelf_id = run_cmd("readelf -n %s | sed -n 's/.*Build ID: *//p'", P("chain-pie"));
	uint32_t crc;

	CHECK_INT(utap_debuginfo_open(&di, P("chain-split"), DEBUGROOT, UTAP_DI_ALL), 0);
	utap_build_id_hex(&di.build_id, hex, sizeof(hex));
	CHECK(readelf_id && strncmp(readelf_id, hex, strlen(hex)) == 0 && strlen(hex) == 40);
	CHECK(di.separate.elf != NULL);
	CHECK(di.mini.elf == NULL);
	utap_debuginfo_close(&di);
	CHECK_INT(utap_debuginfo_open(&di, P("chain-mini"), NO_ROOT, UTAP_DI_ALL), 0);
	CHECK(di.mini.elf != NULL && di.separate.elf == NULL);
	utap_debuginfo_close(&di);
	CHECK_INT(utap_debuginfo_open(&di, P("chain-link"), NO_ROOT, UTAP_DI_ALL), 0);
	CHECK_INT(di.build_id.len, 0);
	CHECK(di.separate.path && strstr(di.separate.path, "/.debug/chain-link.debug"));
	CHECK_INT(utap_elf_debuglink(di.file.elf, name, sizeof(name), &crc), 0);
	CHECK_STR(name, "chain-link.debug");
	utap_debuginfo_close(&di);
	free(readelf_id);
}

/* Lookups of F and C at REL agree: found, name, offset and size. */
static bool same_lookup(const struct utap_symtab *f, const struct utap_symtab *c, uint64_t rel)
{
	char nf[UTAP_SYM_NAME_MAX], ncode[UTAP_SYM_NAME_MAX];
	struct utap_sym_hit hf, hc;
	bool a = utap_symtab_lookup(f, rel, &hf, nf, sizeof(nf));
	bool b = utap_symtab_lookup(c, rel, &hc, ncode, sizeof(ncode));

	if (a != b)
		return false;
	return !a || (!strcmp(nf, ncode) && hf.offset == hc.offset && hf.size == hc.size);
}

/*
 * A code-only table (backtrace scripts) names every address of the
 * executable segments exactly as the whole table does, with fewer symbols:
 * libc, ld.so and the vDSO-less chain program, every symbol start of the
 * whole table and its neighbours, and a stride through the code.
 */
static void test_code_only(void)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2",
		SYMPROGS_DIR "/chain-pie",
	};

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		struct utap_blob fb = { 0 }, cb = { 0 };
		struct utap_symtab f, c;
		unsigned long checked = 0, bad = 0;

		if (utap_symtab_build_path_flags(files[k], NULL, 0, &fb) ||
		    utap_symtab_build_path_flags(files[k], NULL, UTAP_SYMTAB_CODE_ONLY, &cb) ||
		    utap_symtab_init(&f, fb.data, fb.size) || utap_symtab_init(&c, cb.data, cb.size)) {
			CHECK(!"tables of a system file");
			continue;
		}
		CHECK(c.nsyms <= f.nsyms);
		for (uint32_t s = 0; s < f.nsegs; s++) {
			const struct utap_symtab_seg *g = &f.segs[s];

			if (!(g->flags & UTAP_SEG_X))
				continue;
			for (uint64_t a = g->vaddr; a < g->vaddr + g->memsz; a += 61, checked++)
				bad += !same_lookup(&f, &c, a);
			bad += !same_lookup(&f, &c, g->vaddr + g->memsz - 1);
		}
		for (uint32_t i = 0; i < f.nsyms; i++) {
			char name[UTAP_SYM_NAME_MAX];
			uint64_t a;

			utap_symtab_entry(&f, i, &a, name, sizeof(name));
			for (uint64_t d = 0; d < 3; d++) {
				uint64_t x = a + d - 1;
				bool code = false;

				for (uint32_t s = 0; s < f.nsegs; s++)
					code |= (f.segs[s].flags & UTAP_SEG_X) && x >= f.segs[s].vaddr &&
						x < f.segs[s].vaddr + f.segs[s].memsz;
				if (code) {
					bad += !same_lookup(&f, &c, x);
					checked++;
				}
			}
		}
		unit_check(bad == 0, __FILE__, __LINE__, "%s: %lu of %lu code addresses differ",
			   files[k], bad, checked);
		printf("# %s: %u symbols, %u code-only (%zu -> %zu bytes), %lu addresses agree\n",
		       files[k], f.nsyms, c.nsyms, fb.size, cb.size, checked - bad);
		utap_blob_free(&fb);
		utap_blob_free(&cb);
	}
}

int main(void)
{
	unit_prog = "test_symtab";
	RUN(test_pie);
	RUN(test_nopie);
	RUN(test_program_specifics);
	RUN(test_stripped);
	RUN(test_minidebuginfo);
	RUN(test_separate_by_build_id);
	RUN(test_separate_by_debuglink);
	RUN(test_shared_library);
	RUN(test_libc);
	RUN(test_code_only);
	RUN(test_system_binaries);
	RUN(test_errors);
	RUN(test_debuginfo);
	scratch_cleanup();
	return unit_done();
}
