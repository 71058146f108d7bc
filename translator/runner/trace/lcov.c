/*
 * lcov.c - the lcov tracefile writer (geninfo(1) format): line, function
 * and branch coverage of un-instrumented binaries, from the trace and the
 * DWARF line tables.
 *
 *   DA:LINE,COUNT    every line the line tables know; COUNT is the highest
 *                    execution count of the line's instructions (a line
 *                    inside a loop run 10 times counts 10), summed over
 *                    modules when several share a source file
 *   FN:LINE,NAME     every function symbol whose address has a line;
 *   FNDA:COUNT,NAME  COUNT = executions of its first instruction
 *   BRDA:LINE,BLOCK,BRANCH,TAKEN   two per conditional branch (jcc, loop,
 *                    jrcxz): branch 0 jumped, branch 1 fell through, "-"
 *                    for never executed. Branches are found by decoding
 *                    each function's code from the ELF file, so the ones
 *                    that never ran are listed too. BLOCK numbers the
 *                    conditional branches of one line in address order.
 *
 * Files without line information (no .debug_line, stripped, no separate
 * debuginfo) do not appear. A relative source path (a compiler run on a
 * relative file name) is made absolute with the compilation directory of
 * the module's first unit, so genhtml finds the file from anywhere.
 * Records are sorted by source path.
 */
#include "runner/trace/tout_int.h"
#include "arch/x86_64/insn.h"

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct lline {
	uint32_t line;
	uint64_t count;
};

struct lfn {
	uint32_t line;
	char *name;
	uint64_t count;
};

struct lbr {
	uint32_t line, block;
	bool executed;
	uint64_t taken, fell;
};

struct lfile {
	char *path;
	struct lline *lines;
	size_t nlines, caplines;
	struct lfn *fns;
	size_t nfns, capfns;
	struct lbr *brs;
	size_t nbrs, capbrs;
};

struct lc {
	struct tout *t;
	struct lfile *files;
	size_t nfiles, capfiles;
	struct ktab file_idx;	/* path hash, salt -> files[] */
	struct ktab blocks;	/* file, line -> next block id (in blockv) */
	uint32_t *blockv;
	size_t nblockv, capblockv;
	char *comp_dir;		/* of the module being read */
};

/* DW_AT_comp_dir of the first unit of the module's DWARF, or NULL (malloc'ed). */
static char *comp_dir(struct tmod *m)
{
	Elf *e = m->di.separate.elf ? m->di.separate.elf : m->di.file.elf;
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	Dwarf_Off next;
	size_t hsize;
	Dwarf_Die cu;
	Dwarf_Attribute at;
	const char *dir = NULL;
	char *r = NULL;

	if (dw && !dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) &&
	    dwarf_offdie(dw, hsize, &cu))
		dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
	if (dir && dir[0] == '/')
		r = strdup(dir);
	if (dw)
		dwarf_end(dw);
	return r;
}

static struct lfile *file_of(struct lc *c, const char *name)
{
	char *abs = NULL;
	const char *path = name;
	uint64_t k[4];

	if (name[0] != '/' && c->comp_dir && asprintf(&abs, "%s/%s", c->comp_dir, name) > 0)
		path = abs;
	k[0] = hash_str(path);
	k[1] = 0;
	k[2] = 1;
	k[3] = 0;

	for (;; k[1]++) {
		int64_t i = ktab_get(&c->file_idx, k, false, 0);

		if (i < 0)
			break;
		if (!strcmp(c->files[i].path, path)) {
			free(abs);
			return &c->files[i];
		}
	}
	if (!tout_grow((void **)&c->files, &c->capfiles, c->nfiles + 1, sizeof(*c->files))) {
		free(abs);
		return NULL;
	}
	memset(&c->files[c->nfiles], 0, sizeof(*c->files));
	c->files[c->nfiles].path = abs ? abs : strdup(path);
	if (!c->files[c->nfiles].path || ktab_get(&c->file_idx, k, true, (uint32_t)c->nfiles) < 0)
		return NULL;
	return &c->files[c->nfiles++];
}

static void add_line(struct lfile *lf, uint32_t line, uint64_t count)
{
	if (tout_grow((void **)&lf->lines, &lf->caplines, lf->nlines + 1, sizeof(*lf->lines)))
		lf->lines[lf->nlines++] = (struct lline){ line, count };
}

/* Executions of the instruction at file-relative ADDR of module MOD, or -1 if it never ran. */
static int64_t ins_at(struct tout *t, int32_t mod, uint64_t addr)
{
	uint64_t k[4] = { (uint64_t)(int64_t)mod, addr, 0, 0 };

	return ktab_get(&t->ins_idx, k, false, 0);
}

/* One module's lines: DA counts (max per line), then every row's line with 0. */
static void module_lines(struct lc *c, int32_t mod)
{
	struct tout *t = c->t;
	struct tmod *m = &t->mods[mod];
	struct ktab seen = { 0 };
	struct lline *cnt = NULL;
	size_t n = 0, cap = 0;
	struct utap_line_iter it;
	struct utap_line_row row;

	for (size_t i = 0; i < t->nins; i++) {
		const struct tins *in = &t->ins[i];
		const char *file;
		uint32_t line;
		uint64_t k[4];
		int64_t j;

		if (in->mod != mod || !tmod_line(m, in->addr, &file, &line) || !line)
			continue;
		k[0] = (uint64_t)(file - m->lines.str);
		k[1] = line;
		k[2] = k[3] = 0;
		j = ktab_get(&seen, k, false, 0);
		if (j < 0) {
			if (!tout_grow((void **)&cnt, &cap, n + 1, sizeof(*cnt)) ||
			    ktab_get(&seen, k, true, (uint32_t)n) < 0)
				continue;
			cnt[n] = (struct lline){ line, 0 };
			j = n++;
		}
		if (in->count > cnt[j].count)
			cnt[j].count = in->count;
	}
	utap_linetab_iter(&it, &m->lines);
	while (utap_linetab_next(&it, &row)) {
		const char *file = utap_linetab_file(&m->lines, row.file);
		uint64_t k[4];
		int64_t j;
		struct lfile *lf;

		if (!file || !row.line)
			continue;
		k[0] = (uint64_t)(file - m->lines.str);
		k[1] = row.line;
		k[2] = 1;	/* emitted already */
		k[3] = 0;
		if (ktab_get(&seen, k, false, 0) >= 0)
			continue;
		ktab_get(&seen, k, true, 0);
		k[2] = 0;
		j = ktab_get(&seen, k, false, 0);
		lf = file_of(c, file);
		if (lf)
			add_line(lf, row.line, j >= 0 ? cnt[j].count : 0);
	}
	ktab_free(&seen);
	free(cnt);
}

/* The bytes of the executable segment holding file-relative ADDR, from the ELF file. */
static const uint8_t *code_at(struct tmod *m, uint64_t addr, uint64_t *seg_end)
{
	Elf *e = m->di.file.elf;
	size_t n;

	if (!e || elf_getphdrnum(e, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d || !d->d_buf || d->d_size != ph.p_filesz)
			return NULL;
		*seg_end = ph.p_vaddr + ph.p_filesz;
		return (const uint8_t *)d->d_buf + (addr - ph.p_vaddr);
	}
	return NULL;
}

static uint32_t next_block(struct lc *c, struct lfile *lf, uint32_t line)
{
	uint64_t k[4] = { (uint64_t)(lf - c->files), line, 0, 0 };
	int64_t i = ktab_get(&c->blocks, k, false, 0);

	if (i < 0) {
		if (!tout_grow((void **)&c->blockv, &c->capblockv, c->nblockv + 1, sizeof(uint32_t)))
			return 0;
		i = ktab_get(&c->blocks, k, true, (uint32_t)c->nblockv);
		if (i < 0)
			return 0;
		c->blockv[c->nblockv++] = 0;
	}
	return c->blockv[i]++;
}

#define MAX_FUNC_BYTES (1u << 20)

/* The conditional branches of [start, end) of module MOD, decoded linearly. */
static void func_branches(struct lc *c, int32_t mod, uint64_t start, uint64_t end)
{
	struct tout *t = c->t;
	struct tmod *m = &t->mods[mod];
	uint64_t seg_end = 0, addr = start;
	const uint8_t *code = code_at(m, start, &seg_end);

	if (!code)
		return;
	if (end > seg_end || end <= start)
		end = seg_end;
	if (end - start > MAX_FUNC_BYTES)
		end = start + MAX_FUNC_BYTES;
	while (addr < end) {
		struct x86_insn_info xi;
		int len = x86_insn_decode(code + (addr - start), end - addr, &xi);
		const char *file;
		uint32_t line;

		if (len <= 0) {
			addr++;		/* data or padding the decoder rejects: resynchronise */
			continue;
		}
		if (xi.flow == X86_FLOW_JCC && tmod_line(m, addr, &file, &line) && line) {
			struct lfile *lf = file_of(c, file);
			int64_t i = ins_at(t, mod, addr);

			if (lf && tout_grow((void **)&lf->brs, &lf->capbrs, lf->nbrs + 1, sizeof(*lf->brs))) {
				struct lbr *b = &lf->brs[lf->nbrs++];

				b->line = line;
				b->block = next_block(c, lf, line);
				b->executed = i >= 0;
				b->taken = i >= 0 ? t->ins[i].taken : 0;
				b->fell = i >= 0 ? t->ins[i].count - t->ins[i].taken : 0;
			}
		}
		addr += (uint64_t)len;
	}
}

static void module_functions(struct lc *c, int32_t mod)
{
	struct tout *t = c->t;
	struct tmod *m = &t->mods[mod];

	if (!m->has_syms)
		return;
	char buf[UTAP_SYM_NAME_MAX], next_buf[UTAP_SYM_NAME_MAX];
	uint64_t next = 0;

	if (m->syms.nsyms)
		utap_symtab_entry(&m->syms, 0, &next, next_buf, sizeof(next_buf));
	for (uint32_t i = 0; i < m->syms.nsyms; i++) {
		uint64_t addr = next, end = 0;
		const char *name = buf;
		const char *file;
		uint32_t line;
		struct lfile *lf;
		int64_t j;
		size_t k;

		memcpy(buf, next_buf, sizeof(buf));
		if (i + 1 < m->syms.nsyms) {
			utap_symtab_entry(&m->syms, i + 1, &next, next_buf, sizeof(next_buf));
			end = next;
		}
		if (!tmod_line(m, addr, &file, &line) || !line)
			continue;	/* data, or code without line information */
		lf = file_of(c, file);
		if (!lf)
			continue;
		if (name[0] == '.' && name[1])
			name++;
		for (k = 0; k < lf->nfns && strcmp(lf->fns[k].name, name); k++)
			;
		if (k == lf->nfns &&
		    tout_grow((void **)&lf->fns, &lf->capfns, lf->nfns + 1, sizeof(*lf->fns))) {
			j = ins_at(t, mod, addr);
			lf->fns[lf->nfns].line = line;
			lf->fns[lf->nfns].name = strdup(name);
			lf->fns[lf->nfns].count = j >= 0 ? t->ins[j].count : 0;
			if (lf->fns[lf->nfns].name)
				lf->nfns++;
		}
		func_branches(c, mod, addr, end);
	}
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct lfile *)a)->path, ((const struct lfile *)b)->path);
}

static int by_line(const void *a, const void *b)
{
	const struct lline *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

static int by_fn(const void *a, const void *b)
{
	const struct lfn *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_br(const void *a, const void *b)
{
	const struct lbr *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->block < y->block ? -1 : x->block > y->block;
}

static void put_file(FILE *f, struct lfile *lf)
{
	size_t hit = 0, n = 0, brh = 0;
	char buf[4096];

	tout_sort(lf->fns, lf->nfns, sizeof(*lf->fns), by_fn);
	tout_sort(lf->brs, lf->nbrs, sizeof(*lf->brs), by_br);
	tout_sort(lf->lines, lf->nlines, sizeof(*lf->lines), by_line);
	fprintf(f, "TN:\nSF:%s\n", tout_printable(lf->path, buf, sizeof(buf)));
	for (size_t i = 0; i < lf->nfns; i++)
		fprintf(f, "FN:%" PRIu32 ",%s\n", lf->fns[i].line,
			tout_printable(lf->fns[i].name, buf, sizeof(buf)));
	for (size_t i = 0; i < lf->nfns; i++) {
		fprintf(f, "FNDA:%" PRIu64 ",%s\n", lf->fns[i].count,
			tout_printable(lf->fns[i].name, buf, sizeof(buf)));
		hit += lf->fns[i].count > 0;
	}
	fprintf(f, "FNF:%zu\nFNH:%zu\n", lf->nfns, hit);
	for (size_t i = 0; i < lf->nbrs; i++) {
		const struct lbr *b = &lf->brs[i];

		if (b->executed) {
			fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",0,%" PRIu64 "\n", b->line, b->block,
				b->taken);
			fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",1,%" PRIu64 "\n", b->line, b->block,
				b->fell);
			brh += (b->taken > 0) + (b->fell > 0);
		} else {
			fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",0,-\n", b->line, b->block);
			fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",1,-\n", b->line, b->block);
		}
	}
	fprintf(f, "BRF:%zu\nBRH:%zu\n", 2 * lf->nbrs, brh);
	hit = 0;
	for (size_t i = 0; i < lf->nlines; i++) {
		uint64_t count = lf->lines[i].count;

		/* the same line from several modules: their counts add up */
		while (i + 1 < lf->nlines && lf->lines[i + 1].line == lf->lines[i].line)
			count += lf->lines[++i].count;
		fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", lf->lines[i].line, count);
		n++;
		hit += count > 0;
	}
	fprintf(f, "LF:%zu\nLH:%zu\nend_of_record\n", n, hit);
}

static int lcov_write(struct tout *t, FILE *f)
{
	struct lc c = { .t = t };

	for (size_t i = 0; i < t->nmods; i++) {
		struct tmod *m = &t->mods[i];
		bool ran = false;

		for (size_t j = 0; j < t->nins && !ran; j++)
			ran = t->ins[j].mod == (int32_t)i;
		if (!ran)
			continue;	/* mapped but never executed: nothing to say */
		tmod_load(t, m);
		if (!m->has_lines)
			continue;
		c.comp_dir = comp_dir(m);
		module_lines(&c, (int32_t)i);
		module_functions(&c, (int32_t)i);
		free(c.comp_dir);
		c.comp_dir = NULL;
	}
	tout_sort(c.files, c.nfiles, sizeof(*c.files), by_path);
	{
		size_t unplaced = 0;
		const char *example = NULL;

		/*
		 * A source path still relative has no comp_dir to anchor it (a
		 * distro library's separate debuginfo): no consumer can find the
		 * file, and genhtml stops at it, so it is left out, with a note.
		 */
		for (size_t i = 0; i < c.nfiles; i++) {
			if (!c.files[i].nlines)
				continue;
			if (c.files[i].path[0] != '/') {
				unplaced++;
				example = example ? example : c.files[i].path;
				continue;
			}
			put_file(f, &c.files[i]);
		}
		if (unplaced)
			fprintf(stderr, "utap: lcov: left out %zu source files with no directory in "
				"their debuginfo (e.g. %s)\n", unplaced, example);
	}
	for (size_t i = 0; i < c.nfiles; i++) {
		for (size_t k = 0; k < c.files[i].nfns; k++)
			free(c.files[i].fns[k].name);
		free(c.files[i].fns);
		free(c.files[i].brs);
		free(c.files[i].lines);
		free(c.files[i].path);
	}
	free(c.files);
	free(c.blockv);
	ktab_free(&c.file_idx);
	ktab_free(&c.blocks);
	return 0;
}

const struct tout_writer tout_lcov = {
	.name = "lcov",
	.write = lcov_write,
};
