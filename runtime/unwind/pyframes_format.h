/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pyframes_format.h - what the translator hands the module about a CPython
 * binary (python3.11, or a libpython3.11 a program maps): the values of a
 * few dynamic symbols, link-time addresses the module relocates by the
 * mapping's load bias. The order of UTAP_PY_SYMS is the order of the
 * array both sides share. Pure: no kernel or libc headers.
 */
#ifndef UTAP_UNWIND_PYFRAMES_FORMAT_H
#define UTAP_UNWIND_PYFRAMES_FORMAT_H

/* X(index name, symbol); _PyRuntime must be there for a file to count */
#define UTAP_PY_SYMS(X)				\
	X(RUNTIME, "_PyRuntime")		\
	X(VERSION, "Py_Version")		\
	X(CODE_TYPE, "PyCode_Type")		\
	X(UNICODE_TYPE, "PyUnicode_Type")	\
	X(BYTES_TYPE, "PyBytes_Type")

#define UTAP_PY_SYM_INDEX(name, sym) UTAP_PY_##name,
enum { UTAP_PY_SYMS(UTAP_PY_SYM_INDEX) UTAP_PY_NSYMS };
#undef UTAP_PY_SYM_INDEX

#endif /* UTAP_UNWIND_PYFRAMES_FORMAT_H */
