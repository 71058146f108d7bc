// SPDX-License-Identifier: GPL-2.0
/*
 * test_uwbuild - the table builder against libdw on real Debian files.
 *
 * For a dense sample of addresses (every row start and every 3rd byte of
 * executable code) the table's rule, applied by the runtime to a made-up
 * register set and memory, must give the caller's CFA, return address,
 * RSP and callee-saved registers that libdw's own CFI evaluation gives for
 * the same state. Addresses without CFI must have no rule, except the few
 * padding bytes after a function. Plus: stripped, non-PIE, .debug_frame
 * only, corrupt ELF images.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <elfutils/libdw.h>
#include "unit.h"
#include "elf/uwbuild.h"
#include "unwind/uwstep.h"
#include "uwprogs/uwsnap.h"

#define SP_BASE		0x7ff000001000ull
#define REG_BASE	0x7ff000100000ull
#define MEM_BASE	0x7ff000200000ull
#define GAP_MERGE	15

#ifndef UW_SRCDIR
#define UW_SRCDIR "."		/* the source tree, set by mk/unwind.mk */
#endif

/* Made-up memory: every word is a distinct aligned value above the stack. */
static u64 mem_word(u64 addr)
{
	u64 h = addr * 0x9e3779b97f4a7c15ull;

	return MEM_BASE + ((h >> 20) & 0xffff8);
}

static int fake_read(void *ctx, u64 addr, void *dst, u32 len)
{
	u8 *d = dst;
	u32 i;

	(void)ctx;
	for (i = 0; i < len; i += 8) {
		u64 w = mem_word(addr + i);

		memcpy(d + i, &w, len - i < 8 ? len - i : 8);
	}
	return 0;
}

static void fake_regs(struct uw_regs *r, u64 pc)
{
	int i;

	for (i = 0; i < UWT_NR_REGS; i++)
		r->val[i] = REG_BASE + 0x1000 * i;
	r->val[UWT_RSP] = SP_BASE;
	r->val[UWT_RIP] = pc;
	r->known = UW_ALL_KNOWN;
}

/* A tiny DWARF stack machine for the ops libdw hands out in CFI rules. */
static bool eval_ops(const Dwarf_Op *ops, size_t n, const struct uw_regs *r,
		     u64 cfa, bool *is_value, u64 *out)
{
	u64 st[16];
	size_t sp = 0, i;

	*is_value = false;
	for (i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		u8 a = op->atom;

		if (sp >= 15)
			return false;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg16)
			st[sp++] = r->val[a - DW_OP_breg0] + op->number;
		else if (a == DW_OP_bregx && op->number < UWT_NR_REGS)
			st[sp++] = r->val[op->number] + op->number2;
		else if (a >= DW_OP_reg0 && a <= DW_OP_reg16) {
			*is_value = true;
			*out = r->val[a - DW_OP_reg0];
			return n == 1;
		} else if (a == DW_OP_regx && op->number < UWT_NR_REGS) {
			*is_value = true;
			*out = r->val[op->number];
			return n == 1;
		} else if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
			st[sp++] = a - DW_OP_lit0;
		else if (a == DW_OP_call_frame_cfa)
			st[sp++] = cfa;
		else if (a == DW_OP_plus_uconst && sp >= 1)
			st[sp - 1] += op->number;
		else if (a == DW_OP_deref && sp >= 1)
			st[sp - 1] = mem_word(st[sp - 1]);
		else if (a == DW_OP_stack_value)
			*is_value = true;
		else if (sp >= 2 && (a == DW_OP_and || a == DW_OP_ge ||
				     a == DW_OP_shl || a == DW_OP_plus)) {
			u64 y = st[--sp], x = st[sp - 1];

			st[sp - 1] = a == DW_OP_and ? (x & y) :
				     a == DW_OP_ge ? ((s64)x >= (s64)y) :
				     a == DW_OP_shl ? (x << y) : (x + y);
		} else
			return false;
	}
	if (sp == 0)
		return false;
	*out = st[sp - 1];
	return true;
}

struct counts {
	unsigned long checked, no_cfi, unsupported, partial, mismatches;
};

/* The caller's value of REGNO per libdw: 0 ok, 1 same value, -1 unknown. */
static int libdw_reg(Dwarf_Frame *f, int regno, const struct uw_regs *r,
		     u64 cfa, u64 *v)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	bool is_value;

	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return -1;
	if (n == 0)
		return 1;	/* same value (and libdw 0.188's RBX "undefined") */
	if (!eval_ops(ops, n, r, cfa, &is_value, v))
		return -1;
	if (!is_value)
		*v = mem_word(*v);
	return 0;
}

static void report(u64 pc, const char *what, u64 got, u64 want)
{
	fprintf(stderr, "  pc %#llx: %s = %#llx, libdw %#llx\n",
		(unsigned long long)pc, what, (unsigned long long)got,
		(unsigned long long)want);
}

/* Compare the caller state of our step with libdw's at PC. */
static void compare_at(const void *table, Dwarf_CFI *cfi, u64 pc,
		       struct counts *c)
{
	static const int saved[] = { UWT_RIP, UWT_RSP, UWT_RBX, UWT_RBP,
				     UWT_R12, UWT_R13, UWT_R14, UWT_R15 };
	const struct uwt_rule *rule = uw_table_lookup(table, pc);
	struct uw_regs in, out;
	Dwarf_Frame *f;
	Dwarf_Op *ops;
	size_t n, i;
	u64 cfa, v;
	bool is_value;
	u32 flags = UW_FRAME_EXACT_PC;
	enum uw_stop stop;

	fake_regs(&in, pc);
	out = in;
	if (dwarf_cfi_addrframe(cfi, pc, &f)) {
		c->no_cfi++;
		return;
	}
	c->checked++;
	if (!rule || rule->kind == UWT_NONE) {
		c->unsupported++;
		free(f);
		return;
	}
	stop = uw_apply_rule(rule, &out, &flags, fake_read, NULL);
	if (dwarf_frame_cfa(f, &ops, &n) || !eval_ops(ops, n, &in, 0, &is_value, &cfa)) {
		/* only an undefined RA may come without a usable CFA */
		if (stop != UW_STOP_END)
			c->mismatches++;
		free(f);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(saved); i++) {
		int how = libdw_reg(f, saved[i], &in, cfa, &v);
		bool undef_ra = saved[i] == UWT_RIP && how == 1;

		if (undef_ra) {
			/* libdw reports the RA "undefined" as ops == mem, n == 0 */
			if (stop != UW_STOP_END) {
				report(pc, "stop", stop, UW_STOP_END);
				c->mismatches++;
			}
			break;
		}
		if (stop) {
			report(pc, "stop", stop, 0);
			c->mismatches++;
			break;
		}
		if (how == 1)
			v = in.val[saved[i]];
		if (how < 0)
			continue;	/* beyond this evaluator: nothing to compare */
		if (!uw_known(&out, saved[i])) {
			c->partial++;	/* we lost a value libdw can recover */
			continue;
		}
		if (out.val[saved[i]] != v) {
			report(pc, "register", saved[i], 0);
			report(pc, "value", out.val[saved[i]], v);
			c->mismatches++;
			break;
		}
	}
	free(f);
}

struct exec_range {
	u64 lo, hi;
};

static size_t exec_ranges(Elf *elf, struct exec_range *r, size_t max)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR))
			r[n++] = (struct exec_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	return n;
}

/* libdw has no CFI at PC: we may only carry a rule over padding. */
static void check_gap(const void *table, Dwarf_CFI *cfi, u64 pc,
		      struct counts *c)
{
	const struct uwt_rule *rule = uw_table_lookup(table, pc);
	Dwarf_Frame *f;
	int k;

	if (!rule || rule->kind == UWT_NONE)
		return;
	for (k = 1; k <= GAP_MERGE; k++)
		if (pc >= (u64)k && !dwarf_cfi_addrframe(cfi, pc - k, &f)) {
			free(f);
			return;
		}
	/* synthesized PLT rules and the CFI-less entry's end have no libdw counterpart */
	if (uw_table_header(table)->flags & UWT_F_SYNTH_PLT)
		return;
	if ((uw_table_header(table)->flags & UWT_F_SYNTH_ENTRY) && rule->ra_how == UWT_RA_UNDEF)
		return;
	report(pc, "rule without CFI", rule->kind, 0);
	c->mismatches++;
}

/* Every table rule against libdw for the file ELF; prints a summary line. */
static void compare_elf(Elf *elf, const char *label, unsigned long max_unsupported,
			bool expect_smaller, unsigned int min_coverage)
{
	struct uw_build_stats st;
	struct uw_blob blob;
	struct exec_range r[64];
	struct counts c = { 0 };
	char err[512];
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	size_t i, n;

	if (!cfi || uw_build_elf(elf, NULL, NULL, &blob, &st, err, sizeof(err))) {
		CHECK(!"cannot read CFI or build");
		return;
	}
	CHECK_INT(uw_table_validate(blob.data, blob.len), 0);
	n = exec_ranges(elf, r, ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		u64 pc, s, e;

		for (pc = r[i].lo; pc < r[i].hi; pc += 3) {
			Dwarf_Frame *f;

			if (dwarf_cfi_addrframe(cfi, pc, &f)) {
				check_gap(blob.data, cfi, pc, &c);
				continue;
			}
			free(f);
			compare_at(blob.data, cfi, pc, &c);
		}
		/* every row start inside this section, too */
		for (pc = r[i].lo; pc < r[i].hi; pc = e) {
			if (!uw_table_lookup_range(blob.data, pc, &s, &e))
				break;
			compare_at(blob.data, cfi, pc, &c);
		}
	}
	printf("# %s: %lu addresses checked, %lu without CFI, %lu unsupported, "
	       "%lu registers left unknown, %lu mismatches; %u rows, %zu bytes, "
	       "CFI covers %.1f%% of code\n",
	       label, c.checked, c.no_cfi, c.unsupported, c.partial,
	       c.mismatches, st.rows, st.bytes,
	       100.0 * st.covered_bytes / (st.text_bytes ? st.text_bytes : 1));
	CHECK(c.checked > 200);
	CHECK_INT(c.mismatches, 0);
	CHECK_INT(c.partial, 0);
	CHECK(c.unsupported <= max_unsupported);
	if (expect_smaller)
		CHECK(st.bytes < st.eh_frame_bytes);
	CHECK_INT(st.sigreturn_synth, 0);	/* glibc's trampoline has CFI */
	CHECK(st.covered_bytes * 100 >= st.text_bytes * min_coverage);
	uw_blob_free(&blob);
	dwarf_cfi_end(cfi);
}

static void compare_file(const char *path, unsigned long max_unsupported)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	CHECK(elf != NULL);
	if (elf)
		compare_elf(elf, path, max_unsupported, true, 95);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The vDSO has no file: build from the image the kernel mapped for us. */
static void vdso_image(void)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	size_t size;
	char *copy;
	Elf *elf;

	CHECK(base != NULL);
	if (!base)
		return;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	copy = malloc(size);
	memcpy(copy, base, size);
	elf = elf_memory(copy, size);
	CHECK(elf != NULL);
	if (elf) {
		compare_elf(elf, "[vdso]", 0, false, 50);
		elf_end(elf);
	}
	free(copy);
}

static void libc(void)
{
	/* one libc row (CFA = rdx) has an RA rule outside the set */
	compare_file("/usr/lib/x86_64-linux-gnu/libc.so.6", 40);
}

static void ld_so(void)
{
	compare_file("/lib64/ld-linux-x86-64.so.2", 0);
}

static void libstdcxx(void)
{
	compare_file("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 0);
}

static void libm(void)
{
	compare_file("/usr/lib/x86_64-linux-gnu/libm.so.6", 0);
}

static void python(void)
{
	compare_file("/usr/bin/python3.11", 0);
}

static int build(const char *prog, struct uw_blob *b, struct uw_build_stats *st)
{
	char path[4096], err[512];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", uwsnap_progdir(), prog);
	ret = uw_build_file(path, NULL, b, st, err, sizeof(err));
	if (ret)
		fprintf(stderr, "  %s\n", err);
	return ret;
}

/* strip keeps .eh_frame: the table must be byte-identical */
static void stripped_same_table(void)
{
	struct uw_blob a, b;
	struct uw_build_stats sa, sb;

	if (build("uwp_c", &a, &sa) || build("uwp_c_stripped", &b, &sb)) {
		CHECK(!"build failed");
		return;
	}
	CHECK_INT(a.len, b.len);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	CHECK_STR(sb.source, "eh_frame");
	uw_blob_free(&a);
	uw_blob_free(&b);
}

static void non_pie_addresses(void)
{
	struct uw_blob b;
	struct uw_build_stats st;

	if (build("uwp_c_nopie", &b, &st)) {
		CHECK(!"build failed");
		return;
	}
	/* ET_EXEC: absolute vaddrs from 0x400000 */
	CHECK(uw_table_header(b.data)->text_start >= 0x400000);
	CHECK_INT(st.unsupported_rows, 0);
	uw_blob_free(&b);
}

static void debug_frame_only(void)
{
	struct uw_blob b;
	struct uw_build_stats st;
	const struct uwt_header *h;

	if (build("uwp_dfonly", &b, &st)) {
		CHECK(!"build failed");
		return;
	}
	h = b.data;
	CHECK_STR(st.source, "debug_frame");
	CHECK(h->flags & UWT_F_DEBUG_FRAME);
	CHECK(st.fdes >= 10);
	CHECK(st.rows > 20);
	CHECK_INT(st.eh_frame_bytes, 0);
	uw_blob_free(&b);
}

static u64 section_addr(const char *prog, const char *want, u64 *size)
{
	char path[4096];
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	u64 addr = 0;
	int fd;
	Elf *elf;

	snprintf(path, sizeof(path), "%s/%s", uwsnap_progdir(), prog);
	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx))
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			gelf_getshdr(scn, &sh);
			if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), want)) {
				addr = sh.sh_addr;
				*size = sh.sh_size;
			}
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return addr;
}

/*
 * .debug_frame only in the separate debuginfo, found by build-id under a
 * private debug root: same table as with the CFI in the file itself.
 */
static void separate_debuginfo(void)
{
	char root[] = "/tmp/uwdebug.XXXXXX", cmd[8192], path[4096];
	struct uw_build_opts opts = { 0 };
	struct uw_build_stats sa, sb;
	struct uw_blob a, b;
	char err[512];

	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "d=%s/uwp_dfsplit.debug; id=$(readelf -n %s/uwp_dfsplit | "
		 "sed -n 's/.*Build ID: //p'); mkdir -p %s/.build-id/${id%%${id#??}} && "
		 "cp $d %s/.build-id/${id%%${id#??}}/${id#??}.debug",
		 uwsnap_progdir(), uwsnap_progdir(), root, root);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/uwp_dfsplit", uwsnap_progdir());
	opts.debug_root = root;
	CHECK_INT(uw_build_file(path, &opts, &a, &sa, err, sizeof(err)), 0);
	CHECK_INT(build("uwp_dfonly", &b, &sb), 0);
	CHECK_STR(sa.source, "debug_frame");
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	uw_blob_free(&a);
	uw_blob_free(&b);
	/* without the debug root there is no CFI at all: PLT rows only */
	opts.no_separate = 1;
	CHECK_INT(uw_build_file(path, &opts, &a, &sa, err, sizeof(err)), 0);
	CHECK_INT(sa.cfi_rows, 0);
	CHECK(sa.plt_synth >= 1 && sa.rows <= 6);
	CHECK_STR(sa.source, "none");
	CHECK_INT(uw_table_validate(a.data, a.len), 0);
	uw_blob_free(&a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
}

/* A lazy .plt gets the PLT rule: CFA rsp+8, rsp+16 after the push. */
static void plt_rule(void)
{
	struct uw_blob b;
	struct uw_build_stats st;
	const struct uwt_rule *r;
	u64 size, plt = section_addr("uwp_c", ".plt", &size);

	if (build("uwp_c", &b, &st)) {
		CHECK(!"build failed");
		return;
	}
	CHECK(plt != 0);
	r = uw_table_lookup(b.data, plt + 16);
	CHECK(r && r->kind == UWT_PLT && r->cfa_off2 == 11);
	r = uw_table_lookup(b.data, plt);
	CHECK(r && r->kind == UWT_CFA_REG && r->cfa_off == 16);
	uw_blob_free(&b);
}

/*
 * ld.so's entry (RTLD_START: _start calls _dl_start, _dl_start_user calls
 * _dl_init) has no CFI: both return addresses end the stack, so a walk
 * from a library constructor or the loader's own work stops there cleanly
 * instead of "lacking tables". glibc's program _start has CFI for that.
 */
static void entry_ends_stack(void)
{
	const char *ld = "/lib64/ld-linux-x86-64.so.2";
	struct uw_build_stats st;
	const struct uwt_rule *r;
	struct uw_blob b;
	char err[512];
	GElf_Ehdr eh;
	int fd = open(ld, O_RDONLY);
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || uw_build_file(ld, NULL, &b, &st, err, sizeof(err))) {
		CHECK(!"ld.so cannot be read or built");
		return;
	}
	CHECK_INT(st.entry_synth, 1);
	CHECK(((const struct uwt_header *)b.data)->flags & UWT_F_SYNTH_ENTRY);
	/* the return addresses after "call _dl_start" (+8) and "call _dl_init" (+0x2e) */
	for (u64 off = 0; off < 0x38; off += 4) {
		r = uw_table_lookup(b.data, eh.e_entry + off);
		CHECK(r && r->ra_how == UWT_RA_UNDEF);
	}
	uw_blob_free(&b);
	elf_end(elf);
	close(fd);
	if (build("uwp_c", &b, &st) == 0) {
		CHECK_INT(st.entry_synth, 0);	/* _start's own CFI already says it */
		uw_blob_free(&b);
	}
}

/* A CFI-less rt_sigreturn stub (musl style) becomes a SIGNAL row. */
static void sigreturn_by_code(void)
{
	struct uw_blob b;
	struct uw_build_stats st;
	const struct uwt_header *h;
	u64 pc, s, e, found = 0;

	if (build("uwp_c", &b, &st)) {
		CHECK(!"build failed");
		return;
	}
	h = b.data;
	CHECK_INT(st.sigreturn_synth, 1);
	CHECK(h->flags & UWT_F_SYNTH_SIGNAL);
	for (pc = h->text_start; pc < h->text_end; pc = e) {
		const struct uwt_rule *r = uw_table_lookup_range(b.data, pc, &s, &e);

		if (r->kind != UWT_SIGNAL)
			continue;
		found++;
		CHECK_INT(e - s, 10);	/* one byte early, then the 9 code bytes */
	}
	CHECK_INT(found, 1);
	uw_blob_free(&b);
}

/* Without the linker's PLT CFI the builder supplies the same rules. */
static void plt_synthesized(void)
{
	struct uw_blob a, b;
	struct uw_build_stats sa, sb;
	u64 plt, size, size2, pc;

	if (build("uwp_c", &a, &sa) || build("uwp_c_noplt", &b, &sb)) {
		CHECK(!"build failed");
		return;
	}
	plt = section_addr("uwp_c", ".plt", &size);
	CHECK_HEX(section_addr("uwp_c_noplt", ".plt", &size2), plt);
	CHECK_INT(sa.plt_synth, 0);
	CHECK(sb.plt_synth >= 1);
	CHECK(uw_table_header(b.data)->flags & UWT_F_SYNTH_PLT);
	for (pc = plt; pc < plt + size; pc++) {
		const struct uwt_rule *x = uw_table_lookup(a.data, pc);
		const struct uwt_rule *y = uw_table_lookup(b.data, pc);

		CHECK(x && y && !memcmp(x, y, sizeof(*x)));
		if (unit_failed_checks) {
			fprintf(stderr, "  first difference at %#llx\n",
				(unsigned long long)pc);
			break;
		}
	}
	uw_blob_free(&a);
	uw_blob_free(&b);
}

/* Build from an ELF image in memory: an error or a valid table. */
static void build_image(void *img, size_t len)
{
	struct uw_build_stats st;
	struct uw_blob b;
	char err[256];
	Elf *elf = elf_memory(img, len);

	if (elf && !uw_build_elf(elf, NULL, NULL, &b, &st, err, sizeof(err))) {
		CHECK_INT(uw_table_validate(b.data, b.len), 0);
		uw_blob_free(&b);
	}
	if (elf)
		elf_end(elf);
}

/* Truncated and bit-flipped ELF images: an error or a valid table, never a crash. */
static void corrupt_elf(void)
{
	char path[4096], err[256];
	struct uw_blob b;
	struct uw_build_stats st;
	unsigned char *img, *copy;
	size_t len, cut, i;
	unsigned int seed = 1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uwp_c_stripped", uwsnap_progdir());
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	img = malloc(len);
	copy = malloc(len);
	CHECK(fread(img, 1, len, f) == len);
	fclose(f);
	for (cut = 0; cut < len; cut += len / 97 + 1) {
		memcpy(copy, img, cut);
		build_image(copy, cut);
	}
	for (i = 0; i < 300; i++) {
		int k;

		memcpy(copy, img, len);
		for (k = 0; k < 8; k++)
			copy[rand_r(&seed) % len] ^= 1u << (rand_r(&seed) % 8);
		build_image(copy, len);
	}
	CHECK(uw_build_file("/nonexistent", NULL, &b, &st, err, sizeof(err)) == -1);
	CHECK(strstr(err, "/nonexistent") != NULL);
	CHECK(uw_build_file("/etc/passwd", NULL, &b, &st, err, sizeof(err)) == -1);
	free(img);
	free(copy);
}

/* Inputs the fuzzer once broke the builder with (testsuite/fuzz/corpus/uwbuild). */
static void fuzz_regressions(void)
{
	static const char *const names[] = { "cfa-expr-one-op", "huge-register-number" };
	char path[4096];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		static char img[1 << 16];
		FILE *f;

		snprintf(path, sizeof(path), "%s/testsuite/fuzz/corpus/uwbuild/%s",
			 UW_SRCDIR, names[i]);
		f = fopen(path, "rb");
		CHECK(f != NULL);
		if (!f)
			continue;
		len = fread(img, 1, sizeof(img), f);
		fclose(f);
		build_image(img, len);
	}
}

int main(void)
{
	unit_prog = "test_uwbuild";
	RUN(libc);
	RUN(ld_so);
	RUN(libstdcxx);
	RUN(libm);
	RUN(python);
	RUN(vdso_image);
	RUN(stripped_same_table);
	RUN(non_pie_addresses);
	RUN(debug_frame_only);
	RUN(separate_debuginfo);
	RUN(plt_rule);
	RUN(plt_synthesized);
	RUN(sigreturn_by_code);
	RUN(entry_ends_stack);
	RUN(corrupt_elf);
	RUN(fuzz_regressions);
	return unit_done();
}
