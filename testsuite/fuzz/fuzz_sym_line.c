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
	struct utap_line_iter it;
	struct utap_line_row row;
	size_t split;
	uint32_t n = 0;

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
	utap_linetab_iter(&it, &lt);
	while (utap_linetab_next(&it, &row)) {
		const char *file;
		uint32_t line;
		bool found = utap_linetab_lookup(&lt, row.addr, &file, &line);

		/* every row is found where it starts, with what it says */
		if (found != (row.file != UTAP_LINE_GAP) || (found && line != row.line))
			abort();
		if (found && file != utap_linetab_file(&lt, row.file))
			abort();
		n++;
	}
	if (n != lt.nrows)
		abort();
	utap_blob_free(&blob);
	return 0;
}
