/*
 * ksyms.c - the target kernel's symbol names, at translate time.
 *
 * Where the list comes from, first match wins:
 *   - $UTAP_KALLSYMS: a file in /proc/kallsyms format (tests, offline use);
 *   - /proc/kallsyms, when the target is the kernel running here;
 *   - a cache per kernel release, filled once by booting that kernel in the
 *     throwaway guest (the --vm machinery) and reading its /proc/kallsyms and
 *     kprobe blacklist there. Debian ships a stub System.map and no vmlinux
 *     symbols, so the kernel itself is the only complete source.
 *
 * KASLR moves every address at each boot, and modules register kprobes by
 * name, so the cache keeps names only. Addresses of the boot a list was read
 * from are still good for one thing while it is parsed: marking the symbols
 * kprobes refuse (init text, which is freed; entry and noinstr code and the
 * NOKPROBE functions, which the kernel's blacklist lists as address ranges),
 * so that wildcards skip them as stap's do.
 */
#include "kernel/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CACHE_FORMAT "utap-ksyms-1"

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct raw_sym {
	uint64_t addr;
	struct ksym sym;
};

/* ---- parsing /proc/kallsyms ---- */

/* One "ADDR TYPE NAME[\t[MODULE]]" line; false if it is not one. */
static bool parse_kallsyms_line(char *line, struct raw_sym *out)
{
	char *end, *name, *mod;

	out->addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	out->sym.type = end[1];
	name = end + 3;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = 0;
		if (*mod == '[') {
			mod++;
			mod[strcspn(mod, "]")] = 0;
		}
		out->sym.module = arena_strdup(mod);
	} else {
		out->sym.module = NULL;
	}
	name[strcspn(name, " \t")] = 0;
	if (!*name)
		return false;
	out->sym.name = arena_strdup(name);
	out->sym.unprobeable = false;
	return true;
}

/* The kernel's kprobe blacklist: "0xLO-0xHI\tNAME" lines. */
static struct range *parse_blacklist(const char *text, size_t *n)
{
	struct range *r = NULL;
	size_t cap = 0;

	*n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *end;
		uint64_t lo = strtoull(p, &end, 16), hi;

		if (*end != '-')
			continue;
		hi = strtoull(end + 1, &end, 16);
		if (hi <= lo)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			r = realloc(r, cap * sizeof(*r));
			if (!r)
				fatal("out of memory");
		}
		r[(*n)++] = (struct range){ lo, hi };
	}
	return r;
}

static bool in_ranges(const struct range *r, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= r[i].lo && addr < r[i].hi)
			return true;
	return false;
}

static uint64_t find_addr(const struct raw_sym *raw, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!raw[i].sym.module && !strcmp(raw[i].sym.name, name))
			return raw[i].addr;
	return 0;
}

/* Marks what kprobes would refuse; needs the addresses of one boot. */
static void mark_unprobeable(struct raw_sym *raw, size_t n, const char *blacklist)
{
	struct range init = { find_addr(raw, n, "_sinittext"), find_addr(raw, n, "_einittext") };
	size_t nbl = 0;
	struct range *bl = blacklist ? parse_blacklist(blacklist, &nbl) : NULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = raw[i].addr;

		if (!a || raw[i].sym.module)
			continue;
		if ((a >= init.lo && a < init.hi) || in_ranges(bl, nbl, a))
			raw[i].sym.unprobeable = true;
	}
	free(bl);
}

static int by_name(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->module || !y->module)
		return (x->module != NULL) - (y->module != NULL);
	return strcmp(x->module, y->module);
}

struct ksyms *ksyms_parse(const char *kallsyms, const char *blacklist, const char *source)
{
	struct ksyms *k = arena_alloc(sizeof(*k));
	struct raw_sym *raw = NULL;
	size_t n = 0, cap = 0;
	char *copy = strdup(kallsyms), *save = NULL;

	if (!copy)
		fatal("out of memory");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			raw = realloc(raw, cap * sizeof(*raw));
			if (!raw)
				fatal("out of memory");
		}
		if (parse_kallsyms_line(line, &raw[n]))
			n++;
	}
	mark_unprobeable(raw, n, blacklist);
	k->syms = arena_alloc(sizeof(*k->syms) * (n + 1));
	for (size_t i = 0; i < n; i++)
		k->syms[i] = raw[i].sym;
	k->n = n;
	k->source = source;
	qsort(k->syms, n, sizeof(*k->syms), by_name);
	free(raw);
	free(copy);
	return k;
}

/* ---- lookups ---- */

bool ksym_is_function(const struct ksym *sym)
{
	return sym->type == 't' || sym->type == 'T' || sym->type == 'W' || sym->type == 'w';
}

static bool same_module(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

long ksyms_find(const struct ksyms *k, const char *name, const char *module)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(k->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < k->n && !strcmp(k->syms[i].name, name); i++)
		if (same_module(k->syms[i].module, module))
			return (long)i;
	return -1;
}

int ksyms_count_functions(const struct ksyms *k, const char *name, const char *module)
{
	long i = ksyms_find(k, name, module);
	int n = 0;

	for (; i >= 0 && (size_t)i < k->n && !strcmp(k->syms[i].name, name); i++)
		if (same_module(k->syms[i].module, module) && ksym_is_function(&k->syms[i]))
			n++;
	return n;
}

/* ---- the cache ---- */

static const char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *base = xdg && *xdg ? xdg : arena_printf("%s/.cache", home && *home ? home : "/tmp");
	char *dir = arena_printf("%s/utap/kallsyms", base);

	for (char *q = dir + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			mkdir(dir, 0700);
			*q = '/';
		}
	mkdir(dir, 0700);
	return dir;
}

/*
 * The cache entry (BASE.txt, the symbols; BASE.btf, the kernel's BTF, or an
 * empty BASE.nobtf) changes whenever the package replaces the kernel image.
 */
static const char *cache_base(const char *krel, const char *image)
{
	struct stat st;
	uint64_t h = hash_bytes(CACHE_FORMAT, strlen(CACHE_FORMAT), 0);

	if (stat(image, &st) == 0) {
		h = hash_bytes(&st.st_size, sizeof(st.st_size), h);
		h = hash_bytes(&st.st_mtime, sizeof(st.st_mtime), h);
		h = hash_bytes(&st.st_ino, sizeof(st.st_ino), h);
	}
	return arena_printf("%s/%s-%016llx", cache_dir(), krel, (unsigned long long)h);
}

/* Cache lines: "TYPE FLAG NAME[ MODULE]", FLAG 'x' for unprobeable. */
static int write_cache(const char *path, const struct ksyms *k)
{
	struct strbuf sb = { 0 };
	const char *tmp = arena_printf("%s.%d.tmp", path, (int)getpid());
	int rc;

	sb_printf(&sb, "# %s\n", CACHE_FORMAT);
	for (size_t i = 0; i < k->n; i++) {
		const struct ksym *s = &k->syms[i];

		sb_printf(&sb, "%c %c %s%s%s\n", s->type, s->unprobeable ? 'x' : '-', s->name,
			  s->module ? " " : "", s->module ? s->module : "");
	}
	rc = write_file(tmp, sb.buf, sb.len);
	if (rc == 0)
		rc = rename(tmp, path);
	sb_free(&sb);
	return rc;
}

static struct ksyms *read_cache(const char *path)
{
	char *text = read_file(path, NULL), *save = NULL;
	struct ksyms *k;
	size_t n = 0;

	if (!text || strncmp(text, "# " CACHE_FORMAT "\n", strlen(CACHE_FORMAT) + 3))
		return NULL;
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	k = arena_alloc(sizeof(*k));
	k->syms = arena_alloc(sizeof(*k->syms) * (n + 1));
	k->source = path;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ksym *s = &k->syms[k->n];
		char *mod;

		if (line[0] == '#' || strlen(line) < 5 || line[1] != ' ' || line[3] != ' ')
			continue;
		s->type = line[0];
		s->unprobeable = line[2] == 'x';
		mod = strchr(line + 4, ' ');
		if (mod)
			*mod++ = 0;
		s->name = arena_strdup(line + 4);
		s->module = mod ? arena_strdup(mod) : NULL;
		k->n++;
	}
	return k;
}

/* read_file() returns arena memory: nothing here is freed. */

/* ---- fetching a kernel's list from a guest running it ---- */

/* Keeps the guest's BTF beside the symbols, or notes that it has none. */
static void keep_btf(const char *dir, const char *base)
{
	size_t len = 0;
	char *btf = read_file(arena_printf("%s/btf", dir), &len);
	const char *path = arena_printf("%s.%s", base, btf && len ? "btf" : "nobtf");
	const char *tmp = arena_printf("%s.%d.tmp", path, (int)getpid());

	if (write_file(tmp, btf && len ? btf : "", btf ? len : 0) == 0)
		rename(tmp, path);
}

static struct ksyms *fetch_from_guest(struct session *s, const char *image, const char *base)
{
	char *dir = s->guest_run ? make_tmpdir() : NULL;
	const char *job;
	char *argv[4], *syms, *blacklist;
	int status = 0;
	struct ksyms *k = NULL;

	if (!dir)
		return NULL;
	job = arena_printf("cat /proc/kallsyms > %s/kallsyms && "
			   "{ cat /sys/kernel/debug/kprobes/blacklist > %s/blacklist || true; } && "
			   "{ cat /sys/kernel/btf/vmlinux > %s/btf 2>/dev/null || true; }",
			   dir, dir, dir);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = (char *)job;
	argv[3] = NULL;
	fprintf(stderr, "utap: reading the symbol list of kernel %s in a guest (once per "
		"kernel, cached)\n", s->krel);
	if (s->guest_run(s, dir, argv, &status) == 0 && status == 0) {
		syms = read_file(arena_printf("%s/kallsyms", dir), NULL);
		blacklist = read_file(arena_printf("%s/blacklist", dir), NULL);
		if (syms)
			k = ksyms_parse(syms, blacklist, arena_printf("kernel %s booted from %s",
								      s->krel, image));
		if (k)
			keep_btf(dir, base);
	}
	remove_tree(dir);
	return k && k->n ? k : NULL;
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A complete entry: the symbols and the BTF (or the note that there is none). */
static struct ksyms *read_entry(const char *base)
{
	if (!file_exists(arena_printf("%s.btf", base)) && !file_exists(arena_printf("%s.nobtf", base)))
		return NULL;
	return read_cache(arena_printf("%s.txt", base));
}

static struct ksyms *from_guest_cached(struct session *s)
{
	const char *image = arena_printf("/boot/vmlinuz-%s", s->krel);
	const char *base = cache_base(s->krel, image);
	const char *path = arena_printf("%s.txt", base);
	struct ksyms *k = read_entry(base);
	int lock;

	if (k)
		return k;
	if (access(image, R_OK) != 0) {
		errorf("cannot know the functions of kernel %s: it is not the running kernel, and "
		       "%s (to boot it once and read its /proc/kallsyms) is missing; install "
		       "linux-image-%s, or set UTAP_KALLSYMS to a copy of its /proc/kallsyms",
		       s->krel, image, s->krel);
		return NULL;
	}
	/* one guest boot for concurrent translators: the second waits, then reads the cache */
	lock = open(arena_printf("%s/.lock", cache_dir()), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	if (lock >= 0)
		flock(lock, LOCK_EX);
	k = read_entry(base);
	if (!k) {
		k = fetch_from_guest(s, image, base);
		if (k && write_cache(path, k))
			warnf("cannot write the symbol cache '%s': %s", path, strerror(errno));
	}
	if (lock >= 0)
		close(lock);
	if (!k)
		errorf("cannot read the symbol list of kernel %s from a guest booted with %s "
		       "(utap --vm-check tells why guests fail)", s->krel, image);
	return k;
}

static bool is_running_kernel(const char *krel)
{
	struct utsname u;

	return krel && uname(&u) == 0 && !strcmp(u.release, krel);
}

const struct ksyms *ksyms_get(struct session *s)
{
	static const struct ksyms *cached;
	static bool tried;
	const char *env = getenv("UTAP_KALLSYMS");
	char *text, *bl;

	if (tried)
		return cached;
	tried = true;
	if (env && *env) {
		text = read_file(env, NULL);
		if (!text) {
			errorf("UTAP_KALLSYMS: cannot read '%s': %s", env, strerror(errno));
			return NULL;
		}
		cached = ksyms_parse(text, NULL, env);
		return cached;
	}
	if (is_running_kernel(s->krel) && (text = read_file("/proc/kallsyms", NULL))) {
		bl = read_file("/sys/kernel/debug/kprobes/blacklist", NULL);
		cached = ksyms_parse(text, bl, "/proc/kallsyms");
		return cached;
	}
	cached = from_guest_cached(s);
	return cached;
}

/* ---- kernel modules, from their .ko files ---- */

static const char *kernel_modname(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = arena_strdup(base ? base + 1 : path);
	char *dot = strstr(name, ".ko");

	if (dot)
		*dot = 0;
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

int kmodules_matching(struct session *s, const char *glob, struct kmodule **out)
{
	const char *base = arena_printf("/lib/modules/%s", s->krel);
	char *dep = read_file(arena_printf("%s/modules.dep", base), NULL), *save = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!dep)
		return 0;
	for (char *line = strtok_r(dep, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		const char *name;

		if (!colon)
			continue;
		*colon = 0;
		name = kernel_modname(line);
		if (fnmatch(glob, name, 0) != 0)
			continue;
		if (n == cap) {
			struct kmodule *bigger = arena_alloc(sizeof(*bigger) * (cap = cap ? cap * 2 : 8));

			if (n)
				memcpy(bigger, *out, sizeof(*bigger) * n);
			*out = bigger;
		}
		(*out)[n].name = name;
		(*out)[n].path = line[0] == '/' ? arena_strdup(line) :
				 arena_printf("%s/%s", base, line);
		n++;
	}
	return n;
}

const char *kmodule_missing(struct session *s, const char *name)
{
	return arena_printf("no kernel module '%s' in /lib/modules/%s (install the package that "
			    "ships it: linux-image-%s has the kernel's own modules)", name, s->krel,
			    s->krel);
}

/* Code that stays after loading: executable, and not .init.text (freed) or .exit.text. */
static bool resident_code_section(Elf *elf, size_t shstrndx, size_t index)
{
	Elf_Scn *scn = elf_getscn(elf, index);
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return false;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && strncmp(name, ".init", 5) && strncmp(name, ".exit", 5);
}

static void add_elf_functions(Elf *elf, struct ksyms *k, const char *modname)
{
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !resident_code_section(elf, shstrndx, sym.st_shndx))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (k->n == cap) {
				struct ksym *bigger = arena_alloc(sizeof(*bigger) * (cap = cap ? cap * 2 : 256));

				if (k->n)
					memcpy(bigger, k->syms, sizeof(*bigger) * k->n);
				k->syms = bigger;
			}
			k->syms[k->n++] = (struct ksym){
				.name = arena_strdup(name),
				.module = modname,
				.type = GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 'T' : 't',
			};
		}
	}
}

const struct ksyms *kmodule_functions(struct session *s, const struct kmodule *m)
{
	struct ksyms *k = arena_alloc(sizeof(*k));
	int fd = open(m->path, O_RDONLY);
	Elf *elf;

	(void)s;
	if (fd < 0) {
		errorf("cannot read kernel module '%s': %s", m->path, strerror(errno));
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		errorf("kernel module '%s' is not an ELF file (compressed modules are not read)",
		       m->path);
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	add_elf_functions(elf, k, m->name);
	elf_end(elf);
	close(fd);
	k->source = m->path;
	if (k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), by_name);
	return k;
}

const char *ksyms_btf_path(struct session *s)
{
	const char *base, *env = getenv("UTAP_KBTF");

	if (env && *env)
		return env;
	if (getenv("UTAP_KALLSYMS"))
		return NULL;
	if (is_running_kernel(s->krel))
		return file_exists("/sys/kernel/btf/vmlinux") ? "/sys/kernel/btf/vmlinux" : NULL;
	/* the symbols come first: reading them fills the cache entry */
	if (!ksyms_get(s))
		return NULL;
	base = cache_base(s->krel, arena_printf("/boot/vmlinuz-%s", s->krel));
	return file_exists(arena_printf("%s.btf", base)) ? arena_printf("%s.btf", base) : NULL;
}
