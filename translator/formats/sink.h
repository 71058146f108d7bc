/*
 * sink.h - where the runner sends instruction-trace records (UTAP_REC_TRACE)
 * for the trace formats it writes itself (drcov, callgrind, lcov).
 */
#ifndef UTAP_FORMATS_SINK_H
#define UTAP_FORMATS_SINK_H

#include <stddef.h>
#include <stdint.h>

struct session;

/* Called once before the session starts; 0 or -1 after printing an error. */
int trace_sink_open(struct session *s);
/* One UTAP_REC_TRACE payload (records of runtime/itrace/trace_record.h) of stream id tid. */
void trace_sink_feed(uint32_t tid, const void *payload, size_t len);
/* After the last record: write the output files; 0 or -1 after printing an error. */
int trace_sink_close(struct session *s);

#endif
