/*
 * test_fmt_stream.c - the streaming encoders (runtime/formats/) byte for
 * byte, and the qtrace reader on what they write.
 *
 * The native qtrace vector is a 92-byte golden file that qtlib's qtwriter
 * and an independent writer agreed on; the x86-64 address-flow vectors are derived by hand
 * from the same rules (record layout, +4 sequencing, termination codes).
 */
#include "unit.h"
#include "test_fmt_lib.h"
#include "formats/stream.h"
#include "formats/lackey.h"
#include "runner/trace/qtrace_read.h"
#include "qtools_read.h"
#include "../vm/formats/fmtrun.h"

/* the streaming formats' rows (formats/qtrace.c, formats/lackey.c) */
extern const struct utap_fmt_codec utap_fmt_qtrace, utap_fmt_lackey;
#define QTRACE (&utap_fmt_qtrace)
#define LACKEY (&utap_fmt_lackey)

static struct utap_trace_step mk(uint64_t ip, const char *hex, uint16_t flags, uint64_t ea)
{
	struct utap_trace_step s = { .kind = UTAP_TRACE_STEP, .size = sizeof(s) };

	s.ip = ip;
	s.len = (uint8_t)unhex(hex, s.bytes);
	s.flags = flags | (ea ? UTAP_STEP_HAS_EA : 0);
	s.ea = ea;
	s.tid = 42;
	return s;
}

struct out {
	uint8_t buf[4096];
	size_t n;
};

static void feed(struct utap_qt *q, struct out *o, const struct utap_trace_step *s)
{
	int r = utap_qt_step(q, s, o->buf + o->n, sizeof(o->buf) - o->n);

	CHECK(r >= 0);
	if (r > 0)
		o->n += (size_t)r;
}

static void flush(struct utap_qt *q, struct out *o)
{
	int r = utap_qt_flush(q, o->buf + o->n, sizeof(o->buf) - o->n);

	CHECK(r >= 0);
	if (r > 0)
		o->n += (size_t)r;
}

static void check_bytes(const struct out *o, const char *hex)
{
	static uint8_t want[4096];
	size_t n = unhex(hex, want);

	CHECK_INT(o->n, n);
	if (o->n == n)
		CHECK_MEM(o->buf, want, n);
	else
		for (size_t i = 0; i < n && i < o->n; i++)
			if (o->buf[i] != want[i]) {
				CHECK_INT(i, -1);	/* first differing byte */
				break;
			}
}

static const char golden[] =
	"00000000 0001 0002 6000 07010000 0000000010000000"
	"38630001 0001 0000"
	"e8810008 0801 0000 000000007fff0008"
	"48000010 e041 0000 00 00 08 0000000010000018"
	"2c230000 0001 0000"
	"41820008 6001 0000 00 00 80"
	"60000000 0001 0000";

/* The golden sequence as a ppc64 stepper would report it (memory order per ISA). */
static void golden_steps(struct utap_trace_step *s, bool le)
{
	static const char *const be[6] = { "38630001", "e8810008", "48000010", "2c230000",
					   "41820008", "60000000" };
	static const uint64_t ip[6] = { 0x10000000, 0x10000004, 0x10000008, 0x10000018,
					0x1000001c, 0x10000020 };
	static const uint16_t fl[6] = { 0, 0, UTAP_STEP_BRANCH, 0,
					UTAP_STEP_BRANCH | UTAP_STEP_COND, 0 };

	for (int i = 0; i < 6; i++) {
		s[i] = mk(ip[i], be[i], fl[i], i == 1 ? 0x7fff0008 : 0);
		if (le) {
			uint8_t b[4];

			memcpy(b, s[i].bytes, 4);
			for (int k = 0; k < 4; k++)
				s[i].bytes[k] = b[3 - k];
		}
	}
}

TEST(qtrace_golden_native)
{
	struct utap_trace_step s[6];
	struct utap_qt q;
	struct out o = { .n = 0 };

	golden_steps(s, false);
	utap_qt_init(&q, UTAP_QT_ISA_BE4);
	for (int i = 0; i < 6; i++)
		feed(&q, &o, &s[i]);
	flush(&q, &o);
	CHECK_INT(o.n, 92);
	check_bytes(&o, golden);
}

TEST(qtrace_golden_native_le)
{
	struct utap_trace_step s[6];
	struct utap_qt q;
	struct out o = { .n = 0 };

	golden_steps(s, true);
	utap_qt_init(&q, UTAP_QT_ISA_LE4);
	for (int i = 0; i < 6; i++)
		feed(&q, &o, &s[i]);
	flush(&q, &o);
	check_bytes(&o, golden);
}

/* next_ip known in the step does not change the bytes (the successor decides) */
TEST(qtrace_golden_with_next_ip)
{
	struct utap_trace_step s[6];
	struct utap_qt q;
	struct out o = { .n = 0 };

	golden_steps(s, false);
	for (int i = 0; i < 5; i++)
		s[i].next_ip = s[i + 1].ip;
	s[5].next_ip = s[5].ip + 4;
	utap_qt_init(&q, UTAP_QT_ISA_BE4);
	for (int i = 0; i < 6; i++)
		feed(&q, &o, &s[i]);
	flush(&q, &o);
	check_bytes(&o, golden);
}

TEST(qtrace_golden_read)
{
	static uint8_t buf[128];
	size_t n = unhex(golden, buf);
	static const uint64_t ip[6] = { 0x10000000, 0x10000004, 0x10000008, 0x10000018,
					0x1000001c, 0x10000020 };
	static const uint8_t term[6] = { 0, 0, 0x08, 0, 0x80, 0 };
	struct qt_reader r;
	struct qt_rec rec;
	int i = 0, rc;

	qt_reader_init(&r, buf, n);
	while ((rc = qt_next(&r, &rec)) == 1 && i < 6) {
		CHECK_HEX(rec.ip, ip[i]);
		CHECK_INT(rec.term, term[i]);
		CHECK_INT(rec.has_ea, i == 1);
		i++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(i, 6);
	CHECK_INT(r.version, 0x07010000);
	CHECK_HEX(rec.next, 0x10000024);

	/* every truncation is an error, not a silent end, for both readers */
	for (size_t cut = 1; cut < n; cut++) {
		bool boundary = cut == 22 || cut == 30 || cut == 46 || cut == 65 || cut == 73 ||
				cut == 84;
		struct qtools t;
		struct qtools_rec trec;
		int trc;

		qt_reader_init(&r, buf, cut);
		while ((rc = qt_next(&r, &rec)) == 1)
			;
		CHECK_INT(rc, boundary ? 0 : -1);
		qtools_init(&t, buf, cut);
		while ((trc = qtools_next(&t, &trec)) == 1)
			;
		CHECK_INT(trc, boundary ? 0 : -1);
	}
}

/*
 * x86-64 address flow, hand-derived: the first four bytes as the word
 * (zero-padded), the next address on every record whose successor is not
 * ip + 4, termination codes from the step flags.
 */
TEST(qtrace_x86_vectors)
{
	const uint16_t BR = UTAP_STEP_BRANCH, CND = UTAP_STEP_COND;
	struct utap_trace_step s[] = {
		mk(0x401170, "4885ff", 0, 0),			/* test %rdi,%rdi */
		mk(0x401173, "7e2b", BR | CND, 0),		/* jle (not taken) */
		mk(0x401175, "31d2", 0, 0),			/* xor %edx,%edx */
		mk(0x401177, "488d0c10", 0, 0),			/* lea: len 4, sequential */
		mk(0x40117b, "488b4708", 0, 0x7ffd0010),	/* mov 0x8(%rdi),%rax */
		mk(0x40117f, "75ef", BR | CND, 0),		/* jne (taken) */
		mk(0x401170, "c3", BR | UTAP_STEP_RET, 0),	/* ret */
		mk(0x4010a5, "f3a4", UTAP_STEP_REP, 0x7ffd0100),	/* rep movsb, again */
		mk(0x4010a5, "f3a4", UTAP_STEP_REP, 0x7ffd0101),	/* ... last */
		mk(0x4010a7, "0000", 0, 0),			/* add %al,(%rax): word 0 */
		mk(0x4010a9, "90", UTAP_STEP_EXCEPTION, 0),	/* then a signal */
		mk(0x7f0000001000, "e8fb0f0000", BR | UTAP_STEP_CALL, 0),	/* handler */
	};
	const char *want =
		"00000000 0001 0002 6000 07010000 0000000000401170"
		"4885ff00 0041 0000 0000000000401173"
		"7e2b0000 6041 0000 00 00 80 0000000000401175"
		"31d20000 0041 0000 0000000000401177"
		"488d0c10 0001 0000"
		"488b4708 0801 0000 000000007ffd0010"
		"75ef0000 e041 0000 00 00 80 0000000000401170"
		"c3000000 e041 0000 00 00 08 00000000004010a5"
		"f3a40000 e841 0000 00 00 80 000000007ffd0100 00000000004010a5"
		"f3a40000 6841 0000 00 00 80 000000007ffd0101 00000000004010a7"
		"00000001 0041 0000 00000000004010a9"
		"90000000 e041 0000 00 00 10 00007f0000001000"
		"e8fb0f00 e041 0000 00 00 08 00007f0000002000";
	struct utap_qt q;
	struct out o = { .n = 0 };

	s[ARRAY_SIZE(s) - 1].next_ip = 0x7f0000002000;	/* known when the last step is flushed */
	utap_qt_init(&q, UTAP_QT_ISA_X86);
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		feed(&q, &o, &s[i]);
	flush(&q, &o);
	check_bytes(&o, want);

	/* the reader recovers every address and the successor of each */
	{
		struct qt_reader r;
		struct qt_rec rec;
		size_t i = 0;

		qt_reader_init(&r, o.buf, o.n);
		while (qt_next(&r, &rec) == 1 && i < ARRAY_SIZE(s)) {
			CHECK_HEX(rec.ip, s[i].ip);
			CHECK_HEX(rec.next, i + 1 < ARRAY_SIZE(s) ? s[i + 1].ip : 0x7f0000002000);
			i++;
		}
		CHECK_INT(i, ARRAY_SIZE(s));
		CHECK(r.error == NULL);
	}
}

/* a step of unknown length: no discontinuity claimed, the address is explicit */
TEST(qtrace_x86_decode_fail)
{
	struct utap_trace_step a = mk(0x1000, "", UTAP_STEP_DECODE_FAIL, 0);
	struct utap_trace_step b = mk(0x1007, "90", 0, 0);
	struct utap_qt q;
	struct out o = { .n = 0 };

	utap_qt_init(&q, UTAP_QT_ISA_X86);
	feed(&q, &o, &a);
	feed(&q, &o, &b);
	flush(&q, &o);
	check_bytes(&o, "00000000 0001 0002 6000 07010000 0000000000001000"
		     "00000001 0041 0000 0000000000001007"
		     "90000000 0041 0000 0000000000001008");
}

/* ---- windows: tracing that stops and starts again --------------------- */

/* Steps I of the fmtrun program (testsuite/vm/formats/fmtrun.h), on thread 42. */
static size_t run_steps(struct utap_trace_step *s, uint64_t *ips, const unsigned int *idx,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		utap_fmtrun_step(&s[i], idx[i], 42, false);
		ips[i] = s[i].ip;
	}
	return n;
}

/* The steps through one encoder, nothing between windows, then the end. */
static void encode(struct utap_qt *q, struct out *o, const struct utap_trace_step *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		feed(q, o, &s[i]);
	flush(q, o);
}

/* Steps IDX (N of them, at most 18) of the fmtrun program as one x86 stream into O. */
static void encode_run(struct out *o, const unsigned int *idx, size_t n, uint64_t *ips)
{
	struct utap_trace_step s[18];
	struct utap_qt q;

	o->n = 0;
	utap_qt_init(&q, UTAP_QT_ISA_X86);
	encode(&q, o, s, run_steps(s, ips, idx, n));
}

TEST(qtrace_window_one)
{
	static const unsigned int idx[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
					    16, 17 };
	uint64_t ips[18];
	struct out o;

	encode_run(&o, idx, 18, ips);
	CHECK(qtools_expect(o.buf, o.n, ips, 18, 0x401024));
}

/*
 * Two windows: xor add dec, then (tracing off, the loop runs on, on again)
 * test je mov. The record of dec carries the address of test, with IAR
 * change and the code of a discontinuity that is not a branch, as qtrace's
 * writer marks any jump; there is no second header.
 */
TEST(qtrace_windows_two)
{
	static const unsigned int idx[] = { 2, 3, 4, 13, 14, 15 };
	uint64_t ips[6];
	struct out o;

	encode_run(&o, idx, 6, ips);
	check_bytes(&o, "00000000 0001 0002 6000 07010000 0000000000401000"
		     "31c00000 0041 0000 0000000000401002"
		     "4801f800 0041 0000 0000000000401005"
		     "48ffcf00 e041 0000 00 00 10 0000000000401015"
		     "4885c000 0041 0000 0000000000401018"
		     "74030000 6041 0000 00 00 80 000000000040101a"
		     "4889c700 0041 0000 000000000040101d");
	CHECK(qtools_expect(o.buf, o.n, ips, 6, 0x40101d));
}

/*
 * Three windows, each somewhere else: the end of f (a ret), then g in a
 * library far away (ends on a plain instruction), then f again from its
 * entry. Every record where it ran; the joins are a return (0x08) and a
 * discontinuity (0x10).
 */
TEST(qtrace_windows_three_jump)
{
	const uint16_t BR = UTAP_STEP_BRANCH;
	struct utap_trace_step s[] = {
		mk(0x401170, "4885ff", 0, 0),			/* f: test %rdi,%rdi */
		mk(0x401173, "7e2b", BR | UTAP_STEP_COND, 0),	/* jle, not taken */
		mk(0x401175, "c3", BR | UTAP_STEP_RET, 0),	/* ret: tracing stops */
		mk(0x7f0012345000, "55", 0, 0),			/* g: push %rbp */
		mk(0x7f0012345001, "4889e5", 0, 0),		/* mov %rsp,%rbp */
		mk(0x7f0012345004, "488b4708", 0, 0x7ffd0010),	/* mov 0x8(%rdi),%rax: stops */
		mk(0x401170, "4885ff", 0, 0),			/* f again */
		mk(0x401173, "7e2b", BR | UTAP_STEP_COND, 0),
	};
	static const uint8_t term[] = { 0, 0x80, 0x08, 0, 0, 0x10, 0, 0x80 };
	uint64_t ips[ARRAY_SIZE(s)];
	struct utap_qt q;
	struct out o = { .n = 0 };
	struct qtools r;
	struct qtools_rec rec;
	size_t k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		ips[i] = s[i].ip;
	s[7].next_ip = 0x4011a0;	/* jle taken, known at the end */
	utap_qt_init(&q, UTAP_QT_ISA_X86);
	encode(&q, &o, s, ARRAY_SIZE(s));
	CHECK(qtools_expect(o.buf, o.n, ips, ARRAY_SIZE(s), 0x4011a0));
	qtools_init(&r, o.buf, o.n);
	while (qtools_next(&r, &rec) == 1 && k < ARRAY_SIZE(s)) {
		CHECK_INT(rec.term, term[k]);
		CHECK_INT((rec.flags & QT_IAR_CHANGE) != 0, k == 2 || k == 5 || k == 7);
		CHECK_INT(rec.has_ea, k == 5);
		k++;
	}
	CHECK_INT(k, ARRAY_SIZE(s));
}

/* Windows of one instruction, the first one included. */
TEST(qtrace_window_single)
{
	struct utap_trace_step s[] = {
		mk(0x401000, "90", 0, 0),
		mk(0x402000, "90", 0, 0),
		mk(0x401000, "90", 0, 0),
		mk(0x401001, "c3", UTAP_STEP_BRANCH | UTAP_STEP_RET, 0),
		mk(0x403000, "90", 0, 0),
	};
	uint64_t ips[ARRAY_SIZE(s)];
	struct utap_qt q;
	struct out o = { .n = 0 };

	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		ips[i] = s[i].ip;
	utap_qt_init(&q, UTAP_QT_ISA_X86);
	encode(&q, &o, s, ARRAY_SIZE(s));
	CHECK(qtools_expect(o.buf, o.n, ips, ARRAY_SIZE(s), 0x403001));

	/* a stream of a single one-instruction window */
	o.n = 0;
	utap_qt_init(&q, UTAP_QT_ISA_X86);
	encode(&q, &o, s + 1, 1);
	check_bytes(&o, "00000000 0001 0002 6000 07010000 0000000000402000"
		     "90000000 0041 0000 0000000000402001");
	CHECK(qtools_expect(o.buf, o.n, ips + 1, 1, 0x402001));
}

/* The native form: +4 sequencing, so only the join carries an address. */
TEST(qtrace_windows_native)
{
	struct utap_trace_step g[6], s[4];
	uint64_t ips[4];
	struct utap_qt q;
	struct out o = { .n = 0 };

	golden_steps(g, false);
	s[0] = g[0];	/* addi, ld | cmpdi, beq */
	s[1] = g[1];
	s[2] = g[3];
	s[3] = g[4];
	for (int i = 0; i < 4; i++)
		ips[i] = s[i].ip;
	utap_qt_init(&q, UTAP_QT_ISA_BE4);
	encode(&q, &o, s, 4);
	check_bytes(&o, "00000000 0001 0002 6000 07010000 0000000010000000"
		     "38630001 0001 0000"
		     "e8810008 e841 0000 00 00 10 000000007fff0008 0000000010000018"
		     "2c230000 0001 0000"
		     "41820008 6001 0000 00 00 80");
	CHECK(qtools_expect(o.buf, o.n, ips, 4, 0x10000020));
}

/*
 * Why a window must not end the stream: ending it and starting a new one
 * writes a header in mid-stream; qtreader takes its address for the next
 * record, qtdis the address the record before points to, so the strict
 * reader refuses the file (utap's own reader follows the header).
 */
TEST(qtrace_restart_is_misread)
{
	struct utap_trace_step a = mk(0x2000, "90", 0, 0);
	struct utap_trace_step b = mk(0x3000, "90", 0, 0);
	struct utap_qt q;
	struct out o = { .n = 0 };
	struct qtools r;
	struct qtools_rec rec;
	struct qt_reader u;
	struct qt_rec urec;
	int rc;

	utap_qt_init(&q, UTAP_QT_ISA_X86);
	encode(&q, &o, &a, 1);
	encode(&q, &o, &b, 1);
	check_bytes(&o, "00000000 0001 0002 6000 07010000 0000000000002000"
		     "90000000 0041 0000 0000000000002001"
		     "00000000 0001 0002 6000 07010000 0000000000003000"
		     "90000000 0041 0000 0000000000003001");
	qtools_init(&r, o.buf, o.n);
	CHECK_INT(qtools_next(&r, &rec), 1);
	CHECK_INT(qtools_next(&r, &rec), -1);
	CHECK_INT(r.error_off, 38);
	CHECK(r.error && strstr(r.error, "qtdis at 0x2001"));
	qt_reader_init(&u, o.buf, o.n);
	while ((rc = qt_next(&u, &urec)) == 1)
		;
	CHECK_INT(rc, 0);
	CHECK_HEX(urec.ip, 0x3000);
}

/* ---- the thread's batch, over a transport that can be full ---------------- */

static struct {
	uint8_t data[1 << 16];
	size_t n;
	unsigned int refuse;		/* the next sends that find no room */
	bool refuse_final;
	unsigned int sends, refused;
	uint32_t tid;
} tr;

static int fake_send(u32 tid, const u8 *buf, u32 len, bool final)
{
	tr.sends++;
	tr.tid = tid;
	if (tr.refuse || (final && tr.refuse_final)) {
		if (tr.refuse)
			tr.refuse--;
		tr.refused++;
		return -ENOSPC;
	}
	CHECK(tr.n + len <= sizeof(tr.data));
	if (tr.n + len <= sizeof(tr.data)) {
		memcpy(tr.data + tr.n, buf, len);
		tr.n += len;
	}
	return 0;
}

static struct utap_fmt_thread ft;

/*
 * Feed N steps of the fmtrun program over and over; steps from index FULL on
 * find the transport full for REFUSE sends. The addresses of the steps that
 * were not lost go to IPS; returns the number lost.
 */
static u32 batch_run(size_t n, size_t full, unsigned int refuse, uint64_t *ips, size_t *nips)
{
	struct utap_trace_step s;
	u32 lost = 0;

	*nips = 0;
	for (size_t i = 0; i < n; i++) {
		u32 l;

		if (i == full)
			tr.refuse = refuse;
		utap_fmtrun_step(&s, (unsigned int)(i % UTAP_FMTRUN_STEPS), 42, false);
		l = utap_fmt_thread_step(&ft, &s);
		if (!l)
			ips[(*nips)++] = s.ip;
		lost += l;
	}
	return lost;
}

/* Windows through the batch: pushed at each stop, joined at each start. */
TEST(stream_batch_windows)
{
	static const unsigned int idx[] = { 0, 1, 2, 12, 13, 16, 17 };
	struct utap_trace_step s[7];
	uint64_t ips[7];

	memset(&tr, 0, sizeof(tr));
	run_steps(s, ips, idx, 7);
	utap_fmt_thread_begin(&ft, QTRACE, UTAP_QT_ISA_X86, 42, fake_send);
	for (int i = 0; i < 7; i++) {
		CHECK_INT(utap_fmt_thread_step(&ft, &s[i]), 0);
		if (i == 2 || i == 4) {		/* itrace_off(), then itrace_on() */
			utap_fmt_thread_push(&ft);
			CHECK(utap_fmt_thread_goes_on(&ft, QTRACE, 42));
		}
	}
	CHECK(!utap_fmt_thread_goes_on(&ft, QTRACE, 43));
	CHECK(!utap_fmt_thread_goes_on(&ft, LACKEY, 42));
	CHECK_INT(tr.sends, 2);		/* the records so far: all but the held-back one */
	CHECK_INT(utap_fmt_thread_end(&ft), 0);
	CHECK(!ft.open);
	CHECK_INT(tr.tid, 42);
	CHECK(qtools_expect(tr.data, tr.n, ips, 7, 0x401024));
	CHECK_INT(utap_fmt_thread_end(&ft), 0);		/* ended once */
	CHECK_INT(utap_fmt_thread_step(&ft, &s[0]), 0);	/* nothing after the end */
	CHECK_INT(tr.sends, 3);
}

/*
 * A full transport: the batch waits in the buffer and goes out later, the
 * steps that find it full are lost one by one, and the record before the
 * gap carries the address after it. Every record that arrives is where its
 * instruction ran, in one stream with one header.
 */
TEST(stream_batch_lost_gap)
{
	static uint64_t ips[2000];
	size_t nips;
	u32 lost;

	memset(&tr, 0, sizeof(tr));
	utap_fmt_thread_begin(&ft, QTRACE, UTAP_QT_ISA_X86, 42, fake_send);
	lost = batch_run(2000, 300, 37, ips, &nips);
	CHECK_INT(lost, 37);		/* one step per refused send */
	CHECK_INT(tr.refused, 37);
	CHECK_INT(nips, 2000 - 37);
	CHECK_INT(utap_fmt_thread_end(&ft), 0);
	CHECK(qtools_expect(tr.data, tr.n, ips, nips, 0));

	/* lackey: the lines of the steps that were not lost */
	memset(&tr, 0, sizeof(tr));
	utap_fmt_thread_begin(&ft, LACKEY, 0, 42, fake_send);
	lost = batch_run(500, 100, 5, ips, &nips);
	CHECK_INT(lost, 5);
	CHECK_INT(utap_fmt_thread_end(&ft), 0);
	CHECK_INT(tr.n, (500 - 5) * 14);
}

/* Read back what arrived: the first K steps of IPS, each at its address; K. */
static size_t batch_arrived(const uint64_t *ips)
{
	struct qtools r;
	struct qtools_rec rec;
	size_t k = 0;

	qtools_init(&r, tr.data, tr.n);
	while (qtools_next(&r, &rec) == 1) {
		CHECK_HEX(rec.ip, ips[k]);
		k++;
	}
	CHECK(r.error == NULL);
	return k;
}

/* At the end nothing waits: a final batch without room is lost, and counted. */
TEST(stream_batch_end_full)
{
	static uint64_t ips[200];
	struct utap_trace_step s;
	size_t nips;
	u32 lost;

	memset(&tr, 0, sizeof(tr));
	utap_fmt_thread_begin(&ft, QTRACE, UTAP_QT_ISA_X86, 42, fake_send);
	CHECK_INT(batch_run(100, 0, 0, ips, &nips), 0);
	CHECK(ft.records > 0 && tr.n > 0);
	tr.refuse_final = true;
	lost = utap_fmt_thread_end(&ft);
	CHECK_INT(lost, 100 - batch_arrived(ips));
	CHECK(lost > 0);

	/* the buffer full at the end and no room: the held-back step is lost */
	memset(&tr, 0, sizeof(tr));
	utap_fmt_thread_begin(&ft, QTRACE, UTAP_QT_ISA_X86, 42, fake_send);
	for (nips = 0; sizeof(ft.buf) - ft.used >= UTAP_FMT_STEP_MAX; nips++) {
		utap_fmtrun_step(&s, (unsigned int)(nips % UTAP_FMTRUN_STEPS), 42, false);
		ips[nips] = s.ip;
		CHECK_INT(utap_fmt_thread_step(&ft, &s), 0);
	}
	CHECK_INT(tr.sends, 0);
	tr.refuse = 1;
	CHECK_INT(utap_fmt_thread_end(&ft), 1);
	CHECK_INT(batch_arrived(ips), nips - 1);
}

/* ---- the strict reader itself --------------------------------------------- */

TEST(qtools_golden)
{
	static uint8_t buf[128];
	static const uint64_t ip[6] = { 0x10000000, 0x10000004, 0x10000008, 0x10000018,
					0x1000001c, 0x10000020 };
	static const uint8_t term[6] = { 0, 0, 0x08, 0, 0x80, 0 };
	size_t n = unhex(golden, buf);
	struct qtools r;
	struct qtools_rec rec;
	int i = 0, rc;

	CHECK(qtools_expect(buf, n, ip, 6, 0x10000024));
	qtools_init(&r, buf, n);
	while ((rc = qtools_next(&r, &rec)) == 1 && i < 6) {
		CHECK_INT(rec.term, term[i]);
		CHECK_INT(rec.has_ea, i == 1);
		CHECK(!rec.suffix);
		i++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(r.version, 0x07010000);
}

TEST(qtools_rules)
{
	static const struct {
		const char *hex;
		int records;		/* read before the end (-1: then an error) */
		uint64_t last;		/* the last record's address */
	} cases[] = {
		/* a header in mid-stream at the address the flow gives: both tools agree */
		{ "00000000 0001 0002 6000 07010000 0000000010000000 38630001 0001 0000"
		  "00000000 0001 0002 2000 0000000010000004 38630001 0001 0000", 2, 0x10000004 },
		/* one without an address moves nothing */
		{ "00000000 0001 0002 6000 07010000 0000000010000000 38630001 0001 0000"
		  "00000000 0001 0002 4000 07010000 38630001 0001 0000", 2, 0x10000004 },
		/* one that moves the address: qtdis and qtreader disagree */
		{ "00000000 0001 0002 6000 07010000 0000000010000000 38630001 0001 0000"
		  "00000000 0001 0002 2000 0000000010000100 38630001 0001 0000", -1, 0 },
		/* IAR change alone is a marker: without the IAR field the flow is +4 */
		{ "00000000 0001 0002 2000 0000000010000000 48000010 8001 0000 60000000 0001 0000",
		  2, 0x10000004 },
		/* the IAR field moves it, with or without the marker */
		{ "00000000 0001 0002 2000 0000000010000000 48000010 0041 0000 0000000010000040"
		  "60000000 0001 0000", 2, 0x10000040 },
		/* after a prefix a 0 word is the suffix, not a header */
		{ "00000000 0001 0002 2000 0000000010000000 04000000 0001 0000 00000000 0001 0000",
		  2, 0x10000004 },
		/* ... so a header there is misread */
		{ "00000000 0001 0002 2000 0000000010000000 04000000 0001 0000"
		  "00000000 0001 0002 2000 0000000010000004 60000000 0001 0000", -1, 0 },
		/* qtreader stops at an unknown termination code */
		{ "00000000 0001 0002 2000 0000000010000000 41820008 6001 0000 00 00 20", -1, 0 },
		/* the first header must give the first address */
		{ "00000000 0001 0002 4000 07010000 38630001 0001 0000", -1, 0 },
		/* LENGTH and DATA: qtreader versions differ */
		{ "00000000 0001 0002 2000 0000000010000000 38630001 0101 0000", -1, 0 },
		/* flags2 byte fields are skipped in qtreader's order */
		{ "00000000 0001 0002 2000 0000000010000000 38630001 0041 5320 0000000010000008"
		  "11111111 22 33 44 55 60000000 0001 0000", 2, 0x10000008 },
		{ "", -1, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		static uint8_t buf[256];
		size_t n = unhex(cases[i].hex, buf);
		struct qtools r;
		struct qtools_rec rec = { 0 };
		uint64_t last = 0;
		int k = 0, rc;

		qtools_init(&r, buf, n);
		while ((rc = qtools_next(&r, &rec)) == 1) {
			last = rec.ip;
			k++;
		}
		if (cases[i].records < 0) {
			CHECK_INT(rc, -1);
			CHECK(r.error != NULL);
		} else {
			CHECK_INT(rc, 0);
			CHECK_INT(k, cases[i].records);
			CHECK_HEX(last, cases[i].last);
		}
	}
}

TEST(qtrace_no_room)
{
	struct utap_trace_step a = mk(0x2000, "90", 0, 0);
	struct utap_qt q;
	uint8_t buf[UTAP_QT_STEP_MAX];

	utap_qt_init(&q, UTAP_QT_ISA_X86);
	CHECK_INT(utap_qt_step(&q, &a, buf, sizeof(buf) - 1), -ENOSPC);
	CHECK_INT(q.have, 0);
	CHECK_INT(utap_qt_step(&q, &a, buf, sizeof(buf)), 0);
	CHECK_INT(utap_qt_flush(&q, buf, sizeof(buf) - 1), -ENOSPC);
	CHECK_INT(utap_qt_flush(&q, buf, sizeof(buf)), 22 + 16);
	CHECK_INT(utap_qt_flush(&q, buf, sizeof(buf)), 0);
}

TEST(qtrace_reader_rejects)
{
	static const char *const bad[] = {
		"38630001 0001 0000",					/* no header */
		"00000000 0003 0002 6000 07010000 0000000010000000",	/* header flags */
		"00000000 0001 0000 6000 07010000 0000000010000000",	/* no FILE_HEADER */
		"00000000 0001 0002 6001 07010000 0000000010000000",	/* unknown hdr bit */
		"00000000 0001 0002 6000 07010000 0000000010000000"
		"41820008 6001 0000 00 00 81",				/* bad term code */
		"00000000 0001 0002 6000 07010000 0000000010000000"
		"38630001 0005 0000",					/* unknown flag 0x4 */
		"00000000 0001 0002 6000 07010000 0000000010000000"
		"38630001 0001 0100",					/* flags2 fields */
		"00000000 0001 0002 6000 07010000 0000000010000000"
		"38630001 0009 0000",					/* register trace */
		"00000000 0001 0002 6002 07010000 0000000010000000 0005 6162",	/* comment */
	};
	uint8_t buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t n = unhex(bad[i], buf);
		struct qt_reader r;
		struct qt_rec rec;
		int rc;

		qt_reader_init(&r, buf, n);
		while ((rc = qt_next(&r, &rec)) == 1)
			;
		CHECK_INT(rc, -1);
		CHECK(r.error != NULL);
	}
}

TEST(qtrace_reader_accepts_optional_fields)
{
	/* magic, comment, processor, data VSID/RPN, IAR VSID/RPN; LENGTH/DATA take no bytes */
	const char *hex =
		"00000000 0001 0002 e002 12345678 07010000 0000000010000000 0002 6869"
		"38630001 1981 0000 07 000000000000abcd"
		"38630001 0671 0000 00000000000010 11111111 0000000010000100 22222222222222 33333333"
		"60000000 0001 0000";
	uint8_t buf[256];
	size_t n = unhex(hex, buf);
	struct qt_reader r;
	struct qt_rec rec;
	uint64_t ips[3];
	int k = 0, rc;

	qt_reader_init(&r, buf, n);
	while ((rc = qt_next(&r, &rec)) == 1 && k < 3)
		ips[k++] = rec.ip;
	CHECK_INT(rc, 0);
	CHECK_INT(k, 3);
	CHECK_HEX(ips[0], 0x10000000);
	CHECK_HEX(ips[1], 0x10000004);
	CHECK_HEX(ips[2], 0x10000100);
}

TEST(lackey_lines)
{
	char buf[UTAP_LACKEY_LINE_MAX + 1];
	size_t n;

	n = utap_lackey_insn(buf, 0x401ab70, 3);
	buf[n] = 0;
	CHECK_STR(buf, "I  0401ab70,3\n");
	n = utap_lackey_insn(buf, 0x1fff000718ull, 15);
	buf[n] = 0;
	CHECK_STR(buf, "I  1fff000718,15\n");
	n = utap_lackey_insn(buf, 0, 0);
	buf[n] = 0;
	CHECK_STR(buf, "I  00000000,0\n");
	n = utap_lackey_insn(buf, UINT64_MAX, 1000);
	buf[n] = 0;
	CHECK_STR(buf, "I  ffffffffffffffff,999\n");
	CHECK(n <= UTAP_LACKEY_LINE_MAX);
}

TEST(stream_by_name)
{
	struct utap_fmt_stream st;
	struct utap_trace_step s = mk(0x401000, "55", 0, 0);
	uint8_t buf[UTAP_FMT_STEP_MAX];
	int n;

	/* the streaming formats; the runner writes the others (drcov ...) itself */
	CHECK(utap_fmt_codec("qtrace", 6) == QTRACE);
	CHECK(utap_fmt_codec("lackey", 6) == LACKEY);
	CHECK(utap_fmt_codec("lackeyx", 6) == LACKEY);
	CHECK(!utap_fmt_codec("lackeyx", 7));
	CHECK(!utap_fmt_codec("lacke", 5));
	CHECK(!utap_fmt_codec("drcov", 5));
	CHECK(!utap_fmt_codec("none", 4));
	CHECK_STR(utap_fmt_codec_nth(0)->name, "qtrace");
	CHECK_STR(utap_fmt_codec_nth(1)->name, "lackey");
	CHECK(!utap_fmt_codec_nth(2));

	utap_fmt_stream_init(&st, LACKEY, 0);
	n = utap_fmt_stream_step(&st, &s, buf, sizeof(buf));
	CHECK_INT(n, 14);
	CHECK_MEM(buf, "I  00401000,1\n", 14);
	CHECK_INT(utap_fmt_stream_flush(&st, buf, sizeof(buf)), 0);
	CHECK_INT(utap_fmt_stream_step(&st, &s, buf, 10), -ENOSPC);

	utap_fmt_stream_init(&st, QTRACE, UTAP_QT_ISA_X86);
	CHECK_INT(utap_fmt_stream_step(&st, &s, buf, sizeof(buf)), 0);
	CHECK_INT(utap_fmt_stream_flush(&st, buf, sizeof(buf)), 22 + 16);

	utap_fmt_stream_init(&st, NULL, 0);	/* not a stream: writes nothing */
	CHECK_INT(utap_fmt_stream_step(&st, &s, buf, sizeof(buf)), 0);
}

int main(void)
{
	unit_prog = "test_fmt_stream";
	RUN(qtrace_golden_native);
	RUN(qtrace_golden_native_le);
	RUN(qtrace_golden_with_next_ip);
	RUN(qtrace_golden_read);
	RUN(qtrace_x86_vectors);
	RUN(qtrace_x86_decode_fail);
	RUN(qtrace_window_one);
	RUN(qtrace_windows_two);
	RUN(qtrace_windows_three_jump);
	RUN(qtrace_window_single);
	RUN(qtrace_windows_native);
	RUN(qtrace_restart_is_misread);
	RUN(stream_batch_windows);
	RUN(stream_batch_lost_gap);
	RUN(stream_batch_end_full);
	RUN(qtools_golden);
	RUN(qtools_rules);
	RUN(qtrace_no_room);
	RUN(qtrace_reader_rejects);
	RUN(qtrace_reader_accepts_optional_fields);
	RUN(lackey_lines);
	RUN(stream_by_name);
	return unit_done();
}
