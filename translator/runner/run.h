/* run.h - pass 5: load the module, run the session, unload. */
#ifndef UTAP_RUN_H
#define UTAP_RUN_H

#include "sema/sema.h"

int run_module(struct session *s, const char *ko_path);

#endif /* UTAP_RUN_H */
