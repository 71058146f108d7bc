/*
 * qtools_read.h - qtrace as the qtrace-tools programs read it, for the
 * tests: an independent reader written from the rules of qtlib's qtreader
 * and of qtdis (the de facto spec; docs/formats.md says where they live),
 * not from utap's encoder or utap's reader (translator/runner/trace/qtrace_read.c).
 *
 * The address flow, as qtreader walks it:
 *
 *   - the first record is at the IAR of the file header;
 *   - every later record is at the "next instruction address" its
 *     predecessor left: the IAR field (flags 0x0040) when present, else the
 *     predecessor's address + 4; IAR_CHANGE (0x8000) is a marker only;
 *   - a record whose word is 0 is a header, unless the record before it is
 *     a POWER10 prefix (word >> 26 == 1): then it is that prefix's suffix;
 *   - a header in mid-stream is parsed; its IAR becomes the next record's
 *     address in qtreader (record.insn_addr, qtrace-bbv uses it), but qtdis
 *     prints that record at the address its predecessor left, and only the
 *     records after it follow the header;
 *   - a termination code other than 0x08, 0x10, 0x40, 0x80 stops qtreader
 *     ("Inconsistent branch"); a truncated record stops it (qtdis silently).
 *
 * Strict: where qtreader and qtdis would place a record differently (a
 * mid-stream header that moves the address), where they would stop, and on
 * fields qtreader skips but utap never writes (register traces, radix page
 * tables, the LENGTH/DATA flags that qtreader versions disagree on), the
 * reader fails with a message that says what and at which byte.
 */
#ifndef UTAP_TEST_QTOOLS_READ_H
#define UTAP_TEST_QTOOLS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qtools {
	const uint8_t *data;
	size_t size, off;
	uint64_t next;		/* qtreader's next_insn_addr */
	bool prefixed;		/* the last record was a prefix: a 0 word is its suffix */
	uint32_t version;
	unsigned int headers, records;
	const char *error;	/* set when qtools_next() returned -1 */
	size_t error_off;
	char msg[160];
};

struct qtools_rec {
	size_t off;
	uint64_t ip;		/* where qtreader and qtdis both put it */
	uint64_t next;		/* where the next record will be */
	uint64_t ea;
	uint32_t word;
	uint16_t flags;
	uint8_t term;		/* termination code, 0 if none */
	bool has_ea;
	bool suffix;		/* read as the suffix of a prefix record */
};

void qtools_init(struct qtools *r, const void *data, size_t size);

/* The next record: 1, 0 at the end, -1 when the file breaks a rule (r->error). */
int qtools_next(struct qtools *r, struct qtools_rec *rec);

#endif /* UTAP_TEST_QTOOLS_READ_H */
