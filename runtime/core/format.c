// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - executes printf formats (pure core).
 *
 * Output is what stap 4.8's runtime prints (measured in the guest): the
 * kernel's old number() conventions ("%#x" of 0 prints "0x0", "%#o" of 0
 * "00", '0' pads up to the width even with a precision), "%p" is "%#x",
 * "%#c" escapes, a '0' flag on %s/%m/%M appends a NUL byte, %b pads with
 * NULs. Every integer is 64 bits. Output is clipped to the buffer but the
 * full length is returned.
 */
#include "format.h"

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_n(struct out *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(o, s[i]);
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static size_t emit_number(struct out *o, u64 v, int base, bool is_signed, int flags,
			  int width, int prec, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], sign = 0;
	const char *prefix = "";
	int n = 0, len, zeros, start = (int)o->len;

	if (is_signed && (s64)v < 0) {
		sign = '-';
		v = 0 - v;
	} else if (is_signed && (flags & UTAP_FF_PLUS)) {
		sign = '+';
	} else if (is_signed && (flags & UTAP_FF_SPACE)) {
		sign = ' ';
	}
	do {
		tmp[n++] = digits[v % (u64)base];
		v /= (u64)base;
	} while (v);
	if (flags & UTAP_FF_ALT) {
		if (base == 16)
			prefix = upper ? "0X" : "0x";
		else if (base == 8)
			prefix = "0";
	}
	zeros = prec > n ? prec - n : 0;
	len = (sign ? 1 : 0) + (int)strlen(prefix) + zeros + n;
	/* as the kernel's vsnprintf: '0' pads to the width even with a precision */
	if (!(flags & UTAP_FF_LEFT)) {
		if (flags & UTAP_FF_ZERO)
			zeros += width > len ? width - len : 0;
		else
			pad(o, ' ', width - len);
	}
	if (sign)
		put(o, sign);
	put_n(o, prefix, strlen(prefix));
	pad(o, '0', zeros);
	while (n > 0)
		put(o, tmp[--n]);
	if (flags & UTAP_FF_LEFT)
		pad(o, ' ', width - ((int)o->len - start));
	return o->len - (size_t)start;
}

size_t utap_format_number(char *out, size_t size, u64 value, int base, bool is_signed,
			  int flags, int width, int prec, bool upper)
{
	struct out o = { .buf = out, .size = size };

	return emit_number(&o, value, base, is_signed, flags, width, prec, upper);
}

/* stap's '0' flag on a string or memory conversion ends it with a NUL byte */
static void end_field(struct out *o, int flags)
{
	if (flags & UTAP_FF_ZERO)
		put(o, 0);
}

static void emit_string(struct out *o, const char *s, int flags, int width, int prec)
{
	size_t n = 0;

	if (!s)
		s = "";
	while (s[n] && (prec < 0 || n < (size_t)prec))
		n++;
	if (!(flags & UTAP_FF_LEFT))
		pad(o, ' ', width - (int)n);
	put_n(o, s, n);
	if (flags & UTAP_FF_LEFT)
		pad(o, ' ', width - (int)n);
	end_field(o, flags);
}

/* The C escape "%#c" prints for c: 0 when c prints as itself, 'o' for octal. */
static char char_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '\'': return '\'';
	case '\\': return '\\';
	default: return c >= 0x20 && c < 0x7f ? 0 : 'o';
	}
}

static void emit_char(struct out *o, unsigned char c, int flags, int width)
{
	char esc = (flags & UTAP_FF_ALT) ? char_escape(c) : 0;
	int size = !esc ? 1 : esc == 'o' ? 4 : 2;

	if (!(flags & UTAP_FF_LEFT))
		pad(o, ' ', width - size);
	if (!esc) {
		put(o, (char)c);
	} else {
		put(o, '\\');
		if (esc != 'o') {
			put(o, esc);
		} else {
			put(o, (char)('0' + (c >> 6)));
			put(o, (char)('0' + ((c >> 3) & 7)));
			put(o, (char)('0' + (c & 7)));
		}
	}
	if (flags & UTAP_FF_LEFT)
		pad(o, ' ', width - size);
}

static int binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/*
 * %b writes the number's low bytes in native (little-endian) order: the
 * precision says how many (1, 2, 4 or 8), the width defaults to it and
 * vice versa (8 when neither fits), and NUL bytes pad to the width.
 */
static void emit_binary(struct out *o, u64 v, int flags, int width, int prec)
{
	int i;

	prec = binary_size(prec);
	if (width < 0)
		width = prec < 0 ? 8 : prec;
	if (prec < 0)
		prec = binary_size(width) < 0 ? 8 : width;
	if (!(flags & UTAP_FF_LEFT))
		pad(o, 0, width - prec);
	for (i = 0; i < prec; i++)
		put(o, (char)(v >> (8 * i)));
	if (flags & UTAP_FF_LEFT)
		pad(o, 0, width - prec);
}

static void emit_memory(struct out *o, u64 addr, bool hex, int flags, int width, int prec,
			utap_memread_fn memread, void *memctx)
{
	unsigned char chunk[64];
	int total = prec > 0 ? prec : 1, done = 0;
	int outlen = hex ? 2 * total : total;
	static const char hexd[] = "0123456789abcdef";

	if (!(flags & UTAP_FF_LEFT))
		pad(o, ' ', width - outlen);
	while (done < total) {
		int n = total - done > (int)sizeof(chunk) ? (int)sizeof(chunk) : total - done;
		int i;

		if (!memread || memread(memctx, addr + (u64)done, chunk, (size_t)n))
			memset(chunk, 0, (size_t)n);
		for (i = 0; i < n; i++) {
			if (hex) {
				put(o, hexd[chunk[i] >> 4]);
				put(o, hexd[chunk[i] & 15]);
			} else {
				put(o, (char)chunk[i]);
			}
		}
		done += n;
	}
	if (flags & UTAP_FF_LEFT)
		pad(o, ' ', width - outlen);
	end_field(o, flags);
}

size_t utap_format(char *buf, size_t size, const struct utap_fmt_piece *fmt,
		   const union utap_arg *args, utap_memread_fn memread, void *memctx)
{
	struct out o = { .buf = buf, .size = size };
	const struct utap_fmt_piece *p;
	int flags, width, prec;

	for (p = fmt; p->conv != UTAP_FC_END; p++) {
		flags = p->flags;
		width = p->width;
		prec = p->prec;
		if (p->conv == UTAP_FC_LIT) {
			put_n(&o, p->lit, p->lit_len);
			continue;
		}
		if (flags & UTAP_FF_WIDTH_ARG) {
			s64 w = (args++)->l;

			/* stap 4.8 ignores a negative '*' width (measured), not left-justifies */
			width = w < 0 ? -1 : w > 4096 ? 4096 : (int)w;
		}
		if (flags & UTAP_FF_PREC_ARG) {
			s64 pr = (args++)->l;

			/* as stap: a negative '*' precision is 0, not "none" */
			prec = pr < 0 ? 0 : pr > 4096 ? 4096 : (int)pr;
		}
		switch (p->conv) {
		case UTAP_FC_SIGNED:
			emit_number(&o, (u64)args->l, 10, true, flags, width, prec, false);
			break;
		case UTAP_FC_UNSIGNED:
			emit_number(&o, (u64)args->l, 10, false, flags, width, prec, false);
			break;
		case UTAP_FC_OCTAL:
			emit_number(&o, (u64)args->l, 8, false, flags, width, prec, false);
			break;
		case UTAP_FC_HEX:
		case UTAP_FC_HEX_UPPER:
			emit_number(&o, (u64)args->l, 16, false, flags, width, prec,
				    p->conv == UTAP_FC_HEX_UPPER);
			break;
		case UTAP_FC_POINTER:
			emit_number(&o, (u64)args->l, 16, false, flags | UTAP_FF_ALT, width,
				    prec, false);
			break;
		case UTAP_FC_STRING:
			emit_string(&o, args->s, flags, width, prec);
			break;
		case UTAP_FC_CHAR:
			emit_char(&o, (unsigned char)args->l, flags, width);
			break;
		case UTAP_FC_BINARY:
			emit_binary(&o, (u64)args->l, flags, width, prec);
			break;
		case UTAP_FC_MEMORY:
		case UTAP_FC_MEMORY_HEX:
			emit_memory(&o, (u64)args->l, p->conv == UTAP_FC_MEMORY_HEX, flags, width,
				    prec, memread, memctx);
			break;
		default:
			break;
		}
		args++;
	}
	return o.len;
}
