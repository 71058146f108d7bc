/* SPDX-License-Identifier: GPL-2.0 */
/*
 * str.h - script strings are NUL-terminated char[MAXSTRINGLEN] (pure core).
 */
#ifndef UTAP_STR_H
#define UTAP_STR_H

#include "port.h"

/* Copies src into dst[size], truncating; returns dst. */
static inline char *utap_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = 0;

	if (!size)
		return dst;
	if (dst != src) {
		while (n + 1 < size && src[n]) {
			dst[n] = src[n];
			n++;
		}
		dst[n] = 0;
	}
	return dst;
}

/* Appends src to dst[size], truncating; dst and src may not overlap. */
static inline char *utap_strlcat(char *dst, const char *src, size_t size)
{
	size_t n = 0;

	while (n < size && dst[n])
		n++;
	if (n < size)
		utap_strlcpy(dst + n, src, size - n);
	return dst;
}

#endif
