/*
 * tables.c - the runner builds tables for files mapped after translation.
 *
 * The module asks with an event record "tables SEQ PATH" (a task mapped an
 * ELF file it has no tables for, and may be held until the answer comes);
 * the runner builds the unwind and symbol tables with the translator's own
 * builders, caches them by build-id, and writes them to
 * /proc/<module>/tables. At start it also sends the vDSO's tables, built
 * from the runner's own copy of the image (the same kernel maps the same
 * vDSO into every process). Runs in the runner's relay thread: no arena.
 */
#include "base/base.h"
#include "tables.h"
#include "elf/pysyms.h"
#include "elf/symtab.h"
#include "elf/uwbuild.h"
#include "unwind/uwtab.h"

#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TABLES_MAGIC 0x75746162
#define TABLES_NONE 1
#define TABLES_VDSO 2
#define TABLES_UNREAD 4

struct tables_msg {
	uint32_t magic, seq, flags, path_len, uw_len, sym_len, line_len, py_len;
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* PY: a CPython binary's symbols for pybacktrace() (elf/pysyms.h), or NULL. */
static int send_tables(int fd, uint32_t seq, uint32_t flags, const char *path,
		       const void *uw, size_t uw_len, const void *sym, size_t sym_len,
		       const uint64_t *py)
{
	struct tables_msg h = {
		.magic = TABLES_MAGIC, .seq = seq, .flags = flags,
		.path_len = (uint32_t)strlen(path) + 1, .uw_len = (uint32_t)uw_len,
		.sym_len = (uint32_t)sym_len,
		.py_len = py ? UTAP_PY_NSYMS * sizeof(*py) : 0,
	};
	size_t total = align8(sizeof(h)) + align8(h.path_len) + align8(uw_len) + align8(sym_len) +
		       h.py_len;
	char *buf = calloc(1, total), *p = buf;
	int rc;

	if (!buf)
		return -1;
	memcpy(p, &h, sizeof(h));
	p += align8(sizeof(h));
	memcpy(p, path, h.path_len);
	p += align8(h.path_len);
	if (uw_len)
		memcpy(p, uw, uw_len);
	p += align8(uw_len);
	if (sym_len)
		memcpy(p, sym, sym_len);
	p += align8(sym_len);
	if (py)
		memcpy(p, py, h.py_len);
	rc = write(fd, buf, total) == (ssize_t)total ? 0 : -1;
	free(buf);
	return rc;
}

static char *cached_path(const char *buildid_hex, const char *ext)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (!buildid_hex[0])
		return NULL;
	if (asprintf(&p, "%s/%s/utap/tables/%s.%s", xdg && *xdg ? xdg : home ? home : "/tmp",
		     xdg && *xdg ? "" : ".cache", buildid_hex, ext) < 0)
		return NULL;
	return p;
}

/* The cached table at path, or NULL (none, unreadable or empty: built again). */
static void *cached(const char *path, size_t *len)
{
	char *data = path ? slurp_file(path, len) : NULL;

	if (data && !*len) {
		free(data);
		data = NULL;
	}
	return data;
}

/* Creates the directories leading to path (0700). */
static void make_parents(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *q = dir + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			mkdir(dir, 0700);
			*q = '/';
		}
}

static void store(const char *path, const void *data, size_t len)
{
	char tmp[4096];
	int fd;

	if (!path)
		return;
	make_parents(path);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, data, len) == (ssize_t)len && close(fd) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

static void file_buildid(const char *path, char *hex, size_t size)
{
	struct utap_elf e = { 0 };
	struct utap_build_id id = { 0 };

	hex[0] = 0;
	if (utap_elf_open(&e, path) == 0 && utap_elf_build_id(e.elf, &id) == 0)
		utap_build_id_hex(&id, hex, size);
	utap_elf_close(&e);
}

/*
 * A walk in a probe asks through /proc/PID/map_files/START-END (it cannot
 * look paths up there): the file is read through that link, and the answer
 * names the file's real path, which the module prints and looks up.
 */
static const char *real_path(const char *path, char *buf, size_t size)
{
	ssize_t n;

	if (strncmp(path, "/proc/", 6) || !strstr(path, "/map_files/"))
		return path;
	n = readlink(path, buf, size - 1);
	if (n <= 0)
		return path;
	buf[n] = 0;
	return buf;
}

/* Build (or take from the cache) the tables of path and send them as answer seq. */
static void answer(int fd, uint32_t seq, const char *path)
{
	char hex[128], err[256], real[4096];
	const char *name = real_path(path, real, sizeof(real));

	/* asked by a walk that met the file (not by a held task): frames were lost */
	if (name != path)
		fprintf(stderr, "WARNING: Missing unwind data for a module, rerun with 'utap -d %s'\n",
			name);
	char *uw_cache, *sym_cache, uw_ext[16];
	size_t uw_len = 0, sym_len = 0;
	void *uw, *sym;
	uint64_t py[UTAP_PY_NSYMS];
	int file_fd = open(path, O_RDONLY | O_CLOEXEC);
	char file[32];

	/*
	 * The link of a task that has exec'ed or gone opens nothing: say so,
	 * so the module asks again when another task maps the file, instead
	 * of taking "no tables" for a file that has them. Such a link is read
	 * through the descriptor, which the task's exec cannot take away.
	 */
	if (file_fd < 0) {
		send_tables(fd, seq, TABLES_NONE | TABLES_UNREAD, name, NULL, 0, NULL, 0, NULL);
		return;
	}
	snprintf(file, sizeof(file), "/proc/self/fd/%d", file_fd);
	if (name != path)
		path = file;
	file_buildid(path, hex, sizeof(hex));
	/* one name per table format: utaps of two versions do not take turns */
	snprintf(uw_ext, sizeof(uw_ext), "uwt%u", UWT_VERSION);
	uw_cache = cached_path(hex, uw_ext);
	sym_cache = cached_path(hex, "sym");
	uw = cached(uw_cache, &uw_len);
	sym = cached(sym_cache, &sym_len);
	/* a table an older utap cached (another format version) is built again */
	if (!uw || !sym || uw_table_validate(uw, uw_len)) {
		struct uw_blob ub = { 0 };
		struct uw_build_stats st = { 0 };
		struct utap_blob sb = { 0 };

		free(uw);
		free(sym);
		uw = sym = NULL;
		if (uw_build_file(path, NULL, &ub, &st, err, sizeof(err)) == 0 &&
		    utap_symtab_build_path(path, NULL, &sb) == 0) {
			uw = ub.data;
			uw_len = ub.len;
			sym = sb.data;
			sym_len = sb.size;
			store(uw_cache, uw, uw_len);
			store(sym_cache, sym, sym_len);
		} else {
			uw_blob_free(&ub);
			utap_blob_free(&sb);
		}
	}
	if (uw && sym)
		send_tables(fd, seq, 0, name, uw, uw_len, sym, sym_len,
			    elf_py_syms(path, py) ? py : NULL);
	else
		send_tables(fd, seq, TABLES_NONE, name, NULL, 0, NULL, 0, NULL);
	free(uw);
	free(sym);
	free(uw_cache);
	free(sym_cache);
	close(file_fd);
}

void tables_event(int fd, const char *payload, size_t len)
{
	char msg[4200], *path;
	unsigned long seq;

	if (fd < 0 || len >= sizeof(msg))
		return;
	memcpy(msg, payload, len);
	msg[len] = 0;
	if (strncmp(msg, "tables ", 7))
		return;
	seq = strtoul(msg + 7, &path, 10);
	if (*path != ' ')
		return;
	answer(fd, (uint32_t)seq, path + 1);
}

/* The vDSO image of this process, as mapped: [vdso] in /proc/self/maps. */
static int own_vdso(unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", start, end) == 2) {
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

void tables_send_vdso(int fd)
{
	unsigned long start, end;
	struct uw_blob ub = { 0 };
	struct uw_build_stats st = { 0 };
	struct utap_debuginfo di = { 0 };
	struct utap_blob sb = { 0 };
	char err[256];
	void *copy;
	Elf *elf;

	if (fd < 0 || own_vdso(&start, &end))
		return;
	copy = malloc(end - start);
	if (!copy)
		return;
	memcpy(copy, (const void *)start, end - start);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, end - start);
	if (elf && uw_build_elf(elf, NULL, NULL, &ub, &st, err, sizeof(err)) == 0 &&
	    utap_debuginfo_open_memory(&di, copy, end - start, NULL, NULL, 0) == 0 &&
	    utap_symtab_build(&di, UTAP_SYMTAB_NO_ABS, &sb) == 0)
		send_tables(fd, 0, TABLES_VDSO, "linux-vdso.so.1", ub.data, ub.len, sb.data, sb.size,
			    NULL);
	if (elf)
		elf_end(elf);
	uw_blob_free(&ub);
	utap_blob_free(&sb);
	utap_debuginfo_close(&di);
	free(copy);
}
