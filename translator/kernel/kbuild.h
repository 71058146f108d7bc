/*
 * kbuild.h - pass 4: the target kernel (-r, or the one running here) and the
 * generated C compiled against its build tree into a module.
 */
#ifndef UTAP_KBUILD_H
#define UTAP_KBUILD_H

#include "sema/sema.h"

int compile_module(struct session *s);
void kbuild_put_config(struct strbuf *out, const struct session *s); /* -D as #defines */
void kernel_select(struct session *s);	/* -r, or the running kernel */
int kernel_check(struct session *s, const char *alternative); /* its build tree exists */

#endif /* UTAP_KBUILD_H */
