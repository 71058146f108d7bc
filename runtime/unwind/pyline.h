/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pyline.h - the line of an instruction from a CPython 3.11 code object's
 * location table (co_linetable). Pure: the bytes come from a callback, the
 * thread's memory in the module, an array in the unit test.
 */
#ifndef UTAP_UNWIND_PYLINE_H
#define UTAP_UNWIND_PYLINE_H

#include "core/port.h"

/* The next byte of the table, or -1 at its end (or when it cannot be read). */
typedef int (*utap_pyline_next)(void *ctx);

/*
 * The line of code unit ADDR (an index: byte offset / 2) of a code object
 * whose first line is FIRST. -1 for an instruction without a line; 0 when
 * the table ends before ADDR or is malformed. ADDR < 0 (a frame that has
 * not run its first instruction) is FIRST.
 */
int utap_pyline_find(utap_pyline_next next, void *ctx, int first, s64 addr);

#endif /* UTAP_UNWIND_PYLINE_H */
