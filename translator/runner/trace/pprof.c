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
 */
#include "runner/trace/tout_int.h"
#include "runner/trace/proto.h"

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
};

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

/* Function id of symbol SYM (KEY says of which file), written on first use. */
static uint32_t pp_func(struct pprof *pp, uint64_t key, int64_t sym, const char *name,
			const char *file)
{
	uint64_t k[4] = { key, (uint64_t)sym, 0, 0 };
	int64_t id = ktab_get(&pp->fn_idx, k, true, pp->nfns + 1);

	if (id < 0)
		return 0;
	if (id == pp->nfns + 1) {
		pp->nfns++;
		proto_uint(&pp->sub, F_ID, id);
		proto_int(&pp->sub, F_NAME, proto_str(&pp->strs, name));
		proto_int(&pp->sub, F_SYSTEM_NAME, proto_str(&pp->strs, name));
		proto_int(&pp->sub, F_FILENAME, proto_str(&pp->strs, file));
		proto_msg(&pp->funcs, P_FUNCTION, &pp->sub);
	}
	return id;
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

/* A user frame's name and line, from the tables of its file. */
static void pp_user_frame(struct pprof *pp, int32_t mod, uint64_t rel, uint32_t *fn,
			  uint32_t *line)
{
	struct tmod *m = &pp->t->mods[mod];
	struct pmap *pm = &pp->maps[mod];
	const char *name, *file;
	int64_t sym;

	tmod_load(pp->t, m);
	sym = tmod_symbol(m, rel, &name);
	if (!name)
		return;
	if (!tmod_line(m, rel, &file, line))
		file = NULL;
	pm->functions = true;
	pm->files |= file != NULL;
	pm->lines |= *line != 0;
	*fn = pp_func(pp, (uint64_t)mod, sym, name, file);
}

/* Location id of frame ADDR (already moved into the call for return addresses). */
static uint32_t pp_loc(struct pprof *pp, uint32_t pid, bool kernel, uint64_t addr)
{
	uint64_t rel = addr, k[4] = { kernel ? 1 : 2, 0, addr, 0 };
	int32_t mod = -1;
	uint32_t map = 0, fn = 0, line = 0;
	int64_t id;

	if (!kernel) {
		mod = tout_locate(pp->t, pid, addr, &rel);
		k[1] = mod < 0 ? pid : UINT64_MAX - (uint64_t)mod;
	}
	id = ktab_get(&pp->loc_idx, k, true, pp->nlocs + 1);
	if (id < 0 || id <= pp->nlocs)
		return id < 0 ? 0 : (uint32_t)id;
	pp->nlocs++;
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
		pp_user_frame(pp, mod, rel, &fn, &line);
	}
	pp_loc_write(pp, id, map, addr, fn, line);
	return id;
}

/* Samples sorted by process and frames, so equal stacks are neighbours. */
static const struct tout *cmp_t;

static int sample_cmp(const void *a, const void *b)
{
	const struct tsample *x = a, *y = b;
	size_t n = (size_t)x->nkernel + x->nuser;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->nkernel != y->nkernel)
		return x->nkernel < y->nkernel ? -1 : 1;
	if (x->nuser != y->nuser)
		return x->nuser < y->nuser ? -1 : 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t u = cmp_t->spcs[x->off + i], v = cmp_t->spcs[y->off + i];

		if (u != v)
			return u < v ? -1 : 1;
	}
	return 0;
}

/* One sample: its locations, leaf first, and its count. */
static void pp_sample(struct pprof *pp, const struct tsample *s, uint64_t count, uint64_t *ids)
{
	size_t n = (size_t)s->nkernel + s->nuser;
	const uint64_t *pcs = n ? pp->t->spcs + s->off : NULL;

	for (size_t i = 0; i < n; i++) {
		bool kernel = i < s->nkernel;
		size_t j = kernel ? i : i - s->nkernel;	/* index within its stack */
		uint64_t addr = j && pcs[i] ? pcs[i] - 1 : pcs[i];

		ids[i] = pp_loc(pp, s->pid, kernel, addr);
	}
	proto_packed(&pp->smp, S_LOCATION_ID, ids, n);
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

	for (size_t i = 0; i < t->nsamples; i++)
		if ((size_t)t->samples[i].nkernel + t->samples[i].nuser > maxn)
			maxn = (size_t)t->samples[i].nkernel + t->samples[i].nuser;
	ids = malloc(maxn * sizeof(*ids));
	pp->maps = calloc(t->nmods + 1, sizeof(*pp->maps));
	if (!ids || !pp->maps) {
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
	return rc;
}

const struct tout_writer tout_pprof = {
	.name = "pprof",
	.write = pprof_write,
};
