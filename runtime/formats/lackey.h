/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lackey.h - the text trace of Valgrind's Lackey tool (--trace-mem=yes),
 * instruction lines only: "I  ADDR,SIZE\n" with ADDR in lowercase hex of at
 * least 8 digits (zero-padded, no 0x) and SIZE in decimal. Lackey's data
 * lines (" L/S/M ADDR,SIZE") need the access kind and size, which a step
 * does not carry, so none are written. Pure core.
 */
#ifndef UTAP_FORMATS_LACKEY_H
#define UTAP_FORMATS_LACKEY_H

#include "core/port.h"

#define UTAP_LACKEY_LINE_MAX 24	/* "I  " + 16 digits + "," + 3 digits + "\n" */

/* Write one line (no NUL) into OUT, which has UTAP_LACKEY_LINE_MAX bytes; returns its length. */
size_t utap_lackey_insn(char *out, u64 ip, unsigned int len);

#endif /* UTAP_FORMATS_LACKEY_H */
