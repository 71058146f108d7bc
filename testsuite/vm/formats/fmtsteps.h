/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmtsteps.h - embedded C of the trace format guest tests: the 18 steps of
 * the program fmtprog.sh assembles (fmtrun.h), sent the two ways a stepping
 * engine can send them:
 *
 *   utap_t_stream(tid, next_ips)   through the module's streaming encoder
 *                                  (runtime/formats/output.c): qtrace or
 *                                  lackey bytes as UTAP_REC_STREAM records
 *   utap_t_raw(path, tid, pid)     as UTAP_REC_TRACE records (a map of PATH,
 *                                  thread on, the steps, thread off) for the
 *                                  runner's writers
 *   utap_t_flood(tid, n)           N steps (the run over and over) through
 *                                  the encoder as fast as possible; returns
 *                                  the steps lost (they found the batch
 *                                  full and the transport too)
 */
#include "formats/output.c"
#include "fmtrun.h"

static void utap_t_step(struct utap_trace_step *s, int i, u32 tid, bool next_ips)
{
	utap_fmtrun_step(s, i, tid, next_ips);
	s->cpu = raw_smp_processor_id();
}

static struct utap_fmt_thread utap_t_thread;

static u32 utap_t_stream(u32 tid, bool next_ips)
{
	struct utap_trace_step s;
	u32 lost;
	int i;

	lost = utap_fmt_thread_start(&utap_t_thread, tid);
	for (i = 0; i < 18; i++) {
		utap_t_step(&s, i, tid, next_ips);
		lost += utap_fmt_thread_step(&utap_t_thread, &s);
	}
	return lost + utap_fmt_thread_end(&utap_t_thread);
}

static u64 utap_t_flood(u32 tid, u64 n)
{
	struct utap_trace_step s;
	u64 lost = 0, k;

	lost = utap_fmt_thread_start(&utap_t_thread, tid);
	for (k = 0; k < n; k++) {
		utap_t_step(&s, (int)(k % 18), tid, false);
		lost += utap_fmt_thread_step(&utap_t_thread, &s);
	}
	return lost + utap_fmt_thread_end(&utap_t_thread);
}

static void utap_t_raw(const char *path, u32 tid, u32 pid)
{
	static u8 buf[2048];
	struct utap_trace_map m = { .kind = UTAP_TRACE_MAP };
	struct utap_trace_thread th = { .kind = UTAP_TRACE_THREAD, .size = sizeof(th) };
	struct utap_trace_step s;
	size_t len = strlen(path), n;
	int i;

	m.size = (sizeof(m) + len + 7) & ~(size_t)7;
	m.pid = pid;
	m.start = 0x401000;
	m.end = 0x402000;
	m.offset = 0x1000;
	m.load_bias = 0;
	m.path_len = len;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), path, len);
	n = m.size;
	th.tid = tid;
	th.pid = pid;
	th.on = 1;
	memcpy(buf + n, &th, sizeof(th));
	n += sizeof(th);
	utap_transport_write(UTAP_REC_TRACE, tid, buf, n, 0);
	/* the steps in two records, as an engine batches them */
	for (n = 0, i = 0; i < 18; i++) {
		utap_t_step(&s, i, tid, false);
		memcpy(buf + n, &s, sizeof(s));
		n += sizeof(s);
		if (i == 8 || i == 17) {
			utap_transport_write(UTAP_REC_TRACE, tid, buf, n, 0);
			n = 0;
		}
	}
	th.on = 0;
	utap_transport_write(UTAP_REC_TRACE, tid, &th, sizeof(th), 0);
}
