/*
 * emit.h - the emitter's state, shared with the providers that add
 * registration code and handler glue to the generated module.
 */
#ifndef UTAP_EMIT_H
#define UTAP_EMIT_H

#include "sema/sema.h"
#include "sema/provider.h"

/* pass 3: the session's C file (s->c_path) */
int translate(struct session *s);

struct val {
	enum type type;
	const char *c;		/* a side-effect-free C expression */
	bool str_temp;		/* c names a string temp owned by this expression */
};

struct emitter {
	struct session *s;
	struct strbuf *out;	/* the function body being written */
	int indent;

	/* per generated function */
	int nlong;		/* int64_t temps t0.. */
	int nstr, maxstr;	/* string temps l->__s[], allocated as a stack */
	int nlabels;
	const char *err_label;	/* where a failing statement goes */
	const char *brk, *cont;	/* loop labels */
	struct function *fn;	/* NULL in a probe handler */
	struct derived_probe *probe;	/* the handler being written */

	/* what the module is built with (needs.c) */
	struct included *included;	/* every #include of includes */
	unsigned parts;		/* PART_* of the runtime parts it needs */

	/* file sections */
	struct strbuf config;	/* #defines that size runtime parts, before runtime.h */
	bool uprobe_exe;	/* config defines UTAP_UPROBE_EXE (.library probes) */
	struct strbuf includes;	/* runtime parts and kernel headers, after runtime.h */
	struct strbuf top;	/* formats, globals */
	struct strbuf frames;	/* frame struct definitions */
	struct strbuf protos;	/* function prototypes */
	struct strbuf funcs;	/* function and handler bodies */
	struct strbuf glue;	/* provider glue */
	struct strbuf init;	/* utap_gen_init body */
	struct strbuf exit;	/* utap_gen_exit body */
	struct strbuf reg;	/* utap_gen_register body */
	struct strbuf unreg;	/* utap_gen_unregister body */
	struct strbuf begin;	/* utap_gen_begin body */
	struct strbuf end;	/* utap_gen_end body */
	struct strbuf autoprint;	/* globals stap prints at the end */
	int nfmts;
	struct fmt_seen *fmts;	/* the formats written, to write each once */
	int nsortbufs;
	struct handler_text *handlers;	/* kept aside for emit_share.c */
	int nunion;		/* members of union utap_frame */
	struct strbuf unionm;	/* union utap_frame members */
};

void emit_line(struct emitter *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* emit_share.c: handlers that differ only in their string literals share one function */
void emit_handler(struct emitter *em, struct derived_probe *d, const char **locks);
void emit_handler_shared(struct emitter *em, struct derived_probe *d);
void emit_shared_handlers(struct emitter *em);

/*
 * needs.c: runtime code enters the module by the name of its part, from a
 * provider (emit_need) or from a utap-needs: comment in used embedded C
 * (emit_needs, first thing in pass 3). What a part asks the translator for:
 */
enum part_flags {
	PART_UNWIND = 1u << 0,		/* unwind tables of the modules of interest (ustack.c) */
	PART_USYMS = 1u << 1,		/* their symbol tables */
	PART_ULINES = 1u << 2,		/* their line tables */
	PART_REGEX_GROUPS = 1u << 3,	/* every match records its groups (emit_regex.c) */
	PART_UDATA = 1u << 4,		/* symbols of data too, not only of code */
	PART_PYTHON = 1u << 5,		/* which of them are CPython, by its symbols (ustack.c) */
};
void emit_need(struct emitter *em, const char *name);
/* The parts the script's used embedded C names; -1 after an error. */
int emit_needs(struct emitter *em);
/* A kernel header (not runtime code), once; BEFORE (may be NULL) goes ahead of it. */
void emit_header(struct emitter *em, const char *path, const char *before);
bool emit_has_include(const struct emitter *em, const char *path);
/* temporaries for provider code that emits statements */
const char *emit_new_long(struct emitter *em);
const char *emit_new_str(struct emitter *em);
/* jump to the current error label with msg, blaming node n */
void emit_fail(struct emitter *em, const char *msg, const struct node *n);
const char *c_string_literal(const char *s, size_t len);
const char *c_near(const struct node *n);

/* the value of an expression (emit.c) */
struct val emit_value(struct emitter *em, struct node *n);

/* nesting.c: stap's default MAXNESTING for the script's call graph */
int max_nesting(struct session *s);

/* emit_data.c: globals, arrays, statistics, foreach, locks */
void emit_globals(struct emitter *em);
const char *emit_handler_locks(struct emitter *em, struct derived_probe *d, int *count);
struct index_keys {
	const char *decl;	/* "union utap_key kN[] = {...};" */
	const char *name;
	unsigned mask;		/* bit i set: key i given (else a '*' wildcard) */
};
struct val emit_index_read(struct emitter *em, struct node *n);
struct index_keys emit_index_keys(struct emitter *em, struct node *n);
/* the element's value slot ("void *" C name), created if missing; fails when full */
const char *emit_index_insert(struct emitter *em, struct node *n, const struct index_keys *k);
struct val emit_in(struct emitter *em, struct node *n);
void emit_delete_global(struct emitter *em, struct node *target);
void emit_agg_add(struct emitter *em, struct node *n);
struct val emit_stat_op(struct emitter *em, struct node *n);
void emit_print_hist(struct emitter *em, struct node *n);
/* The C name of a global's variable */
const char *emit_global_name(const struct symbol *sym);
/* A loop's body with break and continue bound to its labels, then continue's label. */
void emit_loop_body(struct emitter *em, void (*body)(struct emitter *, struct node *),
		    struct node *stmt, const char *brk, const char *cont);
/* @hist_log(x)[i]: the count in bucket i */
struct val emit_hist_bucket(struct emitter *em, struct node *n);
void emit_foreach(struct emitter *em, struct node *n,
		  void (*body)(struct emitter *, struct node *));
void emit_reads(struct emitter *em, struct node *n, unsigned char *read);
void emit_global_autoprint(struct emitter *em);

/* emit_regex.c: =~ and !~; the reset of the last match at a handler's start */
struct val emit_regex(struct emitter *em, struct node *n);
void emit_regex_prologue(struct emitter *em);

/* ustack.c: unwind, symbol and line tables for user backtraces */
int emit_ustack_tables(struct emitter *em);

/* C to enter a handler's context and run it; used by provider glue. */
void emit_run_handler(struct strbuf *sb, const struct derived_probe *d, const char *state,
		      const char *indent);

#endif
