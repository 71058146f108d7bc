// SPDX-License-Identifier: GPL-2.0
/*
 * lackey.c - "I  ADDR,SIZE" lines (see lackey.h).
 */
#include "formats/lackey.h"

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
