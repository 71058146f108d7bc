/*
 * fuzz_sym_line.c - the .debug_line reader (unit headers of DWARF 2-5 and
 * the line number program) on arbitrary bytes. The first two bytes split
 * the input into .debug_line and .debug_line_str. Every table it builds
 * must validate in the runtime.
 */
#include "elf/symtab.h"
#include "unwind/sym.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utap_blob blob;
	struct utap_linetab lt;
	size_t split;
	uint32_t i;

	if (size < 2)
		return 0;
	split = ((size_t)data[0] | (size_t)data[1] << 8) % (size - 1);
	data += 2;
	size -= 2;
	if (utap_linetab_build_raw(data, split, data + split, size - split, NULL, 0,
				   "/fuzz/dir/prog", NULL, &blob) != 0)
		return 0;
	if (utap_linetab_init(&lt, blob.data, blob.size) != 0)
		abort();
	for (i = 0; i < lt.nrows && i < 64; i++) {
		const char *file;
		uint32_t line;

		utap_linetab_lookup(&lt, lt.base + lt.addr[i], &file, &line);
		if (file && strlen(file) > lt.str_size)
			abort();
	}
	utap_blob_free(&blob);
	return 0;
}
