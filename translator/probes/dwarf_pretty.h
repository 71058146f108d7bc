/*
 * dwarf_pretty.h - stap's pretty-printing of a value DWARF types: $x$
 * shows a struct's members one level deep ({.a=-3, .b={...}, .c=[...]}),
 * $x$$ every level ({.b={.x=1}, .c=[1, ...]}), as stap 4.8 prints them;
 * $$parms$ shows each variable so. The result is pieces (probes/uvars.h).
 */
#ifndef UTAP_DWARF_PRETTY_H
#define UTAP_DWARF_PRETTY_H

#include <elfutils/libdw.h>

#include "probes/uvars.h"

/*
 * Appends how stap shows the object of TYPE (peeled; NULL for void) that
 * ACC computes: its address when IS_ADDR, else its value. ALL: $$, every
 * level. TOP: a variable itself, whose struct pointer is followed.
 */
void dwarf_pretty(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		  bool is_addr, bool all, bool top);

#endif /* UTAP_DWARF_PRETTY_H */
