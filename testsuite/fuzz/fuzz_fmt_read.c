/*
 * fuzz_fmt_read.c - libFuzzer target for the trace readers (qtrace, drcov).
 *
 * The first byte picks the reader, the rest is the file. Checks, besides
 * ASan/UBSan: the qtrace reader always makes progress and ends (records
 * are at least 6 bytes, so at most size/6 of them), offsets increase, an
 * error names an offset inside the input, and a second read of the same
 * bytes gives the same records; qtrace-tools' reading (the tests' strict
 * reader, qtools_read.h) makes progress too, and where both readers accept
 * a file they place every record alike; the drcov reader accepts only what it
 * documents (exactly K eight-byte records after the BB table line, module
 * references that exist) and frees everything it allocated on failure.
 */
#include "runner/trace/qtrace_read.h"
#include "runner/trace/drcov_read.h"
#include "qtools_read.h"

#include <stdlib.h>
#include <string.h>

#define FAIL() __builtin_trap()

/* qtrace-tools' reading; with N (utap's reader read N records), the same records. */
static void qtools_both(const uint8_t *data, size_t size, size_t n)
{
	struct qtools q;
	struct qtools_rec rq;
	struct qt_reader u;
	struct qt_rec ru;
	size_t k = 0, last = 0;
	int rc;

	qtools_init(&q, data, size);
	qt_reader_init(&u, data, size);
	while ((rc = qtools_next(&q, &rq)) == 1) {
		if (k && rq.off <= last)
			FAIL();
		last = rq.off;
		if (++k > size / 6)
			FAIL();
		if (n != SIZE_MAX && (qt_next(&u, &ru) != 1 || ru.ip != rq.ip || ru.next != rq.next ||
				      ru.term != rq.term || ru.has_ea != rq.has_ea))
			FAIL();
	}
	if (rc < 0 && (!q.error || q.error_off > size))
		FAIL();
	if (rc == 0 && n != SIZE_MAX && k != n)
		FAIL();
}

static void qtrace(const uint8_t *data, size_t size)
{
	struct qt_reader a, b;
	struct qt_rec ra, rb;
	size_t n = 0, last = 0;
	int rc;

	qt_reader_init(&a, data, size);
	qt_reader_init(&b, data, size);
	while ((rc = qt_next(&a, &ra)) == 1) {
		if (qt_next(&b, &rb) != 1 || memcmp(&ra, &rb, sizeof(ra)))
			FAIL();
		if (n && ra.off <= last)
			FAIL();
		last = ra.off;
		if (++n > size / 6)
			FAIL();
	}
	if (rc < 0 && (!a.error || a.error_off >= size))
		FAIL();
	if (qt_next(&a, &ra) != rc)	/* the end (or the error) is sticky */
		FAIL();
	qtools_both(data, size, rc == 0 ? n : SIZE_MAX);
}

static void drcov(const uint8_t *data, size_t size)
{
	struct drcov_file f;
	char err[256];
	const char *tail;

	if (drcov_parse(data, size, &f, err, sizeof(err))) {
		if (!err[0] || f.mods || f.bbs || f.flavor)
			FAIL();
		return;
	}
	tail = memmem(data, size, "BB Table: ", 10);
	if (!tail || f.nbbs > size / 8)
		FAIL();
	for (uint32_t i = 0; i < f.nbbs; i++)
		if (f.bbs[i].mod != 0xffff && !drcov_module(&f, f.bbs[i].mod))
			FAIL();
	for (uint32_t i = 0; i < f.nmods; i++)
		if (!f.mods[i].path)
			FAIL();
	drcov_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (!size)
		return 0;
	/* an exact-size heap copy: any read past the end is caught */
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 1)
		drcov(copy, size - 1);
	else
		qtrace(copy, size - 1);
	free(copy);
	return 0;
}
