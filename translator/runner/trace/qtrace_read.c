/*
 * qtrace_read.c - strict qtrace reader (see qtrace_read.h).
 */
#include "runner/trace/qtrace_read.h"
#include "formats/qtrace.h"

#include <string.h>

void qt_reader_init(struct qt_reader *r, const void *data, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->data = data;
	r->size = size;
}

static int fail(struct qt_reader *r, size_t off, const char *why)
{
	r->error = why;
	r->error_off = off;
	return -1;
}

/* Read N big-endian bytes (N <= 8) into *v; false at the end of the data. */
static bool get(struct qt_reader *r, size_t *off, unsigned int n, uint64_t *v)
{
	uint64_t x = 0;

	if (r->size - *off < n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		x = x << 8 | r->data[*off + i];
	*off += n;
	if (v)
		*v = x;
	return true;
}

#define HDR_KNOWN (QT_HDR_MAGIC | QT_HDR_VERSION | QT_HDR_IAR | QT_HDR_IAR_VSID | \
		   QT_HDR_IAR_RPN | QT_HDR_IAR_PAGE_SIZE | QT_HDR_IAR_GPAGE_SIZE | QT_HDR_COMMENT)

/* The header record at r->off (its word 0 already seen). */
static int header(struct qt_reader *r, size_t start)
{
	size_t off = start + 4;
	uint64_t flags, flags2, flags3 = 0, hf, v;

	if (!get(r, &off, 2, &flags) || !get(r, &off, 2, &flags2))
		return fail(r, start, "truncated header");
	if (flags != QT_EXT)
		return fail(r, start, "header flags are not 0x0001");
	if (!(flags2 & QT2_FILE_HEADER) || (flags2 & ~(uint64_t)(QT2_FILE_HEADER | QT2_EXT)))
		return fail(r, start, "bad header flags2");
	if ((flags2 & QT2_EXT) && !get(r, &off, 2, &flags3))
		return fail(r, start, "truncated header");
	if (flags3 & ~(uint64_t)0x00e0)
		return fail(r, start, "unknown header flags3");
	if (!get(r, &off, 2, &hf))
		return fail(r, start, "truncated header");
	if (hf & ~(uint64_t)HDR_KNOWN)
		return fail(r, start, "unknown header flags");
	if ((hf & QT_HDR_MAGIC) && !get(r, &off, 4, NULL))
		return fail(r, start, "truncated header");
	if (hf & QT_HDR_VERSION) {
		if (!get(r, &off, 4, &v))
			return fail(r, start, "truncated header");
		r->version = (uint32_t)v;
	}
	if (hf & QT_HDR_IAR) {
		if (!get(r, &off, 8, &v))
			return fail(r, start, "truncated header");
		r->ip = v;
	}
	if (((hf & QT_HDR_IAR_VSID) && !get(r, &off, 7, NULL)) ||
	    ((hf & QT_HDR_IAR_RPN) && !get(r, &off, 4, NULL)) ||
	    ((hf & QT_HDR_IAR_PAGE_SIZE) && !get(r, &off, 1, NULL)) ||
	    ((hf & QT_HDR_IAR_GPAGE_SIZE) && !get(r, &off, 1, NULL)) ||
	    ((flags3 & 0x0080) && !get(r, &off, 8, NULL)) ||
	    ((flags3 & 0x0040) && !get(r, &off, 8, NULL)) ||
	    ((flags3 & 0x0020) && !get(r, &off, 4, NULL)))
		return fail(r, start, "truncated header");
	if (hf & QT_HDR_COMMENT) {
		if (!get(r, &off, 2, &v) || r->size - off < v)
			return fail(r, start, "truncated header comment");
		off += v;
	}
	r->headers++;
	r->off = off;
	return 0;
}

#define REC_KNOWN (QT_IAR_CHANGE | QT_NODE | QT_TERM | QT_PROCESSOR | QT_DATA_ADDR | \
		   QT_DATA_VSID | QT_DATA_RPN | QT_LENGTH | QT_DATA | QT_IAR | QT_IAR_VSID | \
		   QT_IAR_RPN | QT_REGS | QT_EXT)

int qt_next(struct qt_reader *r, struct qt_rec *rec)
{
	size_t off;
	uint64_t word, flags, flags2 = 0, v;

	if (r->error)
		return -1;
	for (;;) {
		if (r->off == r->size)
			return 0;
		off = r->off;
		if (!get(r, &off, 4, &word))
			return fail(r, r->off, "truncated record");
		if (word == 0) {
			if (header(r, r->off))
				return -1;
			continue;
		}
		if (!r->headers)
			return fail(r, r->off, "no header record");
		break;
	}
	memset(rec, 0, sizeof(*rec));
	rec->off = r->off;
	rec->ip = r->ip;
	rec->word = (uint32_t)word;
	if (!get(r, &off, 2, &flags))
		return fail(r, rec->off, "truncated record");
	rec->flags = (uint16_t)flags;
	if (flags & ~(uint64_t)REC_KNOWN)
		return fail(r, rec->off, "unknown record flags");
	if ((flags & QT_EXT) && !get(r, &off, 2, &flags2))
		return fail(r, rec->off, "truncated record");
	if (flags2)
		return fail(r, rec->off, "unsupported flags2 fields");
	if ((flags & QT_NODE) && !get(r, &off, 1, NULL))
		return fail(r, rec->off, "truncated record");
	if (flags & QT_TERM) {
		if (!get(r, &off, 2, &v))
			return fail(r, rec->off, "truncated record");
		rec->term = (uint8_t)v;
		if (rec->term != QT_TERM_UNCOND && rec->term != QT_TERM_COND &&
		    rec->term != QT_TERM_INST_DEPTH && rec->term != QT_TERM_EXCEPTION)
			return fail(r, rec->off, "inconsistent branch (bad termination code)");
	}
	if ((flags & QT_PROCESSOR) && !get(r, &off, 1, NULL))
		return fail(r, rec->off, "truncated record");
	if (flags & QT_DATA_ADDR) {
		if (!get(r, &off, 8, &rec->ea))
			return fail(r, rec->off, "truncated record");
		rec->has_ea = true;
	}
	if (((flags & QT_DATA_VSID) && !get(r, &off, 7, NULL)) ||
	    ((flags & QT_DATA_RPN) && !get(r, &off, 4, NULL)))
		return fail(r, rec->off, "truncated record");
	rec->next = rec->ip + 4;
	if (flags & QT_IAR) {
		if (!get(r, &off, 8, &rec->next))
			return fail(r, rec->off, "truncated record");
		rec->has_iar = true;
	}
	if (((flags & QT_IAR_VSID) && !get(r, &off, 7, NULL)) ||
	    ((flags & QT_IAR_RPN) && !get(r, &off, 4, NULL)))
		return fail(r, rec->off, "truncated record");
	if (flags & QT_REGS)
		return fail(r, rec->off, "register traces are not supported");
	r->ip = rec->next;
	r->off = off;
	return 1;
}
