// SPDX-License-Identifier: GPL-2.0
/*
 * globals.c - the memory and locking of script globals.
 *
 * Each global has a reader/writer lock taken with trylock only, as stap
 * does: a handler takes the locks of every global it uses, in one fixed
 * order, before it runs, and is skipped (and counted) if it cannot get them
 * within MAXTRYLOCK tries TRYLOCKDELAY apart (stap's 100 x 10 us). The bound
 * is there to break a possible deadlock, not to give up on a slow holder: in
 * a virtual machine, where the host can deschedule the vCPU of a handler
 * that holds a lock for a whole host time slice, the default is
 * MAXTRYLOCK_VM_FACTOR times longer (100 ms). Trylock-only locks are safe
 * from NMIs and on PREEMPT_RT. Statistics are accumulated per CPU under the read lock and
 * merged under the write lock when read.
 */
#include "map.h"
#include "stats.h"

static bool utap_lock_try(struct utap_lock *l, bool write)
{
	int v = atomic_read(&l->v);

	if (write)
		return v == 0 && atomic_cmpxchg(&l->v, 0, -1) == 0;
	while (v >= 0) {
		int old = atomic_cmpxchg(&l->v, v, v + 1);

		if (old == v)
			return true;
		v = old;
	}
	return false;
}

static void utap_lock_release(struct utap_lock *l, bool write)
{
	if (write)
		atomic_set(&l->v, 0);
	else
		atomic_dec(&l->v);
}

UTAP_API_OUTLINE void utap_unlock_globals(const struct utap_lockreq *r, int n)
{
	while (n-- > 0)
		utap_lock_release(r[n].lock, r[n].write);
}

/* How often to try a lock before the probe is skipped: more in a guest, whose vCPUs stall. */
static unsigned int utap_trylock_limit(void)
{
#if defined(UTAP_MAXTRYLOCK_DEFAULT) && defined(CONFIG_X86)
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return MAXTRYLOCK * MAXTRYLOCK_VM_FACTOR;
#endif
	return MAXTRYLOCK;
}

UTAP_API_OUTLINE bool utap_lock_globals(const struct utap_lockreq *r, int n)
{
	unsigned int tries;
	int i;

	for (i = 0; i < n; i++) {
		for (tries = 0; !utap_lock_try(r[i].lock, r[i].write); tries++) {
			if (tries >= utap_trylock_limit()) {
				utap_unlock_globals(r, i);
				atomic_inc(&utap_skipped);
				atomic_inc(&utap_skipped_lock);
				return false;
			}
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

/* ---- arrays ---- */

UTAP_API int utap_map_alloc(struct utap_map *m, const struct utap_map_spec *spec)
{
	void *mem = vzalloc(utap_map_memsize(spec));

	if (!mem)
		return -ENOMEM;
	utap_map_init(m, spec, mem);
	return 0;
}

UTAP_API void utap_map_free(struct utap_map *m)
{
	if (m->spec)
		vfree(m->bucket);	/* the start of the block */
	m->spec = NULL;
}

/* ---- statistics: one copy per CPU, and an aggregate for reading ---- */

UTAP_API int utap_pstat_alloc(struct utap_pstat *p, const struct utap_hist_spec *spec)
{
	int cpu;

	p->spec = spec;
	p->cpu = kcalloc(nr_cpu_ids, sizeof(*p->cpu), GFP_KERNEL);
	p->agg = vzalloc(utap_stat_size(spec));
	if (!p->cpu || !p->agg)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		p->cpu[cpu] = vzalloc(utap_stat_size(spec));
		if (!p->cpu[cpu])
			return -ENOMEM;
	}
	return 0;
}

UTAP_API void utap_pstat_free(struct utap_pstat *p)
{
	int cpu;

	if (p->cpu)
		for_each_possible_cpu(cpu)
			vfree(p->cpu[cpu]);
	kfree(p->cpu);
	vfree(p->agg);
	p->cpu = NULL;
	p->agg = NULL;
}

UTAP_API void utap_pstat_add(struct utap_pstat *p, s64 v)
{
	utap_stat_add(p->cpu[smp_processor_id()], p->spec, v);
}

UTAP_API struct utap_stat *utap_pstat_aggregate(struct utap_pstat *p)
{
	int cpu;

	memset(p->agg, 0, utap_stat_size(p->spec));
	for_each_possible_cpu(cpu)
		utap_stat_merge(p->agg, p->cpu[cpu], p->spec);
	return p->agg;
}

UTAP_API void utap_pstat_clear(struct utap_pstat *p)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(p->cpu[cpu], 0, utap_stat_size(p->spec));
}

UTAP_API int utap_pmap_alloc(struct utap_pmap *p, const struct utap_map_spec *spec)
{
	int cpu, rc;

	p->spec = spec;
	p->cpu = kcalloc(nr_cpu_ids, sizeof(*p->cpu), GFP_KERNEL);
	p->one = vzalloc(utap_stat_size(spec->hist));
	if (!p->cpu || !p->one)
		return -ENOMEM;
	rc = utap_map_alloc(&p->agg, spec);
	for_each_possible_cpu(cpu)
		if (!rc)
			rc = utap_map_alloc(&p->cpu[cpu], spec);
	return rc;
}

UTAP_API void utap_pmap_free(struct utap_pmap *p)
{
	int cpu;

	if (p->cpu)
		for_each_possible_cpu(cpu)
			utap_map_free(&p->cpu[cpu]);
	kfree(p->cpu);
	utap_map_free(&p->agg);
	vfree(p->one);
	p->cpu = NULL;
	p->one = NULL;
}

/* x[k] <<< v: NULL when this CPU's copy is full */
UTAP_API struct utap_stat *utap_pmap_slot(struct utap_pmap *p, const union utap_key *keys)
{
	return utap_map_insert(&p->cpu[smp_processor_id()], keys);
}

UTAP_API struct utap_stat *utap_pmap_element(struct utap_pmap *p, const union utap_key *keys)
{
	int cpu;

	memset(p->one, 0, utap_stat_size(p->spec->hist));
	for_each_possible_cpu(cpu) {
		struct utap_stat *s = utap_map_find(&p->cpu[cpu], keys);

		if (s)
			utap_stat_merge(p->one, s, p->spec->hist);
	}
	return p->one;
}

UTAP_API struct utap_map *utap_pmap_aggregate(struct utap_pmap *p)
{
	int cpu;

	utap_map_clear(&p->agg);
	for_each_possible_cpu(cpu)
		utap_map_merge_stats(&p->agg, &p->cpu[cpu]);
	return &p->agg;
}

UTAP_API bool utap_pmap_exists(struct utap_pmap *p, const union utap_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (utap_map_find(&p->cpu[cpu], keys))
			return true;
	return false;
}

UTAP_API void utap_pmap_delete(struct utap_pmap *p, const union utap_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		utap_map_delete(&p->cpu[cpu], keys);
}

UTAP_API void utap_pmap_clear(struct utap_pmap *p)
{
	int cpu;

	for_each_possible_cpu(cpu)
		utap_map_clear(&p->cpu[cpu]);
}

/* ---- printing aggregates ---- */

/* A histogram can outgrow the print buffer: it is produced in pieces. */
UTAP_API void utap_print_hist(struct utap_context *c, const struct utap_stat *st,
			      const struct utap_hist_spec *spec)
{
	size_t done = 0, total;

	do {
		size_t room = UTAP_PRINTBUF - c->printlen;

		if (room < 64) {
			utap_print_flush(c);
			room = UTAP_PRINTBUF;
		}
		total = utap_hist_format(c->printbuf + c->printlen, room, done, st, spec);
		if (total - done <= room) {
			c->printlen += total - done;
			done = total;
		} else {
			c->printlen += room;
			done += room;
		}
	} while (done < total);
}

/* ---- stap prints written-but-never-read globals at the end ---- */

static void utap_print_cstr(struct utap_context *c, const char *s)
{
	utap_print_bytes(c, s, strlen(s));
}

/* stap 4.8 prints the values in decimal (measured in the guest) */
static void utap_print_num(struct utap_context *c, s64 v)
{
	char buf[24];
	size_t n = utap_format_number(buf, sizeof(buf), (u64)v, 10, true, 0, -1, -1, false);

	utap_print_bytes(c, buf, n);
}

/* between double quotes as it is: stap 4.8 escapes nothing (measured) */
static void utap_print_quoted(struct utap_context *c, const char *s)
{
	utap_print_bytes(c, "\"", 1);
	utap_print_cstr(c, s);
	utap_print_bytes(c, "\"", 1);
}

static void utap_print_stat_summary(struct utap_context *c, const struct utap_stat *st,
				    const struct utap_hist_spec *spec)
{
	static const char *const names[] = { " @count=", " @min=", " @max=", " @sum=", " @avg=" };
	static const int ops[] = { UTAP_STAT_COUNT, UTAP_STAT_MIN, UTAP_STAT_MAX, UTAP_STAT_SUM,
				   UTAP_STAT_AVG };
	int i;

	if (!st->count) {
		utap_print_cstr(c, " @count=0x0");
		return;
	}
	for (i = 0; i < 5; i++) {
		utap_print_cstr(c, names[i]);
		utap_print_num(c, utap_stat_get(st, spec, ops[i]));
	}
}

UTAP_API void utap_autoprint_long(struct utap_context *c, const char *name, const int64_t *v)
{
	utap_print_cstr(c, name);
	utap_print_cstr(c, "=");
	utap_print_num(c, *v);
	utap_print_cstr(c, "\n");
	c->nprints++;
}

UTAP_API void utap_autoprint_str(struct utap_context *c, const char *name, const char *s)
{
	utap_print_cstr(c, name);
	utap_print_cstr(c, "=");
	utap_print_quoted(c, s);
	utap_print_cstr(c, "\n");
	c->nprints++;
}

UTAP_API void utap_autoprint_pstat(struct utap_context *c, const char *name, struct utap_pstat *p)
{
	utap_print_cstr(c, name);
	utap_print_stat_summary(c, utap_pstat_aggregate(p), p->spec);
	utap_print_cstr(c, "\n");
	c->nprints++;
}

UTAP_API void utap_autoprint_entries(struct utap_context *c, const char *name,
			             struct utap_map *m, void **sorted)
{
	const struct utap_map_spec *spec = m->spec;
	u32 n = utap_map_sort(m, sorted, -1, -1, UTAP_STAT_COUNT, -1), i;
	int k;

	for (i = 0; i < n; i++) {
		utap_print_cstr(c, name);
		utap_print_cstr(c, "[");
		for (k = 0; k < spec->nkeys; k++) {
			if (k)
				utap_print_cstr(c, ",");
			if (spec->keytype[k] == UTAP_T_STRING)
				utap_print_quoted(c, utap_map_key_str(m, sorted[i], k));
			else
				utap_print_num(c, utap_map_key_long(m, sorted[i], k));
		}
		utap_print_cstr(c, "]");
		if (spec->valtype == UTAP_T_STATS) {
			utap_print_stat_summary(c, utap_map_value(m, sorted[i]), spec->hist);
		} else if (spec->valtype == UTAP_T_STRING) {
			utap_print_cstr(c, "=");
			utap_print_quoted(c, utap_map_value(m, sorted[i]));
		} else {
			utap_print_cstr(c, "=");
			utap_print_num(c, *(s64 *)utap_map_value(m, sorted[i]));
		}
		utap_print_cstr(c, "\n");
		c->nprints++;
	}
}

UTAP_API void utap_autoprint_map(struct utap_context *c, const char *name,
			         struct utap_map *m, void **sorted)
{
	utap_autoprint_entries(c, name, m, sorted);
}

UTAP_API void utap_autoprint_pmap(struct utap_context *c, const char *name,
			          struct utap_pmap *p, void **sorted)
{
	utap_autoprint_entries(c, name, utap_pmap_aggregate(p), sorted);
}
