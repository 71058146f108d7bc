/*
 * arena.c - bump allocation for everything the translator builds.
 *
 * The translator is a short-lived batch program: nothing is freed, and a
 * failed allocation ends the run with a message.
 */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)

static char *arena_cur;
static size_t arena_left;
static void **arena_blocks;	/* each block starts with a link to the previous one */

void *arena_alloc(size_t size)
{
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (size > arena_left) {
		size_t n = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		arena_cur = malloc(n + 16);
		if (!arena_cur)
			fatal("out of memory");
		*(void **)arena_cur = arena_blocks;
		arena_blocks = (void **)arena_cur;
		arena_cur += 16;
		arena_left = n;
	}
	p = arena_cur;
	arena_cur += size;
	arena_left -= size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(const char *s, size_t n)
{
	char *p = arena_alloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(const char *s)
{
	return arena_strndup(s, strlen(s));
}

char *arena_printf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = arena_alloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Frees everything: for long-running users of the passes (the fuzzer). */
void arena_reset(void)
{
	while (arena_blocks) {
		void **prev = *arena_blocks;

		free(arena_blocks);
		arena_blocks = prev;
	}
	arena_cur = NULL;
	arena_left = 0;
}
