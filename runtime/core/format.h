/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.h - stap's printf formats, executed (pure core).
 *
 * The translator parses and type-checks each format at translate time and
 * emits it as an array of pieces; the module only walks the array.
 */
#ifndef UTAP_FORMAT_H
#define UTAP_FORMAT_H

#include "port.h"

enum utap_fc {
	UTAP_FC_END,
	UTAP_FC_LIT,
	UTAP_FC_SIGNED,
	UTAP_FC_UNSIGNED,
	UTAP_FC_OCTAL,
	UTAP_FC_HEX,
	UTAP_FC_HEX_UPPER,
	UTAP_FC_POINTER,
	UTAP_FC_STRING,
	UTAP_FC_CHAR,
	UTAP_FC_MEMORY,
	UTAP_FC_MEMORY_HEX,
	UTAP_FC_BINARY,
};

enum {
	UTAP_FF_LEFT = 1,
	UTAP_FF_PLUS = 2,
	UTAP_FF_SPACE = 4,
	UTAP_FF_ALT = 8,
	UTAP_FF_ZERO = 16,
	UTAP_FF_WIDTH_ARG = 32,	/* '*': width comes from the argument list */
	UTAP_FF_PREC_ARG = 64,
};

struct utap_fmt_piece {
	u8 conv;		/* enum utap_fc */
	u8 flags;		/* UTAP_FF_* */
	s16 width;		/* -1: none */
	s16 prec;		/* -1: none */
	u16 lit_len;
	const char *lit;
};

union utap_arg {
	s64 l;
	const char *s;
};

/*
 * Reads len bytes at addr for %m/%M; returns 0 or -EFAULT. NULL means
 * memory conversions print nothing but their padding.
 */
typedef int (*utap_memread_fn)(void *ctx, u64 addr, void *dst, size_t len);

/*
 * Formats into out (at most size bytes, no NUL is written) and returns the
 * number of bytes the whole output needs, like snprintf without the NUL.
 * Output containing %b binary data may contain NUL bytes.
 */
size_t utap_format(char *out, size_t size, const struct utap_fmt_piece *fmt,
		   const union utap_arg *args, utap_memread_fn memread, void *memctx);

/* One number as %d/%u/%x... would print it (the building block of the above). */
size_t utap_format_number(char *out, size_t size, u64 value, int base, bool is_signed,
			  int flags, int width, int prec, bool upper);

#endif
