/*
 * test_sym_lib.c - oracles for the symbol table tests, from binutils'
 * text output (readelf), independent of libelf.
 */
#include "test_sym_lib.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *run_cmd(const char *fmt, ...)
{
	char *cmd = NULL, *buf = NULL;
	size_t len = 0, cap = 0, n;
	va_list ap;
	FILE *f;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return NULL;
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	if (pclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "   12: 0000000000001139    11 FUNC    GLOBAL DEFAULT   16 name" */
static bool parse_sym_line(const char *line, bool dyn, struct ref_sym *s)
{
	char name[512] = "";
	int num;

	/* the size column may be decimal or "0x..." hex: skipped */
	if (sscanf(line, " %d: %" SCNx64 " %*s %15s %15s %*s %15s %511s", &num, &s->addr,
		   s->type, s->bind, s->ndx, name) < 5)
		return false;
	if (dyn)
		name[strcspn(name, "@")] = '\0';
	snprintf(s->name, sizeof(s->name), "%s", name);
	return true;
}

bool ref_table_read(const char *file, const char *section, struct ref_table *t)
{
	char *text = run_cmd("readelf -sW '%s' 2>/dev/null", file);
	char header[64], *line, *save = NULL;
	bool in = false, dyn = strcmp(section, ".dynsym") == 0, locals = true;
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	if (!text)
		return false;
	snprintf(header, sizeof(header), "Symbol table '%s'", section);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ref_sym s;

		if (strncmp(line, "Symbol table", 12) == 0) {
			if (in)
				break;	/* readelf may list .dynsym twice with -s --dyn-syms */
			in = strncmp(line, header, strlen(header)) == 0;
			continue;
		}
		if (!in || !parse_sym_line(line, dyn, &s))
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 1024;
			t->v = realloc(t->v, cap * sizeof(*t->v));
		}
		t->v[t->n++] = s;
		if (locals && strcmp(s.bind, "LOCAL") == 0)
			t->first_global = t->n;
		else
			locals = false;
	}
	free(text);
	return true;
}

void ref_table_free(struct ref_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Section numbers of FILE that have the A (alloc) flag. */
static bool alloc_sections(const char *file, bool *alloc, size_t max)
{
	char *text = run_cmd("readelf -SW '%s' 2>/dev/null", file), *line, *save = NULL;

	memset(alloc, 0, max * sizeof(*alloc));
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *rb = strchr(line, ']'), flags[32] = "";
		unsigned idx;

		if (!strchr(line, '[') || !rb || sscanf(strchr(line, '[') + 1, "%u", &idx) != 1)
			continue;
		/* after "] name type address off size es" come the flags, if any */
		if (sscanf(rb + 1, "%*s %*s %*s %*s %*s %*s %31s", flags) == 1 && idx < max)
			alloc[idx] = strchr(flags, 'A') && strspn(flags, "WAXMSILOGTCxoElpDyR") ==
								strlen(flags);
	}
	free(text);
	return true;
}

/* [lo, hi) of FILE's PT_LOAD segments. */
static bool load_range(const char *file, uint64_t *lo, uint64_t *hi)
{
	char *text = run_cmd("readelf -lW '%s' 2>/dev/null", file), *line, *save = NULL;
	bool any = false;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t off, vaddr, paddr, filesz, memsz;

		if (sscanf(line, " LOAD %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64,
			   &off, &vaddr, &paddr, &filesz, &memsz) != 5)
			continue;
		if (!any || vaddr < *lo)
			*lo = vaddr;
		if (!any || vaddr + memsz > *hi)
			*hi = vaddr + memsz;
		any = true;
	}
	free(text);
	return any;
}

#define MAX_SECTIONS 4096

/* SystemTap's filter, restated from readelf's columns. */
static bool kept(const struct ref_sym *s, const bool *alloc, uint64_t lo, uint64_t hi)
{
	unsigned idx;

	if (strcmp(s->type, "FUNC") != 0 && strcmp(s->type, "OBJECT") != 0)
		return false;
	if (strcmp(s->ndx, "UND") == 0)
		return false;
	if (sscanf(s->ndx, "%u", &idx) == 1 && (idx >= MAX_SECTIONS || !alloc[idx]))
		return false;
	return s->addr >= lo && s->addr < hi;
}

static void expect_push(struct ref_expect *e, uint64_t addr, const char *name)
{
	if ((e->n & (e->n - 1)) == 0)	/* at powers of two: double */
		e->v = realloc(e->v, (e->n ? 2 * e->n : 1) * sizeof(*e->v));
	e->v[e->n++] = (struct utap_sym_in){ addr, name };
}

static void add_range(struct ref_expect *e, const struct ref_table *t, size_t from, size_t to,
		      const bool *alloc, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = from; i < to && i < t->n; i++) {
		if (!kept(&t->v[i], alloc, lo, hi))
			continue;
		expect_push(e, t->v[i].addr, t->v[i].name);
	}
}

/* Insertion-stable sort by address, keeping the last name at each address. */
static void sort_keep_last(struct ref_expect *e)
{
	size_t i, j, kept_n = 0;

	for (i = 1; i < e->n; i++) {
		struct utap_sym_in x = e->v[i];

		for (j = i; j > 0 && e->v[j - 1].addr > x.addr; j--)
			e->v[j] = e->v[j - 1];
		e->v[j] = x;
	}
	for (i = 0; i < e->n; i++)
		if (i + 1 == e->n || e->v[i + 1].addr != e->v[i].addr)
			e->v[kept_n++] = e->v[i];
	e->n = kept_n;
}

/* The first IFUNC at VALUE in the given tables, in order, or NULL. */
static const char *ref_ifunc(const struct ref_table *const *tabs, size_t n, uint64_t value)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; tabs[k] && i < tabs[k]->n; i++)
			if (tabs[k]->v[i].addr == value && !strcmp(tabs[k]->v[i].type, "IFUNC"))
				return tabs[k]->v[i].name;
	return NULL;
}

/* A copy of S that E owns. */
static char *keep_name(struct ref_expect *e, const char *s)
{
	e->owned = realloc(e->owned, (e->nowned + 1) * sizeof(*e->owned));
	return e->owned[e->nowned++] = strdup(s);
}

/*
 * PLT stubs as objdump labels them ("printf@plt"; "*ABS*+0xADDR@plt" for an
 * IRELATIVE slot, named after the IFUNC at ADDR in TABS), each PLT section's
 * bounds from readelf as gaps (""), all inside [LO, HI).
 */
static void add_plt(struct ref_expect *e, const char *file, const struct ref_table *const *tabs,
		    size_t ntabs, uint64_t lo, uint64_t hi)
{
	char *text = run_cmd("readelf -SW '%s' 2>/dev/null", file), *line, *save = NULL;
	char *dis = run_cmd("objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", file);

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], type[32];
		uint64_t addr, off, size;
		char *rb = strchr(line, ']');

		if (!rb || sscanf(rb + 1, "%63s %31s %" SCNx64 " %" SCNx64 " %" SCNx64, name, type,
				  &addr, &off, &size) != 5)
			continue;
		if (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got"))
			continue;
		if (addr >= lo && addr < hi)
			expect_push(e, addr, "");
		if (addr + size >= lo && addr + size < hi)
			expect_push(e, addr + size, "");
	}
	save = NULL;
	for (line = dis ? strtok_r(dis, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char label[1024], named[1100];
		const char *name = label;
		uint64_t addr, value;
		size_t len;

		if (sscanf(line, "%" SCNx64 " <%1023[^>]>:", &addr, label) != 2)
			continue;
		len = strlen(label);
		if (len < 5 || strcmp(label + len - 4, "@plt") || label[0] == '.')
			continue;
		if (sscanf(label, "*ABS*+0x%" SCNx64 "@plt", &value) == 1) {
			const char *f = ref_ifunc(tabs, ntabs, value);

			if (!f)
				continue;
			snprintf(named, sizeof(named), "%s@plt", f);
			name = named;
		}
		if (addr >= lo && addr < hi)
			expect_push(e, addr, keep_name(e, name));
	}
	free(text);
	free(dis);
}

bool ref_expect_build(const char *file, const struct ref_table *main_tab, const char *main_file,
		      const struct ref_table *aux_tab, const char *aux_file, struct ref_expect *e)
{
	static bool main_alloc[MAX_SECTIONS], aux_alloc[MAX_SECTIONS];
	struct ref_table file_dyn, file_sym;
	uint64_t lo = 0, hi = 0;
	size_t aux_fg;

	memset(e, 0, sizeof(*e));
	if (!load_range(file, &lo, &hi) || !alloc_sections(main_file, main_alloc, MAX_SECTIONS))
		return false;
	/* the builder looks for IFUNCs in the file's .dynsym and .symtab, then debuginfo */
	if (!ref_table_read(file, ".dynsym", &file_dyn))
		memset(&file_dyn, 0, sizeof(file_dyn));
	if (!ref_table_read(file, ".symtab", &file_sym))
		memset(&file_sym, 0, sizeof(file_sym));
	{
		const struct ref_table *tabs[] = { &file_dyn, &file_sym, main_tab, aux_tab };

		add_plt(e, file, tabs, 4, lo, hi);
	}
	ref_table_free(&file_dyn);
	ref_table_free(&file_sym);
	if (!aux_tab) {
		add_range(e, main_tab, 0, main_tab->n, main_alloc, lo, hi);
	} else {
		if (!alloc_sections(aux_file, aux_alloc, MAX_SECTIONS))
			return false;
		aux_fg = aux_tab->first_global ? aux_tab->first_global : 1;
		add_range(e, main_tab, 0, main_tab->first_global, main_alloc, lo, hi);
		add_range(e, aux_tab, 1, aux_fg, aux_alloc, lo, hi);
		add_range(e, main_tab, main_tab->first_global, main_tab->n, main_alloc, lo, hi);
		add_range(e, aux_tab, aux_fg, aux_tab->n, aux_alloc, lo, hi);
	}
	sort_keep_last(e);
	return true;
}

void ref_expect_free(struct ref_expect *e)
{
	for (size_t i = 0; i < e->nowned; i++)
		free(e->owned[i]);
	free(e->owned);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

int symtab_mismatches(const struct utap_symtab *t, const struct ref_expect *e, char *why,
		      size_t whysize)
{
	int bad = 0;
	size_t i;

	why[0] = '\0';
	if (t->nsyms != e->n) {
		snprintf(why, whysize, "%u symbols, expected %zu", t->nsyms, e->n);
		bad++;
	}
	for (i = 0; i < e->n && i < t->nsyms; i++) {
		uint64_t addr;
		char name[UTAP_SYM_NAME_MAX];

		utap_symtab_entry(t, (uint32_t)i, &addr, name, sizeof(name));

		if (addr == e->v[i].addr && strcmp(name, e->v[i].name) == 0)
			continue;
		if (!bad++)
			snprintf(why, whysize, "entry %zu: %#" PRIx64 " %s, expected %#" PRIx64 " %s",
				 i, addr, name, e->v[i].addr, e->v[i].name);
	}
	return bad;
}

void built_symtab_open(struct built_symtab *b, const char *path, const char *root)
{
	memset(b, 0, sizeof(*b));
	b->err = utap_symtab_build_path(path, root, &b->blob);
	if (!b->err)
		b->err = utap_symtab_init(&b->tab, b->blob.data, b->blob.size);
}

void built_symtab_close(struct built_symtab *b)
{
	utap_blob_free(&b->blob);
}

void built_linetab_open(struct built_linetab *b, const char *path, const char *root,
			const char *modpath)
{
	struct utap_debuginfo di;

	memset(b, 0, sizeof(*b));
	b->err = utap_debuginfo_open(&di, path, root, UTAP_DI_ALL);
	if (b->err)
		return;
	b->err = utap_linetab_build(&di, modpath, &b->blob);
	if (!b->err)
		b->err = utap_linetab_init(&b->tab, b->blob.data, b->blob.size);
	utap_debuginfo_close(&di);
}

void built_linetab_close(struct built_linetab *b)
{
	utap_blob_free(&b->blob);
}

static char scratch[64];

const char *scratch_dir(void)
{
	if (!scratch[0]) {
		snprintf(scratch, sizeof(scratch), "/tmp/utap-symtest-XXXXXX");
		if (!mkdtemp(scratch))
			scratch[0] = '\0';
	}
	return scratch;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void scratch_cleanup(void)
{
	if (scratch[0])
		nftw(scratch, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	scratch[0] = '\0';
}
