// SPDX-License-Identifier: GPL-2.0
/*
 * symbuild.c - the deduplicating string table behind symbol and line
 * table blobs. Names repeat a lot (aliases, one source file per row), so
 * each distinct string is stored once.
 */
#include "elf/symbuild.h"
#include "base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void strpool_init(struct sym_strpool *p)
{
	memset(p, 0, sizeof(*p));
}

void strpool_free(struct sym_strpool *p)
{
	free(p->buf);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

/* Slot holding S, or the empty slot where it belongs. */
static uint32_t *find_slot(const struct sym_strpool *p, const char *s, uint64_t h)
{
	size_t mask = p->nslots - 1, i = h & mask;

	while (p->slots[i] && strcmp(p->buf + p->slots[i] - 1, s) != 0)
		i = (i + 1) & mask;
	return &p->slots[i];
}

static int grow_slots(struct sym_strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 1024, i;
	uint32_t *old = p->slots;
	size_t old_n = p->nslots;

	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots) {
		p->slots = old;
		return -ENOMEM;
	}
	p->nslots = n;
	for (i = 0; i < old_n; i++)
		if (old[i])
			*find_slot(p, p->buf + old[i] - 1, hash_str(p->buf + old[i] - 1)) = old[i];
	free(old);
	return 0;
}

static int append_bytes(struct sym_strpool *p, const char *s, size_t n)
{
	if (p->len + n > 0xfffffffeu)
		return -E2BIG;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		char *nbuf;

		while (cap < p->len + n)
			cap *= 2;
		nbuf = realloc(p->buf, cap);
		if (!nbuf)
			return -ENOMEM;
		p->buf = nbuf;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	return 0;
}

int strpool_add(struct sym_strpool *p, const char *s, uint32_t *off)
{
	uint64_t h = hash_str(s);
	uint32_t *slot;
	int err;

	if ((p->count + 1) * 2 > p->nslots && (err = grow_slots(p)) != 0)
		return err;
	slot = find_slot(p, s, h);
	if (!*slot) {
		uint32_t at = (uint32_t)p->len;

		err = append_bytes(p, s, strlen(s) + 1);
		if (err)
			return err;
		*slot = at + 1;
		p->count++;
	}
	*off = *slot - 1;
	return 0;
}

size_t strpool_size(const struct sym_strpool *p)
{
	return p->len ? p->len : 1;
}

void strpool_copy(const struct sym_strpool *p, void *dst)
{
	if (p->len)
		memcpy(dst, p->buf, p->len);
	else
		*(char *)dst = '\0';
}
