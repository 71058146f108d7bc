// SPDX-License-Identifier: GPL-2.0
/*
 * uwsnap.c - snapshot loading, tables for its mappings, and the callbacks
 * the runtime walk needs. Test and benchmark support, user space only.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "uwsnap.h"

/* Tables by path, built once per process. */
struct table_cache {
	char path[256];
	struct uw_blob blob;
	int ok;
};

static struct table_cache cache[UWSNAP_MAX_MODS];
static int nr_cache;

static const void *table_for(const char *path)
{
	struct uw_build_stats st;
	char err[256];
	int i;

	for (i = 0; i < nr_cache; i++)
		if (!strcmp(cache[i].path, path))
			return cache[i].ok ? cache[i].blob.data : NULL;
	if (nr_cache == UWSNAP_MAX_MODS)
		return NULL;
	snprintf(cache[nr_cache].path, sizeof(cache[0].path), "%s", path);
	cache[nr_cache].ok = !uw_build_file(path, NULL, &cache[nr_cache].blob,
					    &st, err, sizeof(err));
	if (!cache[nr_cache].ok)
		fprintf(stderr, "uwsnap: %s\n", err);
	return cache[nr_cache++].ok ? cache[nr_cache - 1].blob.data : NULL;
}

/* bias = mapping start - vaddr of the mapped file offset */
static int mapping_bias(const char *path, u64 start, u64 off, u64 *bias)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *elf;
	size_t i, n;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (off < (ph.p_offset & ~0xfffull) ||
			    off >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = start - (ph.p_vaddr - ph.p_offset + off);
			ret = 0;
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static void parse_maps(struct uwsnap *s, const char *maps)
{
	const char *line = maps;

	while (line && *line && s->nr_mods < UWSNAP_MAX_MODS) {
		unsigned long long a, b, off;
		char perms[8], path[256] = "";
		struct uwsnap_mod *m = &s->mod[s->nr_mods];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &a, &b,
			   perms, &off, path) >= 4 && perms[2] == 'x') {
			m->start = a;
			m->end = b;
			snprintf(m->path, sizeof(m->path), "%s", path);
			if (path[0] == '/' && !mapping_bias(path, a, off, &m->bias))
				m->table = table_for(path);
			s->nr_mods++;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
}

static int get(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n ? 0 : -1;
}

static int load_regions(FILE *f, struct uwsnap *s)
{
	u32 n, i;

	if (get(f, &n, 4) || n == 0 || n > UWSNAP_MAX_REGIONS)
		return -1;
	for (i = 0; i < n; i++) {
		struct uwsnap_region *r = &s->region[i];

		if (get(f, &r->addr, 8) || get(f, &r->len, 8) ||
		    r->len > (64u << 20))
			return -1;
		r->bytes = malloc(r->len ? r->len : 1);
		s->nr_regions++;
		if (!r->bytes || get(f, r->bytes, r->len))
			return -1;
	}
	return 0;
}

static int load_maps_and_bt(FILE *f, struct uwsnap *s)
{
	char *maps;
	u32 n;

	if (get(f, &n, 4) || n > (1u << 20))
		return -1;
	maps = calloc(1, n + 1);
	if (!maps || get(f, maps, n)) {
		free(maps);
		return -1;
	}
	parse_maps(s, maps);
	free(maps);
	if (get(f, &s->nr_bt, 4) || s->nr_bt > UWSNAP_MAX_BT)
		return -1;
	return get(f, s->bt, 8 * s->nr_bt);
}

int uwsnap_load(const char *file, struct uwsnap *s)
{
	FILE *f = fopen(file, "rb");
	char magic[8];
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (!f) {
		perror(file);
		return -1;
	}
	if (!get(f, magic, 8) && !memcmp(magic, "UWCAP01\n", 8) &&
	    !get(f, s->regs.val, 8 * UWT_NR_REGS) && !load_regions(f, s) &&
	    !load_maps_and_bt(f, s))
		ret = 0;
	fclose(f);
	s->regs.known = UW_ALL_KNOWN;
	if (ret)
		fprintf(stderr, "uwsnap: %s: malformed snapshot\n", file);
	return ret;
}

void uwsnap_free(struct uwsnap *s)
{
	int i;

	for (i = 0; i < s->nr_regions; i++)
		free(s->region[i].bytes);
	s->nr_regions = 0;
}

const u64 *uwsnap_oracle(const struct uwsnap *s, u32 *nr)
{
	u32 i;

	for (i = 0; i < s->nr_bt; i++)
		if (s->bt[i] == s->regs.val[UWT_RIP]) {
			*nr = s->nr_bt - i;
			return &s->bt[i];
		}
	*nr = 0;
	return s->bt;
}

int uwsnap_read(void *ctx, u64 addr, void *dst, u32 len)
{
	struct uwsnap *s = ctx;
	int i;

	s->reads++;
	for (i = 0; i < s->nr_regions; i++) {
		const struct uwsnap_region *r = &s->region[i];

		if (addr >= r->addr && addr - r->addr <= r->len &&
		    len <= r->len - (addr - r->addr)) {
			memcpy(dst, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -EFAULT;
}

int uwsnap_find(void *ctx, u64 pc, struct uw_module *mod)
{
	struct uwsnap *s = ctx;
	int i;

	for (i = 0; i < s->nr_mods; i++) {
		const struct uwsnap_mod *m = &s->mod[i];

		if (pc < m->start || pc >= m->end)
			continue;
		mod->table = m->table;
		if (s->hide && strstr(m->path, s->hide))
			mod->table = NULL;
		mod->bias = m->bias;
		mod->start = m->start;
		mod->end = m->end;
		return 0;
	}
	return -ENOENT;
}

void uwsnap_ops(struct uwsnap *s, struct uw_walk_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->read = uwsnap_read;
	ops->find = uwsnap_find;
	ops->ctx = s;
}

int uwsnap_run(const char *prog, const char *arg, const char *dir)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		setenv("UWCAP_DIR", dir, 1);
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

const char *uwsnap_progdir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return "build/uwprogs";
	exe[n] = 0;
	snprintf(dir, sizeof(dir), "%s/../uwprogs", dirname(exe));
	return dir;
}
