/*
 * tout.c - trace output in the runner (see tout.h): record parsing, the
 * module table, per-thread look-ahead, counters, and the streams.
 *
 * A step's successor is its own next_ip when the tracer knew it, else the
 * address of the thread's next step; so every step is processed one step
 * late (or at a gap, a thread stop or the end, with the successor it has).
 */
#include "runner/trace/tout_int.h"
#include "arch/x86_64/insn.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- streams ------------------------------------------------------------- */

struct streams {
	char *base;
	int fallback;
	struct ktab idx;
	int *fds;
	size_t nfds, cap;
};

struct streams *streams_new(const char *base, int fallback_fd)
{
	struct streams *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->base = base ? strdup(base) : NULL;
	s->fallback = fallback_fd;
	return s;
}

int streams_fd(struct streams *s, uint32_t id)
{
	uint64_t k[4] = { id, 0, 0, 0 };
	int64_t i;
	char *name;
	int fd;

	if (!s->base)
		return s->fallback;
	i = ktab_get(&s->idx, k, false, 0);
	if (i >= 0)
		return s->fds[i];
	if (!tout_grow((void **)&s->fds, &s->cap, s->nfds + 1, sizeof(int)))
		return -1;
	if (asprintf(&name, "%s.%" PRIu32, s->base, id) < 0)
		return -1;
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "utap: cannot create trace file '%s': %s\n", name, strerror(errno));
	free(name);
	if (fd < 0 || ktab_get(&s->idx, k, true, (uint32_t)s->nfds) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	s->fds[s->nfds++] = fd;
	return fd;
}

int streams_write(struct streams *s, uint32_t id, const void *data, size_t len)
{
	const char *p = data;
	int fd = streams_fd(s, id);

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void streams_free(struct streams *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	free(s->fds);
	ktab_free(&s->idx);
	free(s->base);
	free(s);
}

/* --- modules ------------------------------------------------------------- */

static int32_t locate_thr(struct tout *t, struct tthr *th, uint64_t addr, uint64_t *rel)
{
	size_t i = th->last_map;

	if (i >= t->nmaps || t->maps[i].start > addr || addr >= t->maps[i].end ||
	    (th->pid && t->maps[i].pid != th->pid))
		i = tout_find_map(t, th->pid, addr);
	th->last_map = i;
	if (i == SIZE_MAX) {
		*rel = addr;
		return -1;
	}
	*rel = addr - t->mods[t->maps[i].mod].bias;
	return t->maps[i].mod;
}

/* --- counters ------------------------------------------------------------ */

static int64_t ins_get(struct tout *t, int32_t mod, uint64_t rel, const struct utap_trace_step *s)
{
	uint64_t k[4] = { (uint64_t)(int64_t)mod, rel, 0, 0 };
	int64_t i = ktab_get(&t->ins_idx, k, false, 0);
	struct tins *in;

	if (i >= 0)
		return i;
	if (!tout_grow((void **)&t->ins, &t->capins, t->nins + 1, sizeof(*t->ins)))
		return -1;
	i = ktab_get(&t->ins_idx, k, true, (uint32_t)t->nins);
	if (i < 0)
		return -1;
	in = &t->ins[t->nins++];
	memset(in, 0, sizeof(*in));
	in->mod = mod;
	in->addr = rel;
	in->abs = s->ip;
	in->flags = s->flags;
	in->len = (s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len;
	if ((s->flags & UTAP_STEP_BRANCH) && in->len) {
		struct x86_insn_info xi;

		if (x86_insn_decode(s->bytes, in->len, &xi) == in->len &&
		    (xi.flow == X86_FLOW_JCC || xi.flow == X86_FLOW_JMP || xi.flow == X86_FLOW_CALL))
			in->dtarget = x86_insn_branch_target(&xi, s->ip);
	}
	return i;
}

static int64_t edge_get(struct tout *t, struct tthr *th, uint32_t from, uint64_t to)
{
	uint64_t rel, k[4];
	int32_t mod = locate_thr(t, th, to, &rel);
	int64_t i;
	struct tedge *e;

	k[0] = from;
	k[1] = (uint64_t)(int64_t)mod;
	k[2] = rel;
	k[3] = 0;
	i = ktab_get(&t->edge_idx, k, false, 0);
	if (i >= 0)
		return i;
	if (!tout_grow((void **)&t->edges, &t->capedges, t->nedges + 1, sizeof(*t->edges)))
		return -1;
	i = ktab_get(&t->edge_idx, k, true, (uint32_t)t->nedges);
	if (i < 0)
		return -1;
	e = &t->edges[t->nedges++];
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to_mod = mod;
	e->to_addr = rel;
	e->to_abs = to;
	return i;
}

static void bb_end(struct tout *t, struct tthr *th)
{
	uint64_t k[4];

	if (!th->in_bb)
		return;
	th->in_bb = false;
	if (th->bb_mod < 0)
		return;
	k[0] = (uint64_t)th->bb_mod;
	k[1] = th->bb_start;
	k[2] = th->bb_end - th->bb_start;
	k[3] = 0;
	if (ktab_get(&t->bb_idx, k, false, 0) >= 0)
		return;
	if (!tout_grow((void **)&t->bbs, &t->capbbs, t->nbbs + 1, sizeof(*t->bbs)) ||
	    ktab_get(&t->bb_idx, k, true, (uint32_t)t->nbbs) < 0)
		return;
	t->bbs[t->nbbs++] = (struct tbb){ .mod = th->bb_mod, .start = th->bb_start,
					  .size = (uint16_t)k[2] };
	t->st.bbs++;
}

/* A basic block ends at every control transfer and before every discontinuity. */
static void bb_step(struct tout *t, struct tthr *th, const struct utap_trace_step *s,
		    int32_t mod, uint64_t next, unsigned int len)
{
	uint64_t end = s->ip + len;

	if (!len || mod < 0) {
		bb_end(t, th);
		return;
	}
	if (th->in_bb && (th->bb_mod != mod || th->bb_end != s->ip ||
			  end - th->bb_start > 0xffff))
		bb_end(t, th);
	if (!th->in_bb) {
		th->in_bb = true;
		th->bb_mod = mod;
		th->bb_start = s->ip;
	}
	th->bb_end = end;
	if ((s->flags & (UTAP_STEP_BRANCH | UTAP_STEP_REP | UTAP_STEP_EXCEPTION)) || next != end)
		bb_end(t, th);
}

static void call_return(struct tout *t, struct tthr *th, uint64_t target)
{
	size_t d = th->depth;

	while (d > 0 && th->stack[d - 1].ret != target)
		d--;
	if (!d)
		return;		/* a return from a frame entered before tracing began */
	while (th->depth >= d) {
		struct tframe *f = &th->stack[--th->depth];

		t->edges[f->edge].inclusive += th->ir - f->ir0;
	}
}

/* Step S of thread TH, whose successor is NEXT (0: unknown). */
static void process(struct tout *t, struct tthr *th, const struct utap_trace_step *s, uint64_t next)
{
	unsigned int len = (s->flags & UTAP_STEP_DECODE_FAIL) ? 0 : s->len;
	bool taken = next && len && next != s->ip + len;
	uint64_t rel;
	int32_t mod;
	int64_t i;

	th->ir++;
	if (s->flags & UTAP_STEP_BRANCH) {
		t->st.branches++;
		if (taken)
			t->st.taken++;
	}
	if (t->codec)
		return;
	mod = locate_thr(t, th, s->ip, &rel);
	if (mod < 0)
		t->st.unmapped++;
	if (t->writer->blocks) {
		bb_step(t, th, s, mod, next, len);
		return;
	}
	i = ins_get(t, mod, rel, s);
	if (i < 0)
		return;
	t->ins[i].count++;
	if (taken)
		t->ins[i].taken++;
	if (!next || !(s->flags & UTAP_STEP_BRANCH))
		return;
	if (s->flags & UTAP_STEP_RET) {
		call_return(t, th, next);
	} else if (taken) {
		int64_t e = edge_get(t, th, (uint32_t)i, next);

		if (e < 0)
			return;
		t->edges[e].count++;
		if ((s->flags & UTAP_STEP_CALL) &&
		    tout_grow((void **)&th->stack, &th->cap, th->depth + 1, sizeof(*th->stack)))
			th->stack[th->depth++] = (struct tframe){ .edge = (uint32_t)e,
								  .ret = s->ip + len, .ir0 = th->ir };
	}
}

static struct tthr *thread(struct tout *t, uint32_t tid)
{
	if (t->last_thr < t->nthr && t->thr[t->last_thr].tid == tid)
		return &t->thr[t->last_thr];
	for (size_t i = 0; i < t->nthr; i++) {
		if (t->thr[i].tid == tid) {
			t->last_thr = i;
			return &t->thr[i];
		}
	}
	if (!tout_grow((void **)&t->thr, &t->capthr, t->nthr + 1, sizeof(*t->thr)))
		return NULL;
	memset(&t->thr[t->nthr], 0, sizeof(*t->thr));
	t->thr[t->nthr].tid = tid;
	t->thr[t->nthr].last_map = SIZE_MAX;
	utap_fmt_stream_init(&t->thr[t->nthr].enc, t->codec, t->o.qt_isa);
	t->st.threads++;
	return &t->thr[t->nthr++];
}

#define OBUF_SIZE (64 * 1024)

/* Write what the thread's stream has collected. */
static void stream_write(struct tout *t, struct tthr *th)
{
	if (th->olen && streams_write(t->streams, th->tid, th->obuf, th->olen))
		t->st.bad++;
	th->olen = 0;
}

/* Where the next encoded step goes: the thread's buffer, emptied when nearly full. */
static uint8_t *stream_room(struct tout *t, struct tthr *th)
{
	if (!th->obuf) {
		th->obuf = malloc(OBUF_SIZE);
		if (!th->obuf)
			return NULL;
	}
	if (OBUF_SIZE - th->olen < UTAP_FMT_STEP_MAX)
		stream_write(t, th);
	return th->obuf + th->olen;
}

/*
 * The thread stops (or lost steps): the pending step goes out with what is
 * known. A stream writes what it has; its encoder keeps the last step until
 * the thread's next step, whose address that record then carries (the way
 * the module joins windows), or until the END of the run.
 */
static void thread_gap(struct tout *t, struct tthr *th, bool end)
{
	if (th->have) {
		process(t, th, &th->pend, th->pend.next_ip);
		th->have = false;
	}
	bb_end(t, th);
	if (t->codec) {
		uint8_t *p = end ? stream_room(t, th) : NULL;
		int n = p ? utap_fmt_stream_flush(&th->enc, p, UTAP_FMT_STEP_MAX) : 0;

		if (n > 0)
			th->olen += (size_t)n;
		stream_write(t, th);
	}
}

static void feed_step(struct tout *t, const struct utap_trace_step *s)
{
	struct tthr *th = thread(t, s->tid);

	if (!th) {
		t->st.bad++;
		return;
	}
	t->st.steps++;
	if (t->codec) {
		uint8_t *p = stream_room(t, th);
		int n = p ? utap_fmt_stream_step(&th->enc, s, p, UTAP_FMT_STEP_MAX) : -1;

		if (n > 0)
			th->olen += (size_t)n;
		else if (n < 0)
			t->st.bad++;
	}
	if (th->have)
		process(t, th, &th->pend, th->pend.next_ip ? th->pend.next_ip : s->ip);
	th->pend = *s;
	th->have = true;
}

void tout_feed(struct tout *t, const void *payload, size_t len)
{
	const uint8_t *p = payload, *end = p + len;

	while (end - p >= 4) {
		uint16_t kind, size;

		memcpy(&kind, p, 2);
		memcpy(&size, p + 2, 2);
		if (size < 4 || size > end - p) {
			t->st.bad++;
			return;
		}
		switch (kind) {
		case UTAP_TRACE_STEP: {
			struct utap_trace_step s;

			if (size < sizeof(s))
				goto bad;
			memcpy(&s, p, sizeof(s));
			if (s.len > 15)
				goto bad;
			feed_step(t, &s);
			break;
		}
		case UTAP_TRACE_MAP: {
			struct utap_trace_map m;
			char *path;

			if (size < sizeof(m))
				goto bad;
			memcpy(&m, p, sizeof(m));
			if (m.path_len == 0 || m.path_len > size - sizeof(m))
				goto bad;
			path = strndup((const char *)p + sizeof(m), m.path_len);
			if (!path || strlen(path) != m.path_len) {
				free(path);
				goto bad;
			}
			tout_add_map(t, &m, path);
			free(path);
			break;
		}
		case UTAP_TRACE_THREAD: {
			struct utap_trace_thread r;
			struct tthr *th;

			if (size < sizeof(r))
				goto bad;
			memcpy(&r, p, sizeof(r));
			th = thread(t, r.tid);
			if (!th)
				goto bad;
			if (r.pid)
				th->pid = r.pid;
			th->last_map = SIZE_MAX;
			if (!r.on)
				thread_gap(t, th, false);
			break;
		}
		case UTAP_TRACE_LOST: {
			struct utap_trace_lost r;
			struct tthr *th;

			if (size < sizeof(r))
				goto bad;
			memcpy(&r, p, sizeof(r));
			t->st.lost += r.count;
			th = thread(t, r.tid);
			if (th && r.count)
				thread_gap(t, th, false);
			break;
		}
		case UTAP_TRACE_SAMPLE: {
			struct utap_trace_sample h;
			uint64_t pcs[512];

			if (size < sizeof(h))
				goto bad;
			memcpy(&h, p, sizeof(h));
			if (h.n > ARRAY_LEN(pcs) || size < sizeof(h) + 8 * (size_t)h.n)
				goto bad;
			memcpy(pcs, p + sizeof(h), 8 * (size_t)h.n);
			tsample_feed(t, &h, pcs);
			break;
		}
		default:
			t->st.bad++;	/* a kind this runner does not know: skip it */
			break;
		}
		p += size;
		continue;
bad:
		t->st.bad++;
		p += size;
	}
}

void tout_stats(const struct tout *t, struct tout_stats *st)
{
	*st = t->st;
}

/* --- open, close --------------------------------------------------------- */

uint64_t tout_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

struct tout *tout_open(const struct tout_opts *o, char *err, size_t errsize)
{
	const char *name = o->format ? o->format : "";
	const struct utap_fmt_codec *codec = utap_fmt_codec(name, strlen(name));
	const struct tout_writer *writer = codec ? NULL : tout_writer(name, strlen(name));
	struct tout *t;

	if (!codec && !writer) {
		snprintf(err, errsize, "unknown trace format '%s' (%s)", name, tout_formats());
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	t->o = *o;
	t->o.format = codec ? codec->name : writer->name;
	t->codec = codec;
	t->writer = writer;
	t->path = o->path ? strdup(o->path) : NULL;
	t->cmd = o->cmd ? strdup(o->cmd) : NULL;
	t->debug_root = o->debug_root ? strdup(o->debug_root) : NULL;
	t->o.path = t->path;
	t->o.cmd = t->cmd;
	t->o.debug_root = t->debug_root;
	t->open_ns = tout_wall_ns();
	if (codec) {
		t->own_streams = !o->streams;
		t->streams = o->streams ? o->streams : streams_new(t->path, o->fd);
		if (!t->streams) {
			snprintf(err, errsize, "out of memory");
			free(t);
			return NULL;
		}
	} else if (t->path) {
		/* fail early rather than after a long trace */
		int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			snprintf(err, errsize, "cannot create '%s': %s", t->path, strerror(errno));
			free(t->path);
			free(t->cmd);
			free(t->debug_root);
			free(t);
			return NULL;
		}
		close(fd);
	}
	return t;
}

FILE *tout_output(struct tout *t, char *err, size_t errsize)
{
	FILE *f;

	if (t->path) {
		f = fopen(t->path, "w");
	} else {
		int fd = dup(t->o.fd);

		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f && fd >= 0)
			close(fd);
	}
	if (!f)
		snprintf(err, errsize, "cannot write '%s': %s", t->path ? t->path : "output",
			 strerror(errno));
	return f;
}

int tout_finish(struct tout *t, FILE *f, char *err, size_t errsize)
{
	bool bad = ferror(f);

	if (fclose(f) || bad) {
		snprintf(err, errsize, "writing '%s' failed: %s", t->path ? t->path : "output",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void tout_free(struct tout *t)
{
	for (size_t i = 0; i < t->nmods; i++) {
		struct tmod *m = &t->mods[i];

		tmod_free(m);
	}
	for (size_t i = 0; i < t->nthr; i++) {
		free(t->thr[i].stack);
		free(t->thr[i].obuf);
	}
	free(t->mods);
	free(t->maps);
	free(t->thr);
	free(t->ins);
	free(t->edges);
	free(t->bbs);
	ktab_free(&t->ins_idx);
	ktab_free(&t->edge_idx);
	ktab_free(&t->bb_idx);
	tsample_free(t);
	if (t->own_streams)
		streams_free(t->streams);
	free(t->path);
	free(t->cmd);
	free(t->debug_root);
	free(t);
}

int tout_close(struct tout *t, struct tout_stats *st, char *err, size_t errsize)
{
	int rc = 0;
	FILE *f;

	if (errsize)
		err[0] = 0;
	for (size_t i = 0; i < t->nthr; i++)
		thread_gap(t, &t->thr[i], true);
	tsample_finish(t);
	/* calls that never returned get the cost up to the end, as callgrind does */
	for (size_t i = 0; i < t->nthr; i++) {
		struct tthr *th = &t->thr[i];

		while (th->depth) {
			struct tframe *fr = &th->stack[--th->depth];

			t->edges[fr->edge].inclusive += th->ir - fr->ir0;
		}
	}
	if (t->writer) {
		f = tout_output(t, err, errsize);
		if (!f) {
			rc = -1;
		} else {
			bool failed = t->writer->write(t, f) < 0;

			rc = tout_finish(t, f, err, errsize);
			if (failed && !rc) {
				snprintf(err, errsize, "%s: out of memory", t->o.format);
				rc = -1;
			}
		}
	}
	if (st)
		*st = t->st;
	tout_free(t);
	return rc;
}
