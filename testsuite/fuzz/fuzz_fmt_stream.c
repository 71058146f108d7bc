/*
 * fuzz_fmt_stream.c - libFuzzer target for the streaming encoders
 * (runtime/formats/): the input is a program of steps, flushes and lost
 * steps; the encoders run it in small output windows, and the qtrace reader
 * must read back exactly the steps, in order, each with the right successor
 * (the next step's address, or at a flush its own next_ip, else the
 * sequential address), with a termination code that matches the step's
 * flags; the lackey text must have one well-formed line per step. Unless a
 * flush ended the stream before its last step, qtrace-tools' reading
 * (qtools_read.h) must give the same addresses.
 *
 * Each 16-byte chunk of input: op (2 bits: step, step, flush, a step that is
 * lost before the encoder sees it), isa and flags, a length, then the address
 * as 8 bytes and the first instruction bytes. Addresses stay in a small
 * window so that sequential runs occur.
 */
#include "formats/stream.h"
#include "formats/lackey.h"
#include "runner/trace/qtrace_read.h"
#include "qtools_read.h"

#include <stdlib.h>
#include <string.h>

#define FAIL() __builtin_trap()
#define MAX_STEPS 512

struct expect {
	uint64_t ip, next;
};

static uint64_t seq(unsigned int isa, const struct utap_trace_step *s)
{
	if (isa != UTAP_QT_ISA_X86)
		return s->ip + 4;
	return s->ip + ((s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[MAX_STEPS * UTAP_FMT_STEP_MAX + 64];
	static char text[MAX_STEPS * UTAP_LACKEY_LINE_MAX + 1];
	static struct expect want[MAX_STEPS];
	struct utap_fmt_stream qs, ls;
	struct utap_trace_step prev = { 0 };
	unsigned int isa = size ? data[0] % 3 : 0;
	size_t n = 0, tn = 0, nw = 0;
	bool have = false, ended = false, restarted = false;

	utap_fmt_stream_init(&qs, utap_fmt_codec("qtrace", 6), isa);
	utap_fmt_stream_init(&ls, utap_fmt_codec("lackey", 6), isa);
	for (size_t off = 1; off + 16 <= size && nw < MAX_STEPS - 1; off += 16) {
		const uint8_t *c = data + off;
		struct utap_trace_step s = { .kind = UTAP_TRACE_STEP, .size = sizeof(s) };
		unsigned int op = c[0] & 3;
		uint64_t a = 0;
		int r;

		if (op == 2) {		/* flush: the pending step gets its next_ip or +len */
			r = utap_fmt_stream_flush(&qs, out + n, sizeof(out) - n);
			if (r < 0)
				FAIL();
			if (have)
				want[nw - 1].next = prev.next_ip ? prev.next_ip : seq(isa, &prev);
			n += r;
			ended = ended || have;
			have = false;
			continue;
		}
		memcpy(&a, c + 4, 8);
		s.ip = 0x400000 + (a % 64);
		s.len = c[2] % 16;
		s.flags = (uint16_t)((c[1] | c[3] << 8) & 0x3ff);
		s.next_ip = (c[0] & 4) ? 0x400000 + c[13] % 64 : 0;
		s.ea = a;
		memcpy(s.bytes, c + 12, 4);
		if (op == 3)
			continue;	/* lost: the pending step's record will point past it */
		restarted = restarted || ended;	/* a new stream, with a header */
		if (have)
			want[nw - 1].next = s.ip;
		want[nw++] = (struct expect){ s.ip, 0 };
		/* the output windows are tight: exactly the documented maximum */
		r = utap_fmt_stream_step(&qs, &s, out + n, UTAP_FMT_STEP_MAX);
		if (r < 0 || r > UTAP_FMT_STEP_MAX)
			FAIL();
		n += r;
		r = utap_fmt_stream_step(&ls, &s, (uint8_t *)text + tn, UTAP_FMT_STEP_MAX);
		if (r <= 0 || r > UTAP_LACKEY_LINE_MAX || text[tn + r - 1] != '\n')
			FAIL();
		tn += r;
		prev = s;
		have = true;
	}
	{
		int r = utap_fmt_stream_flush(&qs, out + n, sizeof(out) - n);

		if (r < 0)
			FAIL();
		n += r;
		if (have)
			want[nw - 1].next = prev.next_ip ? prev.next_ip : seq(isa, &prev);
	}
	/* read it back */
	{
		struct qt_reader rd;
		struct qt_rec rec;
		size_t k = 0;
		int rc;

		qt_reader_init(&rd, out, n);
		while ((rc = qt_next(&rd, &rec)) == 1) {
			if (k >= nw || rec.ip != want[k].ip || rec.next != want[k].next)
				FAIL();
			if (rec.term && !(rec.flags & QT_TERM))
				FAIL();
			k++;
		}
		if (rc != 0 || k != nw)
			FAIL();
	}
	/* as qtrace-tools read it: the same addresses, while the stream went on */
	if (!restarted) {
		struct qtools rd;
		struct qtools_rec rec;
		size_t k = 0;
		int rc;

		qtools_init(&rd, out, n);
		while ((rc = qtools_next(&rd, &rec)) == 1) {
			if (k >= nw || rec.ip != want[k].ip || rec.next != want[k].next)
				FAIL();
			k++;
		}
		if (rc != (n ? 0 : -1) || k != nw)
			FAIL();
	}
	/* one lackey line per step */
	{
		size_t lines = 0;

		for (size_t i = 0; i < tn; i++)
			lines += text[i] == '\n';
		if (lines != nw || (tn && strncmp(text, "I  ", 3)))
			FAIL();
	}
	return 0;
}
