// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uwbuild - the unwind-table builder on arbitrary ELF bytes.
 *
 * Whatever the input, the builder returns an error or a table that the
 * runtime validator accepts; lookups in it stay inside the blob.
 */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "elf/uwbuild.h"
#include "unwind/uwtab.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct uw_build_stats st;
	struct uw_blob blob;
	char err[256];
	char *copy;
	Elf *elf;

	if (size > (1u << 20))
		return 0;
	elf_version(EV_CURRENT);
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf && !uw_build_elf(elf, NULL, NULL, &blob, &st, err, sizeof(err))) {
		const struct uwt_header *h = blob.data;
		u64 pc, step = (h->text_end - h->text_start) / 256 + 1;

		if (uw_table_validate(blob.data, blob.len))
			abort();
		for (pc = h->text_start; pc < h->text_end; pc += step)
			if (!uw_table_lookup(blob.data, pc))
				abort();
		uw_blob_free(&blob);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return 0;
}
