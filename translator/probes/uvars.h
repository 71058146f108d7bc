/*
 * uvars.h - how a user-space probe's target variable is read, whatever
 * described it (DWARF for .function, the SDT note for .mark).
 *
 * Pass 2 records a plan in the node: a C expression for a starting value
 * over the probe's registers (c->regs), then steps - add an offset, add a
 * scaled script index, load from user memory, narrow to a width. Pass 3
 * emits the steps; a failing load raises stap's "read fault" error,
 * catchable with try/catch. Strings ($$parms, $$vars, pretty-printed $x$)
 * are pieces of text and values, with '?' for what cannot be read.
 */
#ifndef UTAP_UVARS_H
#define UTAP_UVARS_H

#include "codegen/emit.h"
#include "core/piece_format.h"

/* An integer as the target holds it. */
struct scalar {
	int size;		/* 1, 2, 4 or 8 */
	bool is_signed;
};

enum step_op { STEP_ADD, STEP_INDEX, STEP_LOAD, STEP_CONV, STEP_BITS };

struct step {
	enum step_op op;
	int64_t k;		/* ADD: offset; INDEX: element size; BITS: the field's lowest bit */
	struct node *index;	/* INDEX: the script expression */
	struct scalar sc;	/* LOAD, CONV; BITS: is_signed */
	int bits;		/* BITS: the field's width */
};

/* How to compute one value: BASE (a C expression of type uint64_t), then the steps. */
struct uaccess {
	const char *base;
	struct step steps[24];
	int nsteps;
	bool kernel;		/* the loads read kernel memory (BTF-typed values) */
};

/* Appends a step; false when the chain is too long. */
bool access_add(struct uaccess *acc, struct step s);

/* A target string is pieces: each TEXT, then its value (or '?' if it cannot be read). */
struct piece {
	const char *text;
	enum piece_fmt fmt;
	struct uaccess acc;	/* the value; PIECE_CHARS: the array's address */
	int len;		/* PIECE_CHARS: the array's size */
	bool from_entry;	/* the value was captured at the function's entry */
	int entry_slot;
};

/*
 * Values a .return probe reads as they were at the function's entry
 * (@entry($x), and every $param there): computed by a capture function
 * the entry uprobe runs, kept per call, handed to the return handler.
 */
struct entry_caps {
	struct uaccess *v;
	int n, cap;
	const char *ret_sp;	/* captured after the entry: the CFA there, which the return's sp will be */
};

/* Adds ACC to the captures; its slot, or -1 with *why when it cannot be captured. */
int entry_caps_add(struct entry_caps *ec, const struct uaccess *acc, const char **why);

/* n is the long captured in SLOT. */
void uvar_set_entry(struct node *n, int slot);

/*
 * The C function NAME(regs, v, ok) that computes the captures of EC and
 * returns the stack pointer the function's return will have.
 */
void uvar_emit_capture_fn(struct strbuf *sb, const char *name, const struct entry_caps *ec);

/* n is a long computed by acc. */
void uvar_set_long(struct node *n, const struct uaccess *acc);

/* Pieces being made: what $x$ and $$parms print (probes/dwarf_pretty.c, probes/btfvars.c). */
struct pretty_out {
	struct piece *v;
	int n, cap;
	struct strbuf text;	/* what the next piece prints first */
};

/* Appends TEXT to what is printed next. */
void pretty_text(struct pretty_out *out, const char *text);

/* Appends a value of FMT that ACC computes (PIECE_CHARS: an array of LEN bytes). */
void pretty_value(struct pretty_out *out, enum piece_fmt fmt, const struct uaccess *acc, int len);

/* ACC then S (an offset of 0 adds no step). */
struct uaccess access_plus(const struct uaccess *acc, struct step s);

/*
 * A struct or array that is not shown: ELIDED ("{...}", "[...]") below the
 * top in $x$ or too deep, '?' when not in memory. True if it printed one.
 */
bool pretty_elided(struct pretty_out *out, int depth, bool all, bool is_addr, const char *elided);

/* The pieces, with the last text flushed; *n their count. */
struct piece *pretty_end(struct pretty_out *out, int *n);

/* n is the string the pieces print, one after the other. */
void uvar_set_pieces(struct node *n, struct piece *pieces, int npieces);

/* n is a string known when translating ($$name of a marker). */
void uvar_set_string(struct node *n, const char *s);

/* The value of a target variable the setters above planned. */
struct val uvar_emit(struct emitter *em, struct node *n);

/*
 * A guru write of v (op "=") to n: its register, or the user memory its
 * last load reads (a fault is the probe's error). False after reporting
 * why it cannot be written.
 */
bool uvar_store(struct emitter *em, struct node *n, const char *op, struct val v);

#endif /* UTAP_UVARS_H */
