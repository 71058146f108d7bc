/*
 * proto.c - protobuf wire format, written by hand: a field is a key (field
 * number << 3 | wire type) then a varint (type 0) or a length and bytes
 * (type 2). Only what profile.proto uses is here.
 */
#include "runner/trace/proto.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

enum { PROTO_VARINT = 0, PROTO_LEN = 2 };

void proto_put(struct proto *b, const void *data, size_t len)
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

void proto_varint(struct proto *b, uint64_t v)
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
	proto_put(b, buf, n);
}

static void proto_key(struct proto *b, unsigned field, unsigned type)
{
	proto_varint(b, (uint64_t)field << 3 | type);
}

void proto_uint0(struct proto *b, unsigned field, uint64_t v)
{
	proto_key(b, field, PROTO_VARINT);
	proto_varint(b, v);
}

void proto_uint(struct proto *b, unsigned field, uint64_t v)
{
	if (v)
		proto_uint0(b, field, v);
}

void proto_int(struct proto *b, unsigned field, int64_t v)
{
	proto_uint(b, field, (uint64_t)v);
}

void proto_bytes(struct proto *b, unsigned field, const void *data, size_t len)
{
	proto_key(b, field, PROTO_LEN);
	proto_varint(b, len);
	proto_put(b, data, len);
}

void proto_msg(struct proto *b, unsigned field, struct proto *sub)
{
	proto_bytes(b, field, sub->buf, sub->len);
	b->oom |= sub->oom;
	sub->len = 0;
}

void proto_packed(struct proto *b, unsigned field, const uint64_t *v, size_t n)
{
	struct proto tmp = { 0 };

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		proto_varint(&tmp, v[i]);
	proto_msg(b, field, &tmp);
	proto_free(&tmp);
}

void proto_free(struct proto *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* --- string table -------------------------------------------------------- */

static bool proto_strtab_rehash(struct proto_strtab *t)
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

static bool proto_strtab_add(struct proto_strtab *t, const char *s)
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

int64_t proto_str(struct proto_strtab *t, const char *s)
{
	size_t j;

	if (!t->n && !proto_strtab_add(t, ""))
		t->oom = true;
	if (!s || !*s || t->oom)
		return 0;
	if ((t->n + 1) * 2 > t->nslots && !proto_strtab_rehash(t)) {
		t->oom = true;
		return 0;
	}
	for (j = hash_str(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (!strcmp(t->strs[t->slots[j] - 1], s))
			return t->slots[j] - 1;
	if (!proto_strtab_add(t, s)) {
		t->oom = true;
		return 0;
	}
	t->slots[j] = t->n;
	return t->n - 1;
}

void proto_strings(struct proto *b, unsigned field, const struct proto_strtab *t)
{
	if (!t->n) {
		proto_bytes(b, field, "", 0);
		return;
	}
	b->oom |= t->oom;
	for (size_t i = 0; i < t->n; i++)
		proto_bytes(b, field, t->strs[i], strlen(t->strs[i]));
}

void proto_strtab_free(struct proto_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
