/*
 * pb.h - a protobuf encoder for the runner's profile writer (pprof.c):
 * varints, length-delimited fields, packed repeated fields and a string
 * table that gives each distinct string one index (0 is ""), as
 * profile.proto wants. Messages are built bottom up: a nested message is
 * encoded into its own buffer, then added to its parent as one field.
 */
#ifndef UTAP_TRACE_PB_H
#define UTAP_TRACE_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Encoded bytes; out of memory, the buffer stops growing and says so in oom. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};

void pb_put(struct pb *b, const void *data, size_t len);

void pb_varint(struct pb *b, uint64_t v);
/* A varint field; pb_uint leaves a 0 out (proto3's default), pb_uint0 writes it. */
void pb_uint(struct pb *b, unsigned field, uint64_t v);
void pb_uint0(struct pb *b, unsigned field, uint64_t v);
/* A signed field as int64 encodes it (two's complement, ten bytes when negative). */
void pb_int(struct pb *b, unsigned field, int64_t v);
void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len);
/* SUB as a field of B; SUB is emptied for the next message. */
void pb_msg(struct pb *b, unsigned field, struct pb *sub);
/* A packed repeated varint field; nothing when N is 0. */
void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n);
void pb_free(struct pb *b);

/* Distinct strings, in the order first asked for; index 0 is "". */
struct pb_strtab {
	char **strs;
	size_t n, cap;
	uint32_t *slots;	/* open addressing: index + 1, 0 empty */
	size_t nslots;
	bool oom;
};

/* The index of S, added if new (0 when out of memory: oom says so). */
int64_t pb_str(struct pb_strtab *t, const char *s);
/* Every string as the repeated field FIELD of B, in index order. */
void pb_strings(struct pb *b, unsigned field, const struct pb_strtab *t);
void pb_strtab_free(struct pb_strtab *t);

#endif
