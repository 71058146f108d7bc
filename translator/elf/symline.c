// SPDX-License-Identifier: GPL-2.0
/*
 * symline.c - line table blobs from .debug_line.
 *
 * The line programs are run here rather than through libdw because the
 * result must be what SystemTap's runtime computes from the raw section:
 * libdw sorts rows and moves an end_sequence ahead of a row at the same
 * address, which loses sequence boundaries (glibc's cold paths end that
 * way), and it composes file names differently. So, as in SystemTap: each
 * pair of consecutive rows of a sequence covers [row, next row); scanning
 * units and sequences in section order, the first cover wins; file names
 * come from the unit header (DWARF 5: directory "/" name; DWARF 2-4: an
 * absolute name as it is, directory 0 = the module's own directory).
 */
#include "elf/symtab.h"
#include "elf/symbuild.h"

#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The raw sections, and the addresses worth keeping rows for. */
struct line_sections {
	const unsigned char *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
	uint64_t lo, hi;	/* the file's PT_LOAD extent: rows elsewhere are dropped */
};

/* ---- a bounds-checked reader ------------------------------------------ */

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static bool rd_need(struct rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n)
		r->bad = true;
	return !r->bad;
}

static uint64_t rd_uint(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!rd_need(r, n))
		return 0;
	for (i = 0; i < n; i++)		/* little-endian, the only target */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* LEB128, unsigned or sign-extended; 0 when it runs off the end. */
static uint64_t rd_leb(struct rd *r, bool is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (rd_need(r, 1)) {
		unsigned char b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (b & 0x80)
			continue;
		if (is_signed && shift < 64 && (b & 0x40))
			v |= ~0ull << shift;
		return v;
	}
	return 0;
}

static uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, false);
}

static int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, true);
}

static const char *rd_cstr(struct rd *r)
{
	const unsigned char *nul;

	if (r->bad || !(nul = memchr(r->p, 0, (size_t)(r->end - r->p)))) {
		r->bad = true;
		return NULL;
	}
	{
		const char *s = (const char *)r->p;

		r->p = nul + 1;
		return s;
	}
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if (rd_need(r, n))
		r->p += n;
}

/* A NUL-terminated string at OFF of a string section, or NULL. */
static const char *section_string(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/* ---- unit headers: file names the SystemTap way ------------------------- */

/* File register value -> composed name (malloc'ed) or NULL when unknown. */
struct unit_files {
	char **name;
	size_t n;
	bool all_unknown;	/* the tables were unreadable: name[0] for every file */
};

static void unit_files_free(struct unit_files *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->name[i]);
	free(u->name);
	u->name = NULL;
	u->n = 0;
}

static char *join3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);

	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb);
		memcpy(s + la + lb, c, lc + 1);
	}
	return s;
}

/* One unit's header: the tables to read names from and the program's parameters. */
struct unit_hdr {
	struct rd tables;		/* directory and file tables, bounded by header_length */
	struct rd program;		/* the line number program, to the end of the unit */
	const unsigned char *std_len;	/* standard_opcode_lengths[opcode_base - 1] */
	size_t next_off;		/* offset of the next unit */
	unsigned version;
	unsigned offset_size;
	unsigned min_inst;
	unsigned max_ops;
	int line_base;
	unsigned line_range;
	unsigned opcode_base;
};

static void read_program_params(struct rd *r, struct unit_hdr *h)
{
	h->min_inst = (unsigned)rd_uint(r, 1);
	h->max_ops = h->version >= 4 ? (unsigned)rd_uint(r, 1) : 1;
	rd_skip(r, 1);			/* default_is_stmt */
	h->line_base = (signed char)rd_uint(r, 1);
	h->line_range = (unsigned)rd_uint(r, 1);
	h->opcode_base = (unsigned)rd_uint(r, 1);
	h->std_len = r->p;
	rd_skip(r, h->opcode_base ? h->opcode_base - 1 : 0);
}

static bool read_unit_hdr(const struct line_sections *s, size_t off, struct unit_hdr *h)
{
	struct rd r = { s->line + off, s->line + s->line_size, off >= s->line_size };
	uint64_t len, hdr_len;

	len = rd_uint(&r, 4);
	h->offset_size = 4;
	if (len == 0xffffffffu) {
		len = rd_uint(&r, 8);
		h->offset_size = 8;
	}
	if (!rd_need(&r, len))
		return false;
	r.end = r.p + len;
	h->next_off = (size_t)(r.end - s->line);
	h->version = (unsigned)rd_uint(&r, 2);
	if (h->version < 2 || h->version > 5)
		return false;
	if (h->version >= 5)
		rd_skip(&r, 2);		/* address_size, segment_selector_size */
	hdr_len = rd_uint(&r, h->offset_size);
	if (!rd_need(&r, hdr_len))
		return false;
	h->program = (struct rd){ r.p + hdr_len, r.end, false };
	r.end = r.p + hdr_len;
	read_program_params(&r, h);
	h->tables = r;
	return !r.bad && h->line_range != 0 && h->max_ops != 0 && h->opcode_base != 0;
}

/* Grow U to hold at least N names. */
static int unit_files_reserve(struct unit_files *u, size_t n, size_t *cap)
{
	char **nn;

	if (n <= *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 16;
	nn = realloc(u->name, *cap * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	memset(nn + u->n, 0, (*cap - u->n) * sizeof(*nn));
	u->name = nn;
	return 0;
}

#define V4_MAX_DIRS 4096

/* The v2-4 name of file F in directory DIR; NULL for a directory the table lacks. */
static char *name_v4(const char *f, uint64_t dir, const char *const *dirs, size_t ndirs,
		     const char *module_dir, bool *oom)
{
	char *name = NULL;

	if (f[0] == '/')
		name = strdup(f);
	else if (dir == 0)
		name = join3(module_dir, "", f);
	else if (dir <= ndirs)
		name = join3(dirs[dir - 1], "/", f);
	else
		return NULL;
	*oom = !name;
	return name;
}

/* DWARF 2-4: absolute names as they are, directory 0 = the module's directory. */
static int names_v4(struct rd *r, const char *module_dir, struct unit_files *u)
{
	const char *dirs[V4_MAX_DIRS];
	size_t ndirs = 0, cap = 0;
	const char *d, *f;
	bool oom = false;

	while ((d = rd_cstr(r)) && *d)
		if (ndirs < V4_MAX_DIRS)
			dirs[ndirs++] = d;
	if (unit_files_reserve(u, 1, &cap))
		return -ENOMEM;
	u->n = 1;	/* file 0 does not exist before DWARF 5 */
	while (!oom && (f = rd_cstr(r)) && *f) {
		uint64_t dir = rd_uleb(r);

		rd_uleb(r);	/* mtime */
		rd_uleb(r);	/* length */
		if (unit_files_reserve(u, u->n + 1, &cap))
			return -ENOMEM;
		u->name[u->n++] = name_v4(f, dir, dirs, ndirs, module_dir, &oom);
	}
	return oom ? -ENOMEM : 0;
}

/* One DWARF 5 entry format: (content type, form) pairs. */
struct entry_format {
	uint64_t type[16], form[16];
	unsigned n;
};

static bool read_format(struct rd *r, struct entry_format *fmt)
{
	unsigned i;

	fmt->n = (unsigned)rd_uint(r, 1);
	if (fmt->n > 16)
		return false;
	for (i = 0; i < fmt->n; i++) {
		fmt->type[i] = rd_uleb(r);
		fmt->form[i] = rd_uleb(r);
	}
	return !r->bad;
}

/* Read one attribute value: a string for string forms, a number otherwise. */
static bool read_form(struct rd *r, uint64_t form, unsigned offset_size,
		      const struct line_sections *s, const char **str, uint64_t *num)
{
	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string:
		*str = rd_cstr(r);
		break;
	case DW_FORM_line_strp:
		*str = section_string(s->line_str, s->line_str_size, rd_uint(r, offset_size));
		break;
	case DW_FORM_strp:
		*str = section_string(s->str, s->str_size, rd_uint(r, offset_size));
		break;
	case DW_FORM_udata:
		*num = rd_uleb(r);
		break;
	case DW_FORM_data1: *num = rd_uint(r, 1); break;
	case DW_FORM_data2: *num = rd_uint(r, 2); break;
	case DW_FORM_data4: *num = rd_uint(r, 4); break;
	case DW_FORM_data8: *num = rd_uint(r, 8); break;
	case DW_FORM_data16: rd_skip(r, 16); break;
	case DW_FORM_block: rd_skip(r, rd_uleb(r)); break;
	default:
		return false;
	}
	return !r->bad;
}

/* One DWARF 5 directory or file entry: its path and directory index. */
static bool read_entry(struct rd *r, const struct entry_format *fmt, unsigned offset_size,
		       const struct line_sections *s, const char **path, uint64_t *dir)
{
	unsigned i;

	*path = NULL;
	*dir = 0;
	for (i = 0; i < fmt->n; i++) {
		const char *str;
		uint64_t num;

		if (!read_form(r, fmt->form[i], offset_size, s, &str, &num))
			return false;
		if (fmt->type[i] == DW_LNCT_path)
			*path = str;
		else if (fmt->type[i] == DW_LNCT_directory_index)
			*dir = num;
	}
	return true;
}

/* A count that cannot exceed the bytes left (each entry takes at least one). */
static bool count_ok(const struct rd *r, uint64_t count, const struct entry_format *fmt)
{
	return fmt->n ? count <= (uint64_t)(r->end - r->p) : count <= 4096;
}

/* DWARF 5: directory "/" name, always. */
static int names_v5(struct rd *r, const struct unit_hdr *h, const struct line_sections *s,
		    struct unit_files *u)
{
	struct entry_format fmt;
	const char **dirs = NULL;
	uint64_t ndirs, nfiles, i, dir;
	const char *path;
	int err = -EINVAL;

	if (!read_format(r, &fmt) || !count_ok(r, ndirs = rd_uleb(r), &fmt))
		return -EINVAL;
	dirs = calloc(ndirs ? ndirs : 1, sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	for (i = 0; i < ndirs; i++)
		if (!read_entry(r, &fmt, h->offset_size, s, &dirs[i], &dir))
			goto out;
	if (!read_format(r, &fmt) || !count_ok(r, nfiles = rd_uleb(r), &fmt))
		goto out;
	u->name = calloc(nfiles ? nfiles : 1, sizeof(*u->name));
	err = u->name ? 0 : -ENOMEM;
	for (i = 0; !err && i < nfiles; i++) {
		if (!read_entry(r, &fmt, h->offset_size, s, &path, &dir)) {
			err = -EINVAL;
			break;
		}
		u->n = i + 1;
		if (path && dir < ndirs && dirs[dir]) {
			u->name[i] = join3(dirs[dir], "/", path);
			err = u->name[i] ? 0 : -ENOMEM;
		}
	}
out:
	free(dirs);
	return err;
}

/*
 * File names of the unit whose header is H. When its tables cannot be
 * read, every file is "unknown", SystemTap's word for it.
 */
static int unit_names(const struct line_sections *s, struct unit_hdr *h, const char *module_dir,
		      struct unit_files *u)
{
	int err;

	memset(u, 0, sizeof(*u));
	err = h->version >= 5 ? names_v5(&h->tables, h, s, u) :
				names_v4(&h->tables, module_dir, u);
	if (err != -EINVAL)
		return err;
	unit_files_free(u);
	u->name = calloc(1, sizeof(*u->name));
	if (!u->name || !(u->name[0] = strdup("unknown")))
		return -ENOMEM;
	u->n = 1;
	u->all_unknown = true;
	return 0;
}

/* ---- the global file table ----------------------------------------------- */

/* Distinct file names: string offset -> file index, by open addressing. */
struct file_table {
	struct sym_strpool pool;
	uint32_t *files;	/* string offsets, by file index */
	size_t n, cap;
	uint32_t *slots;	/* (file index + 1), keyed by string offset */
	size_t nslots;
};

static int file_slots_grow(struct file_table *t)
{
	size_t n = t->nslots ? 2 * t->nslots : 256, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	for (i = 0; i < t->n; i++) {
		size_t j = (t->files[i] * 2654435761u) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	return 0;
}

/* Index of file NAME, added if new; UTAP_LINE_NOFILE when the table is full. */
static int file_index(struct file_table *t, const char *name, uint16_t *index)
{
	uint32_t off;
	size_t j;
	int err;

	if (!name) {
		*index = UTAP_LINE_NOFILE;
		return 0;
	}
	if ((err = strpool_add(&t->pool, name, &off)) != 0)
		return err;
	if ((t->n + 1) * 2 > t->nslots && (err = file_slots_grow(t)) != 0)
		return err;
	j = (off * 2654435761u) & (t->nslots - 1);
	while (t->slots[j] && t->files[t->slots[j] - 1] != off)
		j = (j + 1) & (t->nslots - 1);
	if (!t->slots[j]) {
		if (t->n >= UTAP_LINE_MAX_FILES) {
			*index = UTAP_LINE_NOFILE;
			return 0;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			uint32_t *nf = realloc(t->files, cap * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			t->files = nf;
			t->cap = cap;
		}
		t->files[t->n] = off;
		t->slots[j] = (uint32_t)++t->n;
	}
	*index = (uint16_t)(t->slots[j] - 1);
	return 0;
}

static void file_table_free(struct file_table *t)
{
	strpool_free(&t->pool);
	free(t->files);
	free(t->slots);
}

/* ---- ranges and the sweep that resolves overlaps ------------------------- */

struct line_range {
	uint64_t start, end;
	size_t prio;		/* unit number: lower wins */
	uint32_t line;
	uint16_t file;
};

struct range_list {
	struct line_range *v;
	size_t n, cap;
};

static int range_push(struct range_list *l, const struct line_range *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct line_range *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *r;
	return 0;
}

struct row_list {
	struct utap_line_in *v;
	size_t n;
};

static void row_emit(struct row_list *rows, uint64_t addr, uint16_t file, uint32_t line)
{
	struct utap_line_in *last = rows->n ? &rows->v[rows->n - 1] : NULL;

	if (!last && file == UTAP_LINE_GAP)
		return;			/* nothing before the first row */
	if (last && last->file == file && (file == UTAP_LINE_GAP || last->line == line))
		return;			/* same as the row in force */
	if (last && last->addr == addr)
		rows->n--;		/* an empty range: replace it */
	rows->v[rows->n++] = (struct utap_line_in){ addr, line, file };
}

static int by_start(const void *a, const void *b)
{
	const struct line_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A binary min-heap of range indexes, ordered by (prio, index). */
struct range_heap {
	size_t *v;
	size_t n;
	const struct line_range *r;
};

static bool heap_less(const struct range_heap *h, size_t a, size_t b)
{
	if (h->r[a].prio != h->r[b].prio)
		return h->r[a].prio < h->r[b].prio;
	return a < b;
}

static void heap_push(struct range_heap *h, size_t idx)
{
	size_t i = h->n++;

	while (i && heap_less(h, idx, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = idx;
}

static void heap_pop(struct range_heap *h)
{
	size_t idx = h->v[--h->n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_less(h, h->v[c + 1], h->v[c]))
			c++;
		if (!heap_less(h, h->v[c], idx))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = idx;
}

/* Sorted distinct range boundaries. */
static uint64_t *boundaries(const struct range_list *l, size_t *count)
{
	uint64_t *b = malloc((2 * l->n + 1) * sizeof(*b));
	size_t i, n = 0;

	if (!b)
		return NULL;
	for (i = 0; i < l->n; i++) {
		b[n++] = l->v[i].start;
		b[n++] = l->v[i].end;
	}
	qsort(b, n, sizeof(*b), by_value);
	for (i = 0, *count = 0; i < n; i++)
		if (*count == 0 || b[*count - 1] != b[i])
			b[(*count)++] = b[i];
	return b;
}

/* Turn possibly overlapping ranges into rows; at each point the lowest prio wins. */
static int sweep(struct range_list *l, struct row_list *rows)
{
	struct range_heap h = { NULL, 0, l->v };
	size_t nb = 0, i, next = 0;
	uint64_t *b;

	rows->v = NULL;
	rows->n = 0;
	if (l->n == 0)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), by_start);
	b = boundaries(l, &nb);
	h.v = malloc((l->n + 1) * sizeof(*h.v));
	rows->v = malloc((nb + 1) * sizeof(*rows->v));
	if (!b || !h.v || !rows->v) {
		free(b);
		free(h.v);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++) {
		while (next < l->n && l->v[next].start == b[i])
			heap_push(&h, next++);
		while (h.n && l->v[h.v[0]].end <= b[i])
			heap_pop(&h);
		if (h.n)
			row_emit(rows, b[i], l->v[h.v[0]].file, l->v[h.v[0]].line);
		else
			row_emit(rows, b[i], UTAP_LINE_GAP, 0);
	}
	free(b);
	free(h.v);
	return 0;
}

/* ---- running line programs ------------------------------------------------ */

/* The line number state machine (DWARF 5 section 6.2.2), as far as rows need it. */
struct line_state {
	uint64_t addr;
	uint64_t file;
	int64_t line;
	unsigned op_index;
	bool have_row;		/* a committed row of this sequence is pending */
	uint64_t row_addr;	/* that row */
	uint64_t row_file;
	int64_t row_line;
};

/* What the interpreter feeds: names of this unit, the file table, the ranges. */
struct line_sink {
	const struct unit_files *names;
	struct file_table *files;
	struct range_list *ranges;
	size_t sequence;	/* running sequence number: lower wins overlaps */
	uint64_t lo, hi;	/* keep ranges starting in [lo, hi) */
};

static void state_reset(struct line_state *st)
{
	memset(st, 0, sizeof(*st));
	st->file = 1;
	st->line = 1;
}

static void advance(struct line_state *st, const struct unit_hdr *h, uint64_t adv)
{
	uint64_t ops = st->op_index + adv;

	st->addr += h->min_inst * (ops / h->max_ops);
	st->op_index = (unsigned)(ops % h->max_ops);
}

static const char *file_name(const struct unit_files *names, uint64_t file)
{
	if (names->all_unknown)
		return names->name[0];
	return file < names->n ? names->name[file] : NULL;
}

/*
 * Commit a row: the previous row of the sequence now covers up to here.
 * SystemTap compares exactly these pairs of consecutive rows.
 */
static int commit_row(struct line_state *st, struct line_sink *k, bool end_sequence)
{
	int err = 0;

	/*
	 * Rows outside the loaded file (sequences of discarded sections, at 0
	 * or at a linker's tombstone address) can never be looked up.
	 */
	if (st->have_row && st->addr > st->row_addr && st->row_addr >= k->lo &&
	    st->row_addr < k->hi) {
		struct line_range r = {
			.start = st->row_addr, .end = st->addr < k->hi ? st->addr : k->hi,
			.prio = k->sequence,
			.line = (uint32_t)st->row_line,
		};

		err = file_index(k->files, file_name(k->names, st->row_file), &r.file);
		if (!err)
			err = range_push(k->ranges, &r);
	}
	if (end_sequence) {
		state_reset(st);
		k->sequence++;
		return err;
	}
	st->have_row = true;
	st->row_addr = st->addr;
	st->row_file = st->file;
	st->row_line = st->line;
	return err;
}

/* One extended opcode; returns nonzero to stop. */
static int extended_op(struct rd *r, struct line_state *st, struct line_sink *k)
{
	uint64_t len = rd_uleb(r);
	const unsigned char *next;
	unsigned sub;

	if (len == 0 || !rd_need(r, len))
		return -EINVAL;
	next = r->p + len;
	sub = (unsigned)rd_uint(r, 1);
	if (sub == DW_LNE_end_sequence) {
		r->p = next;
		return commit_row(st, k, true);
	}
	if (sub == DW_LNE_set_address && (len == 5 || len == 9)) {
		st->addr = rd_uint(r, len - 1);
		st->op_index = 0;
	}
	r->p = next;		/* define_file, discriminator, vendor ops: skipped */
	return 0;
}

/* One standard opcode (1 .. opcode_base - 1). */
static void standard_op(struct rd *r, unsigned op, struct line_state *st,
			const struct unit_hdr *h)
{
	unsigned i;

	switch (op) {
	case DW_LNS_advance_pc:
		advance(st, h, rd_uleb(r));
		break;
	case DW_LNS_advance_line:
		st->line += rd_sleb(r);
		break;
	case DW_LNS_set_file:
		st->file = rd_uleb(r);
		break;
	case DW_LNS_const_add_pc:
		advance(st, h, (255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		st->addr += rd_uint(r, 2);
		st->op_index = 0;
		break;
	default:
		/* known ones without operands, and unknown ones: skip operands */
		for (i = 0; i < h->std_len[op - 1]; i++)
			rd_uleb(r);
		break;
	}
}

/* Run the line program of one unit, pushing a range for each pair of rows. */
static int run_program(struct unit_hdr *h, struct line_sink *k)
{
	struct rd r = h->program;
	struct line_state st;
	int err = 0;

	state_reset(&st);
	while (!err && !r.bad && r.p < r.end) {
		unsigned op = (unsigned)rd_uint(&r, 1);

		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;

			advance(&st, h, adj / h->line_range);
			st.line += h->line_base + (int)(adj % h->line_range);
			err = commit_row(&st, k, false);
		} else if (op == 0) {
			err = extended_op(&r, &st, k);
		} else if (op == DW_LNS_copy) {
			err = commit_row(&st, k, false);
		} else {
			standard_op(&r, op, &st, h);
		}
	}
	/* a malformed program ends its unit; what came before stands */
	k->sequence++;
	return err == -EINVAL ? 0 : err;
}

/* The module's directory with its trailing '/', as SystemTap uses it. */
static char *module_dir_of(const char *module_path)
{
	const char *slash = module_path ? strrchr(module_path, '/') : NULL;
	size_t n = slash ? (size_t)(slash - module_path) + 1 : 0;
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, module_path, n);
		d[n] = '\0';
	}
	return d;
}

/*
 * Every unit in section order. SystemTap gives up at the first unit whose
 * header it cannot read, and so do we.
 */
static int collect_units(const struct line_sections *s, const char *module_path,
			 struct file_table *files, struct range_list *ranges)
{
	struct line_sink k = { .files = files, .ranges = ranges, .lo = s->lo, .hi = s->hi };
	char *module_dir = module_dir_of(module_path);
	size_t off = 0;
	int err = module_dir ? 0 : -ENOMEM;

	while (!err && off < s->line_size) {
		struct unit_files names;
		struct unit_hdr h;

		if (!read_unit_hdr(s, off, &h))
			break;
		err = unit_names(s, &h, module_dir, &names);
		k.names = &names;
		if (!err)
			err = run_program(&h, &k);
		unit_files_free(&names);
		off = h.next_off;
	}
	free(module_dir);
	return err;
}

/* ---- sections, packing ------------------------------------------------------ */

/* Section data, decompressed if needed. */
static const unsigned char *section_bytes(Elf *elf, const char *name, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;

	*size = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *sname;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, name) != 0)
			continue;
		if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		*size = data->d_size;
		return data->d_buf;
	}
	return NULL;
}

/* [lo, hi) of the PT_LOAD segments of ELF; everything when it has none. */
static void load_extent(Elf *elf, uint64_t *lo, uint64_t *hi)
{
	size_t i, nphdr;
	GElf_Phdr ph;
	bool any = false;

	*lo = 0;
	*hi = ~0ull;
	if (!elf || elf_getphdrnum(elf, &nphdr) != 0)
		return;
	for (i = 0; i < nphdr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!any || ph.p_vaddr < *lo)
			*lo = ph.p_vaddr;
		if (!any || ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
		any = true;
	}
	if (!any) {
		*lo = 0;
		*hi = ~0ull;
	}
}

/* The file with the line program: separate debuginfo first. */
static Elf *line_elf(const struct utap_debuginfo *di)
{
	size_t size;

	if (section_bytes(di->separate.elf, ".debug_line", &size))
		return di->separate.elf;
	if (section_bytes(di->file.elf, ".debug_line", &size))
		return di->file.elf;
	return NULL;
}

struct linetab_layout {
	uint64_t blocks_off, files_off, data_off, str_off, total;
};

static void linetab_lay_out(struct linetab_layout *l, size_t nblocks, size_t nfiles,
			    size_t data_size, size_t str_size)
{
	uint64_t cursor = sizeof(struct utap_linetab_hdr);

	l->blocks_off = layout_take(&cursor, nblocks * sizeof(struct utap_line_block), 4);
	l->files_off = layout_take(&cursor, nfiles * 4, 4);
	l->data_off = layout_take(&cursor, data_size, 1);
	l->str_off = layout_take(&cursor, str_size, 1);
	l->total = layout_take(&cursor, 0, 8);
}

/* The rows delta-encoded in blocks (runtime/unwind/symtab_format.h). */
struct row_encoding {
	unsigned char *data;
	size_t len, cap;
	struct utap_line_block *blocks;
	size_t nblocks;
};

static int put_leb(struct row_encoding *e, uint64_t v, bool is_signed)
{
	bool more = true;

	while (more) {
		unsigned char b = v & 0x7f;

		v = is_signed ? (uint64_t)((int64_t)v >> 7) : v >> 7;
		more = is_signed ? !((v == 0 && !(b & 0x40)) || (v == ~0ull && (b & 0x40))) : v != 0;
		if (e->len == e->cap) {
			size_t cap = e->cap ? 2 * e->cap : 4096;
			unsigned char *nd = realloc(e->data, cap);

			if (!nd)
				return -ENOMEM;
			e->data = nd;
			e->cap = cap;
		}
		e->data[e->len++] = b | (more ? 0x80 : 0);
	}
	return 0;
}

static int encode_row(struct row_encoding *e, const struct utap_line_in *row,
		      const struct utap_line_in *prev, bool first)
{
	bool changed = row->file != prev->file;
	int64_t line_delta = (int64_t)row->line - (int64_t)prev->line;
	int err = 0;

	if (!first)
		err = put_leb(e, row->addr - prev->addr - 1, false);
	if (!err)
		err = put_leb(e, (uint64_t)(2 * line_delta + changed), true);
	if (!err && changed)
		err = put_leb(e, row->file, false);
	return err;
}

static int encode_rows(const struct utap_line_in *rows, size_t n, uint64_t base,
		       struct row_encoding *e)
{
	struct utap_line_in prev = { 0 };
	size_t i;
	int err = 0;

	memset(e, 0, sizeof(*e));
	e->nblocks = (n + UTAP_LINE_BLOCK - 1) / UTAP_LINE_BLOCK;
	e->blocks = calloc(e->nblocks ? e->nblocks : 1, sizeof(*e->blocks));
	if (!e->blocks)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		bool first = i % UTAP_LINE_BLOCK == 0;

		if (first) {
			e->blocks[i / UTAP_LINE_BLOCK] = (struct utap_line_block){
				(uint32_t)(rows[i].addr - base), (uint32_t)e->len };
			prev = (struct utap_line_in){ rows[i].addr, 0, UTAP_LINE_GAP };
		}
		err = encode_row(e, &rows[i], &prev, first);
		prev = rows[i];
	}
	if (!err && e->len > 0xffffffffu)
		err = -E2BIG;
	return err;
}

static void linetab_fill_header(struct utap_linetab_hdr *h, const struct linetab_layout *l,
				size_t nrows, const struct row_encoding *e, size_t nfiles,
				size_t str_size, uint64_t base, const struct utap_build_id *id)
{
	h->magic = UTAP_LINETAB_MAGIC;
	h->version = UTAP_LINETAB_VERSION;
	h->hdr_size = sizeof(*h);
	h->total_size = (uint32_t)l->total;
	h->base = base;
	h->nrows = (uint32_t)nrows;
	h->nblocks = (uint32_t)e->nblocks;
	h->blocks_off = (uint32_t)l->blocks_off;
	h->data_off = (uint32_t)l->data_off;
	h->data_size = (uint32_t)e->len;
	h->nfiles = (uint32_t)nfiles;
	h->files_off = (uint32_t)l->files_off;
	h->str_off = (uint32_t)l->str_off;
	h->str_size = (uint32_t)str_size;
	if (id && id->len <= UTAP_SYMTAB_BUILD_ID_MAX) {
		h->build_id_len = (uint8_t)id->len;
		memcpy(h->build_id, id->bytes, id->len);
	}
}

static bool rows_ok(const struct utap_line_in *rows, size_t n, size_t nnames)
{
	size_t i;

	if (nnames > UTAP_LINE_MAX_FILES || (n && rows[n - 1].file != UTAP_LINE_GAP))
		return false;
	for (i = 0; i < n; i++) {
		if (i && rows[i].addr <= rows[i - 1].addr)
			return false;
		if (rows[i].file >= nnames && rows[i].file != UTAP_LINE_GAP &&
		    rows[i].file != UTAP_LINE_NOFILE)
			return false;
	}
	return true;
}

static int linetab_write(const struct utap_line_in *rows, size_t n, const uint32_t *name_off,
			 size_t nnames, const struct sym_strpool *pool,
			 const struct utap_build_id *id, struct utap_blob *out)
{
	uint64_t base = n ? rows[0].addr : 0;
	struct linetab_layout l;
	struct row_encoding e;
	char *blob = NULL;
	int err;

	err = encode_rows(rows, n, base, &e);
	if (!err) {
		linetab_lay_out(&l, e.nblocks, nnames, e.len, strpool_size(pool));
		err = l.total > 0xffffffffu ? -E2BIG : 0;
	}
	if (!err && !(blob = calloc(1, l.total)))
		err = -ENOMEM;
	if (!err) {
		linetab_fill_header((struct utap_linetab_hdr *)blob, &l, n, &e, nnames,
				    strpool_size(pool), base, id);
		if (e.nblocks)
			memcpy(blob + l.blocks_off, e.blocks, e.nblocks * sizeof(*e.blocks));
		if (nnames)
			memcpy(blob + l.files_off, name_off, nnames * sizeof(*name_off));
		if (e.len)
			memcpy(blob + l.data_off, e.data, e.len);
		strpool_copy(pool, blob + l.str_off);
		out->data = blob;
		out->size = l.total;
	}
	free(e.data);
	free(e.blocks);
	return err;
}

int utap_linetab_pack(const struct utap_line_in *rows, size_t n, const char *const *names,
		      size_t nnames, const struct utap_build_id *build_id, struct utap_blob *out)
{
	struct sym_strpool pool;
	uint32_t *name_off;
	size_t i;
	int err = 0;

	out->data = NULL;
	out->size = 0;
	if (!rows_ok(rows, n, nnames))
		return -EINVAL;
	if (n && rows[n - 1].addr - rows[0].addr > 0xffffffffu)
		return -E2BIG;
	name_off = malloc((nnames ? nnames : 1) * sizeof(*name_off));
	if (!name_off)
		return -ENOMEM;
	strpool_init(&pool);
	for (i = 0; i < nnames && !err; i++)
		err = strpool_add(&pool, names[i], &name_off[i]);
	if (!err)
		err = linetab_write(rows, n, name_off, nnames, &pool, build_id, out);
	strpool_free(&pool);
	free(name_off);
	return err;
}

static int build_rows(const struct line_sections *s, const char *module_path,
		      struct file_table *files, struct row_list *rows)
{
	struct range_list ranges = { 0 };
	int err;

	err = s->line ? collect_units(s, module_path, files, &ranges) : 0;
	if (!err)
		err = sweep(&ranges, rows);
	free(ranges.v);
	return err;
}

/* Hand the rows and the file table to the public packer. */
static int pack_rows(const struct row_list *rows, const struct file_table *files,
		     const struct utap_build_id *id, struct utap_blob *out)
{
	const char **names = malloc((files->n ? files->n : 1) * sizeof(*names));
	size_t i;
	int err;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < files->n; i++)
		names[i] = files->pool.buf + files->files[i];
	err = utap_linetab_pack(rows->v, rows->n, names, files->n, id, out);
	free(names);
	return err;
}

/* Rows and file names from S, packed. */
static int build_and_pack(const struct line_sections *s, const char *module_path,
			  const struct utap_build_id *id, struct utap_blob *out)
{
	struct file_table files;
	struct row_list rows = { 0 };
	int err;

	out->data = NULL;
	out->size = 0;
	memset(&files, 0, sizeof(files));
	strpool_init(&files.pool);
	err = build_rows(s, module_path, &files, &rows);
	if (!err)
		err = pack_rows(&rows, &files, id, out);
	free(rows.v);
	file_table_free(&files);
	return err;
}

int utap_linetab_build_raw(const void *line, size_t line_size, const void *line_str,
			   size_t line_str_size, const void *str, size_t str_size,
			   const char *module_path, const struct utap_build_id *build_id,
			   struct utap_blob *out)
{
	struct line_sections s = {
		line, line_str, str, line ? line_size : 0,
		line_str ? line_str_size : 0, str ? str_size : 0, 0, ~0ull,
	};

	return build_and_pack(&s, module_path, build_id, out);
}

int utap_linetab_build(const struct utap_debuginfo *di, const char *module_path,
		       struct utap_blob *out)
{
	struct line_sections s = { 0 };
	Elf *elf = line_elf(di);

	load_extent(di->file.elf, &s.lo, &s.hi);
	if (elf) {
		s.line = section_bytes(elf, ".debug_line", &s.line_size);
		s.line_str = section_bytes(elf, ".debug_line_str", &s.line_str_size);
		s.str = section_bytes(elf, ".debug_str", &s.str_size);
	}
	return build_and_pack(&s, module_path, &di->build_id, out);
}
