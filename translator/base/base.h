/*
 * base.h - what every layer of the translator may use: arena allocation,
 * growable strings, source locations and diagnostics, and a few system
 * helpers (one file reader, one hash).
 *
 * Everything is arena-allocated and lives until the process exits, so no
 * pass frees what another produced.
 */
#ifndef UTAP_BASE_H
#define UTAP_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UTAP_VERSION "0.1"
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* arena.c */
void *arena_alloc(size_t size);
char *arena_strdup(const char *s);
char *arena_strndup(const char *s, size_t n);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_reset(void);

/* strbuf.c: growable text, used by the emitter and the runner */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_free(struct strbuf *sb);

/* Source text and locations */
struct source {
	const char *name;	/* "<input>" for -e, else the path */
	const char *text;
	size_t len;
	bool is_tapset;
};

struct loc {
	const struct source *src;
	int line, col;		/* 1-based */
	size_t off;
};

/* diag.c: file:line:col: error: message, the source line and a caret */
extern int diag_errors;
extern int diag_warnings;
extern bool diag_suppress_warnings;
extern bool diag_silent;
void error_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warn_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* file.c: the whole file, NUL-terminated, malloc'd; NULL with errno set */
char *slurp_file(const char *path, size_t *len);

/* hash.c: FNV-1a; SEED 0 starts a hash, else it goes on from SEED */
uint64_t hash_bytes(const void *data, size_t len, uint64_t seed);
uint64_t hash_str(const char *s);

/* util.c */
char *read_file(const char *path, size_t *len);	/* slurp_file(), in the arena */
int write_file(const char *path, const char *data, size_t len);
int run_command(char *const argv[], const char *log_path, bool quiet);
uint64_t now_ns(void);
char *make_tmpdir(void);
void remove_tree(const char *path);
const char *utap_cache_dir(const char *sub);

#endif /* UTAP_BASE_H */
