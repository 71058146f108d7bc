/* providers.c - every probe family, in the order points are matched. */
#include "provider.h"

extern const struct provider provider_begin_end;

const struct provider *const providers[] = {
	&provider_begin_end,
	NULL,
};
