// SPDX-License-Identifier: GPL-2.0
/*
 * lackey.c - "I  ADDR,SIZE" lines (see lackey.h).
 */
#include "formats/lackey.h"
#include "formats/codec.h"

size_t utap_lackey_insn(char *out, u64 ip, unsigned int len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int digits = 8, i;
	char *p = out;

	while (digits < 16 && (ip >> (4 * digits)))
		digits++;
	*p++ = 'I';
	*p++ = ' ';
	*p++ = ' ';
	for (i = digits; i > 0; i--)
		*p++ = hex[(ip >> (4 * (i - 1))) & 0xf];
	*p++ = ',';
	if (len > 999)
		len = 999;
	if (len >= 100)
		*p++ = '0' + len / 100;
	if (len >= 10)
		*p++ = '0' + len / 10 % 10;
	*p++ = '0' + len % 10;
	*p++ = '\n';
	return p - out;
}

/* The streaming format's row (formats/codec.h): one line per step, nothing held back. */
static void lackey_codec_init(void *state, unsigned int isa)
{
}

static int lackey_codec_step(void *state, const struct utap_trace_step *s, u8 *out, size_t room)
{
	return utap_lackey_insn((char *)out, s->ip, (s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len);
}

_Static_assert(UTAP_LACKEY_LINE_MAX <= UTAP_FMT_STEP_MAX, "lackey step");

const struct utap_fmt_codec utap_fmt_lackey = {
	.name = "lackey",
	.init = lackey_codec_init,
	.step = lackey_codec_step,
};
