/*
 * tout.h - trace output in the runner: turns the instruction trace records
 * of runtime/itrace/trace_record.h into one of the trace formats.
 *
 * Streaming formats (qtrace, lackey) are encoded as the steps arrive, one
 * stream per thread (PATH.TID); the others are aggregated and written when
 * the trace is closed:
 *
 *   drcov      unique basic blocks per module (DynamoRIO drcov, version 2,
 *              Linux module table, 8-byte binary BB records)
 *   callgrind  Ir per instruction, jumps (jcnd=/jump=), calls with inclusive
 *              cost from a per-thread shadow stack, function names from the
 *              symbol tables, files and lines from the line tables
 *   lcov       line, function and branch coverage (lcov tracefile) from the
 *              DWARF line tables, with never-executed conditional branches
 *              found by decoding the functions' code
 *   pprof      a gzipped profile.proto of the sampled stacks of
 *              UTAP_TRACE_SAMPLE records (tapsets/pprof.stp), not of steps
 *
 * Used by the runner's trace sink (sink.c), by build/fmt-ptrace and by the
 * tests. Plain C11 with libelf/libdw; not for the module.
 */
#ifndef UTAP_FORMATS_TOUT_H
#define UTAP_FORMATS_TOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tout;

struct tout_opts {
	const char *format;	/* a name of tout_formats() */
	const char *path;	/* output file, or the base of PATH.TID for streams; NULL: fd */
	int fd;			/* without a path: streams as they come, the rest at the end */
	const char *cmd;	/* the traced command line (callgrind "cmd:"), may be NULL */
	long pid;		/* the traced process (callgrind "pid:"), 0 if unknown */
	const char *debug_root;	/* separate debuginfo root; NULL: /usr/lib/debug */
	unsigned int qt_isa;	/* qtrace form (enum utap_qt_isa) */
	const char *creator;	/* callgrind "creator:", NULL: "utap" */
	struct streams *streams; /* stream files to share (borrowed), NULL: own ones */
};

struct tout_stats {
	uint64_t steps;		/* instructions received */
	uint64_t branches;	/* of which control transfers (UTAP_STEP_BRANCH) */
	uint64_t taken;		/* branches whose next address was not sequential */
	uint64_t lost;		/* instructions the tracer reported as not recorded */
	uint64_t bad;		/* malformed or unusable records skipped */
	uint64_t unmapped;	/* steps outside every known mapping */
	uint64_t bbs;		/* drcov: unique basic blocks */
	uint64_t samples;	/* pprof: sampled stacks received whole */
	uint64_t samples_lost;	/* pprof: samples with a piece missing */
	uint32_t threads;
	uint32_t modules;
};

/* The formats, streaming ones first: "qtrace, lackey, drcov, callgrind, lcov, pprof". */
const char *tout_formats(void);
/* NAME (LEN bytes, not necessarily NUL-terminated) is one of them. */
bool tout_format_known(const char *name, size_t len);
/* The whole-run formats (writers.c) in turn, from 0; NULL past the last. */
const char *tout_writer_name(unsigned int i);

/* NULL with a message in ERR for an unknown format or an unwritable file. */
struct tout *tout_open(const struct tout_opts *o, char *err, size_t errsize);

/* One payload of trace records (several records back to back). */
void tout_feed(struct tout *t, const void *payload, size_t len);

/* Counters so far. */
void tout_stats(const struct tout *t, struct tout_stats *st);

/*
 * Write the aggregated formats, flush and close the streams, free T.
 * Returns 0, or -1 with a message in ERR. Warnings (a traced file that
 * changed on disk, ...) go to stderr.
 */
int tout_close(struct tout *t, struct tout_stats *st, char *err, size_t errsize);

/*
 * Per-thread stream files: BASE.ID for each stream id, or FALLBACK_FD for
 * every id when BASE is NULL. Also used for streams the module encoded.
 */
struct streams;
struct streams *streams_new(const char *base, int fallback_fd);
/* The descriptor for stream ID (opened on first use), or -1 after printing an error. */
int streams_fd(struct streams *s, uint32_t id);
int streams_write(struct streams *s, uint32_t id, const void *data, size_t len);
void streams_free(struct streams *s);

#endif /* UTAP_FORMATS_TOUT_H */
