/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcore.h - what generated code, tapsets' embedded C and the runtime's
 * feature files use of the kernel half of the core (transport.c, context.c,
 * print.c, globals.c, control.c).
 *
 * A module is built one of two ways (translator/kernel/kbuild.c). As one
 * translation unit, the core is included into the script's C and everything
 * here is static. Or the core is an object compiled once per kernel and
 * configuration (UTAP_CORE_OBJECT) and linked with the script's own unit
 * (UTAP_CORE_EXTERN), which sees only these declarations: a run then
 * compiles only the script.
 */
#ifndef UTAP_KCORE_H
#define UTAP_KCORE_H

#if defined(UTAP_CORE_OBJECT) || defined(UTAP_CORE_EXTERN)
#define UTAP_API
#define UTAP_API_VAR extern
#define UTAP_API_OUTLINE __attribute__((__noinline__))
#else
#define UTAP_API static
#define UTAP_API_VAR static
#define UTAP_API_OUTLINE UTAP_OUTLINE
#endif

struct utap_lock {
	atomic_t v;	/* > 0: readers; -1: a writer */
};

struct utap_lockreq {
	struct utap_lock *lock;
	bool write;
};

struct utap_pstat {
	const struct utap_hist_spec *spec;
	struct utap_stat **cpu;
	struct utap_stat *agg;
};

/* Arrays of statistics: one map per CPU, merged into agg for reading. */
struct utap_pmap {
	const struct utap_map_spec *spec;
	struct utap_map *cpu;
	struct utap_map agg;
	struct utap_stat *one;	/* one element, aggregated */
};

#define utap_warn(fmt, ...) utap_msg("WARNING: " fmt "\n", ##__VA_ARGS__)
#define utap_err(fmt, ...) utap_msg("ERROR: " fmt "\n", ##__VA_ARGS__)

/* transport.c */
UTAP_API int utap_transport_write(u16 type, u32 stream, const void *data, size_t len,
				  u32 nprints);
UTAP_API int utap_transport_try(u16 type, u32 stream, const void *data, size_t len);
UTAP_API __printf(1, 2) void utap_msg(const char *fmt, ...);
/* context.c */
UTAP_API_VAR atomic_t utap_state;
UTAP_API_VAR atomic_t utap_skipped;
UTAP_API_VAR atomic_t utap_skipped_lock;	/* of them, for a global's lock */
UTAP_API_VAR long utap_target;
UTAP_API_VAR long utap_runner_pid;
UTAP_API bool utap_exit_pending(void);
UTAP_API void utap_request_exit(void);
UTAP_API struct utap_context *utap_context_enter(const struct utap_probe *p, int state);
UTAP_API void utap_context_leave(struct utap_context *c);
/* print.c */
UTAP_API void utap_print_flush(struct utap_context *c);
UTAP_API void utap_print_bytes(struct utap_context *c, const char *s, size_t n);
UTAP_API void utap_print_long_raw(struct utap_context *c, s64 v);
UTAP_API void utap_strcat_long(char *dst, s64 v);
UTAP_API void utap_printf(struct utap_context *c, const struct utap_fmt_piece *fmt,
			  const union utap_arg *args);
UTAP_API void utap_sprintf(char *dst, const struct utap_fmt_piece *fmt, const union utap_arg *args);
/* globals.c */
UTAP_API void utap_unlock_globals(const struct utap_lockreq *r, int n);
UTAP_API bool utap_lock_globals(const struct utap_lockreq *r, int n);
UTAP_API int utap_map_alloc(struct utap_map *m, const struct utap_map_spec *spec);
UTAP_API void utap_map_free(struct utap_map *m);
UTAP_API int utap_pstat_alloc(struct utap_pstat *p, const struct utap_hist_spec *spec);
UTAP_API void utap_pstat_free(struct utap_pstat *p);
UTAP_API void utap_pstat_add(struct utap_pstat *p, s64 v);
UTAP_API struct utap_stat *utap_pstat_aggregate(struct utap_pstat *p);
UTAP_API void utap_pstat_clear(struct utap_pstat *p);
UTAP_API int utap_pmap_alloc(struct utap_pmap *p, const struct utap_map_spec *spec);
UTAP_API void utap_pmap_free(struct utap_pmap *p);
UTAP_API struct utap_stat *utap_pmap_slot(struct utap_pmap *p, const union utap_key *keys);
UTAP_API struct utap_stat *utap_pmap_element(struct utap_pmap *p, const union utap_key *keys);
UTAP_API struct utap_map *utap_pmap_aggregate(struct utap_pmap *p);
UTAP_API bool utap_pmap_exists(struct utap_pmap *p, const union utap_key *keys);
UTAP_API void utap_pmap_delete(struct utap_pmap *p, const union utap_key *keys);
UTAP_API void utap_pmap_clear(struct utap_pmap *p);
UTAP_API void utap_print_hist(struct utap_context *c, const struct utap_stat *st,
			      const struct utap_hist_spec *spec);
UTAP_API void utap_autoprint_long(struct utap_context *c, const char *name, const int64_t *v);
UTAP_API void utap_autoprint_str(struct utap_context *c, const char *name, const char *s);
UTAP_API void utap_autoprint_pstat(struct utap_context *c, const char *name, struct utap_pstat *p);
UTAP_API void utap_autoprint_entries(struct utap_context *c, const char *name,
			             struct utap_map *m, void **sorted);
UTAP_API void utap_autoprint_map(struct utap_context *c, const char *name,
			         struct utap_map *m, void **sorted);
UTAP_API void utap_autoprint_pmap(struct utap_context *c, const char *name,
			          struct utap_pmap *p, void **sorted);
/* control.c */
UTAP_API_VAR struct proc_dir_entry *utap_proc_dir;

#endif /* UTAP_KCORE_H */
