/*
 * fuzz_fmt_tout.c - libFuzzer target for the runner's trace writers
 * (translator/runner/trace/tout.c and the drcov, callgrind, lcov, pprof writers): the
 * input is a trace payload as the module sends it, records of every kind
 * with arbitrary fields, fed in pieces of whole records (as the runner
 * gets them) of arbitrary sizes.
 *
 * Checks: no crash or leak, the counters add up (steps counted = step
 * records accepted), and a drcov file written from any input is read back
 * by the project's drcov reader with the same number of blocks, and a pprof
 * file is gzip. Map paths are replaced by a path that does not exist, so no
 * real file is opened.
 */
#include "runner/trace/tout.h"
#include "formats/stream.h"
#include "runner/trace/drcov_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FAIL() __builtin_trap()

static const char fake[] = "/nonexistent/fuzz/module";

/* The payload with map paths rewritten; every record keeps its size. */
static uint8_t *sanitize(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);
	size_t off = 0;

	memcpy(p, data, size);
	while (size - off >= 4) {
		uint16_t kind, rs;

		memcpy(&kind, p + off, 2);
		memcpy(&rs, p + off + 2, 2);
		if (rs < 4 || rs > size - off)
			break;
		if (kind == UTAP_TRACE_MAP && rs >= sizeof(struct utap_trace_map)) {
			struct utap_trace_map m;
			size_t room = rs - sizeof(m), n = room < sizeof(fake) - 1 ? room : sizeof(fake) - 1;

			memcpy(&m, p + off, sizeof(m));
			if (m.path_len <= room) {
				memset(p + off + sizeof(m), 'x', m.path_len);
				memcpy(p + off + sizeof(m), fake, n < m.path_len ? n : m.path_len);
			}
		}
		off += rs;
	}
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "drcov", "callgrind", "lcov", "qtrace", "lackey",
					      "pprof" };
	int fd = memfd_create("fuzz", 0);
	struct tout_opts o = { .fd = fd, .qt_isa = UTAP_QT_ISA_X86 };
	struct tout_stats st;
	struct tout *t;
	char err[256];
	uint8_t *p;
	size_t step;

	if (size < 2 || fd < 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	o.format = formats[data[0] % (sizeof(formats) / sizeof(formats[0]))];
	step = 1 + data[1] % 200;
	p = sanitize(data + 2, size - 2);
	t = tout_open(&o, err, sizeof(err));
	if (!t)
		FAIL();
	/*
	 * Whole records per call, as a UTAP_REC_TRACE payload holds them, about
	 * STEP bytes at a time; whatever follows a malformed size goes last.
	 */
	for (size_t off = 0, n = 0; off < size - 2; off += n) {
		n = 0;
		while (off + n + 4 <= size - 2 && n < step) {
			uint16_t rs;

			memcpy(&rs, p + off + n + 2, 2);
			if (rs < 4 || rs > size - 2 - off - n)
				break;
			n += rs;
		}
		if (!n)
			n = size - 2 - off;
		tout_feed(t, p + off, n);
	}
	if (tout_close(t, &st, err, sizeof(err)))
		FAIL();
	if (st.branches > st.steps || st.taken > st.branches)
		FAIL();
	if (!strcmp(o.format, "pprof")) {	/* always a whole gzip member */
		uint8_t magic[2];

		if (pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
			FAIL();
	}
	if (!strcmp(o.format, "drcov")) {
		off_t len = lseek(fd, 0, SEEK_END);
		char *buf = malloc(len > 0 ? (size_t)len : 1);
		struct drcov_file f;

		if (pread(fd, buf, (size_t)len, 0) != len)
			FAIL();
		if (drcov_parse(buf, (size_t)len, &f, err, sizeof(err)))
			FAIL();
		if (f.nbbs > st.bbs || f.nmods != st.modules)
			FAIL();
		drcov_free(&f);
		free(buf);
	}
	free(p);
	close(fd);
	return 0;
}
