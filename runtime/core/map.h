/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map.h - associative arrays (pure core).
 *
 * Every array is preallocated when the module loads: a fixed number of
 * fixed-size entries (keys inline, strings as MAXSTRINGLEN bytes), a chained
 * hash table over them, and an insertion-order list that gives foreach its
 * default order and tells a wrapping (%) array which entry is oldest.
 * Nothing here allocates, locks or sleeps; the module supplies the memory
 * and the locking.
 */
#ifndef UTAP_MAP_H
#define UTAP_MAP_H

#include "port.h"
#include "stats.h"

#define UTAP_MAP_MAX_KEYS 9

enum utap_type { UTAP_T_LONG = 1, UTAP_T_STRING = 2, UTAP_T_STATS = 3 };

struct utap_map_spec {
	u8 nkeys;
	u8 keytype[UTAP_MAP_MAX_KEYS];
	u8 valtype;
	bool wrap;			/* global a%: full arrays replace their oldest entry */
	u32 maxentries;
	u32 strlen_max;			/* MAXSTRINGLEN */
	const struct utap_hist_spec *hist; /* statistics values */
};

union utap_key {
	s64 l;
	const char *s;
};

struct utap_map {
	const struct utap_map_spec *spec;
	u32 entry_size;
	u32 nbuckets;			/* a power of two */
	u32 count;
	u32 free_head;			/* entry index + 1; 0: none */
	u32 oldest, newest;		/* insertion order; index + 1 */
	u32 *bucket;			/* head of each chain; index + 1 */
	u32 *chain;			/* next in chain, or next free */
	u32 *age_next, *age_prev;	/* insertion order links */
	u8 *entries;
	void **sort_tmp;		/* merge sort scratch (the caller holds the array exclusively) */
};

/* Bytes of memory utap_map_init needs for this spec. */
size_t utap_map_memsize(const struct utap_map_spec *spec);
void utap_map_init(struct utap_map *m, const struct utap_map_spec *spec, void *mem);
void utap_map_clear(struct utap_map *m);

/* The value of the entry with these keys, or NULL. */
void *utap_map_find(struct utap_map *m, const union utap_key *keys);
/*
 * The value of the entry with these keys, created zeroed if missing.
 * NULL when the array is full (and does not wrap).
 */
void *utap_map_insert(struct utap_map *m, const union utap_key *keys);
bool utap_map_delete(struct utap_map *m, const union utap_key *keys);
void utap_map_delete_entry(struct utap_map *m, void *entry);

/* Entry access for foreach: entries are the opaque pointers utap_map_sort gives. */
s64 utap_map_key_long(const struct utap_map *m, const void *entry, int i);
const char *utap_map_key_str(const struct utap_map *m, const void *entry, int i);
void *utap_map_value(const struct utap_map *m, const void *entry);

/* Insertion order, for foreach without sorting: NULL after the last. */
void *utap_map_first(const struct utap_map *m);
void *utap_map_next(const struct utap_map *m, const void *entry);

/*
 * Puts the entries into out[] (room for maxentries) and returns how many.
 * col -1: by value (statistics by the aggregate op stat_op); col k: by key
 * k (1-based). dir +1 ascending, -1 descending; equal elements keep
 * insertion order. limit >= 0 truncates the result.
 */
u32 utap_map_sort(struct utap_map *m, void **out, int col, int dir, int stat_op, s64 limit);

/* Does entry match keys? Keys whose bit is clear in mask are wildcards (a[*, k]). */
bool utap_map_entry_matches(const struct utap_map *m, const void *entry,
			    const union utap_key *keys, u32 mask);

/* Adds every statistics entry of src into dst (same spec): per-CPU maps into one. */
int utap_map_merge_stats(struct utap_map *dst, struct utap_map *src);

#endif
