/*
 * tmod.c - what the runner's trace writers share: the modules of the
 * traced processes (their mappings, their symbol, line and PLT tables) and
 * small helpers (a hash table, growing arrays, printable names). It calls
 * no writer, so tout.c and the writers both build on it.
 */
#include "runner/trace/tout_int.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <string.h>
#include <unistd.h>

/* --- helpers ------------------------------------------------------------- */

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

void tout_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(base, n, size, cmp);
}

bool tout_grow(void **p, size_t *cap, size_t need, size_t elem)
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
		if (!tout_grow((void **)&t->mods, &t->capmods, t->nmods + 1, sizeof(*t->mods)))
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

/*
 * A mapping of a file the module had no tables for comes with the file's
 * base name only (a probe cannot look paths up). The mapping, if the
 * process still has it, names the file; else a mapping of the runner's
 * own at the same addresses with the same name is the same file: the -c
 * child runs the runner's code until its exec. NAME if neither.
 */
static const char *map_real_path(const struct utap_trace_map *mr, const char *name, char *buf,
				 size_t size)
{
	char link[128], line[4608];
	uint64_t lo, hi;
	const char *base;
	ssize_t n;
	FILE *f;
	int at;

	snprintf(link, sizeof(link), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, mr->pid,
		 mr->start, mr->end);
	n = readlink(link, buf, size - 1);
	if (n > 0) {
		buf[n] = 0;
		return buf;
	}
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return name;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &lo, &hi, &at) < 2 ||
		    lo != mr->start || hi != mr->end)
			continue;
		line[strcspn(line, "\n")] = 0;
		base = strrchr(line + at, '/');
		if (base && !strcmp(base + 1, name) && strlen(line + at) < size) {
			strcpy(buf, line + at);
			fclose(f);
			return buf;
		}
	}
	fclose(f);
	return name;
}

void tout_add_map(struct tout *t, const struct utap_trace_map *mr, const char *name)
{
	char buf[4096];
	const char *path = strchr(name, '/') ? name : map_real_path(mr, name, buf, sizeof(buf));
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
	if (!tout_grow((void **)&t->maps, &t->capmaps, t->nmaps + 1, sizeof(*t->maps)))
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
size_t tout_find_map(struct tout *t, uint32_t pid, uint64_t addr)
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
	size_t i = tout_find_map(t, pid, addr);

	if (i == SIZE_MAX) {
		*rel = addr;
		return -1;
	}
	*rel = addr - t->mods[t->maps[i].mod].bias;
	return t->maps[i].mod;
}

/* A traced module's PLT stubs ("printf@plt", found by elf/plt.c), so the
 * writers charge a call through the PLT to the stub and not to whatever
 * symbol precedes .plt. */
static void tmod_load_plt(struct tmod *m)
{
	/* out of memory: calls through the PLT are charged to the symbol before it */
	elf_plt_read(m->di.file.elf, m->di.separate.elf, &m->plt);
}

static int64_t tmod_plt(const struct tmod *m, uint64_t rel, const char **name)
{
	const struct elf_plt_stub *v = m->plt.stubs;
	size_t lo = 0, hi = m->plt.nstubs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->plt.nstubs || v[lo].start > rel)
		return -1;
	*name = v[lo].name;
	return (int64_t)lo;
}

/*
 * The vDSO has no file: the module names it as the runner's tables do
 * (runner/tables.c), and the runner runs on the traced kernel, so its own
 * image is the one. Its size is where its section headers end.
 */
static int tmod_open_vdso(struct tmod *m)
{
	const GElf_Ehdr *eh = (const GElf_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	m->image = malloc(size);
	if (!m->image)
		return -1;
	memcpy(m->image, eh, size);
	return utap_debuginfo_open_memory(&m->di, m->image, size, NULL, NULL, 0);
}

/* Symbol and line tables of the file, once; only if it is the file that was traced. */
void tmod_load(struct tout *t, struct tmod *m)
{
	GElf_Ehdr eh;

	if (m->loaded)
		return;
	m->loaded = true;
	if (!strcmp(m->path, "linux-vdso.so.1") ? tmod_open_vdso(m) :
	    utap_debuginfo_open(&m->di, m->path, t->debug_root, UTAP_DI_ALL))
		return;
	m->di_open = true;
	if (m->build_id_len && (m->di.build_id.len != m->build_id_len ||
				memcmp(m->di.build_id.bytes, m->build_id, m->build_id_len))) {
		fprintf(stderr, "WARNING: trace: %s changed on disk since it was traced "
			"(build-id differs); no symbols or lines for it\n", m->path);
		utap_debuginfo_close(&m->di);
		m->di_open = false;
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
	char buf[UTAP_SYM_NAME_MAX];
	int64_t plt = tmod_plt(m, rel, name);

	if (plt >= 0)
		return -2 - plt;
	*name = NULL;
	if (!m->has_syms || !utap_symtab_lookup(&m->syms, rel, &hit, buf, sizeof(buf)))
		return -1;
	/* the writers keep names: each is decoded once and lives as long as the module */
	if (!m->names && !(m->names = calloc(m->syms.nsyms, sizeof(*m->names))))
		return -1;
	if (!m->names[hit.index] && !(m->names[hit.index] = strdup(buf)))
		return -1;
	*name = m->names[hit.index];
	if (**name == '.' && (*name)[1])
		(*name)++;
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

void tmod_free(struct tmod *m)
{
	for (uint32_t i = 0; m->names && i < m->syms.nsyms; i++)
		free(m->names[i]);
	free(m->names);
	free(m->path);
	utap_blob_free(&m->symblob);
	utap_blob_free(&m->lineblob);
	elf_plt_free(&m->plt);
	if (m->di_open)	/* a zeroed debuginfo's descriptors are 0: stdin */
		utap_debuginfo_close(&m->di);
	free(m->image);
}
