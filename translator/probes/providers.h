/* providers.h - the probe family table, which main.c gives the session. */
#ifndef UTAP_PROVIDERS_H
#define UTAP_PROVIDERS_H

#include "sema/provider.h"

extern const struct probe_family probe_families[];

#endif /* UTAP_PROVIDERS_H */
