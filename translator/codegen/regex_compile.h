/*
 * regex_compile.h - compiling a regular expression literal into the program the
 * module's matcher runs (runtime/core/regex.h).
 *
 * Self-contained (no arena, no diagnostics) so that the unit test and the
 * fuzzer can link it alone.
 */
#ifndef UTAP_REGEX_COMPILE_H
#define UTAP_REGEX_COMPILE_H

#include <stddef.h>

#include "core/regex.h"

struct rx_error {
	int pos;		/* offset in the pattern */
	char msg[160];
};

/* A compiled program, malloc'd: free with rx_free(). */
struct rx_compiled {
	struct utap_rx_prog prog;
	struct utap_rx_insn *insn;
	struct utap_rx_set *sets;
	int nsets;
};

/*
 * Compiles pattern[0, len) (stap's dialect of POSIX extended regular
 * expressions). NULL with *err filled in when the pattern is not valid or
 * is too large for the matcher's limits.
 */
struct rx_compiled *rx_compile(const char *pattern, size_t len, struct rx_error *err);
void rx_free(struct rx_compiled *rx);

#endif
