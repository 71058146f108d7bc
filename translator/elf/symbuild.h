/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbuild.h - pieces shared by the symbol and line table builders
 * (symtab.c, symline.c): a deduplicating string table and blob layout.
 * Internal to translator/elf.
 */
#ifndef UTAP_ELF_SYMBUILD_H
#define UTAP_ELF_SYMBUILD_H

#include <stddef.h>
#include <stdint.h>

/* NUL-terminated strings stored once each; offsets stay valid as it grows. */
struct sym_strpool {
	char *buf;
	size_t len;
	size_t cap;
	uint32_t *slots;	/* open addressing: offset + 1, 0 = empty */
	size_t nslots;
	size_t count;
};

void strpool_init(struct sym_strpool *p);
void strpool_free(struct sym_strpool *p);

/* Offset of S in the pool, adding it if new. -ENOMEM or -E2BIG (pool over 4 GiB). */
int strpool_add(struct sym_strpool *p, const char *s, uint32_t *off);

/* Bytes of the pool as the blob stores it: at least one NUL byte. */
size_t strpool_size(const struct sym_strpool *p);
void strpool_copy(const struct sym_strpool *p, void *dst);

/* Reserve SIZE bytes aligned to ALIGN at the end of a blob being laid out. */
static inline uint64_t layout_take(uint64_t *cursor, uint64_t size, uint64_t align)
{
	uint64_t at = (*cursor + align - 1) & ~(align - 1);

	*cursor = at + size;
	return at;
}

#endif /* UTAP_ELF_SYMBUILD_H */
