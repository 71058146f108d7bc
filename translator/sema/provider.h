/*
 * provider.h - the interface between the translator and one probe family.
 *
 * A provider (one file per family, as in ply) knows three things: whether a
 * probe point names its family, how to resolve a point into concrete
 * derived probes (expanding wildcards, checking arguments, reporting
 * missing symbols), and how to emit the C that registers them and calls the
 * probe handler with a context.
 */
#ifndef UTAP_PROVIDER_H
#define UTAP_PROVIDER_H

#include "sema/sema.h"

struct emitter;
struct val;

/* What the handler's context offers; checked by context functions at translate time. */
enum ctx_flags {
	CTX_KERNEL_REGS = 1u << 0,	/* c->regs are kernel registers */
	CTX_USER_REGS = 1u << 1,	/* c->regs are user registers (uprobe) */
	CTX_MAYBE_USER = 1u << 2,	/* interrupt: either, decided at run time */
	CTX_TASK = 1u << 3,		/* runs in a task's own context (current is the task) */
	CTX_RETURN = 1u << 4,		/* a return probe */
	CTX_SLEEPABLE = 1u << 5,	/* begin/end: process context, may sleep */
};

struct derived_probe {
	const struct provider *prov;
	const char *pp;			/* canonical probe point, as pp() prints it */
	const char *listed_pp;		/* the user-level alias it came through, as -l names
					 * it (NULL: not through an alias, -l prints pp) */
	const char *origin;		/* the aliases it came through, innermost first, as
					 * -p2 prints them: "p = begin <- q = p, end <- " */
	struct probe_point *point;	/* the concrete point (after alias expansion) */
	struct probe *probe;		/* the user's probe it came from */
	struct node *body;		/* handler body (alias prologue + user body) */
	struct node *cond;		/* probe X if (cond) */
	struct symbol *locals;
	int index;			/* position in the probe table */
	int handler;			/* index of the handler body function */
	unsigned ctx;			/* CTX_* */
	void *data;			/* the provider's resolved parameters */
	const char *needs;		/* a runtime part its glue uses, known before emitting */
	struct derived_probe *next;
};

struct provider {
	const char *name;
	/*
	 * Optional: true if the point, whose first component is one its rows in
	 * the family table name, is this family's (checks the components after
	 * it). NULL: every such point is.
	 */
	bool (*match)(const struct probe_point *pp);
	/*
	 * Optional, NULL-terminated: the component names the family takes after
	 * its first, each of which a '*' there stands for (timer.*(1)).
	 */
	const char *const *words;
	/*
	 * Resolves one concrete point. Appends derived probes cloned from proto
	 * with new_derived(); returns how many, 0 if nothing matched (the caller
	 * reports it unless the point is optional), -1 after reporting an error.
	 */
	int (*resolve)(struct session *s, struct probe_point *pp, struct derived_probe *proto);
	/* Emits declarations, handler glue and (un)registration for its probes. */
	void (*emit)(struct emitter *em, struct derived_probe **dps, int n);

	/*
	 * Optional. Target variables ($x, $x->f, $$parms, @cast, @entry, $return)
	 * in a handler body, in pass 2: check the node, set n->type, and keep
	 * what the emitter needs in the node (n->num, n->str, n->pdata). With
	 * quiet (for @defined) report nothing. Returns 0, or -1 when the variable
	 * is not available. NULL: the family has no target variables.
	 */
	int (*target_var)(struct session *s, struct derived_probe *d, struct node *n, bool quiet);
	/* target_var pretty-prints $x$, $x->f$$, @cast(...)$ (n->pretty); else they are errors */
	bool pretty;
	/* The value of a resolved target variable; may emit statements first. */
	struct val (*emit_target_var)(struct emitter *em, struct derived_probe *d, struct node *n);
	/*
	 * Optional: an assignment (op "=", ".=", ...) of v to a target variable the
	 * family lets a script write (procfs's $value). Emits the store; false after
	 * reporting why it cannot. NULL: no target variable is writable.
	 */
	bool (*store_target_var)(struct emitter *em, struct derived_probe *d, struct node *lhs,
				 const char *op, struct val v);
	/*
	 * Optional: may a script write lv, a target variable of d, without guru
	 * mode? 1: yes (procfs's $value), 0: only in guru mode, -1: never (the
	 * hook reported why, a pass-2 error as in stap).
	 */
	int (*free_write)(struct derived_probe *d, struct node *lv);
	/* Optional, for -L: print the target variables of d as " $name:type". */
	void (*list_vars)(struct session *s, struct derived_probe *d, FILE *out);
};

/*
 * One row of the probe family table (probes/providers.c, ended by a row
 * without FIRST): a point whose first component is FIRST goes to the first
 * row, in table order, whose provider matches it. Pass 3 writes each
 * family's code in the order of its first row.
 */
struct probe_family {
	const char *first;
	const struct provider *prov;
};

/* helpers for providers (elaborate.c) */
struct derived_probe *new_derived(struct derived_probe *proto, const char *pp);

#endif /* UTAP_PROVIDER_H */
