/*
 * drcov_read.c - strict drcov reader (see drcov_read.h).
 */
#include "runner/trace/drcov_read.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *p, *end;
	char *err;
	size_t errsize;
};

__attribute__((format(printf, 2, 3)))
static int bad(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errsize, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next line (without '\n') as [*s, *s + *n); false at the end of the data. */
static bool line(struct cursor *c, const char **s, size_t *n)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', c->end - c->p);
	if (!nl)
		return false;
	*s = c->p;
	*n = nl - c->p;
	c->p = nl + 1;
	return true;
}

static bool prefix(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && !memcmp(s, pre, k);
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

/* A decimal or 0x-hex (or, with HEX, bare hex) number filling all of [s, s+n). */
static bool number(const char *s, size_t n, bool hex, uint64_t *v)
{
	uint64_t x = 0;
	int base = 10;
	size_t i = 0;

	trim(&s, &n);
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (hex) {
		base = 16;
	}
	if (i == n || n - i > (base == 16 ? 16 : 20))
		return false;
	for (; i < n; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return false;
		if (base == 10 && x > (UINT64_MAX - d) / 10)
			return false;
		x = x * base + d;
	}
	*v = x;
	return true;
}

/* "Text: NUMBER" exactly: the number after PRE. */
static bool field_number(const char *s, size_t n, const char *pre, uint64_t *v)
{
	return prefix(s, n, pre) && number(s + strlen(pre), n - strlen(pre), false, v);
}

enum col {
	COL_ID, COL_CONTAINING, COL_BASE, COL_END, COL_ENTRY, COL_OFFSET, COL_PREFERRED,
	COL_CHECKSUM, COL_TIMESTAMP, COL_PATH, COL_SIZE, COL_UNKNOWN,
};

static enum col column(const char *s, size_t n)
{
	static const struct { const char *name; enum col col; } names[] = {
		{ "id", COL_ID }, { "containing_id", COL_CONTAINING }, { "base", COL_BASE },
		{ "start", COL_BASE }, { "end", COL_END }, { "entry", COL_ENTRY },
		{ "offset", COL_OFFSET }, { "preferred_base", COL_PREFERRED },
		{ "checksum", COL_CHECKSUM }, { "timestamp", COL_TIMESTAMP },
		{ "path", COL_PATH }, { "size", COL_SIZE },
	};

	trim(&s, &n);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !memcmp(names[i].name, s, n))
			return names[i].col;
	return COL_UNKNOWN;
}

#define MAX_COLS 16

static int module_line(struct cursor *c, const char *s, size_t n, const enum col *cols,
		       int ncols, struct drcov_module *m)
{
	const char *f = s, *end = s + n;

	memset(m, 0, sizeof(*m));
	m->containing_id = -1;
	for (int i = 0; i < ncols; i++) {
		const char *comma = i < ncols - 1 ? memchr(f, ',', end - f) : NULL;
		size_t len = (comma ? comma : end) - f;
		uint64_t v = 0;

		if (i < ncols - 1 && !comma)
			return bad(c, "module line has fewer than %d fields", ncols);
		if (cols[i] == COL_PATH) {
			const char *p = f;
			size_t k = len;

			trim(&p, &k);
			free(m->path);
			m->path = malloc(k + 1);
			if (!m->path)
				return bad(c, "out of memory");
			memcpy(m->path, p, k);
			m->path[k] = 0;
		} else if (cols[i] != COL_UNKNOWN) {
			if (!number(f, len, cols[i] == COL_OFFSET || cols[i] == COL_CHECKSUM ||
				    cols[i] == COL_TIMESTAMP, &v))
				return bad(c, "bad number in module line field %d", i + 1);
			switch (cols[i]) {
			case COL_ID:
				if (v > UINT32_MAX)
					return bad(c, "module id too large");
				m->id = (uint32_t)v;
				break;
			case COL_CONTAINING:
				if (v > INT32_MAX)
					return bad(c, "containing id too large");
				m->containing_id = (int32_t)v;
				break;
			case COL_BASE:
				m->base = v;
				break;
			case COL_END:
				m->end = v;
				break;
			case COL_SIZE:
				m->end = m->base + v;
				break;
			case COL_ENTRY:
				m->entry = v;
				break;
			case COL_OFFSET:
				m->offset = v;
				break;
			case COL_PREFERRED:
				m->preferred_base = v;
				break;
			default:
				break;
			}
		}
		f = comma ? comma + 1 : end;
	}
	if (!m->path)
		return bad(c, "module line without a path");
	return 0;
}

static int modules(struct cursor *c, struct drcov_file *f)
{
	enum col cols[MAX_COLS] = { COL_UNKNOWN };
	int ncols = 0;
	const char *s;
	size_t n;
	uint64_t v, count;

	if (!line(c, &s, &n))
		return bad(c, "missing module table");
	if (field_number(s, n, "Module Table: ", &count)) {
		/* version 1: id, size, path */
		f->table_version = 1;
		cols[0] = COL_ID;
		cols[1] = COL_SIZE;
		cols[2] = COL_PATH;
		ncols = 3;
	} else {
		const char *cnt;

		if (!prefix(s, n, "Module Table: version "))
			return bad(c, "bad module table line");
		cnt = memchr(s, ',', n);
		if (!cnt || !number(s + 22, cnt - (s + 22), false, &v) || v < 2 || v > 5)
			return bad(c, "bad module table version");
		f->table_version = (int)v;
		if (!field_number(cnt + 1, s + n - (cnt + 1), " count ", &count))
			return bad(c, "bad module table count");
		if (!line(c, &s, &n) || !prefix(s, n, "Columns: "))
			return bad(c, "missing Columns line");
		s += 9;
		n -= 9;
		while (n) {
			const char *comma = memchr(s, ',', n);
			size_t len = comma ? (size_t)(comma - s) : n;

			if (ncols == MAX_COLS)
				return bad(c, "too many columns");
			cols[ncols++] = column(s, len);
			if (!comma)
				break;
			n -= len + 1;
			s = comma + 1;
		}
	}
	if (ncols < 2 || cols[0] != COL_ID || cols[ncols - 1] != COL_PATH)
		return bad(c, "columns must start with id and end with path");
	for (int i = 1; i < ncols; i++)
		for (int j = 0; j < i; j++)
			if (cols[i] == cols[j] && cols[i] != COL_UNKNOWN)
				return bad(c, "repeated column");
	if (count > 0xffff)
		return bad(c, "too many modules (%" PRIu64 ")", count);
	f->mods = calloc(count ? count : 1, sizeof(*f->mods));
	if (!f->mods)
		return bad(c, "out of memory");
	for (uint64_t i = 0; i < count; i++) {
		if (!line(c, &s, &n))
			return bad(c, "module table ends after %" PRIu64 " of %" PRIu64 " lines",
				   i, count);
		f->nmods++;
		if (module_line(c, s, n, cols, ncols, &f->mods[i]))
			return -1;
		for (uint64_t j = 0; j < i; j++)
			if (f->mods[j].id == f->mods[i].id)
				return bad(c, "module id %u listed twice", f->mods[i].id);
	}
	return 0;
}

static int parse(const void *data, size_t size, struct drcov_file *f, char *err, size_t errsize)
{
	struct cursor c = { data, (const char *)data + size, err, errsize };
	const unsigned char *bb;
	const char *s;
	size_t n;
	uint64_t v;

	memset(f, 0, sizeof(*f));
	if (errsize)
		err[0] = 0;
	if (!line(&c, &s, &n) || !field_number(s, n, "DRCOV VERSION: ", &v) || v < 1 || v > 3)
		return bad(&c, "not a drcov file (DRCOV VERSION line)");
	f->version = (int)v;
	if (!line(&c, &s, &n) || !prefix(s, n, "DRCOV FLAVOR: "))
		return bad(&c, "missing DRCOV FLAVOR line");
	f->flavor = strndup(s + 14, n - 14);
	if (!f->flavor)
		return bad(&c, "out of memory");
	if (modules(&c, f))
		return -1;
	if (!line(&c, &s, &n) || !prefix(s, n, "BB Table: ") || n < 14 ||
	    memcmp(s + n - 4, " bbs", 4) || !number(s + 10, n - 14, false, &v))
		return bad(&c, "bad BB Table line");
	if (v > UINT32_MAX || (size_t)(c.end - c.p) / 8 < v)
		return bad(&c, "BB table has %zu bytes for %" PRIu64 " entries",
			   (size_t)(c.end - c.p), v);
	if ((size_t)(c.end - c.p) != v * 8)
		return bad(&c, "%zu bytes after the BB table", (size_t)(c.end - c.p) - (size_t)v * 8);
	f->nbbs = (uint32_t)v;
	f->bbs = calloc(v ? v : 1, sizeof(*f->bbs));
	if (!f->bbs)
		return bad(&c, "out of memory");
	bb = (const unsigned char *)c.p;
	for (uint32_t i = 0; i < f->nbbs; i++, bb += 8) {
		struct drcov_bb *b = &f->bbs[i];

		b->start = bb[0] | bb[1] << 8 | bb[2] << 16 | (uint32_t)bb[3] << 24;
		b->size = bb[4] | bb[5] << 8;
		b->mod = bb[6] | bb[7] << 8;
		if (b->mod != 0xffff && !drcov_module(f, b->mod))
			return bad(&c, "BB %u refers to module %u, which is not listed", i, b->mod);
	}
	return 0;
}

int drcov_parse(const void *data, size_t size, struct drcov_file *f, char *err, size_t errsize)
{
	int rc = parse(data, size, f, err, errsize);

	if (rc)
		drcov_free(f);
	return rc;
}

const struct drcov_module *drcov_module(const struct drcov_file *f, uint32_t id)
{
	if (id < f->nmods && f->mods[id].id == id)
		return &f->mods[id];
	for (uint32_t i = 0; i < f->nmods; i++)
		if (f->mods[i].id == id)
			return &f->mods[i];
	return NULL;
}

void drcov_free(struct drcov_file *f)
{
	for (uint32_t i = 0; i < f->nmods; i++)
		free(f->mods[i].path);
	free(f->mods);
	free(f->bbs);
	free(f->flavor);
	memset(f, 0, sizeof(*f));
}
