/*
 * pprof.c - the pprof writer: the sampled stacks of a run (tsample.c) as a
 * gzipped profile.proto, the format go tool pprof and the profile back
 * ends read.
 *
 * Equal stacks of one process are one sample with their count. A frame is
 * a location: its mapping (the file it is in, with the file's build id, or
 * [kernel.kallsyms]), its address and one line naming its function, file
 * and line. Return addresses are looked up one byte back, in the call
 * instruction, as ufolded() does, so a caller's line is that of the call.
 * Symbols come from the files' symbol tables (tmod.c), kernel names from
 * /proc/kallsyms; a frame without a symbol is a location with an address
 * and no line, which pprof shows as the address.
 *
 * A sample with a pybacktrace() string (pprof_pysample()) has each
 * _PyEval_EvalFrameDefault frame of its user stack replaced by the Python
 * frames that C call ran, as pyfolded() replaces them: a location per
 * Python frame, without a mapping or an address, whose line names the
 * Python function (with its file) and the line it was at.
 */
#include "runner/trace/tout_int.h"
#include "runner/trace/proto.h"
#include "unwind/pytext.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE,
	P_TIME_NANOS = 9, P_DURATION_NANOS, P_PERIOD_TYPE, P_PERIOD,
};
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION_ID = 1, S_VALUE };
enum {
	M_ID = 1, M_MEMORY_START, M_MEMORY_LIMIT, M_FILE_OFFSET, M_FILENAME, M_BUILD_ID,
	M_HAS_FUNCTIONS, M_HAS_FILENAMES, M_HAS_LINE_NUMBERS,
};
enum { L_ID = 1, L_MAPPING_ID, L_ADDRESS, L_LINE };
enum { LN_FUNCTION_ID = 1, LN_LINE };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME, F_FILENAME };

/* What a profile's mapping knows: one per module, plus the kernel's. */
struct pmap {
	uint32_t id;		/* 0: no location uses it */
	uint64_t lo, hi;
	bool functions, files, lines;
};

struct pprof {
	struct tout *t;
	struct proto_strtab strs;
	struct proto locs, funcs;	/* the repeated fields, as they are made */
	struct proto sub, line, smp;	/* one message being made */
	struct ktab loc_idx, fn_idx;
	uint32_t nlocs, nfns, nmaps;
	struct pmap *maps;	/* t->nmods of them, then the kernel */
	uint8_t *eval;		/* by location id: a _PyEval_EvalFrameDefault frame */
	size_t capeval;
	char *py;		/* one sample's Python text, NUL-terminated */
};

/* The C function whose frames ran Python code (pyfolded() replaces the same ones). */
static const char py_eval_name[] = "_PyEval_EvalFrameDefault";

/* Mapping id of module MOD (-1: the kernel), counting ADDR in its extent. */
static uint32_t pp_map(struct pprof *pp, int32_t mod, uint64_t addr)
{
	struct pmap *m = &pp->maps[mod < 0 ? pp->t->nmods : (size_t)mod];

	if (!m->id) {
		m->id = ++pp->nmaps;
		m->lo = m->hi = addr;
	}
	if (addr < m->lo)
		m->lo = addr;
	if (addr >= m->hi)
		m->hi = addr + 1;
	return m->id;
}

/* Function id of the function K names, written on first use; SYSNAME may be NULL. */
static uint32_t pp_func_key(struct pprof *pp, const uint64_t k[4], const char *name,
			    const char *sysname, const char *file)
{
	int64_t id = ktab_get(&pp->fn_idx, k, true, pp->nfns + 1);

	if (id < 0)
		return 0;
	if (id == pp->nfns + 1) {
		pp->nfns++;
		proto_uint(&pp->sub, F_ID, id);
		proto_int(&pp->sub, F_NAME, proto_str(&pp->strs, name));
		proto_int(&pp->sub, F_SYSTEM_NAME, proto_str(&pp->strs, sysname));
		proto_int(&pp->sub, F_FILENAME, proto_str(&pp->strs, file));
		proto_msg(&pp->funcs, P_FUNCTION, &pp->sub);
	}
	return id;
}

/* Function id of symbol SYM (KEY says of which file). */
static uint32_t pp_func(struct pprof *pp, uint64_t key, int64_t sym, const char *name,
			const char *file)
{
	uint64_t k[4] = { key, (uint64_t)sym, 0, 0 };

	return pp_func_key(pp, k, name, name, file);
}

/* The location message: an address in a mapping, and its function and line if known. */
static void pp_loc_write(struct pprof *pp, uint32_t id, uint32_t map, uint64_t addr,
			 uint32_t fn, uint32_t line)
{
	proto_uint(&pp->sub, L_ID, id);
	proto_uint(&pp->sub, L_MAPPING_ID, map);
	proto_uint(&pp->sub, L_ADDRESS, addr);
	if (fn) {
		proto_uint(&pp->line, LN_FUNCTION_ID, fn);
		proto_uint(&pp->line, LN_LINE, line);
		proto_msg(&pp->sub, L_LINE, &pp->line);
	}
	proto_msg(&pp->locs, P_LOCATION, &pp->sub);
}

/* A user frame's name and line, from the tables of its file; true if it is the eval loop's. */
static bool pp_user_frame(struct pprof *pp, int32_t mod, uint64_t rel, uint32_t *fn,
			  uint32_t *line)
{
	struct tmod *m = &pp->t->mods[mod];
	struct pmap *pm = &pp->maps[mod];
	const char *name, *file;
	int64_t sym;

	tmod_load(pp->t, m);
	sym = tmod_symbol(m, rel, &name);
	if (!name)
		return false;
	if (!tmod_line(m, rel, &file, line))
		file = NULL;
	pm->functions = true;
	pm->files |= file != NULL;
	pm->lines |= *line != 0;
	*fn = pp_func(pp, (uint64_t)mod, sym, name, file);
	return !strcmp(name, py_eval_name);
}

/* The location id of key K; FRESH if it is new (its message not written yet). 0: no memory. */
static uint32_t pp_loc_id(struct pprof *pp, const uint64_t k[4], bool *fresh)
{
	int64_t id = ktab_get(&pp->loc_idx, k, true, pp->nlocs + 1);

	*fresh = false;
	if (id < 0 || id <= pp->nlocs)
		return id < 0 ? 0 : (uint32_t)id;
	if (!tout_grow((void **)&pp->eval, &pp->capeval, (size_t)id + 1, 1))
		return 0;
	pp->nlocs++;
	pp->eval[id] = false;
	*fresh = true;
	return (uint32_t)id;
}

/* Location id of frame ADDR (already moved into the call for return addresses). */
static uint32_t pp_loc(struct pprof *pp, uint32_t pid, bool kernel, uint64_t addr)
{
	uint64_t rel = addr, k[4] = { kernel ? 1 : 2, 0, addr, 0 };
	int32_t mod = -1;
	uint32_t map = 0, fn = 0, line = 0, id;
	bool fresh;

	if (!kernel) {
		mod = tout_locate(pp->t, pid, addr, &rel);
		k[1] = mod < 0 ? pid : UINT64_MAX - (uint64_t)mod;
	}
	id = pp_loc_id(pp, k, &fresh);
	if (!fresh)
		return id;
	if (kernel) {
		const char *name;
		int64_t sym = tksym_lookup(addr, &name);

		map = pp_map(pp, -1, addr);
		if (name) {
			pp->maps[pp->t->nmods].functions = true;
			fn = pp_func(pp, UINT64_MAX, sym, name, NULL);
		}
	} else if (mod >= 0) {
		map = pp_map(pp, mod, addr);
		pp->eval[id] = pp_user_frame(pp, mod, rel, &fn, &line);
	}
	pp_loc_write(pp, id, map, addr, fn, line);
	return id;
}

/* LEN bytes at P as a string of the profile's table. */
static uint64_t pp_strn(struct pprof *pp, const char *p, size_t len, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)len, p);
	return (uint64_t)proto_str(&pp->strs, buf);
}

/* Location id of a Python frame: no mapping, no address; its function, file and line. */
static uint32_t pp_pyloc(struct pprof *pp, const struct utap_py_line *l)
{
	char name[512], file[4096], num[16];
	uint64_t n = pp_strn(pp, l->name, l->name_len, name, sizeof(name));
	uint64_t f = pp_strn(pp, l->file, l->file_len, file, sizeof(file));
	unsigned long line;
	uint64_t k[4];
	uint32_t id;
	bool fresh;

	snprintf(num, sizeof(num), "%.*s", (int)l->line_len, l->line);
	line = strtoul(num, NULL, 10);	/* "?": no line, 0 */
	k[0] = 3, k[1] = n, k[2] = f, k[3] = line;
	id = pp_loc_id(pp, k, &fresh);
	if (!fresh)
		return id;
	k[0] = UINT64_MAX, k[3] = 1;	/* kernel functions have k[3] 0 */
	/*
	 * No system name: pprof takes a name equal to it for a demangled C++
	 * one and cuts "<...>" out of it, which would leave <module> empty.
	 */
	pp_loc_write(pp, id, 0, 0, pp_func_key(pp, k, name, NULL, file), (uint32_t)line);
	return id;
}

/*
 * Python frames in place of eval frame E (0: the innermost of the stack)
 * into ids; how many (0: keep the C frame, as pyfolded() does).
 */
static size_t pp_pygroup(struct pprof *pp, int e, uint64_t *ids)
{
	struct utap_py_line l;
	int n = utap_py_group_frame(pp->py, e, 0, &l);

	for (int j = 0; j < n; j++) {
		utap_py_group_frame(pp->py, e, j, &l);
		ids[j] = pp_pyloc(pp, &l);
	}
	return n > 0 ? (size_t)n : 0;
}

/* Samples sorted by process and frames, so equal stacks are neighbours. */
static const struct tout *cmp_t;

static int sample_cmp(const void *a, const void *b)
{
	const struct tsample *x = a, *y = b;
	size_t n = tsample_words(x);

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->nkernel != y->nkernel)
		return x->nkernel < y->nkernel ? -1 : 1;
	if (x->nuser != y->nuser)
		return x->nuser < y->nuser ? -1 : 1;
	if (x->pylen != y->pylen)
		return x->pylen < y->pylen ? -1 : 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t u = cmp_t->spcs[x->off + i], v = cmp_t->spcs[y->off + i];

		if (u != v)
			return u < v ? -1 : 1;
	}
	return 0;
}

/* The sample's Python text into pp->py; how many groups of frames it has. */
static int pp_pytext(struct pprof *pp, const struct tsample *s)
{
	const uint64_t *words = pp->t->spcs + s->off + s->nkernel + s->nuser;

	if (!s->pylen)
		return 0;
	memcpy(pp->py, words, s->pylen);
	pp->py[s->pylen] = 0;
	return utap_py_ngroups(pp->py);
}

/* One sample: its locations, leaf first, and its count. */
static void pp_sample(struct pprof *pp, const struct tsample *s, uint64_t count, uint64_t *ids)
{
	size_t n = (size_t)s->nkernel + s->nuser, k = 0;
	const uint64_t *pcs = n ? pp->t->spcs + s->off : NULL;
	int groups = pp_pytext(pp, s), evals = 0;

	for (size_t i = 0; i < n; i++) {
		bool kernel = i < s->nkernel;
		size_t j = kernel ? i : i - s->nkernel;	/* index within its stack */
		uint64_t addr = j && pcs[i] ? pcs[i] - 1 : pcs[i];
		uint32_t id = pp_loc(pp, s->pid, kernel, addr);
		size_t py = 0;

		if (!kernel && id && pp->eval[id] && evals < groups)
			py = pp_pygroup(pp, evals, ids + k);
		evals += !kernel && id && pp->eval[id];
		k += py;
		if (!py)
			ids[k++] = id;
	}
	proto_packed(&pp->smp, S_LOCATION_ID, ids, k);
	proto_packed(&pp->smp, S_VALUE, &count, 1);
}

static void pp_value_type(struct pprof *pp, struct proto *out, unsigned field, const char *type,
			  const char *unit)
{
	proto_int(&pp->sub, VT_TYPE, proto_str(&pp->strs, type));
	proto_int(&pp->sub, VT_UNIT, proto_str(&pp->strs, unit));
	proto_msg(out, field, &pp->sub);
}

/*
 * The program's own file: pprof takes the first mapping for it (its name
 * heads the report). The file most samples start in (their outermost frame).
 */
static size_t pp_main(struct pprof *pp)
{
	struct tout *t = pp->t;
	uint64_t *n = calloc(t->nmods + 1, sizeof(*n));
	size_t best = t->nmods;

	for (size_t i = 0; n && i < t->nsamples; i++) {
		const struct tsample *s = &t->samples[i];
		uint64_t rel;
		int32_t mod;

		if (!s->nuser)
			continue;
		mod = tout_locate(t, s->pid, t->spcs[s->off + s->nkernel + s->nuser - 1], &rel);
		if (mod >= 0)
			n[mod] += s->count;
	}
	for (size_t i = 0; n && i < t->nmods; i++)
		if (pp->maps[i].id && (best == t->nmods || n[i] > n[best]))
			best = i;
	free(n);
	return best;
}

static void pp_mappings(struct pprof *pp, struct proto *out)
{
	size_t first = pp_main(pp);

	for (size_t k = 0; k <= pp->t->nmods + 1; k++) {
		size_t i = k ? k - 1 : first;
		struct pmap *pm = &pp->maps[i];
		struct tmod *m = i < pp->t->nmods ? &pp->t->mods[i] : NULL;
		char id[2 * 20 + 1] = "";

		if (!pm->id || (k && i == first))
			continue;
		proto_uint(&pp->sub, M_ID, pm->id);
		if (m) {
			const uint8_t *b = m->usable ? m->di.build_id.bytes : m->build_id;
			size_t len = m->usable ? m->di.build_id.len : m->build_id_len;

			for (size_t k = 0; k < len && k < 20; k++)
				snprintf(id + 2 * k, 3, "%02x", b[k]);
			proto_uint(&pp->sub, M_MEMORY_START, m->lo);
			proto_uint(&pp->sub, M_MEMORY_LIMIT, m->hi);
			proto_uint(&pp->sub, M_FILE_OFFSET, m->lo - m->base);
			proto_int(&pp->sub, M_FILENAME, proto_str(&pp->strs, m->path));
			proto_int(&pp->sub, M_BUILD_ID, proto_str(&pp->strs, id));
		} else {
			proto_uint(&pp->sub, M_MEMORY_START, pm->lo);
			proto_uint(&pp->sub, M_MEMORY_LIMIT, pm->hi);
			proto_int(&pp->sub, M_FILENAME, proto_str(&pp->strs, "[kernel.kallsyms]"));
		}
		proto_uint(&pp->sub, M_HAS_FUNCTIONS, pm->functions);
		proto_uint(&pp->sub, M_HAS_FILENAMES, pm->files);
		proto_uint(&pp->sub, M_HAS_LINE_NUMBERS, pm->lines);
		proto_msg(out, P_MAPPING, &pp->sub);
	}
}

/* The whole profile message into OUT. */
static int pp_build(struct pprof *pp, struct proto *out)
{
	struct tout *t = pp->t;
	struct proto samples = { 0 };
	uint64_t *ids;
	size_t maxn = 1;

	/* a Python frame is a line of at least 3 bytes (two tabs and a newline) */
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct tsample *s = &t->samples[i];

		if ((size_t)s->nkernel + s->nuser + s->pylen / 3 > maxn)
			maxn = (size_t)s->nkernel + s->nuser + s->pylen / 3;
	}
	ids = malloc(maxn * sizeof(*ids));
	pp->maps = calloc(t->nmods + 1, sizeof(*pp->maps));
	pp->py = malloc(UINT16_MAX + 1);
	if (!ids || !pp->maps || !pp->py) {
		free(ids);
		return -1;
	}
	cmp_t = t;
	tout_sort(t->samples, t->nsamples, sizeof(*t->samples), sample_cmp);
	proto_str(&pp->strs, "");
	pp_value_type(pp, out, P_SAMPLE_TYPE, "samples", "count");
	for (size_t i = 0, j; i < t->nsamples; i = j) {
		uint64_t count = 0;

		for (j = i; j < t->nsamples && !sample_cmp(&t->samples[i], &t->samples[j]); j++)
			count += t->samples[j].count;
		pp_sample(pp, &t->samples[i], count, ids);
		proto_msg(&samples, P_SAMPLE, &pp->smp);
	}
	free(ids);
	proto_put(out, samples.buf, samples.len);
	out->oom |= samples.oom;
	proto_free(&samples);
	pp_mappings(pp, out);
	proto_put(out, pp->locs.buf, pp->locs.len);
	proto_put(out, pp->funcs.buf, pp->funcs.len);
	out->oom |= pp->locs.oom || pp->funcs.oom || pp->sub.oom || pp->line.oom || pp->smp.oom;
	proto_uint(out, P_TIME_NANOS, t->open_ns);
	proto_uint(out, P_DURATION_NANOS, tout_wall_ns() - t->open_ns);
	if (t->period_ns)
		pp_value_type(pp, out, P_PERIOD_TYPE, "cpu", "nanoseconds");
	else
		pp_value_type(pp, out, P_PERIOD_TYPE, "events", "count");
	proto_uint(out, P_PERIOD, t->period);
	/* last: every string is known now */
	proto_strings(out, P_STRING_TABLE, &pp->strs);
	return out->oom ? -1 : 0;
}

/* DATA gzipped into F. */
static int pp_gzip(FILE *f, const void *data, size_t len)
{
	unsigned char buf[65536];
	z_stream z = { 0 };
	int rc;

	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)data;
	z.avail_in = len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR ||
		    fwrite(buf, 1, sizeof(buf) - z.avail_out, f) != sizeof(buf) - z.avail_out) {
			deflateEnd(&z);
			return -1;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

static int pprof_write(struct tout *t, FILE *f)
{
	struct pprof pp = { .t = t };
	struct proto out = { 0 };
	int rc = pp_build(&pp, &out);

	if (!rc)
		rc = pp_gzip(f, out.buf ? out.buf : (const uint8_t *)"", out.len);
	proto_free(&out);
	proto_free(&pp.locs);
	proto_free(&pp.funcs);
	proto_free(&pp.sub);
	proto_free(&pp.line);
	proto_free(&pp.smp);
	proto_strtab_free(&pp.strs);
	ktab_free(&pp.loc_idx);
	ktab_free(&pp.fn_idx);
	free(pp.maps);
	free(pp.eval);
	free(pp.py);
	return rc;
}

const struct tout_writer tout_pprof = {
	.name = "pprof",
	.write = pprof_write,
};
