/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pysyms.h - is an ELF file a CPython interpreter (python3.11, or a
 * libpython3.11 a program embeds)? The dynamic symbols pybacktrace() needs
 * (runtime/unwind/pyframes_format.h), by their link-time values.
 */
#ifndef UTAP_ELF_PYSYMS_H
#define UTAP_ELF_PYSYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/pyframes_format.h"

/*
 * The values of UTAP_PY_SYMS in PATH's .dynsym, in their order (0 for one
 * it lacks); true when _PyRuntime is among them.
 */
bool elf_py_syms(const char *path, uint64_t vals[UTAP_PY_NSYMS]);

#endif /* UTAP_ELF_PYSYMS_H */
