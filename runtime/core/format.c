// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - executes printf formats (pure core).
 *
 * Numbers follow the kernel's vsnprintf conventions that SystemTap users
 * see: "%#x" of 0 prints "0x0", "%p" prints like "%#x", every integer is 64
 * bits. Output is clipped to the buffer but the full length is returned.
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
		else if (base == 8 && tmp[n - 1] != '0')
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
}

static void emit_binary(struct out *o, u64 v, int width)
{
	int i, n = (width == 1 || width == 2 || width == 4) ? width : 8;

	/* native (little-endian) byte order, as stap writes %b */
	for (i = 0; i < n; i++)
		put(o, (char)(v >> (8 * i)));
}

static void emit_memory(struct out *o, u64 addr, bool hex, int flags, int width, int prec,
			utap_memread_fn memread, void *memctx)
{
	unsigned char chunk[64];
	int total = prec < 0 ? 1 : prec, done = 0;
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

			if (w < 0) {
				flags |= UTAP_FF_LEFT;
				w = -w;
			}
			width = w > 4096 ? 4096 : (int)w;
		}
		if (flags & UTAP_FF_PREC_ARG) {
			s64 pr = (args++)->l;

			prec = pr < 0 ? -1 : pr > 4096 ? 4096 : (int)pr;
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
		case UTAP_FC_CHAR: {
			char ch[2] = { (char)args->l, 0 };

			if (!(flags & UTAP_FF_LEFT))
				pad(&o, ' ', width - 1);
			put(&o, ch[0]);
			if (flags & UTAP_FF_LEFT)
				pad(&o, ' ', width - 1);
			break;
		}
		case UTAP_FC_BINARY:
			emit_binary(&o, (u64)args->l, width);
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
