/*
 * btfvars.h - target variables of kernel functions from the kernel's BTF:
 * $param, $param->member->..., $param[N], &$..., $$parms and a typed
 * $return, without DWARF debuginfo.
 */
#ifndef UTAP_PROBES_BTFVARS_H
#define UTAP_PROBES_BTFVARS_H

#include "sema/provider.h"

struct emitter;
struct val;

/*
 * Checks target variable n of a probe on func (entry, or return when
 * is_return) of vmlinux (module NULL) or of kernel module MODULE, through
 * that module's split BTF, and sets n->type. 0 if it is available; -1 after reporting
 * why not (nothing is reported with quiet). 1 if the kernel has no BTF
 * for func, so the caller decides.
 */
int btfvars_check(struct session *s, const struct derived_probe *d, const char *module,
		  const char *func, bool is_return, struct node *n, bool quiet);

/* The value of a variable btfvars_check() accepted; emits statements. */
struct val btfvars_emit(struct emitter *em, const char *module, const char *func, bool is_return,
			const struct node *n);

/*
 * A guru write of v (op "=" only) to a variable btfvars_check() accepted:
 * a parameter's register, $return's, or the memory a member or element is
 * in. False after reporting why it cannot be written.
 */
bool btfvars_store(struct emitter *em, const char *module, const char *func, bool is_return,
		   const struct node *n, const char *op, struct val v);

/* Whether the BTF of the target kernel (MODULE NULL) or of its module MODULE describes func. */
bool btf_func_known(struct session *s, const char *module, const char *func);

/* For -L: " $name:type" of each parameter (entry) and $return:type (return). */
void btfvars_list(struct session *s, const char *module, const char *func, bool is_return,
		  FILE *out);

/*
 * Pretty-printing a value the module holds as a C lvalue (a tracepoint's
 * argument) typed by the kernel's BTF TYPE: $x$, $x->f[2]$$. The check
 * sets n->type (-1 after reporting why not, unless quiet); the emit gives
 * the string, LV being the C lvalue.
 */
int btfvars_pretty_check(struct session *s, struct node *n, uint32_t type, bool quiet);
struct val btfvars_pretty_emit(struct emitter *em, const struct node *n, uint32_t type,
			       const char *lv);

/* $$parms$: "name=VALUE ..." of the COUNT lvalues LVS of TYPES (a NULL name is skipped). */
struct val btfvars_pretty_list(struct emitter *em, const struct node *n, int count,
			       const char *const *names, const uint32_t *types,
			       const char *const *lvs);

/*
 * A value the module holds (VALUE, of BTF type TYPE) and n's ->member and
 * [index] chain from it: the check that the members exist (0, or -1 after
 * reporting why unless quiet), with *bitfield set when the chain ends on
 * one (which C cannot take the address of, so the header-typed walk cannot
 * read it), and the walk on the BTF's offsets instead.
 */
int btfvars_check_chain(struct session *s, uint32_t type, const struct node *n, bool quiet,
			bool *bitfield);
struct val btfvars_emit_chain(struct emitter *em, const struct node *n, uint32_t type,
			      const char *value);

#endif /* UTAP_PROBES_BTFVARS_H */
