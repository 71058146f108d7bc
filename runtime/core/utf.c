// SPDX-License-Identifier: GPL-2.0
/*
 * utf.c - UTF-16 and UTF-32 strings in memory turned into UTF-8 (pure core).
 *
 * The caller gives the reader (kernel or user memory, or a test buffer).
 * A string ends at a zero unit or where the output is full; a character
 * that does not fit is left out whole.
 */
#ifndef UTAP_CORE_UTF_C
#define UTAP_CORE_UTF_C

#include "port.h"

#ifndef __KERNEL__
#include <stdio.h>
#endif

/* Reads len bytes at addr into dst: 0, or nonzero on a fault. */
typedef int (*utap_utf_read_fn)(void *dst, u64 addr, size_t len);

enum { UTAP_UTF_OK = 0, UTAP_UTF_FAULT = 1, UTAP_UTF_INVALID = 2 };

/* What went wrong where: the unit's address, and the character if invalid. */
struct utap_utf_error {
	u64 addr;
	u32 cp;
};

/*
 * Writes code point cp as UTF-8 at dst with room bytes (a NUL after it).
 * Returns its length, 0 when it does not fit, -1 for a surrogate or a
 * value above U+10FFFF.
 */
static int utap_utf8_put(char *dst, size_t room, u32 cp)
{
	static const u8 lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	int i;

	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	if ((size_t)len + 1 > room)
		return 0;
	if (len == 1) {
		dst[0] = (char)cp;
	} else {
		for (i = len - 1; i > 0; i--) {
			dst[i] = (char)(0x80 | (cp & 0x3f));
			cp >>= 6;
		}
		dst[0] = (char)(lead[len] | cp);
	}
	dst[len] = 0;
	return len;
}

/* The unit of width bytes (2 or 4) at addr into *u. */
static int utap_utf_unit(utap_utf_read_fn rd, u64 addr, int width, u32 *u)
{
	u16 u16v;

	if (width == 4)
		return rd(u, addr, 4);
	if (rd(&u16v, addr, 2))
		return -1;
	*u = u16v;
	return 0;
}

/*
 * The character at *addr, advancing *addr past it: a UTF-16 high surrogate
 * takes the low one after it; a lone surrogate stays as it is (invalid).
 */
static int utap_utf_next(utap_utf_read_fn rd, u64 *addr, int width, u32 *cp,
			 struct utap_utf_error *err)
{
	u32 lo;

	err->addr = *addr;
	if (utap_utf_unit(rd, *addr, width, cp))
		return UTAP_UTF_FAULT;
	*addr += width;
	if (width != 2 || *cp < 0xd800 || *cp > 0xdbff)
		return UTAP_UTF_OK;
	if (utap_utf_unit(rd, *addr, width, &lo)) {
		err->addr = *addr;
		return UTAP_UTF_FAULT;
	}
	if (lo >= 0xdc00 && lo <= 0xdfff) {
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
		*addr += width;
	}
	return UTAP_UTF_OK;
}

/*
 * The string of width-byte units (2: UTF-16, 4: UTF-32) at addr into
 * out[size] as UTF-8. Returns UTAP_UTF_OK, or UTAP_UTF_FAULT /
 * UTAP_UTF_INVALID with *err saying where (out holds what came before).
 */
static int utap_utf_string(char *out, size_t size, u64 addr, int width,
			   utap_utf_read_fn rd, struct utap_utf_error *err)
{
	size_t pos = 0;

	out[0] = 0;
	while (size - pos > 1) {
		u32 cp;
		int rc = utap_utf_next(rd, &addr, width, &cp, err);

		if (rc)
			return rc;
		if (!cp)
			break;
		rc = utap_utf8_put(out + pos, size - pos, cp);
		if (rc < 0) {
			err->cp = cp;
			return UTAP_UTF_INVALID;
		}
		if (!rc)
			break;
		pos += rc;
	}
	return UTAP_UTF_OK;
}

/*
 * stap's message for what utap_utf_string() returned (rc not OK), of a
 * string in space ("kernel", "user"), into buf[n].
 */
static void utap_utf_message(char *buf, size_t n, int rc, const struct utap_utf_error *err,
			     int width, const char *space)
{
	if (rc == UTAP_UTF_INVALID)
		snprintf(buf, n, "invalid UTF-%d character U+%X at 0x%llx", width * 8,
			 (unsigned int)err->cp, (unsigned long long)err->addr);
	else
		snprintf(buf, n, "%s string copy fault at 0x%llx [man error::fault]", space,
			 (unsigned long long)err->addr);
}

#endif /* UTAP_CORE_UTF_C */
