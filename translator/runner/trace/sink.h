/*
 * sink.h - where the runner sends instruction-trace records (UTAP_REC_TRACE),
 * trace format requests (UTAP_REC_EVENT) and per-stream output
 * (UTAP_REC_STREAM).
 *
 * The script selects a format with itrace_output(FORMAT[, PATH]); the
 * module reports it as the event text "itrace_output FORMAT PATH" (PATH may
 * be empty). Where the trace goes (docs/formats.md):
 *   per-thread formats (qtrace, lackey): PATH.TID, else FILE.TID for -o FILE,
 *     else standard output;
 *   whole-run formats (drcov, callgrind, lcov, pprof): PATH, else written after the
 *     script's own output (to -o FILE, else standard output) at the end.
 */
#ifndef UTAP_FORMATS_SINK_H
#define UTAP_FORMATS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;

/* Called once before the session starts; 0 or -1 after printing an error. */
int trace_sink_open(struct session *s);
/* One UTAP_REC_TRACE payload (records of runtime/itrace/trace_record.h) of stream id tid. */
void trace_sink_feed(uint32_t tid, const void *payload, size_t len);
/* One UTAP_REC_EVENT payload; true if it was a trace request (handled here). */
bool trace_sink_event(const void *payload, size_t len);
/* The descriptor UTAP_REC_STREAM bytes of STREAM go to (OUT_FD: the script's output), or -1. */
int trace_sink_stream_fd(uint32_t stream, int out_fd);
/* After the last record: write the output files; 0 or -1 after printing an error. */
int trace_sink_close(struct session *s);

#endif
