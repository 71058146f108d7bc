/*
 * tout_int.h - what the runner's trace code shares: the state of a trace
 * (tout.c), the modules of the traced processes and small helpers (tmod.c),
 * and the whole-run writers (writers.c's table).
 */
#ifndef UTAP_FORMATS_TOUT_INT_H
#define UTAP_FORMATS_TOUT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/base.h"
#include "runner/trace/tout.h"
#include "formats/stream.h"
#include "elf/debuginfo.h"
#include "elf/plt.h"
#include "elf/symtab.h"
#include "unwind/sym.h"

/* open addressing, key of four u64, value an index into the owner's array */
struct ktab {
	size_t cap, n;
	uint64_t *keys;		/* 4 per slot */
	uint32_t *vals;		/* UINT32_MAX: empty */
};

/* The index stored under K; with INSERT, a new key gets NEXT_VAL. -1: absent (or no memory). */
int64_t ktab_get(struct ktab *h, const uint64_t k[4], bool insert, uint32_t next_val);
void ktab_free(struct ktab *h);

/* One mapped file of one process. */
struct tmod {
	uint32_t pid;
	char *path;
	uint64_t lo, hi;	/* extent of its executable mappings */
	uint64_t base;		/* image base: lowest start - file offset */
	uint64_t bias;		/* run-time address - file-relative (ELF) address */
	uint8_t build_id[20];
	uint8_t build_id_len;

	bool loaded;		/* tables tried (tmod_load) */
	bool di_open;		/* di holds open files */
	bool usable;		/* the file on disk is the traced one */
	struct utap_debuginfo di;
	void *image;		/* the vDSO's copy that di reads, or NULL */
	struct utap_blob symblob, lineblob;
	struct utap_symtab syms;
	struct utap_linetab lines;
	bool has_syms, has_lines;
	char **names;		/* decoded symbol names by index, filled as asked (tmod_symbol) */
	uint64_t entry;		/* run-time entry point, 0 if unknown */
	uint64_t img_lo, img_hi; /* whole image extent (run-time), from the ELF file */
	struct elf_plt plt;	/* its PLT stubs, file-relative */
};

/* An executable mapping: [start, end) of module mod in process pid. */
struct tmap {
	uint32_t pid;
	int32_t mod;
	uint64_t start, end;
};

/* One instruction: where, how often, and what kind. */
struct tins {
	int32_t mod;		/* -1: no known mapping (addr is then absolute) */
	uint8_t len;
	uint8_t pad;
	uint16_t flags;		/* UTAP_STEP_* of its first execution */
	uint64_t addr;		/* file-relative (or absolute) */
	uint64_t count;
	uint64_t taken;		/* executions whose successor was not sequential */
	uint64_t dtarget;	/* direct branch target (run-time), 0 if none */
	uint64_t abs;		/* run-time address of the first execution */
};

/* A taken control transfer from one instruction to an address. */
struct tedge {
	uint32_t from;		/* tins index */
	int32_t to_mod;
	uint64_t to_addr;	/* file-relative (or absolute) */
	uint64_t to_abs;
	uint64_t count;
	uint64_t inclusive;	/* calls: instructions until the matching return */
};

struct tbb {
	int32_t mod;
	uint16_t size;
	uint64_t start;		/* run-time address */
};

struct tframe {
	uint32_t edge;
	uint64_t ret;		/* return address */
	uint64_t ir0;		/* the thread's count after the call */
};

struct tthr {
	uint32_t tid;
	uint32_t pid;		/* 0: not known (no thread record) */
	bool have;		/* a step is pending (look-ahead) */
	struct utap_trace_step pend;
	uint64_t ir;
	struct tframe *stack;
	size_t depth, cap;
	bool in_bb;
	int32_t bb_mod;
	uint64_t bb_start, bb_end;
	struct utap_fmt_stream enc;
	uint8_t *obuf;		/* encoded stream bytes not yet written */
	size_t olen;
	size_t last_map;
};

/*
 * One sampled stack (tsample.c): kernel frames then user frames, innermost
 * first, then pylen bytes of a pybacktrace() string in tsample_words()'s
 * remaining words (zero-padded).
 */
struct tsample {
	uint32_t pid, tid;
	uint16_t nkernel, nuser;
	uint16_t pylen;
	size_t off;		/* its first word in tout's spcs */
	uint64_t count;
};

/* The words of a sample: its frames and its Python text. */
static inline size_t tsample_words(const struct tsample *s)
{
	return (size_t)s->nkernel + s->nuser + (s->pylen + 7u) / 8;
}

/* The sample whose pieces one CPU is sending. */
struct tpend {
	bool open;
	uint32_t seq;
	uint32_t next;		/* index of the frame the next piece starts with */
	struct tsample s;
	uint64_t *pcs;
	size_t cap;
};

/* A kernel text symbol from /proc/kallsyms. */
struct tksym {
	uint64_t addr;
	char *name;
	size_t seq;	/* its line in /proc/kallsyms */
};

struct tout {
	struct tout_opts o;
	char *path;
	char *cmd;
	char *debug_root;
	struct tout_stats st;

	struct tmod *mods;
	size_t nmods, capmods;
	struct tmap *maps;	/* sorted by pid, start */
	size_t nmaps, capmaps;

	struct tthr *thr;
	size_t nthr, capthr, last_thr;

	struct tins *ins;
	size_t nins, capins;
	struct ktab ins_idx;
	struct tedge *edges;
	size_t nedges, capedges;
	struct ktab edge_idx;
	struct tbb *bbs;
	size_t nbbs, capbbs;
	struct ktab bb_idx;

	struct tsample *samples;	/* complete samples, in arrival order */
	size_t nsamples, capsamples;
	uint64_t *spcs;			/* their frames */
	size_t nspcs, capspcs;
	struct tpend *pend;		/* by CPU */
	size_t npend;
	uint64_t period;		/* of the first sample */
	bool period_ns;
	uint64_t open_ns;		/* when the trace was opened (CLOCK_REALTIME) */

	struct streams *streams;
	bool own_streams;

	const struct utap_fmt_codec *codec;	/* a streaming format, encoded as steps come */
	const struct tout_writer *writer;	/* else the writer of the whole run */
};

/*
 * A format the runner writes from a whole run: its file (drcov.c, ...)
 * defines one, and writers.c has its row.
 */
struct tout_writer {
	const char *name;
	bool blocks;	/* counts basic blocks (tout.c's bb_*) instead of instructions and edges */
	int (*write)(struct tout *t, FILE *f);
};

/* writers.c: the writer called NAME (LEN bytes), or NULL */
const struct tout_writer *tout_writer(const char *name, size_t len);

/* tmod.c: helpers */
bool tout_grow(void **p, size_t *cap, size_t need, size_t elem);
/*
 * S as it can go on one line of a text format: itself, or a copy in BUF
 * (SIZE bytes) with each newline and carriage return replaced by '?'. File
 * and symbol names may hold any byte but NUL.
 */
const char *tout_printable(const char *s, char *buf, size_t size);
/* qsort that accepts an empty (NULL) array */
void tout_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* tmod.c: the traced modules */
void tout_add_map(struct tout *t, const struct utap_trace_map *mr, const char *path);
/* The mapping holding ADDR in process PID (any process if PID is 0 or has none), or SIZE_MAX. */
size_t tout_find_map(struct tout *t, uint32_t pid, uint64_t addr);
void tmod_load(struct tout *t, struct tmod *m);
void tmod_free(struct tmod *m);
/* The module and file-relative address of run-time address ADDR, as the writers see it. */
int32_t tout_locate(struct tout *t, uint32_t pid, uint64_t addr, uint64_t *rel);
/*
 * Symbol (index; a PLT stub gets -2 - its index; -1: none) and source
 * position of a file-relative address.
 */
int64_t tmod_symbol(struct tmod *m, uint64_t rel, const char **name);
bool tmod_line(struct tmod *m, uint64_t rel, const char **file, uint32_t *line);
/* tsample.c: samples and the kernel's symbols */
void tsample_feed(struct tout *t, const struct utap_trace_sample *hdr, const uint64_t *pcs);
/* Samples still missing pieces when the trace ends are lost. */
void tsample_finish(struct tout *t);
void tsample_free(struct tout *t);
/* The kernel text symbol holding ADDR: its index, or -1 (name in *NAME). */
int64_t tksym_lookup(uint64_t addr, const char **name);

/* tout.c: fopen() the output (path) or fdopen() a dup of the fd, for the aggregate writers */
FILE *tout_output(struct tout *t, char *err, size_t errsize);
int tout_finish(struct tout *t, FILE *f, char *err, size_t errsize);
/* tout.c: the time of day in nanoseconds */
uint64_t tout_wall_ns(void);

#endif /* UTAP_FORMATS_TOUT_INT_H */
