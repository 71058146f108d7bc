/*
 * dwarf_names.h - C++ functions qualified the way DWARF and stap name
 * them: "acc::Worker<long int>::run", where the demangler says
 * "acc::Worker<long>::run". The scopes are the namespaces and classes
 * around the function's declaration; an anonymous namespace is an empty
 * component ("acc::::hid"), and a class inside a function (a lambda's
 * closure) is no scope, so a lambda's call operator is "::operator()".
 */
#ifndef UTAP_DWARF_NAMES_H
#define UTAP_DWARF_NAMES_H

#include "probes/process_bin.h"

/* Fills in dwname of B's C++ functions that have DWARF (once per binary). */
void dwarf_name_funcs(struct ubinary *b);

#endif /* UTAP_DWARF_NAMES_H */
