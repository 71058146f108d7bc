/* SPDX-License-Identifier: GPL-2.0 */
/*
 * str.h - script strings are NUL-terminated char[MAXSTRINGLEN] (pure core).
 */
#ifndef UTAP_STR_H
#define UTAP_STR_H

#include "port.h"

/* Copies src into dst[size], truncating; returns dst. */
UTAP_OUTLINE char *utap_strlcpy(char *dst, const char *src, size_t size)
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
UTAP_OUTLINE char *utap_strlcat(char *dst, const char *src, size_t size)
{
	size_t n = 0;

	while (n < size && dst[n])
		n++;
	if (n < size)
		utap_strlcpy(dst + n, src, size - n);
	return dst;
}


/*
 * The escaped form of a string, as stap's text_str/text_strn and %#s give
 * it: \n \t \v \b \f \r \a \\ \" and \ooo for other unprintable bytes.
 * inlen 0: the whole input. quoted: between double quotes, followed by "..."
 * when the input did not fit.
 */
static inline void utap_text_escape(char *out, size_t size, const char *in, size_t inlen,
				    bool quoted)
{
	static const char from[] = "\n\t\v\b\f\r\a\\\"", to[] = "ntvbfra\\\"";
	size_t o = 0, i, room = size - 1 - (quoted ? 5 : 0);	/* closing quote + "..." */
	bool cut = false;

	if (size < 8) {
		if (size)
			out[0] = 0;
		return;
	}
	if (quoted)
		out[o++] = '"';
	for (i = 0; in[i] && (!inlen || i < inlen); i++) {
		unsigned char ch = (unsigned char)in[i];
		const char *e = ch ? memchr(from, ch, sizeof(from) - 1) : NULL;
		size_t need = e ? 2 : (ch < 32 || ch >= 127) ? 4 : 1;

		if (o + need > room) {
			cut = true;
			break;
		}
		if (e) {
			out[o++] = '\\';
			out[o++] = to[e - from];
		} else if (need == 4) {
			out[o++] = '\\';
			out[o++] = '0' + (ch >> 6);
			out[o++] = '0' + ((ch >> 3) & 7);
			out[o++] = '0' + (ch & 7);
		} else {
			out[o++] = (char)ch;
		}
	}
	if (inlen && in[i] && i == inlen)
		cut = true;
	if (quoted) {
		out[o++] = '"';
		if (cut) {
			memcpy(out + o, "...", 3);
			o += 3;
		}
	}
	out[o] = 0;
}

#endif
