/*
 * cast_header.h - user-space types from headers, for @cast's "<header.h>"
 * module: the headers compiled into an object with DWARF, at translate time.
 */
#ifndef UTAP_CAST_HEADER_H
#define UTAP_CAST_HEADER_H

/*
 * The path of a cached shared object whose DWARF has every type the headers
 * of SPEC ("<sys/time.h>", "<a.h><b.h>") declare, compiled by gcc; NULL and
 * *why (for a message) if SPEC is not headers or they do not compile.
 */
const char *cast_header_object(const char *spec, const char **why);

#endif /* UTAP_CAST_HEADER_H */
