/*
 * fuzz_sym_format.c - lookup and formatting on tables packed from fuzzer
 * chosen symbols and line rows, at fuzzer chosen addresses, in every flag
 * combination. Checks snprintf semantics: the return value is the full
 * length, and a smaller buffer holds exactly its prefix.
 */
#include "elf/symtab.h"
#include "unwind/sym.h"

#include <stdlib.h>
#include <string.h>

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned take(struct input *in, unsigned bytes)
{
	unsigned v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

static const char *const names[] = { "main", ".dotted", "c", "", "__libc_start_main@GLIBC_2.2.5",
				     "a_rather_long_symbol_name_for_truncation_tests" };
static const char *const files[] = { "/src/a.c", "b.h", "" };

static void pack_symbols(struct input *in, struct utap_blob *out)
{
	struct utap_sym_in syms[32];
	struct utap_symtab_info info = { UTAP_SYMTAB_ET_DYN, NULL, NULL, 0, false };
	unsigned n = take(in, 1) % 32, i;
	uint64_t addr = 0x1000;

	for (i = 0; i < n; i++) {
		addr += take(in, 2);	/* zero deltas make aliases */
		syms[i].addr = addr;
		syms[i].name = names[take(in, 1) % (sizeof(names) / sizeof(names[0]))];
	}
	if (utap_symtab_pack(syms, n, &info, out) != 0)
		abort();
}

static void pack_lines(struct input *in, struct utap_blob *out)
{
	struct utap_line_in rows[33];
	unsigned n = take(in, 1) % 32, i;
	uint64_t addr = 0x1000;

	for (i = 0; i < n; i++) {
		unsigned f = take(in, 1) % 5;

		addr += 1 + take(in, 2);
		rows[i].addr = addr;
		rows[i].line = take(in, 2);
		rows[i].file = f < 3 ? (uint16_t)f : f == 3 ? UTAP_LINE_NOFILE : UTAP_LINE_GAP;
	}
	rows[n] = (struct utap_line_in){ addr + 1, 0, UTAP_LINE_GAP };
	if (utap_linetab_pack(rows, n + 1, files, 3, NULL, out) != 0)
		abort();
}

/* Format once in a big buffer and once in a small one; compare. */
static void check_format(uint64_t addr, const struct utap_sym_ctx *ctx, unsigned mode,
			 size_t small_size)
{
	char big[512], small[64];
	int n = utap_sym_format(big, sizeof(big), addr, ctx, mode);
	int m;

	if (n < 0 || (size_t)n >= sizeof(big) || strlen(big) != (size_t)n)
		abort();
	memset(small, 0x7f, sizeof(small));
	small_size %= sizeof(small) + 1;
	m = utap_sym_format(small, small_size, addr, ctx, mode);
	if (m != n)
		abort();
	if (small_size && (strlen(small) != (n < (int)small_size ? (size_t)n : small_size - 1) ||
			   strncmp(small, big, strlen(small)) != 0))
		abort();
	if (!small_size && small[0] != 0x7f)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct utap_blob sb, lb;
	struct utap_symtab st;
	struct utap_linetab lt;
	struct utap_sym_ctx ctx = { NULL, 0, 0, 0, NULL, NULL };
	char out[64];
	bool unknown;

	pack_symbols(&in, &sb);
	pack_lines(&in, &lb);
	if (utap_symtab_init(&st, sb.data, sb.size) || utap_linetab_init(&lt, lb.data, lb.size))
		abort();
	while (in.left) {
		unsigned variant = take(&in, 1);
		uint64_t addr = 0x1000 + (uint64_t)take(&in, 4) - 0x100;

		ctx = (struct utap_sym_ctx){ "/some/dir/module.so", 0x800, 0x90000, 0, &st, &lt };
		if (variant & 1)
			ctx.path = NULL;
		if (variant & 2)
			ctx.syms = NULL;
		if (variant & 4)
			ctx.lines = NULL;
		if (variant & 8)
			addr = (uint64_t)take(&in, 4) << 32 | take(&in, 4);
		check_format(addr, (variant & 16) ? NULL : &ctx, take(&in, 2) & 0xfff, take(&in, 1));
	}
	utap_sym_modname(out, sizeof(out), &ctx, &unknown);
	utap_sym_no_backtrace(out, sizeof(out), "process(\"/bin/true\").function(\"main\")",
			      UTAP_SYM_FULL, false);
	utap_blob_free(&sb);
	utap_blob_free(&lb);
	return 0;
}
