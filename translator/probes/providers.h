/* providers.h - the probe family table, which main.c gives the session. */
#ifndef UTAP_PROVIDERS_H
#define UTAP_PROVIDERS_H

#include "sema/provider.h"

extern const struct probe_family probe_families[];
/* @cast to kernel types, in any probe (btfvars.c) */
extern const struct provider provider_kernel_cast;
extern const struct provider provider_kernel_var;
/* @cast to a user binary's or headers' type outside process probes (dwarf_vars.c) */
extern const struct provider provider_user_cast;
extern const struct provider provider_perf_counter;
/* kernel.function and module("m").function, whose @cast defaults to the probe's module */
extern const struct provider provider_kernel_function;

#endif /* UTAP_PROVIDERS_H */
