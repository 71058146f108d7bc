/*
 * fuzz_sym_validate.c - the runtime's validators on arbitrary bytes, as a
 * module receives tables from user space. What they accept is then looked
 * up and formatted in every mode.
 */
#include "unwind/sym.h"

#include <stdlib.h>
#include <string.h>

static const unsigned modes[] = {
	UTAP_SYM_FULL, UTAP_SYM_FULLER, UTAP_SYM_SIMPLE, UTAP_SYM_BRIEF, UTAP_SYM_DATA,
	UTAP_SYM_SYMBOL, UTAP_SYM_FILELINE, UTAP_SYM_FILENAME, UTAP_SYM_LINENUMBER,
};

static void exercise(const struct utap_symtab *st, const struct utap_linetab *lt)
{
	struct utap_sym_ctx ctx = { "/fuzz/prog", 0x400000, 0x800000, 0x400000, st, lt };
	uint64_t addrs[8] = { 0, 1, 0x400000, 0x400001, ~0ull, 0x7fffffff, 0, 0 };
	char out[128];
	size_t i, m;

	if (st && st->nsyms) {
		char name[UTAP_SYM_NAME_MAX];
		uint64_t a;

		utap_symtab_entry(st, 0, &a, name, sizeof(name));
		addrs[6] = ctx.bias + a;
		utap_symtab_entry(st, st->nsyms - 1, &a, name, sizeof(name));
		addrs[7] = ctx.bias + a + 3;
	} else if (lt && lt->nrows) {
		struct utap_line_iter it;
		struct utap_line_row row;

		utap_linetab_iter(&it, lt);
		while (utap_linetab_next(&it, &row))
			addrs[addrs[6] ? 7 : 6] = ctx.bias + row.addr;
	}
	for (i = 0; i < 8; i++)
		for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			if ((size_t)utap_sym_format(out, sizeof(out), addrs[i], &ctx, modes[m]) <
			    sizeof(out) && strlen(out) >= sizeof(out))
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *blob = aligned_alloc(8, (size + 7) & ~(size_t)7);
	struct utap_symtab st;
	struct utap_linetab lt;

	if (!blob)
		return 0;
	memcpy(blob, data, size);
	if (utap_symtab_init(&st, blob, size) == 0)
		exercise(&st, NULL);
	if (utap_linetab_init(&lt, blob, size) == 0)
		exercise(NULL, &lt);
	free(blob);
	return 0;
}
