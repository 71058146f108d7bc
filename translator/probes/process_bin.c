/*
 * process_bin.c - finding, opening and reading the binaries that
 * process(...) probes name. See process_bin.h.
 */
#include "probes/process_bin.h"
#include "probes/cxxname.h"
#include "base/base.h"

#include <errno.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- finding a binary by name ------------------------------------------ */

static const char *canonical_file(const char *path)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!realpath(path, buf) || stat(buf, &st) || !S_ISREG(st.st_mode))
		return NULL;
	return arena_strdup(buf);
}

/* NAME in the ':'-separated directories of LIST; NEED_EXEC: only executable files */
static const char *search_dirs(const char *name, const char *list, bool need_exec)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *cand = arena_printf("%.*s/%s", (int)len, len ? p : ".", name);
		const char *found;

		if ((!need_exec || access(cand, X_OK) == 0) && (found = canonical_file(cand)))
			return found;
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

static void add_conf_dirs(struct strbuf *dirs, const char *conf, int depth);

/* One line of ld.so.conf: a directory, or "include GLOB". */
static void add_conf_line(struct strbuf *dirs, char *line, int depth)
{
	char *s = line + strspn(line, " \t");

	s[strcspn(s, "#\n")] = 0;
	while (*s && strchr(" \t", s[strlen(s) - 1]))
		s[strlen(s) - 1] = 0;
	if (!*s)
		return;
	if (!strncmp(s, "include", 7) && strchr(" \t", s[7])) {
		glob_t g;

		s += 8 + strspn(s + 8, " \t");
		if (glob(s, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				add_conf_dirs(dirs, g.gl_pathv[i], depth + 1);
			globfree(&g);
		}
		return;
	}
	sb_printf(dirs, "%s:", s);
}

static void add_conf_dirs(struct strbuf *dirs, const char *conf, int depth)
{
	char line[PATH_MAX];
	FILE *f;

	if (depth > 8 || !(f = fopen(conf, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		add_conf_line(dirs, line, depth);
	fclose(f);
}

/* Where the dynamic loader looks: LD_LIBRARY_PATH, ld.so.conf, the defaults. */
static const char *library_dirs(void)
{
	static const char *dirs;
	struct strbuf sb = { 0 };
	const char *env = getenv("LD_LIBRARY_PATH");

	if (dirs)
		return dirs;
	if (env && *env)
		sb_printf(&sb, "%s:", env);
	add_conf_dirs(&sb, "/etc/ld.so.conf", 0);
	sb_puts(&sb, "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
		"/lib:/usr/lib");
	dirs = arena_strdup(sb.buf);
	sb_free(&sb);
	return dirs;
}

const char *ubin_find(const char *name)
{
	const char *found;

	if (!*name)
		return NULL;
	if (strchr(name, '/'))
		return canonical_file(name);
	found = search_dirs(name, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin", true);
	if (!found && strstr(name, ".so"))
		found = search_dirs(name, library_dirs(), false);
	return found;
}

/* ---- the libraries a program needs -------------------------------------- */

/* The SHT_DYNAMIC section of ELF and its header; NULL if there is none. */
static Elf_Data *dynamic_section(Elf *elf, GElf_Shdr *sh, size_t *count)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_DYNAMIC && sh->sh_entsize) {
			*count = sh->sh_size / sh->sh_entsize;
			return elf_getdata(scn, NULL);
		}
	return NULL;
}

/* "DIR:" for each of DT_RUNPATH's (else DT_RPATH's) directories, $ORIGIN expanded */
static const char *run_path(Elf *elf, const char *path)
{
	const char *rpath = NULL, *runpath = NULL;
	struct strbuf sb = { 0 };
	size_t count = 0, dirlen = (size_t)(strrchr(path, '/') - path);
	GElf_Shdr sh;
	Elf_Data *dyn = dynamic_section(elf, &sh, &count);

	for (size_t i = 0; dyn && i < count; i++) {
		GElf_Dyn d;

		if (!gelf_getdyn(dyn, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_RUNPATH)
			runpath = elf_strptr(elf, sh.sh_link, d.d_un.d_val);
		else if (d.d_tag == DT_RPATH)
			rpath = elf_strptr(elf, sh.sh_link, d.d_un.d_val);
	}
	rpath = runpath ? runpath : rpath;
	if (!rpath || !*rpath)
		return "";
	for (const char *p = rpath; *p; p++) {
		size_t skip = !strncmp(p, "$ORIGIN", 7) ? 7 : !strncmp(p, "${ORIGIN}", 9) ? 9 : 0;

		if (skip) {
			sb_printf(&sb, "%.*s", (int)dirlen, path);
			p += skip - 1;
		} else {
			sb_printf(&sb, "%c", *p);
		}
	}
	rpath = arena_printf("%s:", sb.buf);
	sb_free(&sb);
	return rpath;
}

struct ulib_list {
	struct ulib *v;
	size_t n, cap;
};

/* Adds NAME at canonical PATH once per path. */
static void push_lib(struct ulib_list *l, const char *name, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path))
			return;
	if (l->n == l->cap) {
		struct ulib *grown = arena_alloc(sizeof(*grown) * (l->cap = l->cap * 2 + 8));

		if (l->n)
			memcpy(grown, l->v, sizeof(*grown) * l->n);
		l->v = grown;
	}
	l->v[l->n++] = (struct ulib){ arena_strdup(name), path };
}

/* Adds the libraries the DT_NEEDED entries of the file PATH name. */
static void read_needed(const char *path, struct ulib_list *l)
{
	struct utap_elf f;
	GElf_Shdr sh;
	size_t count = 0;
	Elf_Data *dyn;
	const char *dirs;

	if (utap_elf_open(&f, path))
		return;
	dirs = arena_printf("%s%s", run_path(f.elf, path), library_dirs());
	dyn = dynamic_section(f.elf, &sh, &count);
	for (size_t i = 0; dyn && i < count; i++) {
		GElf_Dyn d;
		const char *name, *found;

		if (!gelf_getdyn(dyn, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED || !(name = elf_strptr(f.elf, sh.sh_link, d.d_un.d_val)))
			continue;
		found = strchr(name, '/') ? canonical_file(name) : search_dirs(name, dirs, false);
		if (found)
			push_lib(l, name, found);
	}
	utap_elf_close(&f);
}

/* The program interpreter of ELF (PT_INTERP), added under its base name. */
static void read_interp(Elf *elf, struct ulib_list *l)
{
	size_t nph = 0, len = 0;
	const char *raw = elf_rawfile(elf, &len);
	GElf_Phdr ph;

	if (!raw || elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		const char *interp, *found;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP || !ph.p_filesz ||
		    ph.p_offset + ph.p_filesz > len)
			continue;
		interp = arena_strndup(raw + ph.p_offset, strnlen(raw + ph.p_offset, ph.p_filesz));
		if ((found = canonical_file(interp)))
			push_lib(l, strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp, found);
	}
}

size_t ubin_needed(const struct ubinary *b, struct ulib **out)
{
	struct ulib_list l = { 0 };

	read_needed(b->path, &l);
	for (size_t i = 0; i < l.n; i++)
		read_needed(l.v[i].path, &l);
	read_interp(b->di.file.elf, &l);
	*out = l.v;
	return l.n;
}

const char *ubin_pid_exe(long pid)
{
	return canonical_file(arena_printf("/proc/%ld/exe", pid));
}

/* ---- reading one binary -------------------------------------------------- */

/* One ELF symbol table section and what it takes to read it. */
struct symtab_src {
	Elf *elf;
	Elf_Data *data;
	size_t strndx;
	size_t count;
};

static bool symtab_src_open(struct symtab_src *s, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	memset(s, 0, sizeof(*s));
	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type || !shdr.sh_entsize)
			continue;
		s->data = elf_getdata(scn, NULL);
		if (!s->data || !s->data->d_buf)
			return false;
		s->elf = elf;
		s->strndx = shdr.sh_link;
		s->count = shdr.sh_size / shdr.sh_entsize;
		return true;
	}
	return false;
}

struct func_list {
	struct ufunc *v;
	size_t n, cap;
};

/*
 * Defined functions of S. IFUNC symbols are left out: their address is
 * the resolver, which runs once in ld.so, not the function a user means.
 */
static void collect_funcs(struct func_list *fl, const struct symtab_src *s)
{
	for (size_t i = 1; i < s->count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(s->data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(s->elf, s->strndx, sym.st_name);
		if (!name || !*name)
			continue;
		if (fl->n == fl->cap) {
			fl->cap = fl->cap ? fl->cap * 2 : 256;
			fl->v = realloc(fl->v, fl->cap * sizeof(*fl->v));
			if (!fl->v)
				fatal("out of memory");
		}
		fl->v[fl->n++] = (struct ufunc){ .name = arena_strdup(name), .vaddr = sym.st_value,
						 .size = sym.st_size };
	}
}

static int by_name_then_addr(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int by_addr_then_demangled(const void *a, const void *b)
{
	const struct ufunc *x = *(const struct ufunc *const *)a, *y = *(const struct ufunc *const *)b;
	int c = x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;

	if (!c)
		c = strcmp(x->demangled, y->demangled);
	return c ? c : x < y ? -1 : x > y;
}

/*
 * Demangled names, and the symbols that are one C++ function: the
 * complete and base object constructors and destructors (C1/C2, D1/D2)
 * are often one body under two names, which must not become two probes.
 */
static void name_cxx_funcs(struct ubinary *b)
{
	struct ufunc **v = malloc(sizeof(*v) * (b->nfuncs + 1));
	size_t n = 0;

	if (!v)
		fatal("out of memory");
	for (size_t i = 0; i < b->nfuncs; i++)
		if ((b->funcs[i].demangled = cxx_demangle(b->funcs[i].name)))
			v[n++] = &b->funcs[i];
	if (n)
		qsort(v, n, sizeof(*v), by_addr_then_demangled);
	for (size_t i = 1; i < n; i++)
		if (v[i]->vaddr == v[i - 1]->vaddr && !strcmp(v[i]->demangled, v[i - 1]->demangled))
			v[i]->alias = v[i - 1];
	free(v);
}

/* The same sources the symbol table builder (elf/symtab.c) reads, in its order. */
static const char *read_funcs(struct ubinary *b)
{
	struct func_list fl = { 0 };
	struct symtab_src main_tab, dyn, mini;
	const char *src;
	size_t out = 0;

	if (symtab_src_open(&main_tab, b->di.file.elf, SHT_SYMTAB)) {
		collect_funcs(&fl, &main_tab);
		src = ".symtab";
	} else if (symtab_src_open(&main_tab, b->di.separate.elf, SHT_SYMTAB)) {
		collect_funcs(&fl, &main_tab);
		src = "separate debuginfo";
	} else {
		if (symtab_src_open(&dyn, b->di.file.elf, SHT_DYNSYM))
			collect_funcs(&fl, &dyn);
		if (symtab_src_open(&mini, b->di.mini.elf, SHT_SYMTAB))
			collect_funcs(&fl, &mini);
		src = b->di.mini.elf ? ".dynsym and minidebuginfo" : ".dynsym";
	}
	if (fl.n)
		qsort(fl.v, fl.n, sizeof(*fl.v), by_name_then_addr);
	/* one entry per name: the lowest address (local duplicates are rare) */
	for (size_t i = 0; i < fl.n; i++)
		if (!out || strcmp(fl.v[out - 1].name, fl.v[i].name))
			fl.v[out++] = fl.v[i];
	b->funcs = arena_alloc(sizeof(*b->funcs) * (out + 1));
	if (out)
		memcpy(b->funcs, fl.v, out * sizeof(*fl.v));
	b->nfuncs = out;
	free(fl.v);
	name_cxx_funcs(b);
	return src;
}

static bool read_segments(struct ubinary *b)
{
	size_t n = 0, nphdr;
	GElf_Phdr ph;

	if (elf_getphdrnum(b->di.file.elf, &nphdr))
		return false;
	b->segs = arena_alloc(sizeof(*b->segs) * (nphdr + 1));
	for (size_t i = 0; i < nphdr; i++) {
		if (!gelf_getphdr(b->di.file.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->segs[n++] = (struct useg){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz,
					      ph.p_flags };
	}
	b->nsegs = n;
	return n > 0;
}

static const char *check_elf(Elf *elf, bool *is_dyn)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return "not an ELF file";
	if (eh.e_machine != EM_X86_64 || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return "not an x86-64 ELF file";
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return "not an ELF executable or shared library";
	*is_dyn = eh.e_type == ET_DYN;
	return NULL;
}

struct ubinary *ubin_open(const char *path, const char **why)
{
	static struct ubinary *cache[256];
	static size_t ncache;
	struct ubinary *b;

	for (size_t i = 0; i < ncache; i++)
		if (!strcmp(cache[i]->path, path))
			return cache[i];
	b = arena_alloc(sizeof(*b));
	b->path = arena_strdup(path);
	if (utap_debuginfo_open(&b->di, path, NULL, UTAP_DI_ALL)) {
		*why = access(path, R_OK) ? "cannot be read" : "not an ELF file";
		return NULL;
	}
	*why = check_elf(b->di.file.elf, &b->is_dyn);
	if (!*why && !read_segments(b))
		*why = "has no loadable segments";
	if (*why) {
		utap_debuginfo_close(&b->di);
		return NULL;
	}
	b->symsrc = read_funcs(b);
	if (ncache < ARRAY_LEN(cache))
		cache[ncache++] = b;
	return b;
}

static bool find_in(const struct symtab_src *s, const char *name, uint64_t *vaddr)
{
	for (size_t i = 1; i < s->count; i++) {
		GElf_Sym sym;
		const char *n;

		if (!gelf_getsym(s->data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		n = elf_strptr(s->elf, s->strndx, sym.st_name);
		if (n && !strcmp(n, name)) {
			*vaddr = sym.st_value;
			return true;
		}
	}
	return false;
}

bool ubin_symbol(const struct ubinary *b, const char *name, uint64_t *vaddr)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	Elf *elves[] = { b->di.file.elf, b->di.separate.elf, b->di.mini.elf };
	struct symtab_src s;

	for (size_t e = 0; e < ARRAY_LEN(elves); e++)
		for (size_t t = 0; t < ARRAY_LEN(types); t++)
			if (symtab_src_open(&s, elves[e], types[t]) && find_in(&s, name, vaddr))
				return true;
	return false;
}

bool ubin_offset(const struct ubinary *b, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < b->nsegs; i++) {
		const struct useg *s = &b->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

bool ubin_is_code(const struct ubinary *b, uint64_t vaddr)
{
	for (size_t i = 0; i < b->nsegs; i++) {
		const struct useg *s = &b->segs[i];

		if ((s->flags & PF_X) && vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
			return true;
	}
	return false;
}
