/*
 * pb.c - protobuf wire format, written by hand: a field is a key (field
 * number << 3 | wire type) then a varint (type 0) or a length and bytes
 * (type 2). Only what profile.proto uses is here.
 */
#include "runner/trace/pb.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

enum { PB_VARINT = 0, PB_LEN = 2 };

void pb_put(struct pb *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = b->oom ? NULL : realloc(b->buf, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->buf = p;
		b->cap = cap;
	}
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
}

void pb_varint(struct pb *b, uint64_t v)
{
	char buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_put(b, buf, n);
}

static void pb_key(struct pb *b, unsigned field, unsigned type)
{
	pb_varint(b, (uint64_t)field << 3 | type);
}

void pb_uint0(struct pb *b, unsigned field, uint64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	if (v)
		pb_uint0(b, field, v);
}

void pb_int(struct pb *b, unsigned field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	pb_key(b, field, PB_LEN);
	pb_varint(b, len);
	pb_put(b, data, len);
}

void pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
	pb_bytes(b, field, sub->buf, sub->len);
	b->oom |= sub->oom;
	sub->len = 0;
}

void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n)
{
	struct pb tmp = { 0 };

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		pb_varint(&tmp, v[i]);
	pb_msg(b, field, &tmp);
	pb_free(&tmp);
}

void pb_free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* --- string table -------------------------------------------------------- */

static bool pb_strtab_rehash(struct pb_strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 256;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash_str(t->strs[i]) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return true;
}

static bool pb_strtab_add(struct pb_strtab *t, const char *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **strs = realloc(t->strs, cap * sizeof(*strs));

		if (!strs)
			return false;
		t->strs = strs;
		t->cap = cap;
	}
	t->strs[t->n] = strdup(s);
	if (!t->strs[t->n])
		return false;
	t->n++;
	return true;
}

int64_t pb_str(struct pb_strtab *t, const char *s)
{
	size_t j;

	if (!t->n && !pb_strtab_add(t, ""))
		t->oom = true;
	if (!s || !*s || t->oom)
		return 0;
	if ((t->n + 1) * 2 > t->nslots && !pb_strtab_rehash(t)) {
		t->oom = true;
		return 0;
	}
	for (j = hash_str(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (!strcmp(t->strs[t->slots[j] - 1], s))
			return t->slots[j] - 1;
	if (!pb_strtab_add(t, s)) {
		t->oom = true;
		return 0;
	}
	t->slots[j] = t->n;
	return t->n - 1;
}

void pb_strings(struct pb *b, unsigned field, const struct pb_strtab *t)
{
	if (!t->n) {
		pb_bytes(b, field, "", 0);
		return;
	}
	b->oom |= t->oom;
	for (size_t i = 0; i < t->n; i++)
		pb_bytes(b, field, t->strs[i], strlen(t->strs[i]));
}

void pb_strtab_free(struct pb_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
