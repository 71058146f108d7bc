/*
 * process.h - what the process(...) families share: reading the leading
 * process / process("PATH") / process(PID) component, the probe point text
 * stap prints for it, and the uprobe table that .function, .statement and
 * .mark probes all register through (runtime/probes/uprobe.c).
 */
#ifndef UTAP_PROCESS_H
#define UTAP_PROCESS_H

#include "codegen/emit.h"
#include "probes/process_bin.h"
#include "probes/uvars.h"

/* The binaries (and process) a leading process(...) component names. */
struct process_spec {
	int64_t pid;			/* process(PID); 0 otherwise */
	bool any;			/* bare `process`: no path, no PID */
	bool target_tree;		/* bare `process` with -c/-x: the target and its descendants */
	struct ubinary **bins;		/* every match of the path (globs expand) */
	int nbins;
	/*
	 * .library("PATTERN"): bins are the libraries, probed only in the
	 * processes of exe; shown[i] is bins[i] as its probe point names it.
	 * NULL without .library.
	 */
	struct ubinary *exe;
	const char **shown;
};

/*
 * The family's component: the one after process(...), or after
 * process(...).library(...).
 */
const struct pp_component *process_kind(const struct probe_point *pp);

/* True if pp is process[(ARG)][.library(ARG)].NAME... for one of NAMES. */
bool process_point_is(const struct probe_point *pp, const char *const names[], int n);

/*
 * Reads pp's process component. NEED_BINARY: the family needs an ELF file
 * (bare `process` then means the -c command's executable). Returns 1, 0
 * when an optional point names nothing, -1 after reporting an error.
 */
int process_spec_read(struct session *s, const struct probe_point *pp, bool need_binary,
		      struct process_spec *out);

/*
 * For a point that matched nothing: 0 if it is optional or NAME has
 * wildcards (the caller's generic message covers it), else reports "no
 * WHAT 'NAME' in 'PATH'DETAIL" and returns -1.
 */
int process_report_missing(const struct probe_point *pp, const struct process_spec *spec,
			   const char *what, const char *name, const char *detail);

/* `process("PATH")` or `process(PID)`: the start of a derived pp. */
const char *process_pp_prefix(const struct ubinary *b, int64_t pid);

/*
 * The same for a probe in B, one of spec's binaries: with .library,
 * `process("EXE").library("LIB")`.
 */
const char *process_site_prefix(const struct process_spec *spec, const struct ubinary *b);

/* One uprobe site: what runtime/probes/uprobe.c registers. */
/*
 * The call chains a .callee probe fires for: NCHAINS chains of DEPTH
 * link-time return addresses each, the innermost (ustack(1)) first.
 */
struct callers {
	int depth, nchains;
	const uint64_t *ra;
};

struct usite {
	const struct ubinary *bin;
	const struct ubinary *exe;	/* .library: only in processes of this executable */
	int64_t pid;
	bool target_tree;		/* only the -c/-x target and its descendants */
	uint64_t vaddr;			/* link-time address */
	uint64_t offset;		/* its file offset */
	uint64_t sema_offset;		/* SDT semaphore file offset, 0: none */
	bool is_return;
	bool optional;
	const char *func;		/* .function: the symbol; NULL otherwise */
	const char *data_c;		/* C expression for the entry's .data, or NULL */
	void *family;			/* the family's own data (SDT note, DWARF function) */
	struct entry_caps caps;		/* .return: values taken at the function's entry */
	const struct callers *callers;	/* .callee: fires only when called from these sites */
	uint64_t cap_offset;		/* .return: file offset where caps are taken */
};

/*
 * A usite for link-time VADDR in b; reports an error at pp and returns
 * NULL when no loadable segment of the file holds it.
 */
struct usite *usite_new(const struct probe_point *pp, const struct process_spec *spec,
			const struct ubinary *b, uint64_t vaddr);

/* Emits the table NAME of the sites of dps (d->data is a struct usite) and its (un)registration. */
void uprobe_emit_table(struct emitter *em, struct derived_probe **dps, int n, const char *name);

#endif /* UTAP_PROCESS_H */
