// SPDX-License-Identifier: GPL-2.0
/*
 * map.c - associative arrays (pure core). See map.h for the model.
 *
 * Entries are referred to by index + 1 so that 0 means "none" in every
 * link array. An entry is [u32 hash][u32 pad][keys][value], each key and
 * the value 8-byte aligned.
 */
#include "map.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

static size_t key_size(const struct utap_map_spec *spec, int i)
{
	return spec->keytype[i] == UTAP_T_STRING ? ALIGN8(spec->strlen_max) : 8;
}

static size_t value_size(const struct utap_map_spec *spec)
{
	if (spec->valtype == UTAP_T_STRING)
		return ALIGN8(spec->strlen_max);
	if (spec->valtype == UTAP_T_STATS)
		return ALIGN8(utap_stat_size(spec->hist));
	return 8;
}

static size_t key_offset(const struct utap_map_spec *spec, int i)
{
	size_t off = 8;
	int k;

	for (k = 0; k < i; k++)
		off += key_size(spec, k);
	return off;
}

static size_t entry_size(const struct utap_map_spec *spec)
{
	return key_offset(spec, spec->nkeys) + value_size(spec);
}

static u32 bucket_count(u32 maxentries)
{
	u32 n = 16;

	while (n < maxentries && n < (1u << 30))
		n <<= 1;
	return n;
}

size_t utap_map_memsize(const struct utap_map_spec *spec)
{
	size_t n = spec->maxentries;

	return ALIGN8(bucket_count(spec->maxentries) * sizeof(u32)) +
	       3 * ALIGN8(n * sizeof(u32)) + n * sizeof(void *) + n * entry_size(spec);
}

void utap_map_init(struct utap_map *m, const struct utap_map_spec *spec, void *mem)
{
	u8 *p = mem;
	size_t n = spec->maxentries;

	memset(m, 0, sizeof(*m));
	m->spec = spec;
	m->entry_size = (u32)entry_size(spec);
	m->nbuckets = bucket_count(spec->maxentries);
	m->bucket = (u32 *)p;
	p += ALIGN8(m->nbuckets * sizeof(u32));
	m->chain = (u32 *)p;
	p += ALIGN8(n * sizeof(u32));
	m->age_next = (u32 *)p;
	p += ALIGN8(n * sizeof(u32));
	m->age_prev = (u32 *)p;
	p += ALIGN8(n * sizeof(u32));
	m->sort_tmp = (void **)p;
	p += n * sizeof(void *);
	m->entries = p;
	utap_map_clear(m);
}

static u8 *entry_at(const struct utap_map *m, u32 idx1)
{
	return m->entries + (size_t)(idx1 - 1) * m->entry_size;
}


void utap_map_clear(struct utap_map *m)
{
	u32 i, n = m->spec->maxentries;

	memset(m->bucket, 0, m->nbuckets * sizeof(u32));
	/* thread every entry on the free list, lowest index first */
	for (i = 0; i < n; i++)
		m->chain[i] = i + 2 <= n ? i + 2 : 0;
	m->free_head = n ? 1 : 0;
	m->count = 0;
	m->oldest = m->newest = 0;
}

static u32 hash_keys(const struct utap_map *m, const union utap_key *keys)
{
	const struct utap_map_spec *spec = m->spec;
	u32 h = 2166136261u;
	int i;

	for (i = 0; i < spec->nkeys; i++) {
		if (spec->keytype[i] == UTAP_T_STRING) {
			const char *s = keys[i].s;
			u32 k;

			for (k = 0; s[k] && k + 1 < spec->strlen_max; k++)
				h = (h ^ (u8)s[k]) * 16777619u;
		} else {
			u64 v = (u64)keys[i].l;
			int b;

			for (b = 0; b < 8; b++, v >>= 8)
				h = (h ^ (u8)v) * 16777619u;
		}
		h = (h ^ 0xff) * 16777619u;	/* key separator: ("a","bc") != ("ab","c") */
	}
	return h;
}

static bool key_str_equal(const char *stored, const char *s, u32 max)
{
	u32 k;

	/* keys were truncated to max - 1 bytes when stored */
	for (k = 0; k + 1 < max; k++) {
		if (stored[k] != s[k])
			return false;
		if (!s[k])
			return true;
	}
	return stored[k] == 0;
}

static bool keys_equal(const struct utap_map *m, const u8 *e, const union utap_key *keys)
{
	const struct utap_map_spec *spec = m->spec;
	size_t off = 8;
	int i;

	for (i = 0; i < spec->nkeys; i++) {
		if (spec->keytype[i] == UTAP_T_STRING) {
			if (!key_str_equal((const char *)e + off, keys[i].s, spec->strlen_max))
				return false;
		} else if (*(const s64 *)(e + off) != keys[i].l) {
			return false;
		}
		off += key_size(spec, i);
	}
	return true;
}

static u32 find_index(const struct utap_map *m, const union utap_key *keys, u32 h)
{
	u32 idx = m->bucket[h & (m->nbuckets - 1)];
	u32 guard = m->spec->maxentries;

	while (idx && guard--) {
		const u8 *e = entry_at(m, idx);

		if (*(const u32 *)e == h && keys_equal(m, e, keys))
			return idx;
		idx = m->chain[idx - 1];
	}
	return 0;
}

void *utap_map_find(struct utap_map *m, const union utap_key *keys)
{
	u32 idx = find_index(m, keys, hash_keys(m, keys));

	return idx ? utap_map_value(m, entry_at(m, idx)) : NULL;
}

static void unlink_chain(struct utap_map *m, u32 idx)
{
	u32 h = *(u32 *)entry_at(m, idx);
	u32 *link = &m->bucket[h & (m->nbuckets - 1)];
	u32 guard = m->spec->maxentries;

	while (*link && guard--) {
		if (*link == idx) {
			*link = m->chain[idx - 1];
			return;
		}
		link = &m->chain[*link - 1];
	}
}

static void unlink_age(struct utap_map *m, u32 idx)
{
	u32 next = m->age_next[idx - 1], prev = m->age_prev[idx - 1];

	if (prev)
		m->age_next[prev - 1] = next;
	else
		m->oldest = next;
	if (next)
		m->age_prev[next - 1] = prev;
	else
		m->newest = prev;
}

static void remove_entry(struct utap_map *m, u32 idx)
{
	unlink_chain(m, idx);
	unlink_age(m, idx);
	m->chain[idx - 1] = m->free_head;
	m->free_head = idx;
	m->count--;
}

static u32 alloc_entry(struct utap_map *m)
{
	u32 idx = m->free_head;

	if (!idx) {
		if (!m->spec->wrap || !m->oldest)
			return 0;
		remove_entry(m, m->oldest);	/* a wrapping array replaces its oldest */
		idx = m->free_head;
	}
	m->free_head = m->chain[idx - 1];
	return idx;
}

static void store_keys(struct utap_map *m, u8 *e, const union utap_key *keys)
{
	const struct utap_map_spec *spec = m->spec;
	size_t off = 8;
	int i;

	for (i = 0; i < spec->nkeys; i++) {
		if (spec->keytype[i] == UTAP_T_STRING) {
			char *d = (char *)e + off;
			u32 k;

			for (k = 0; k + 1 < spec->strlen_max && keys[i].s[k]; k++)
				d[k] = keys[i].s[k];
			d[k] = 0;
		} else {
			*(s64 *)(e + off) = keys[i].l;
		}
		off += key_size(spec, i);
	}
}

void *utap_map_insert(struct utap_map *m, const union utap_key *keys)
{
	u32 h = hash_keys(m, keys);
	u32 idx = find_index(m, keys, h), b;
	u8 *e;

	if (idx)
		return utap_map_value(m, entry_at(m, idx));
	idx = alloc_entry(m);
	if (!idx)
		return NULL;
	e = entry_at(m, idx);
	*(u32 *)e = h;
	store_keys(m, e, keys);
	memset(utap_map_value(m, e), 0, value_size(m->spec));
	b = h & (m->nbuckets - 1);
	m->chain[idx - 1] = m->bucket[b];
	m->bucket[b] = idx;
	m->age_prev[idx - 1] = m->newest;
	m->age_next[idx - 1] = 0;
	if (m->newest)
		m->age_next[m->newest - 1] = idx;
	else
		m->oldest = idx;
	m->newest = idx;
	m->count++;
	return utap_map_value(m, e);
}

bool utap_map_delete(struct utap_map *m, const union utap_key *keys)
{
	u32 idx = find_index(m, keys, hash_keys(m, keys));

	if (!idx)
		return false;
	remove_entry(m, idx);
	return true;
}

void utap_map_delete_entry(struct utap_map *m, void *entry)
{
	remove_entry(m, (u32)(((u8 *)entry - m->entries) / m->entry_size) + 1);
}

s64 utap_map_key_long(const struct utap_map *m, const void *entry, int i)
{
	return *(const s64 *)((const u8 *)entry + key_offset(m->spec, i));
}

const char *utap_map_key_str(const struct utap_map *m, const void *entry, int i)
{
	return (const char *)entry + key_offset(m->spec, i);
}

void *utap_map_value(const struct utap_map *m, const void *entry)
{
	return (u8 *)entry + key_offset(m->spec, m->spec->nkeys);
}

/* ---- foreach order ---- */

struct sort_by {
	const struct utap_map *m;
	int col, dir, stat_op;
};

static int cmp_long(s64 a, s64 b)
{
	return a < b ? -1 : a > b;
}

static int cmp_entries(const struct sort_by *by, const void *a, const void *b)
{
	const struct utap_map *m = by->m;
	const struct utap_map_spec *spec = m->spec;
	int r;

	if (by->col > 0) {
		int k = by->col - 1;

		if (spec->keytype[k] == UTAP_T_STRING)
			r = strcmp(utap_map_key_str(m, a, k), utap_map_key_str(m, b, k));
		else
			r = cmp_long(utap_map_key_long(m, a, k), utap_map_key_long(m, b, k));
	} else if (spec->valtype == UTAP_T_STRING) {
		r = strcmp(utap_map_value(m, a), utap_map_value(m, b));
	} else if (spec->valtype == UTAP_T_STATS) {
		r = cmp_long(utap_stat_get(utap_map_value(m, a), spec->hist, by->stat_op),
			     utap_stat_get(utap_map_value(m, b), spec->hist, by->stat_op));
	} else {
		r = cmp_long(*(s64 *)utap_map_value(m, a), *(s64 *)utap_map_value(m, b));
	}
	return r * by->dir;
}

/* Bottom-up merge sort: stable, O(n log n), no recursion, scratch from the map. */
static void merge_sort(const struct sort_by *by, void **a, void **tmp, u32 n)
{
	u32 width, i;

	for (width = 1; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			u32 lo = i, mid = i + width < n ? i + width : n;
			u32 hi = i + 2 * width < n ? i + 2 * width : n;
			u32 l = lo, r = mid, k = lo;

			while (l < mid && r < hi)
				tmp[k++] = cmp_entries(by, a[r], a[l]) < 0 ? a[r++] : a[l++];
			while (l < mid)
				tmp[k++] = a[l++];
			while (r < hi)
				tmp[k++] = a[r++];
		}
		memcpy(a, tmp, n * sizeof(*a));
	}
}

void *utap_map_first(const struct utap_map *m)
{
	return m->oldest ? entry_at(m, m->oldest) : NULL;
}

void *utap_map_next(const struct utap_map *m, const void *entry)
{
	u32 idx = (u32)(((const u8 *)entry - m->entries) / m->entry_size);
	u32 next = m->age_next[idx];

	return next ? entry_at(m, next) : NULL;
}

u32 utap_map_sort(struct utap_map *m, void **out, int col, int dir, int stat_op, s64 limit)
{
	struct sort_by by = { .m = m, .col = col, .dir = dir ? dir : 1, .stat_op = stat_op };
	u32 n = 0, idx = m->oldest;

	while (idx && n < m->spec->maxentries) {
		out[n++] = entry_at(m, idx);
		idx = m->age_next[idx - 1];
	}
	if (col != 0)
		merge_sort(&by, out, m->sort_tmp, n);
	if (limit >= 0 && (u64)limit < n)
		n = (u32)limit;
	return n;
}

bool utap_map_entry_matches(const struct utap_map *m, const void *entry,
			    const union utap_key *keys, u32 mask)
{
	const struct utap_map_spec *spec = m->spec;
	int i;

	for (i = 0; i < spec->nkeys; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (spec->keytype[i] == UTAP_T_STRING) {
			if (!key_str_equal(utap_map_key_str(m, entry, i), keys[i].s,
					   spec->strlen_max))
				return false;
		} else if (utap_map_key_long(m, entry, i) != keys[i].l) {
			return false;
		}
	}
	return true;
}

int utap_map_merge_stats(struct utap_map *dst, struct utap_map *src)
{
	const struct utap_map_spec *spec = src->spec;
	union utap_key keys[UTAP_MAP_MAX_KEYS];
	u32 idx = src->oldest, guard = spec->maxentries;

	while (idx && guard--) {
		const u8 *e = entry_at(src, idx);
		struct utap_stat *d;
		int i;

		for (i = 0; i < spec->nkeys; i++) {
			if (spec->keytype[i] == UTAP_T_STRING)
				keys[i].s = utap_map_key_str(src, e, i);
			else
				keys[i].l = utap_map_key_long(src, e, i);
		}
		d = utap_map_insert(dst, keys);
		if (!d)
			return -ENOSPC;
		utap_stat_merge(d, utap_map_value(src, e), spec->hist);
		idx = src->age_next[idx - 1];
	}
	return 0;
}

