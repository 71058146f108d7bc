/*
 * proto.h - a protobuf encoder for the runner's profile writer (pprof.c):
 * varints, length-delimited fields, packed repeated fields and a string
 * table that gives each distinct string one index (0 is ""), as
 * profile.proto wants. Messages are built bottom up: a nested message is
 * encoded into its own buffer, then added to its parent as one field.
 */
#ifndef UTAP_TRACE_PROTO_H
#define UTAP_TRACE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Encoded bytes; out of memory, the buffer stops growing and says so in oom. */
struct proto {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};

void proto_put(struct proto *b, const void *data, size_t len);

void proto_varint(struct proto *b, uint64_t v);
/* A varint field; proto_uint leaves a 0 out (proto3's default), proto_uint0 writes it. */
void proto_uint(struct proto *b, unsigned field, uint64_t v);
void proto_uint0(struct proto *b, unsigned field, uint64_t v);
/* A signed field as int64 encodes it (two's complement, ten bytes when negative). */
void proto_int(struct proto *b, unsigned field, int64_t v);
void proto_bytes(struct proto *b, unsigned field, const void *data, size_t len);
/* SUB as a field of B; SUB is emptied for the next message. */
void proto_msg(struct proto *b, unsigned field, struct proto *sub);
/* A packed repeated varint field; nothing when N is 0. */
void proto_packed(struct proto *b, unsigned field, const uint64_t *v, size_t n);
void proto_free(struct proto *b);

/* Distinct strings, in the order first asked for; index 0 is "". */
struct proto_strtab {
	char **strs;
	size_t n, cap;
	uint32_t *slots;	/* open addressing: index + 1, 0 empty */
	size_t nslots;
	bool oom;
};

/* The index of S, added if new (0 when out of memory: oom says so). */
int64_t proto_str(struct proto_strtab *t, const char *s);
/* Every string as the repeated field FIELD of B, in index order. */
void proto_strings(struct proto *b, unsigned field, const struct proto_strtab *t);
void proto_strtab_free(struct proto_strtab *t);

#endif
