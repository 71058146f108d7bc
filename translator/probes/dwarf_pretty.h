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

struct pretty_out {
	struct piece *v;
	int n, cap;
	struct strbuf text;	/* what the next piece prints first */
};

/* Appends TEXT to what is printed next. */
void pretty_text(struct pretty_out *out, const char *text);

/* Appends a value of FMT that ACC computes (PIECE_CHARS: an array of LEN bytes). */
void pretty_value(struct pretty_out *out, enum piece_fmt fmt, const struct uaccess *acc, int len);

/*
 * Appends how stap shows the object of TYPE (peeled; NULL for void) that
 * ACC computes: its address when IS_ADDR, else its value. ALL: $$, every
 * level. TOP: a variable itself, whose struct pointer is followed.
 */
void dwarf_pretty(struct pretty_out *out, Dwarf_Die *type, const struct uaccess *acc,
		  bool is_addr, bool all, bool top);

/* The pieces, with the last text flushed; *n their count. */
struct piece *pretty_end(struct pretty_out *out, int *n);

#endif /* UTAP_DWARF_PRETTY_H */
