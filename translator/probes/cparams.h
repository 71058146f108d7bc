/*
 * cparams.h - C parameter lists as kernel headers write them (TP_PROTO,
 * syscall prototypes), and target variables of C-typed values read without
 * faulting. The module is compiled against the same headers, so a value
 * like $prev->pid is emitted as C on the header's own types: no DWARF.
 */
#ifndef UTAP_PROBES_CPARAMS_H
#define UTAP_PROBES_CPARAMS_H

#include "sema/sema.h"

struct emitter;
struct val;

struct cparam {
	const char *name;	/* NULL when unnamed */
	const char *decl;	/* the declaration as written: "struct task_struct *prev" */
	const char *type;	/* for listings: "struct task_struct*" */
	bool by_value_aggregate;	/* a struct or union passed by value */
};

/* Removes leading and trailing white space in place. */
char *c_trim(char *s);

/* Splits "int fd, char __user *buf"; "void" or "" is no parameter. -1 if unbalanced. */
int cparams_parse(const char *text, struct cparam **out);

/* Index of the parameter called name ("$" stripped by the caller), or -1. */
int cparams_find(const struct cparam *p, int n, const char *name);

/*
 * The value of a target variable $param[->field|[N]]... or &$param...:
 * base is a C lvalue holding the parameter (for instance a member of the
 * probe's argument struct). Intermediate pointers and the final value are
 * read with copy_from_kernel_nofault(); a fault is stap's catchable "read
 * fault" error. Arrays give their address, as in stap; a struct or union
 * value is a compile-time error naming the variable. Emits statements.
 */
struct val cparams_emit_target(struct emitter *em, const struct node *n, const char *base);

/* A string "name=0x... name=0x..." of every parameter ($$parms); base(i) is param i's lvalue. */
struct val cparams_emit_parms(struct emitter *em, const struct cparam *p, int n,
			      const char *(*base)(void *ctx, int i), void *ctx);

/* The target variable as the script wrote it ("$prev->mm->pgd"), for messages. */
const char *cparams_var_text(const struct node *n);

/* Checks a target variable's suffix for what cparams_emit_target handles; reports errors. */
int cparams_check_target(const struct node *n, bool quiet);

#endif /* UTAP_PROBES_CPARAMS_H */
