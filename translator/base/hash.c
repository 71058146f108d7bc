/*
 * hash.c - the translator's one hash: FNV-1a, 64 bits. Names, cache keys
 * and hash tables; no security claim. It needs nothing else, so every
 * layer links it (vm/, elf/ and the tools too).
 */
#include "base/base.h"

#include <string.h>

uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ? seed : 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s), 0);
}
