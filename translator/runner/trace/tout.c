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
#include <unistd.h>

const char *tout_printable(const char *s, char *buf, size_t size)
{
	size_t i;

	if (!strpbrk(s, "\n\r"))
		return s;
	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = s[i] == '\n' || s[i] == '\r' ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

void tsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(base, n, size, cmp);
}

bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* --- hash table ---------------------------------------------------------- */

static uint64_t khash(const uint64_t k[4])
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 4; i++) {
		h ^= k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static bool krehash(struct ktab *h, size_t cap)
{
	uint64_t *keys = calloc(cap, 4 * sizeof(uint64_t));
	uint32_t *vals = malloc(cap * sizeof(uint32_t));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	memset(vals, 0xff, cap * sizeof(uint32_t));
	for (size_t i = 0; i < h->cap; i++) {
		size_t j;

		if (h->vals[i] == UINT32_MAX)
			continue;
		for (j = khash(&h->keys[4 * i]) & (cap - 1); vals[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
			;
		memcpy(&keys[4 * j], &h->keys[4 * i], 4 * sizeof(uint64_t));
		vals[j] = h->vals[i];
	}
	free(h->keys);
	free(h->vals);
	h->keys = keys;
	h->vals = vals;
	h->cap = cap;
	return true;
}

int64_t ktab_get(struct ktab *h, const uint64_t k[4], bool insert, uint32_t next_val)
{
	size_t i;

	if (insert && (h->n + 1) * 2 > h->cap && !krehash(h, h->cap ? h->cap * 2 : 64))
		return -1;
	if (!h->cap)
		return -1;
	for (i = khash(k) & (h->cap - 1); h->vals[i] != UINT32_MAX; i = (i + 1) & (h->cap - 1))
		if (!memcmp(&h->keys[4 * i], k, 4 * sizeof(uint64_t)))
			return h->vals[i];
	if (!insert)
		return -1;
	memcpy(&h->keys[4 * i], k, 4 * sizeof(uint64_t));
	h->vals[i] = next_val;
	h->n++;
	return next_val;
}

void ktab_free(struct ktab *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

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
	if (!grow((void **)&s->fds, &s->cap, s->nfds + 1, sizeof(int)))
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

static int32_t add_module(struct tout *t, const struct utap_trace_map *mr, const char *path)
{
	size_t i;
	struct tmod *m;

	for (i = 0; i < t->nmods; i++) {
		m = &t->mods[i];
		if (m->pid == mr->pid && m->bias == mr->load_bias && !strcmp(m->path, path))
			break;
	}
	if (i == t->nmods) {
		if (!grow((void **)&t->mods, &t->capmods, t->nmods + 1, sizeof(*t->mods)))
			return -1;
		m = &t->mods[t->nmods];
		memset(m, 0, sizeof(*m));
		m->path = strdup(path);
		if (!m->path)
			return -1;
		m->pid = mr->pid;
		m->bias = mr->load_bias;
		m->lo = mr->start;
		m->hi = mr->end;
		m->base = mr->start - mr->offset;
		m->build_id_len = mr->build_id_len <= 20 ? mr->build_id_len : 0;
		memcpy(m->build_id, mr->build_id, m->build_id_len);
		t->nmods++;
		t->st.modules++;
	}
	m = &t->mods[i];
	if (mr->start < m->lo)
		m->lo = mr->start;
	if (mr->end > m->hi)
		m->hi = mr->end;
	if (mr->start - mr->offset < m->base)
		m->base = mr->start - mr->offset;
	return (int32_t)i;
}

static void add_map(struct tout *t, const struct utap_trace_map *mr, const char *path)
{
	int32_t mod = add_module(t, mr, path);
	size_t i, j;

	if (mod < 0 || mr->end <= mr->start) {
		t->st.bad++;
		return;
	}
	/* a new mapping replaces whatever it overlaps in that process */
	for (i = j = 0; i < t->nmaps; i++) {
		struct tmap *x = &t->maps[i];

		if (x->pid == mr->pid && x->start < mr->end && mr->start < x->end)
			continue;
		t->maps[j++] = *x;
	}
	t->nmaps = j;
	if (!grow((void **)&t->maps, &t->capmaps, t->nmaps + 1, sizeof(*t->maps)))
		return;
	for (i = t->nmaps; i > 0; i--) {
		struct tmap *x = &t->maps[i - 1];

		if (x->pid < mr->pid || (x->pid == mr->pid && x->start < mr->start))
			break;
		t->maps[i] = *x;
	}
	t->maps[i] = (struct tmap){ .pid = mr->pid, .mod = mod, .start = mr->start, .end = mr->end };
	t->nmaps++;
	for (i = 0; i < t->nthr; i++)
		t->thr[i].last_map = SIZE_MAX;
}

/* The mapping holding ADDR in process PID (any process if PID is 0 or has none). */
static size_t find_map(struct tout *t, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = t->nmaps;

	while (pid && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct tmap *x = &t->maps[mid];

		if (x->pid < pid || (x->pid == pid && x->end <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pid && lo < t->nmaps && t->maps[lo].pid == pid && t->maps[lo].start <= addr &&
	    addr < t->maps[lo].end)
		return lo;
	for (size_t i = 0; i < t->nmaps; i++)
		if (t->maps[i].start <= addr && addr < t->maps[i].end)
			return i;
	return SIZE_MAX;
}

int32_t tout_locate(struct tout *t, uint32_t pid, uint64_t addr, uint64_t *rel)
{
	size_t i = find_map(t, pid, addr);

	if (i == SIZE_MAX) {
		*rel = addr;
		return -1;
	}
	*rel = addr - t->mods[t->maps[i].mod].bias;
	return t->maps[i].mod;
}

static int32_t locate_thr(struct tout *t, struct tthr *th, uint64_t addr, uint64_t *rel)
{
	size_t i = th->last_map;

	if (i >= t->nmaps || t->maps[i].start > addr || addr >= t->maps[i].end ||
	    (th->pid && t->maps[i].pid != th->pid))
		i = find_map(t, th->pid, addr);
	th->last_map = i;
	if (i == SIZE_MAX) {
		*rel = addr;
		return -1;
	}
	*rel = addr - t->mods[t->maps[i].mod].bias;
	return t->maps[i].mod;
}

/* Symbol and line tables of the file, once; only if it is the file that was traced. */
void tmod_load(struct tout *t, struct tmod *m)
{
	GElf_Ehdr eh;

	if (m->loaded)
		return;
	m->loaded = true;
	if (utap_debuginfo_open(&m->di, m->path, t->debug_root, UTAP_DI_ALL))
		return;
	if (m->build_id_len && (m->di.build_id.len != m->build_id_len ||
				memcmp(m->di.build_id.bytes, m->build_id, m->build_id_len))) {
		fprintf(stderr, "WARNING: trace: %s changed on disk since it was traced "
			"(build-id differs); no symbols or lines for it\n", m->path);
		utap_debuginfo_close(&m->di);
		return;
	}
	m->usable = true;
	if (gelf_getehdr(m->di.file.elf, &eh))
		m->entry = eh.e_entry + m->bias;
	if (!utap_symtab_build(&m->di, 0, &m->symblob) &&
	    !utap_symtab_init(&m->syms, m->symblob.data, m->symblob.size)) {
		m->has_syms = true;
		utap_symtab_extent(&m->syms, m->bias, &m->img_lo, &m->img_hi);
	}
	tmod_load_plt(m);
	if (!utap_linetab_build(&m->di, m->path, &m->lineblob) &&
	    !utap_linetab_init(&m->lines, m->lineblob.data, m->lineblob.size))
		m->has_lines = m->lines.nrows > 0;
}

int64_t tmod_symbol(struct tmod *m, uint64_t rel, const char **name)
{
	struct utap_sym_hit hit;

	int64_t plt = tmod_plt(m, rel, name);

	if (plt >= 0)
		return -2 - plt;
	*name = NULL;
	if (!m->has_syms || !utap_symtab_lookup(&m->syms, rel, &hit))
		return -1;
	*name = hit.name[0] == '.' && hit.name[1] ? hit.name + 1 : hit.name;
	return hit.index;
}

bool tmod_line(struct tmod *m, uint64_t rel, const char **file, uint32_t *line)
{
	*file = NULL;
	*line = 0;
	if (!m->has_lines || !utap_linetab_lookup(&m->lines, rel, file, line))
		return false;
	return *file != NULL;
}

/* --- counters ------------------------------------------------------------ */

static int64_t ins_get(struct tout *t, int32_t mod, uint64_t rel, const struct utap_trace_step *s)
{
	uint64_t k[4] = { (uint64_t)(int64_t)mod, rel, 0, 0 };
	int64_t i = ktab_get(&t->ins_idx, k, false, 0);
	struct tins *in;

	if (i >= 0)
		return i;
	if (!grow((void **)&t->ins, &t->capins, t->nins + 1, sizeof(*t->ins)))
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
	if (!grow((void **)&t->edges, &t->capedges, t->nedges + 1, sizeof(*t->edges)))
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
	if (!grow((void **)&t->bbs, &t->capbbs, t->nbbs + 1, sizeof(*t->bbs)) ||
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
	if (utap_fmt_is_stream(t->o.format))
		return;
	mod = locate_thr(t, th, s->ip, &rel);
	if (mod < 0)
		t->st.unmapped++;
	if (t->o.format == UTAP_FMT_DRCOV) {
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
		    grow((void **)&th->stack, &th->cap, th->depth + 1, sizeof(*th->stack)))
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
	if (!grow((void **)&t->thr, &t->capthr, t->nthr + 1, sizeof(*t->thr)))
		return NULL;
	memset(&t->thr[t->nthr], 0, sizeof(*t->thr));
	t->thr[t->nthr].tid = tid;
	t->thr[t->nthr].last_map = SIZE_MAX;
	utap_fmt_stream_init(&t->thr[t->nthr].enc, t->o.format, t->o.qt_isa);
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
	if (utap_fmt_is_stream(t->o.format)) {
		uint8_t *p = end ? stream_room(t, th) : NULL;
		int n = p ? utap_fmt_stream_flush(&th->enc, p, UTAP_FMT_STEP_MAX) : 0;

		if (n > 0)
			th->olen += (size_t)n;
		stream_write(t, th);
	}
}

static void step(struct tout *t, const struct utap_trace_step *s)
{
	struct tthr *th = thread(t, s->tid);

	if (!th) {
		t->st.bad++;
		return;
	}
	t->st.steps++;
	if (utap_fmt_is_stream(t->o.format)) {
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
			step(t, &s);
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
			add_map(t, &m, path);
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

struct tout *tout_open(const struct tout_opts *o, char *err, size_t errsize)
{
	struct tout *t;

	if (o->format <= UTAP_FMT_NONE || o->format >= UTAP_FMT_COUNT) {
		snprintf(err, errsize, "unknown trace format");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	t->o = *o;
	t->path = o->path ? strdup(o->path) : NULL;
	t->cmd = o->cmd ? strdup(o->cmd) : NULL;
	t->debug_root = o->debug_root ? strdup(o->debug_root) : NULL;
	t->o.path = t->path;
	t->o.cmd = t->cmd;
	t->o.debug_root = t->debug_root;
	if (utap_fmt_is_stream(o->format)) {
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

		free(m->path);
		utap_blob_free(&m->symblob);
		utap_blob_free(&m->lineblob);
		tmod_free_plt(m);
		utap_debuginfo_close(&m->di);
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
	/* calls that never returned get the cost up to the end, as callgrind does */
	for (size_t i = 0; i < t->nthr; i++) {
		struct tthr *th = &t->thr[i];

		while (th->depth) {
			struct tframe *fr = &th->stack[--th->depth];

			t->edges[fr->edge].inclusive += th->ir - fr->ir0;
		}
	}
	if (!utap_fmt_is_stream(t->o.format)) {
		f = tout_output(t, err, errsize);
		if (!f) {
			rc = -1;
		} else {
			switch (t->o.format) {
			case UTAP_FMT_DRCOV:
				drcov_write(t, f);
				break;
			case UTAP_FMT_CALLGRIND:
				callgrind_write(t, f);
				break;
			case UTAP_FMT_LCOV:
				lcov_write(t, f);
				break;
			}
			rc = tout_finish(t, f, err, errsize);
		}
	}
	if (st)
		*st = t->st;
	tout_free(t);
	return rc;
}
