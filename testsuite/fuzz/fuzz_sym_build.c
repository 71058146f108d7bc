/*
 * fuzz_sym_build.c - the symbol and line table builders on arbitrary ELF
 * bytes (opened with elf_memory, minidebuginfo decompressed, no file system
 * lookups). Whatever the builders accept must validate in the runtime.
 */
#include "elf/symtab.h"
#include "unwind/sym.h"

#include <stdlib.h>
#include <string.h>

static void use_tables(const struct utap_blob *sym, const struct utap_blob *line)
{
	struct utap_symtab st;
	struct utap_linetab lt;
	struct utap_sym_ctx ctx = { "/fuzz/prog", 0x1000, 0x100000, 0x1000, NULL, NULL };
	char out[256];
	uint32_t i;

	if (utap_symtab_init(&st, sym->data, sym->size) != 0)
		abort();	/* the builder made a blob the runtime rejects */
	if (line->data && utap_linetab_init(&lt, line->data, line->size) != 0)
		abort();
	ctx.syms = &st;
	ctx.lines = line->data ? &lt : NULL;
	for (i = 0; i < st.nsyms && i < 64; i++) {
		char name[UTAP_SYM_NAME_MAX];
		uint64_t a;

		utap_symtab_entry(&st, i, &a, name, sizeof(name));
		utap_sym_format(out, sizeof(out), ctx.bias + a + 1, &ctx, UTAP_SYM_FULLER);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utap_blob sym = { 0 }, line = { 0 };
	struct utap_debuginfo di;
	void *image = malloc(size ? size : 1);

	memcpy(image, data, size);
	if (utap_debuginfo_open_memory(&di, image, size, NULL, NULL, UTAP_DI_MINI) == 0) {
		if (utap_symtab_build(&di, 0, &sym) == 0) {
			if (utap_linetab_build(&di, "/fuzz/prog", &line) != 0)
				line.data = NULL;
			use_tables(&sym, &line);
		}
		utap_debuginfo_close(&di);
	}
	utap_blob_free(&sym);
	utap_blob_free(&line);
	free(image);
	return 0;
}
