/*
 * cxxname.h - C++ function names the way a stap user writes them.
 *
 * A C++ function is named by its qualified name without parameters
 * ("acc::Worker<long>::run"), from the demangler or from DWARF's
 * namespaces and classes. A pattern such as "Worker<*>::run" is split at
 * the "::" outside brackets and matched, component by component, against
 * the last components of such a name; the global scope is one more
 * component, empty, in front ("::main"). So "run" is the unqualified base
 * name, "acc::*" the functions directly in acc, and parameter lists are
 * never part of the matched text, as in stap.
 */
#ifndef UTAP_CXXNAME_H
#define UTAP_CXXNAME_H

/*
 * The qualified name of C++ function symbol SYM without its parameters;
 * NULL when SYM is not a mangled function name (C, thunks, failures).
 * GCC's suffix for a part of a function stays ("us::thrower.cold",
 * ".part.0"); one for a whole copy of it goes (".isra.0", ".constprop.0",
 * ".localalias"), so the name covers the copies, as stap's DWARF does.
 */
const char *cxx_demangle(const char *sym);

/* The suffix of SYM that cxx_demangle() keeps: "" or ".cold", ".part.0"... */
const char *cxx_kept_suffix(const char *sym);

/*
 * PATTERN (a glob per component) matched against qualified name QUAL:
 * the matched components of QUAL joined with "::" (as many as PATTERN
 * has), or NULL when it does not match.
 */
const char *cxx_scoped_match(const char *pattern, const char *qual);

/* The last component of qualified name QUAL. */
const char *cxx_base_name(const char *qual);

/* Where a parameter list starts in function name NAME ("f(int)"), or NULL. */
const char *cxx_param_list(const char *name);

#endif /* UTAP_CXXNAME_H */
