/*
 * btf_pretty.h - stap's pretty-printing ($x$, $x$$, $$parms$) of kernel
 * values the kernel's BTF types, in the format probes/dwarf_pretty.c
 * prints DWARF-typed ones.
 */
#ifndef UTAP_BTF_PRETTY_H
#define UTAP_BTF_PRETTY_H

#include "kernel/kbtf.h"
#include "probes/uvars.h"

/*
 * Appends how stap shows the kernel object of TYPE that ACC computes (its
 * address when IS_ADDR, else its value). ALL: $$. TOP: a variable itself,
 * whose struct pointer is followed.
 */
void btf_pretty(struct pretty_out *out, const struct btf *b, uint32_t type,
		const struct uaccess *acc, bool is_addr, bool all, bool top);

#endif /* UTAP_BTF_PRETTY_H */
