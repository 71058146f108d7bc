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
 * One character of in (at most len bytes) as stap's runtime decodes it: a
 * 2-4 byte UTF-8 sequence as its code point, anything else (ASCII, bad or
 * overlong UTF-8, surrogates) as one byte. Returns the bytes used.
 */
static inline int utap_text_utf8_char(const unsigned char *in, int len, u32 *cp)
{
	int n = (in[0] & 0xe0) == 0xc0 ? 2 : (in[0] & 0xf0) == 0xe0 ? 3 :
		(in[0] & 0xf8) == 0xf0 ? 4 : 1;
	u32 c = in[0] & (n == 2 ? 0x1f : n == 3 ? 0xf : 0x7);
	int i;

	*cp = in[0];
	if (n == 1 || len < n)
		return 1;
	for (i = 1; i < n; i++) {
		if ((in[i] & 0xc0) != 0x80)
			return 1;
		c = (c << 6) | (in[i] & 0x3f);
	}
	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c < 0x80 ||
	    (n == 3 && c < 0x800) || (n == 4 && c < 0x10000))
		return 1;
	*cp = c;
	return n;
}

/* The escape stap's text_str gives c: its length, written at out when room allows. */
static inline int utap_text_escape_one(char *out, u32 c, int multibyte, int room)
{
	static const char from[] = "\a\b\f\n\r\t\v\"\\", to[] = "abfnrtv\"\\";
	const char *e = c && c < 0x80 ? memchr(from, (int)c, sizeof(from) - 1) : NULL;
	int n = multibyte ? (c <= 0xffff ? 6 : 10) : e ? 2 : c >= 0x20 && c < 0x7f ? 1 : 4;
	int i;

	if (n > room)
		return n;
	if (n == 1) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	if (multibyte) {
		out[1] = c <= 0xffff ? 'u' : 'U';
		for (i = 0; i < n - 2; i++)
			out[2 + i] = "0123456789ABCDEF"[(c >> (4 * (n - 3 - i))) & 15];
	} else if (e) {
		out[1] = to[e - from];
	} else {
		out[1] = (char)('0' + ((c >> 6) & 3));
		out[2] = (char)('0' + ((c >> 3) & 7));
		out[3] = (char)('0' + (c & 7));
	}
	return n;
}

/*
 * The escaped form of a string as stap 4.8's text_str, text_strn and
 * string_quoted give it (its _stp_text_str, measured): C escapes, \ooo
 * for other unprintable bytes, \uXXXX for UTF-8. outlen (0: all) bounds
 * the output; quoted puts it between double quotes, and a cut one ends in
 * "... with whole escapes only.
 */
static inline void utap_text_escape(char *out, size_t size, const char *in, int outlen,
				    bool quoted)
{
	const unsigned char *p = (const unsigned char *)in;
	int inlen = (int)size - 1, o = 0, esc = -1, esc_len = 0, n = 0;
	u32 c = 0;

	if (outlen <= 0 || outlen > (int)size - 1)
		outlen = (int)size - 1;
	if (quoted) {
		outlen = (outlen > 5 ? outlen : 5) - 2;
		out[o++] = '"';
	}
	while (inlen > 0) {
		int used = utap_text_utf8_char(p, inlen, &c);

		if (!c || outlen <= 0)
			break;
		p += used;
		inlen -= used;
		n = utap_text_escape_one(out + o, c, used > 1, outlen);
		/* the first escape that a cut 3 bytes before the end would split */
		if (n > 1 && esc < 0 && outlen - 3 < n) {
			esc = o;
			esc_len = n;
		}
		if (n > outlen)
			break;
		o += n;
		outlen -= n;
	}
	if (quoted && c && inlen > 0) {
		int cut = o - 3 + outlen;

		o = esc >= 0 && esc < cut && cut < esc + esc_len ? esc : cut;
		memcpy(out + o, "\"...", 4);
		o += 4;
	} else if (quoted) {
		out[o++] = '"';
	}
	out[o] = 0;
}

#endif
