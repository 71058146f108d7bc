// SPDX-License-Identifier: GPL-2.0
/*
 * pyframes.c - the Python frames of the current thread, for CPython 3.11.
 *
 * The interpreter is a file the translator found _PyRuntime in (the
 * python3.11 executable or a libpython3.11), met in the thread's own
 * native stack: the mapping of that frame gives the load bias. From
 * _PyRuntime, the interpreters' thread states lead to the one whose native
 * thread id is this thread's; its cframe->current_frame is the innermost
 * _PyInterpreterFrame, and previous links lead out. Each frame names its
 * code object (co_name, co_filename) and the last instruction it ran
 * (prev_instr), which co_linetable turns into a line. The offsets are the
 * installed headers' (py311_offsets.h, generated). Every read is a
 * non-faulting one of the thread's memory, and every object is checked
 * against its type before it is believed: what cannot be read or checked
 * ends the walk with a marker.
 *
 * The walk writes a compact string (pybacktrace()): one line per frame,
 * innermost first, "FUNC\tFILE\tLINE\n", or "FUNC\tFILE\tLINE\tE\n" for
 * an entry frame, the first frame a C call of _PyEval_EvalFrameDefault
 * ran (the Python frames up to it are that C frame's: the mixed folded
 * form needs the boundary). A marker is one line "<...>\n". The print
 * forms render such a string as "  FUNC (FILE:LINE)" lines.
 */
#ifndef UTAP_UNWIND_PYFRAMES_C
#define UTAP_UNWIND_PYFRAMES_C

#include "unwind/ucontext.c"
#include "probes/umemory.c"
#include "unwind/pyframes_format.h"
#include "unwind/py311_offsets.h"
#include "unwind/pyline.c"
#include "unwind/pytext.c"

#define UTAP_PY_NAME 128		/* bytes kept of a function's name */
#define UTAP_PY_FILE 256		/* and of a file's */
#define UTAP_PY_MAX_THREADS 4096	/* thread states looked at, per interpreter */
#define UTAP_PY_MAX_INTERPS 64

/* The interpreter of the current process: its file and where it is loaded. */
struct utap_py {
	struct utap_umod *mod;
	u64 bias;
};

static u64 utap_py_sym(const struct utap_py *py, int sym)
{
	return py->mod->py[sym] ? py->bias + py->mod->py[sym] : 0;
}

static int utap_py_ptr(u64 addr, u64 *out)
{
	return utap_uread(out, addr, sizeof(*out));
}

/*
 * A thread whose native stack has no CPython frame (one a C library
 * started, say) may still be in a Python process: the mappings say.
 */
static bool utap_py_find_mapped(struct utap_py *py)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct utap_umap m;
	bool found = false;
	VMA_ITERATOR(vmi, mm, 0);

	if (!mm || in_nmi() || !mmap_read_trylock(mm))
		return false;
	for_each_vma(vmi, vma) {
		struct utap_umod *mod;

		if (!vma->vm_file || !(vma->vm_flags & VM_EXEC))
			continue;
		mod = utap_umod_by_inode(file_inode(vma->vm_file));
		if (mod && mod->py && utap_umap_fill(mm, vma, &m, true)) {
			py->mod = mod;
			py->bias = m.bias;
			found = true;
			break;
		}
	}
	mmap_read_unlock(mm);
	return found;
}

/* The first frame of the native stack in a CPython file: which one it is, and its bias. */
static bool utap_py_find(struct utap_context *c, struct utap_py *py)
{
	struct utap_ustack *us = utap_ustack_get(c);
	struct utap_umap m;
	u32 i;

	for (i = 0; i < us->nr; i++) {
		u64 pc = i ? us->pcs[i] - 1 : us->pcs[i];
		int rc = utap_umap_find(pc, &m);

		if (rc == -EAGAIN)
			rc = utap_seen_find(pc, current->tgid, current->mm, &m);
		if (rc == 0 && m.mod && m.mod->py) {
			py->mod = m.mod;
			py->bias = m.bias;
			return true;
		}
	}
	return utap_py_find_mapped(py);
}

/*
 * Is the interpreter 3.11 (its Py_Version)? Another version is named in a
 * warning, once per file; a file found to be 3.11 is not asked again.
 */
static const char *utap_py_version(struct utap_py *py, char *why, size_t size)
{
	u64 v, at = utap_py_sym(py, UTAP_PY_VERSION);

	if (READ_ONCE(py->mod->py_version) == 1)
		return NULL;
	if (!at)
		return "no Py_Version: not CPython 3.11";
	if (utap_py_ptr(at, &v))
		return "Py_Version unreadable";
	if ((v >> 16) == (UTAP_PY311_VERSION_HEX >> 16)) {
		WRITE_ONCE(py->mod->py_version, 1);
		return NULL;
	}
	scnprintf(why, size, "CPython %llu.%llu is not supported",
		  (unsigned long long)(v >> 24), (unsigned long long)((v >> 16) & 0xff));
	if (cmpxchg(&py->mod->py_version, 0, 2) == 0)
		utap_warn("%s is CPython %llu.%llu: Python backtraces read CPython 3.11 only",
			  py->mod->path, (unsigned long long)(v >> 24),
			  (unsigned long long)((v >> 16) & 0xff));
	return why;
}

/* The thread state whose native thread id is this thread's, or 0. */
static u64 utap_py_tstate(const struct utap_py *py, bool *fault)
{
	unsigned long tid = task_pid_vnr(current);
	u64 interp, ts;
	int ni, nt;

	*fault = utap_py_ptr(utap_py_sym(py, UTAP_PY_RUNTIME) + UTAP_PY311_RT_INTERP_HEAD,
			     &interp) != 0;
	for (ni = 0; !*fault && interp && ni < UTAP_PY_MAX_INTERPS; ni++) {
		*fault = utap_py_ptr(interp + UTAP_PY311_IS_THREADS_HEAD, &ts) != 0;
		for (nt = 0; !*fault && ts && nt < UTAP_PY_MAX_THREADS; nt++) {
			u64 id;

			if (utap_py_ptr(ts + UTAP_PY311_TS_NATIVE_TID, &id))
				*fault = true;
			else if (id == tid)
				return ts;
			else
				*fault = utap_py_ptr(ts + UTAP_PY311_TS_NEXT, &ts) != 0;
		}
		if (!*fault)
			*fault = utap_py_ptr(interp + UTAP_PY311_IS_NEXT, &interp) != 0;
	}
	return 0;
}

/* ---- objects ---- */

/* Is OBJ an object of type TYPE (the relocated address of a type object)? */
static bool utap_py_is(u64 obj, u64 type)
{
	u64 t;

	return obj && type && !utap_py_ptr(obj + UTAP_PY311_OB_TYPE, &t) && t == type;
}

/* Appends code point CP to out as UTF-8; false when it does not fit. */
static bool utap_py_put_utf8(char *out, size_t size, size_t *n, u32 cp)
{
	u8 b[4];
	int k;

	if (cp < 0x20 || cp == 0x7f)
		cp = '?';	/* the compact form's separators and control bytes stay out */
	if (cp < 0x80) {
		b[0] = cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | ((cp >> 6) & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		k = 3;
	} else {
		b[0] = 0xf0 | (cp >> 18 & 7);
		b[1] = 0x80 | ((cp >> 12) & 0x3f);
		b[2] = 0x80 | ((cp >> 6) & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		k = 4;
	}
	if (*n + k >= size)
		return false;
	memcpy(out + *n, b, k);
	*n += k;
	return true;
}

/*
 * A str object into out (UTF-8, cut at a whole character); false when it
 * is not a compact str or cannot be read. ASCII is copied; other strings
 * are re-encoded from their 1, 2 or 4 byte code units.
 */
static bool utap_py_str(u64 obj, u64 str_type, char *out, size_t size)
{
	u8 hdr[UTAP_PY311_STR_ASCII_DATA], units[64];
	u64 len, done = 0, data;
	u32 state, kind;
	size_t n = 0;

	out[0] = 0;
	if (!utap_py_is(obj, str_type) || utap_uread(hdr, obj, sizeof(hdr)))
		return false;
	memcpy(&len, hdr + UTAP_PY311_STR_LENGTH, sizeof(len));
	memcpy(&state, hdr + UTAP_PY311_STR_STATE, sizeof(state));
	if (!(state & UTAP_PY311_STATE_COMPACT))
		return false;
	kind = (state & UTAP_PY311_STATE_KIND) >> UTAP_PY311_STATE_KIND_SHIFT;
	if (state & UTAP_PY311_STATE_ASCII) {
		kind = 1;
		data = obj + UTAP_PY311_STR_ASCII_DATA;
	} else {
		data = obj + UTAP_PY311_STR_COMPACT_DATA;
	}
	if (kind != 1 && kind != 2 && kind != 4)
		return false;
	while (done < len) {
		u32 take = min_t(u64, len - done, sizeof(units) / kind), i;

		if (utap_uread(units, data + done * kind, take * kind))
			return false;
		for (i = 0; i < take; i++) {
			u32 cp = kind == 1 ? units[i] : kind == 2 ? ((u16 *)units)[i] :
				 ((u32 *)units)[i];

			if (!utap_py_put_utf8(out, size, &n, cp))
				goto cut;
		}
		done += take;
	}
cut:
	out[n] = 0;
	return true;
}

/* ---- lines: co_linetable, 3.11's location table (pyline.c) ---- */

struct utap_py_bytes {
	u64 at, end;
	u8 buf[64];
	u32 n, i;
};

/* The next byte of the table, or -1 at its end or on a fault (a utap_pyline_next). */
static int utap_py_byte(void *ctx)
{
	struct utap_py_bytes *b = ctx;

	if (b->i == b->n) {
		u32 take = min_t(u64, b->end - b->at, sizeof(b->buf));

		if (!take || utap_uread(b->buf, b->at, take))
			return -1;
		b->at += take;
		b->n = take;
		b->i = 0;
	}
	return b->buf[b->i++];
}

/* The line of code unit ADDR of a code object: from its co_linetable, a bytes object. */
static int utap_py_line(u64 table, u64 bytes_type, int first, s64 addr)
{
	struct utap_py_bytes b = { 0 };
	u8 hdr[UTAP_PY311_BYTES_DATA];
	s64 size;

	if (addr < 0)
		return first;	/* not started: the def line */
	if (!utap_py_is(table, bytes_type) || utap_uread(hdr, table, sizeof(hdr)))
		return 0;
	memcpy(&size, hdr + UTAP_PY311_BYTES_SIZE, sizeof(size));
	if (size < 0 || size > (1 << 24))
		return 0;
	b.at = table + UTAP_PY311_BYTES_DATA;
	b.end = b.at + size;
	return utap_pyline_find(utap_py_byte, &b, first, addr);
}

/* ---- the walk ---- */

/*
 * Where the frames go: the compact form into buf (pybacktrace()), or the
 * printed lines, to the print buffer (buf NULL) or into buf. Into buf only
 * whole lines: the first that does not fit ends the walk.
 */
struct utap_py_sink {
	struct utap_context *c;
	char *buf;
	size_t size, used;
	bool lines, full;
};

static void utap_py_emit(struct utap_py_sink *s, const char *text, size_t n)
{
	if (!s->buf) {
		utap_print_bytes(s->c, text, n);
		return;
	}
	if (s->full || s->used + n >= s->size) {
		s->full = true;
		return;
	}
	memcpy(s->buf + s->used, text, n);
	s->used += n;
	s->buf[s->used] = 0;
}

static void utap_py_marker(struct utap_py_sink *s, const char *why)
{
	char line[160];

	utap_py_emit(s, line, scnprintf(line, sizeof(line), "<no Python frames: %s>\n", why));
}

/* One frame: "FUNC\tFILE\tLINE[\tE]\n", or "  FUNC (FILE:LINE)\n" as printed. */
static void utap_py_frame_line(struct utap_py_sink *s, const char *name, const char *file,
			       int line, bool entry)
{
	char text[UTAP_PY_NAME + UTAP_PY_FILE + 32], num[16] = "?";

	if (line >= 0)
		scnprintf(num, sizeof(num), "%d", line);
	if (s->lines)
		utap_py_emit(s, text, scnprintf(text, sizeof(text), "  %s (%s:%s)\n", name, file,
						num));
	else
		utap_py_emit(s, text, scnprintf(text, sizeof(text), "%s\t%s\t%s%s\n", name, file,
						num, entry ? "\tE" : ""));
}

/* One _PyInterpreterFrame at FRAME: emits it, returns the previous one (0: the last). */
static int utap_py_frame(const struct utap_py *py, u64 frame, struct utap_py_sink *s, u64 *prev)
{
	u8 fr[UTAP_PY311_IF_SIZE], co[UTAP_PY311_CO_CODE];
	char name[UTAP_PY_NAME], file[UTAP_PY_FILE];
	u64 code, instr, table;
	int first, line;

	if (utap_uread(fr, frame, sizeof(fr)))
		return -EFAULT;
	memcpy(&code, fr + UTAP_PY311_IF_CODE, sizeof(code));
	memcpy(prev, fr + UTAP_PY311_IF_PREVIOUS, sizeof(*prev));
	memcpy(&instr, fr + UTAP_PY311_IF_PREV_INSTR, sizeof(instr));
	if (!utap_py_is(code, utap_py_sym(py, UTAP_PY_CODE_TYPE)) ||
	    utap_uread(co, code, sizeof(co)))
		return -EFAULT;
	if (!utap_py_str(*(u64 *)(co + UTAP_PY311_CO_NAME), utap_py_sym(py, UTAP_PY_UNICODE_TYPE),
			 name, sizeof(name)) ||
	    !utap_py_str(*(u64 *)(co + UTAP_PY311_CO_FILENAME),
			 utap_py_sym(py, UTAP_PY_UNICODE_TYPE), file, sizeof(file)))
		return -EFAULT;
	memcpy(&first, co + UTAP_PY311_CO_FIRSTLINENO, sizeof(first));
	memcpy(&table, co + UTAP_PY311_CO_LINETABLE, sizeof(table));
	/* prev_instr is the last code unit run (before the first one: not started) */
	line = utap_py_line(table, utap_py_sym(py, UTAP_PY_BYTES_TYPE), first,
			    ((s64)instr - (s64)(code + UTAP_PY311_CO_CODE)) /
			    UTAP_PY311_CODEUNIT_SIZE);
	if (!line)
		return -EFAULT;
	utap_py_frame_line(s, name, file, line, fr[UTAP_PY311_IF_IS_ENTRY]);
	return 0;
}

/* The current thread's Python frames, innermost first, at most MAXBACKTRACE, into s. */
static void utap_py_walk(struct utap_context *c, struct utap_py_sink *s)
{
	struct utap_py py;
	char why[64];
	const char *bad;
	u64 ts, cf, frame;
	bool fault;
	int n;

	if (utap_ustack_get(c)->state != UTAP_USTACK_OK)
		return utap_py_marker(s, "no user context");
	if (!utap_py_find(c, &py))
		return utap_py_marker(s, "no CPython 3.11 in this process");
	bad = utap_py_version(&py, why, sizeof(why));
	if (bad)
		return utap_py_marker(s, bad);
	ts = utap_py_tstate(&py, &fault);
	if (fault)
		return utap_py_marker(s, "interpreter state unreadable");
	if (!ts)
		return utap_py_marker(s, "not a Python thread");
	if (utap_py_ptr(ts + UTAP_PY311_TS_CFRAME, &cf) || !cf ||
	    utap_py_ptr(cf + UTAP_PY311_CF_CURRENT_FRAME, &frame))
		return utap_py_marker(s, "thread state unreadable");
	if (!frame)
		return utap_py_marker(s, "no Python code running");
	for (n = 0; frame && n < MAXBACKTRACE && !s->full; n++)
		if (utap_py_frame(&py, frame, s, &frame)) {
			utap_py_emit(s, "<unreadable Python frame>\n", 26);
			return;
		}
}

/* pybacktrace(): the compact string, cut before the first frame that does not fit. */
static void utap_pybacktrace(struct utap_context *c, char *buf, size_t size)
{
	struct utap_py_sink s = { .c = c, .buf = buf, .size = size };

	buf[0] = 0;
	utap_py_walk(c, &s);
}

/* ---- reading the compact form back (pytext.c) ---- */

/* "  FUNC (FILE:LINE)\n" or a marker line, into text[size]; returns its length. */
static int utap_py_render_line(const struct utap_py_line *l, char *text, size_t size)
{
	if (l->marker)
		return scnprintf(text, size, "%.*s\n", (int)l->name_len, l->name);
	return scnprintf(text, size, "  %.*s (%.*s:%.*s)\n", (int)l->name_len, l->name,
			 (int)l->file_len, l->file, (int)l->line_len, l->line);
}

/*
 * print_pystack(), sprint_pystack(): a compact string as lines, to the
 * print buffer (dst NULL) or into dst, stopping before a line that would
 * not fit in MAXSTRINGLEN.
 */
static void utap_py_render(struct utap_context *c, const char *s, char *dst)
{
	char text[UTAP_PY_NAME + UTAP_PY_FILE + 32];
	struct utap_py_line l;
	size_t used = 0;

	if (dst)
		dst[0] = 0;
	while (utap_py_next(&s, &l)) {
		int n = utap_py_render_line(&l, text, sizeof(text));

		if (!dst) {
			utap_print_bytes(c, text, n);
			continue;
		}
		if (used + n >= MAXSTRINGLEN)
			return;
		memcpy(dst + used, text, n + 1);
		used += n;
	}
}

/* print_pybacktrace() (dst NULL), sprint_pybacktrace(): the lines, straight from the walk */
static void utap_print_pybacktrace(struct utap_context *c, char *dst)
{
	struct utap_py_sink s = { .c = c, .buf = dst, .size = MAXSTRINGLEN, .lines = true };

	if (dst)
		dst[0] = 0;
	utap_py_walk(c, &s);
}

#endif /* UTAP_UNWIND_PYFRAMES_C */
