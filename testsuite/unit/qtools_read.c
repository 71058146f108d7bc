/*
 * qtools_read.c - qtrace as the qtrace-tools programs read it (see
 * qtools_read.h for the rules).
 */
#include "qtools_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* flags of a record */
enum {
	F_IAR_CHANGE = 0x8000, F_NODE = 0x4000, F_TERM = 0x2000, F_PROC = 0x1000,
	F_DATA_EA = 0x0800, F_DATA_VSID = 0x0400, F_DATA_RPN = 0x0200, F_LENGTH = 0x0100,
	F_DATA = 0x0080, F_IAR = 0x0040, F_IAR_VSID = 0x0020, F_IAR_RPN = 0x0010,
	F_REGS = 0x0008, F_EXT = 0x0001,
};

/* flags2 */
enum { F2_FILE_HEADER = 0x0002, F2_EXT = 0x0001 };

/* header flags */
enum {
	H_MAGIC = 0x8000, H_VERSION = 0x4000, H_IAR = 0x2000, H_IAR_VSID = 0x1000,
	H_IAR_RPN = 0x0800, H_PAGE = 0x0040, H_GPAGE = 0x0010, H_COMMENT = 0x0002,
};

/* An optional field: its flag and its size in bytes. */
struct opt {
	uint16_t bit;
	uint8_t bytes;
};

/* flags2 fields of a record, in the order they follow the flags fields */
static const struct opt rec2_fields[] = {
	{ 0x4000, 4 },	/* sequential instruction RPN */
	{ 0x1000, 1 },	/* trace error code */
	{ 0x0020, 1 },	/* sequential instruction page size */
	{ 0x0200, 1 },	/* IAR page size */
	{ 0x0100, 1 },	/* data page size */
	{ 0x0008, 1 },	/* instruction guest page size */
	{ 0x0004, 1 },	/* data guest page size */
};

void qtools_init(struct qtools *r, const void *data, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->data = data;
	r->size = size;
}

static int broke(struct qtools *r, size_t at, const char *why)
{
	r->error = why;
	r->error_off = at;
	return -1;
}

/* N bytes (N <= 8) at *pos, big-endian, into *v (if v); false if the data ends first. */
static bool take(const struct qtools *r, size_t *pos, unsigned int n, uint64_t *v)
{
	uint64_t x = 0;

	if (*pos > r->size || r->size - *pos < n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		x = x << 8 | r->data[*pos + i];
	*pos += n;
	if (v)
		*v = x;
	return true;
}

/* The field of BYTES bytes if FLAGS has BIT; false if the data ends first. */
static bool opt_field(const struct qtools *r, size_t *pos, uint64_t flags, uint16_t bit,
		      unsigned int bytes, uint64_t *v)
{
	return !(flags & bit) || take(r, pos, bytes, v);
}

/* The header at r->off; the first one sets the address of the first record. */
static int header(struct qtools *r)
{
	size_t at = r->off, pos = at + 4;
	uint64_t flags, flags2, flags3 = 0, hf, v = 0, iar = 0, len;

	if (!take(r, &pos, 2, &flags) || !take(r, &pos, 2, &flags2))
		return broke(r, at, "truncated header");
	if (flags != F_EXT)
		return broke(r, at, "header flags are not 0x0001 (qtreader: \"extended flags missing\")");
	if (!(flags2 & F2_FILE_HEADER) || (flags2 & ~(uint64_t)(F2_FILE_HEADER | F2_EXT)))
		return broke(r, at, "header flags2 are not 0x0002 (qtreader: \"incorrect extended flags\")");
	if (!opt_field(r, &pos, flags2, F2_EXT, 2, &flags3) || !take(r, &pos, 2, &hf))
		return broke(r, at, "truncated header");
	if (hf & ~(uint64_t)(H_MAGIC | H_VERSION | H_IAR | H_IAR_VSID | H_IAR_RPN | H_PAGE |
			     H_GPAGE | H_COMMENT))
		return broke(r, at, "unknown header flags (qtreader: \"Unhandled file header flags\")");
	if ((flags2 & F2_EXT) && (hf & H_IAR_RPN))
		return broke(r, at, "radix page table entries in a header (not supported here)");
	if (!opt_field(r, &pos, hf, H_MAGIC, 4, NULL) ||
	    !opt_field(r, &pos, hf, H_VERSION, 4, &v) ||
	    !opt_field(r, &pos, hf, H_IAR, 8, &iar) ||
	    !opt_field(r, &pos, hf, H_IAR_VSID, 7, NULL) ||
	    !opt_field(r, &pos, hf, H_IAR_RPN, 4, NULL) ||
	    !opt_field(r, &pos, hf, H_PAGE, 1, NULL) ||
	    !opt_field(r, &pos, hf, H_GPAGE, 1, NULL) ||
	    !opt_field(r, &pos, flags3, 0x0080, 8, NULL) ||	/* PTCR */
	    !opt_field(r, &pos, flags3, 0x0040, 8, NULL) ||	/* LPID */
	    !opt_field(r, &pos, flags3, 0x0020, 4, NULL))	/* PID */
		return broke(r, at, "truncated header");
	if (hf & H_COMMENT) {
		if (!take(r, &pos, 2, &len) || r->size - pos < len)
			return broke(r, at, "truncated header comment");
		pos += len;
	}
	if (hf & H_VERSION)
		r->version = (uint32_t)v;
	if (!r->headers && !(hf & H_IAR))
		return broke(r, at, "the first header has no address (qtreader: \"header has no "
				"instruction address\")");
	if (r->headers && (hf & H_IAR) && iar != r->next) {
		snprintf(r->msg, sizeof(r->msg),
			 "a header in mid-stream moves the address to %#" PRIx64 ": qtreader puts the "
			 "next record there, qtdis at %#" PRIx64 " (where the record before points)",
			 iar, r->next);
		return broke(r, at, r->msg);
	}
	if (hf & H_IAR)
		r->next = iar;
	r->headers++;
	r->off = pos;
	return 0;
}

static uint64_t rec2_known(void)
{
	uint64_t m = 0;

	for (size_t i = 0; i < sizeof(rec2_fields) / sizeof(rec2_fields[0]); i++)
		m |= rec2_fields[i].bit;
	return m;
}

static bool term_known(uint8_t code)
{
	return code == 0x08 || code == 0x10 || code == 0x40 || code == 0x80;
}

/* The record at r->off, into rec; r->next moves on to its successor. */
static int record(struct qtools *r, struct qtools_rec *rec)
{
	size_t at = r->off, pos = at;
	uint64_t word, flags, flags2 = 0, v = 0, iar = 0;

	memset(rec, 0, sizeof(*rec));
	rec->off = at;
	rec->ip = r->next;
	rec->suffix = r->prefixed;
	if (!take(r, &pos, 4, &word) || !take(r, &pos, 2, &flags) ||
	    !opt_field(r, &pos, flags, F_EXT, 2, &flags2) ||
	    !opt_field(r, &pos, flags2, F2_EXT, 2, NULL))
		return broke(r, at, "truncated record");
	rec->word = (uint32_t)word;
	rec->flags = (uint16_t)flags;
	if (flags & (F_LENGTH | F_DATA))
		return broke(r, at, "record flags 0x0100/0x0080 (qtreader versions differ on them)");
	if (flags & ~(uint64_t)(F_IAR_CHANGE | F_NODE | F_TERM | F_PROC | F_DATA_EA | F_DATA_VSID |
				F_DATA_RPN | F_IAR | F_IAR_VSID | F_IAR_RPN | F_REGS | F_EXT))
		return broke(r, at, "unknown record flags (qtreader: \"Unhandled flags\")");
	if (flags2 & ~(uint64_t)(rec2_known() | F2_EXT | F2_FILE_HEADER))
		return broke(r, at, "unknown record flags2 (qtreader: \"Unhandled flags2\")");
	if (flags2 & F2_FILE_HEADER)
		return broke(r, at, "a record with the file-header flag (a header misread as a "
				"prefix's suffix?)");
	if ((flags2 & F2_EXT) && (flags & (F_DATA_RPN | F_IAR_RPN)))
		return broke(r, at, "radix page table entries in a record (not supported here)");
	if (flags & F_REGS)
		return broke(r, at, "a register trace (not supported here)");
	if (!opt_field(r, &pos, flags, F_NODE, 1, NULL) ||
	    !opt_field(r, &pos, flags, F_TERM, 2, &v))
		return broke(r, at, "truncated record");
	if (flags & F_TERM) {
		rec->term = (uint8_t)v;
		if (!term_known(rec->term))
			return broke(r, at, "a termination code qtreader rejects (\"Inconsistent branch\")");
	}
	if (!opt_field(r, &pos, flags, F_PROC, 1, NULL) ||
	    !opt_field(r, &pos, flags, F_DATA_EA, 8, &rec->ea) ||
	    !opt_field(r, &pos, flags, F_DATA_VSID, 7, NULL) ||
	    !opt_field(r, &pos, flags, F_DATA_RPN, 4, NULL) ||
	    !opt_field(r, &pos, flags, F_IAR, 8, &iar) ||
	    !opt_field(r, &pos, flags, F_IAR_VSID, 7, NULL) ||
	    !opt_field(r, &pos, flags, F_IAR_RPN, 4, NULL))
		return broke(r, at, "truncated record");
	for (size_t i = 0; i < sizeof(rec2_fields) / sizeof(rec2_fields[0]); i++)
		if (!opt_field(r, &pos, flags2, rec2_fields[i].bit, rec2_fields[i].bytes, NULL))
			return broke(r, at, "truncated record");
	rec->has_ea = flags & F_DATA_EA;
	rec->next = (flags & F_IAR) ? iar : rec->ip + 4;
	r->next = rec->next;
	r->prefixed = rec->word >> 26 == 1;
	r->records++;
	r->off = pos;
	return 1;
}

int qtools_next(struct qtools *r, struct qtools_rec *rec)
{
	size_t pos;
	uint64_t word;

	if (r->error)
		return -1;
	for (;;) {
		if (r->off == r->size)
			return r->headers ? 0 : broke(r, 0, "no header (qtreader cannot start)");
		pos = r->off;
		if (!take(r, &pos, 4, &word))
			return broke(r, r->off, "truncated record");
		if (word || r->prefixed)
			break;
		if (header(r))
			return -1;
	}
	if (!r->headers)
		return broke(r, r->off, "no header (qtreader cannot start)");
	return record(r, rec);
}
