/*
 * qtrace_read.h - a strict reader for qtrace files (runtime/formats/qtrace.h
 * describes the format). Used by the tests, the fuzzers and build/fmtdump.
 *
 * Unlike qtdis, which stops silently at a truncated record, every malformed
 * input ends with an error that says what and where. Headers may recur in
 * the middle of a file; one that carries an address sets the address of the
 * record that follows it (utap writes one after a gap). Register traces and
 * the flags2/flags3 page-size fields are not supported (utap never writes
 * them): such a record is an error.
 */
#ifndef UTAP_FORMATS_QTRACE_READ_H
#define UTAP_FORMATS_QTRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qt_reader {
	const uint8_t *data;
	size_t size, off;
	uint64_t ip;		/* address of the next record */
	uint32_t version;	/* of the last header, 0 if none */
	unsigned int headers;	/* header records seen */
	const char *error;	/* set when qt_next() returned -1 */
	size_t error_off;
};

struct qt_rec {
	size_t off;		/* byte offset of the record */
	uint64_t ip;		/* its address */
	uint64_t next;		/* the next record's address (explicit or ip + 4) */
	uint64_t ea;		/* data address if has_ea */
	uint32_t word;
	uint16_t flags;
	uint8_t term;		/* termination code, 0 if none */
	bool has_ea;
	bool has_iar;		/* next was explicit */
};

void qt_reader_init(struct qt_reader *r, const void *data, size_t size);

/* The next instruction record: 1, 0 at the end, -1 on malformed input (r->error). */
int qt_next(struct qt_reader *r, struct qt_rec *rec);

#endif /* UTAP_FORMATS_QTRACE_READ_H */
