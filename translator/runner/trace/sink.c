/*
 * sink.c - the runner's trace sink: the itrace_output() request, per-thread
 * stream files, and the runner-side format writers (tout.c).
 *
 * Runs in the relay thread (feed, event, stream) and then, after the relay
 * has stopped, in the main thread (close).
 */
#include "sema/sema.h"
#include "runner/trace/sink.h"
#include "formats/stream.h"
#include "runner/trace/tout.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	struct session *s;
	char *format;		/* a name of tout_formats(), NULL until requested */
	char *path;		/* itrace_output's PATH, or NULL */
	struct tout *t;
	struct streams *streams;
	int append_fd;		/* -o FILE opened for appending a whole-run format */
	uint64_t ignored;	/* trace payloads without a format */
	bool failed;
} sk = { .append_fd = -1 };

int trace_sink_open(struct session *s)
{
	sk.s = s;
	return 0;
}

/* Stream files live beside -o FILE unless itrace_output named a path. */
static struct streams *stream_files(int out_fd)
{
	if (!sk.streams)
		sk.streams = streams_new(sk.path ? sk.path : sk.s ? sk.s->output : NULL, out_fd);
	return sk.streams;
}

static void start(const char *format, const char *path)
{
	struct tout_opts o = {
		.format = format,
		.path = path,
		.fd = 1,
		.qt_isa = UTAP_QT_ISA_HOST,
		.creator = "utap-" UTAP_VERSION,
	};
	char err[512];

	if (sk.s) {
		o.cmd = sk.s->cmd;
		o.pid = sk.s->target_pid;
	}
	if (utap_fmt_codec(format, strlen(format))) {
		o.streams = stream_files(1);
		if (!o.streams) {
			errorf("trace: out of memory");
			sk.failed = true;
			return;
		}
	} else if (!path && sk.s && sk.s->output) {
		/* after the script's own output, in the same file */
		sk.append_fd = open(sk.s->output, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (sk.append_fd < 0) {
			errorf("trace: cannot append to '%s': %s", sk.s->output, strerror(errno));
			sk.failed = true;
			return;
		}
		o.fd = sk.append_fd;
	}
	sk.t = tout_open(&o, err, sizeof(err));
	if (!sk.t) {
		errorf("trace: %s", err);
		sk.failed = true;
	}
}

bool trace_sink_event(const void *payload, size_t len)
{
	static const char req[] = "itrace_output ";
	const char *p = payload, *end = p + len, *name, *sp;
	char *path = NULL;

	if (len < sizeof(req) - 1 || memcmp(p, req, sizeof(req) - 1))
		return false;
	name = p + sizeof(req) - 1;
	sp = memchr(name, ' ', end - name);
	if (!sp)
		sp = end;
	if (!tout_format_known(name, sp - name)) {
		errorf("trace: unknown format '%.*s' (%s)", (int)(sp - name), name, tout_formats());
		sk.failed = true;
		return true;
	}
	if (sp < end && sp + 1 < end) {
		path = strndup(sp + 1, end - (sp + 1));
		if (path && strlen(path) != (size_t)(end - (sp + 1))) {
			free(path);
			path = NULL;
		}
	}
	if (sk.format) {
		if (strlen(sk.format) != (size_t)(sp - name) || memcmp(sk.format, name, sp - name) ||
		    (path && (!sk.path || strcmp(path, sk.path))) || (!path && sk.path))
			warnf("trace: itrace_output(\"%.*s\") ignored: the trace is already %s",
			      (int)(sp - name), name, sk.format);
		free(path);
		return true;
	}
	sk.format = strndup(name, sp - name);
	sk.path = path;
	if (!sk.format) {
		errorf("trace: out of memory");
		sk.failed = true;
		return true;
	}
	start(sk.format, path);
	return true;
}

void trace_sink_feed(uint32_t tid, const void *payload, size_t len)
{
	(void)tid;
	if (sk.t)
		tout_feed(sk.t, payload, len);
	else
		sk.ignored++;
}

int trace_sink_stream_fd(uint32_t stream, int out_fd)
{
	struct streams *st = stream_files(out_fd);

	return st ? streams_fd(st, stream) : -1;
}

int trace_sink_close(struct session *s)
{
	int rc = sk.failed ? -1 : 0;
	struct tout_stats st;
	char err[512];

	if (sk.t) {
		if (tout_close(sk.t, &st, err, sizeof(err))) {
			errorf("trace: %s", err);
			rc = -1;
		}
		sk.t = NULL;
		if (st.bad)
			warnf("trace: %" PRIu64 " malformed trace records were skipped", st.bad);
		if (st.samples_lost)
			warnf("trace: %" PRIu64 " sampled stacks were lost (a piece of each did not "
			      "arrive; -s raises the buffer)", st.samples_lost);
		if (s && s->verbose && !strcmp(sk.format, "pprof"))
			fprintf(stderr, "Trace: pprof, %" PRIu64 " samples, %" PRIu32 " modules, %"
				PRIu64 " lost\n", st.samples, st.modules, st.samples_lost);
		else if (s && s->verbose)
			fprintf(stderr, "Trace: %s, %" PRIu64 " instructions (%" PRIu64 " branches, "
				"%" PRIu64 " taken), %" PRIu32 " threads, %" PRIu32 " modules, %"
				PRIu64 " lost\n", sk.format, st.steps, st.branches,
				st.taken, st.threads, st.modules, st.lost);
	} else if (sk.ignored && s && s->verbose) {
		fprintf(stderr, "Trace: %" PRIu64 " trace records ignored (no itrace_output "
			"format)\n", sk.ignored);
	}
	streams_free(sk.streams);
	sk.streams = NULL;
	if (sk.append_fd >= 0)
		close(sk.append_fd);
	sk.append_fd = -1;
	free(sk.path);
	sk.path = NULL;
	free(sk.format);
	sk.format = NULL;
	sk.failed = false;
	sk.ignored = 0;
	return rc;
}
