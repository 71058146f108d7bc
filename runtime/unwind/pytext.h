/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pytext.h - reading back the compact form of a Python stack, the string
 * pybacktrace() returns (pyframes.c writes it): one line per frame,
 * innermost first, "FUNC\tFILE\tLINE\n", or "FUNC\tFILE\tLINE\tE\n" for
 * an entry frame (the first frame one C call of _PyEval_EvalFrameDefault
 * ran), or a marker line "<...>\n". Pure: the module renders and folds
 * kept strings with it, the runner puts a profile's Python frames in place
 * of the eval loop's C frames (runner/trace/pprof.c).
 */
#ifndef UTAP_UNWIND_PYTEXT_H
#define UTAP_UNWIND_PYTEXT_H

#include "core/port.h"

/* One line of the compact form: pointers into the string, not copies. */
struct utap_py_line {
	const char *name, *file, *line;
	size_t name_len, file_len, line_len;
	bool entry, marker;
};

/* The next whole line at *p (ending in '\n'); false at the end of the string. */
bool utap_py_next(const char **p, struct utap_py_line *l);

/*
 * The Python frames one C call of _PyEval_EvalFrameDefault ran are a
 * group, innermost first, ending with its entry frame; group 0 is the
 * innermost C call's. Frames after the last entry frame (a walk cut short)
 * make no group; a marker (after the frames that could be read) ends them.
 */
int utap_py_ngroups(const char *s);

/* Frame j (0: innermost) of group g in *out, and the group's length; 0 if there is no group g. */
int utap_py_group_frame(const char *s, int g, int j, struct utap_py_line *out);

#endif /* UTAP_UNWIND_PYTEXT_H */
