/* strbuf.c - growable strings for generated code and relayed output. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static void sb_grow(struct strbuf *sb, size_t need)
{
	size_t cap;

	if (sb->len + need + 1 <= sb->cap)
		return;
	cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + need + 1)
		cap *= 2;
	sb->buf = realloc(sb->buf, cap);
	if (!sb->buf)
		fatal("out of memory");
	sb->cap = cap;
}

void sb_putn(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	sb_grow(sb, n);
	vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	sb->len += n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
