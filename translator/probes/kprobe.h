/*
 * kprobe.h - what the kprobe.* and kernel.function/module().function
 * families share: resolving function names against the target kernel's
 * symbols, and emitting a table of kprobes registered by name.
 */
#ifndef UTAP_PROBES_KPROBE_H
#define UTAP_PROBES_KPROBE_H

#include "sema/provider.h"

struct cparam;

/* One probed place: a derived probe's data. */
struct kprobe_site {
	const char *symbol;	/* function name; NULL with an absolute address */
	const char *module;	/* the function's kernel module; NULL: vmlinux */
	uint64_t address;	/* .statement(ADDR).absolute */
	bool is_return;
	bool soft;		/* one of a wildcard's matches: failing to register only warns */
	int64_t maxactive;	/* .return.maxactive(N); 0: the default */
	bool entry_regs;	/* the handler reads @entry(): the entry saves the registers */
	const struct cparam *params;	/* known parameters (syscall wrappers), or NULL */
	int nparams;
};

/* Builds the pp() string of one resolved function. */
typedef const char *(*kprobe_pp_fn)(const char *module, const char *func, const char *suffix);

struct kprobe_request {
	const char *func;	/* glob */
	const char *module;	/* glob; NULL: vmlinux */
	const char *suffix;	/* appended to pp(): "", ".return", ".call" ... */
	bool is_return;
	int64_t maxactive;
	kprobe_pp_fn make_pp;
};

/*
 * Derives one probe per function matching rq (checked against the target
 * kernel); each gets a struct kprobe_site in d->data. Returns the count, 0
 * when nothing matched and the point is optional, -1 after an error.
 */
int kprobe_resolve_functions(struct session *s, struct probe_point *pp,
			     struct derived_probe *proto, const struct kprobe_request *rq);

/* Derives a probe on an absolute address (guru mode only; checked by the caller). */
int kprobe_resolve_address(struct session *s, struct probe_point *pp, struct derived_probe *proto,
			   uint64_t address, const char *pp_text);

/* Emits the family's table, registration and unregistration; tag names the C symbols. */
void kprobe_emit_table(struct emitter *em, struct derived_probe **dps, int n, const char *tag);

/* The "$return" of return probes, shared by both families. */
bool kprobe_is_return_var(const struct derived_probe *d, const struct node *n);

/* A C string literal argument of a point component, with an error if it is missing. */
const char *kprobe_string_arg(const struct pp_component *c);

#endif /* UTAP_PROBES_KPROBE_H */
