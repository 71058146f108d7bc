// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - a probe's output is gathered in its context and leaves as one
 * record when the handler ends (or earlier, at a print boundary, when the
 * buffer fills), so output of concurrent probes never interleaves mid-line.
 */

UTAP_API void utap_print_flush(struct utap_context *c)
{
	if (!c->printlen)
		return;
	utap_transport_write(UTAP_REC_STDOUT, 0, c->printbuf, c->printlen, c->nprints);
	c->printlen = 0;
	c->nprints = 0;
}

/* Raw bytes; longer than the buffer goes out in several records. */
UTAP_API void utap_print_bytes(struct utap_context *c, const char *s, size_t n)
{
	if (c->printlen + n > UTAP_PRINTBUF)
		utap_print_flush(c);
	while (n > UTAP_PRINTBUF) {
		memcpy(c->printbuf, s, UTAP_PRINTBUF);
		c->printlen = UTAP_PRINTBUF;
		utap_print_flush(c);
		s += UTAP_PRINTBUF;
		n -= UTAP_PRINTBUF;
	}
	memcpy(c->printbuf + c->printlen, s, n);
	c->printlen += n;
}

/* print(long): the decimal digits; the caller counts the print call */
UTAP_API void utap_print_long_raw(struct utap_context *c, s64 v)
{
	char buf[24];
	size_t n = utap_format_number(buf, sizeof(buf), (u64)v, 10, true, 0, -1, -1, false);

	utap_print_bytes(c, buf, n);
}

UTAP_API void utap_strcat_long(char *dst, s64 v)
{
	char buf[24];
	size_t n = utap_format_number(buf, sizeof(buf) - 1, (u64)v, 10, true, 0, -1, -1, false);

	buf[n] = 0;
	utap_strlcat(dst, buf, MAXSTRINGLEN);
}

static int utap_read_kernel(void *ctx, u64 addr, void *dst, size_t len)
{
	return copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr, len) ? -EFAULT : 0;
}

UTAP_API void utap_printf(struct utap_context *c, const struct utap_fmt_piece *fmt,
			  const union utap_arg *args)
{
	size_t room = UTAP_PRINTBUF - c->printlen;
	size_t need = utap_format(c->printbuf + c->printlen, room, fmt, args,
				  utap_read_kernel, NULL);

	if (need > room) {
		/* keep records on print boundaries: flush, then format again */
		utap_print_flush(c);
		need = utap_format(c->printbuf, UTAP_PRINTBUF, fmt, args, utap_read_kernel, NULL);
		if (need > UTAP_PRINTBUF)
			need = UTAP_PRINTBUF;
	}
	c->printlen += need;
	c->nprints++;
}

/* sprintf into a script string */
UTAP_API void utap_sprintf(char *dst, const struct utap_fmt_piece *fmt, const union utap_arg *args)
{
	size_t n = utap_format(dst, MAXSTRINGLEN - 1, fmt, args, utap_read_kernel, NULL);

	dst[n < MAXSTRINGLEN - 1 ? n : MAXSTRINGLEN - 1] = 0;
}
