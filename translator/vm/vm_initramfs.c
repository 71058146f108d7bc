/*
 * vm_initramfs.c - the guest's initramfs: utap's init plus the guest kernel's
 * modules for virtio, 9p, overlayfs and virtio-serial, in an order where each
 * module's dependencies load first.
 *
 * It is cached per kernel under a name that hashes every byte that goes in,
 * so a rebuilt init or an updated kernel package yields a new file; it is
 * written under a temporary name and renamed, so two runs building it at
 * once both end up with a complete file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vm_internal.h"
#include "vm/guest/vm_proto.h"

/* What the guest init loads; their dependencies come from modules.dep. */
static const char *const guest_modules[] = {
	"virtio_pci", "virtio_console", "9pnet_virtio", "9p", "overlay",
};

/* The module name of a modules.dep path: basename up to ".ko", '-' read as '_'. */
static void module_name(const char *path, size_t len, char *name, size_t size)
{
	const char *base = path, *p;
	size_t i, n;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	n = path + len - base;
	for (i = 0; i + 2 < n; i++)
		if (memcmp(base + i, ".ko", 3) == 0)
			break;
	if (i + 2 >= n)
		i = n;
	for (n = 0; n < i && n + 1 < size; n++)
		name[n] = base[n] == '-' ? '_' : base[n];
	name[n] = '\0';
}

/* The line of modules.dep for module NAME (by_name) or for the path KEY. */
static const char *dep_line(const char *dep, const char *key, size_t klen, bool by_name)
{
	const char *line = dep;
	char name[256];

	while (*line) {
		const char *colon = strchr(line, ':');
		const char *end = strchr(line, '\n');

		if (!end)
			end = line + strlen(line);
		if (colon && colon < end) {
			if (by_name) {
				module_name(line, colon - line, name, sizeof(name));
				if (strcmp(name, key) == 0)
					return line;
			} else if ((size_t)(colon - line) == klen && memcmp(line, key, klen) == 0) {
				return line;
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

static bool listed(const struct vm_modules *m, const char *path, size_t len)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->path[i]) == len && memcmp(m->path[i], path, len) == 0)
			return true;
	return false;
}

/* Append the module whose modules.dep line starts at LINE, after its dependencies. */
static int add_module(const char *dep, const char *line, struct vm_modules *out, int depth,
		      char *why, size_t whylen)
{
	const char *colon = strchr(line, ':');
	const char *p = colon + 1, *end = p + strcspn(p, "\n");

	if (listed(out, line, colon - line))
		return 0;
	if (depth > 32 || out->n == VM_MAX_MODULES) {
		snprintf(why, whylen, "modules.dep: dependencies of %.*s go too deep",
			 (int)(colon - line), line);
		return -1;
	}
	while (p < end) {
		size_t n;
		const char *dline;

		p += strspn(p, " \t");
		n = strcspn(p, " \t\n");
		if (n == 0)
			break;
		dline = dep_line(dep, p, n, false);
		if (!dline) {
			snprintf(why, whylen, "modules.dep: %.*s needs %.*s, which has no line",
				 (int)(colon - line), line, (int)n, p);
			return -1;
		}
		if (add_module(dep, dline, out, depth + 1, why, whylen) < 0)
			return -1;
		p += n;
	}
	out->path[out->n] = strndup(line, colon - line);
	return out->path[out->n++] ? 0 : -1;
}

static bool builtin(const char *builtin_list, const char *name)
{
	const char *line = builtin_list;
	char got[256];

	while (line && *line) {
		size_t n = strcspn(line, "\n");

		module_name(line, n, got, sizeof(got));
		if (strcmp(got, name) == 0)
			return true;
		line += n + (line[n] == '\n');
	}
	return false;
}

/*
 * The paths (relative to /lib/modules/KREL) to load, dependencies first, for
 * the WANTED module names; modules built into the kernel need no file.
 */
int vm_module_order(const char *dep, const char *builtin_list, const char *const *wanted,
		    int nwanted, struct vm_modules *out, char *why, size_t whylen)
{
	int i;

	out->n = 0;
	for (i = 0; i < nwanted; i++) {
		const char *line = dep_line(dep, wanted[i], 0, true);

		if (!line && builtin(builtin_list, wanted[i]))
			continue;
		if (!line) {
			snprintf(why, whylen, "the kernel has no module %s", wanted[i]);
			vm_modules_free(out);
			return -1;
		}
		if (add_module(dep, line, out, 0, why, whylen) < 0) {
			vm_modules_free(out);
			return -1;
		}
	}
	return 0;
}

void vm_modules_free(struct vm_modules *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		free(m->path[i]);
	m->n = 0;
}

/* newc format: a 110-byte ASCII header, the name, then the data; each padded to 4 bytes. */
static void cpio_header(FILE *f, const char *name, unsigned mode, size_t size,
			unsigned rmajor, unsigned rminor)
{
	static unsigned ino = 1;
	static const char zeros[4];
	size_t namesize = strlen(name) + 1;

	fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		ino++, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0, size, 0, 0, rmajor, rminor,
		namesize, 0);
	fwrite(name, 1, namesize, f);
	fwrite(zeros, 1, (4 - (110 + namesize) % 4) % 4, f);
	if (strcmp(name, "TRAILER!!!") == 0)
		ino = 1;	/* the next archive numbers its files the same way */
}

void cpio_add(FILE *f, const char *name, unsigned mode, const void *data, size_t size)
{
	static const char zeros[4];

	cpio_header(f, name, mode, size, 0, 0);
	fwrite(data, 1, size, f);
	fwrite(zeros, 1, (4 - size % 4) % 4, f);
}

void cpio_add_node(FILE *f, const char *name, unsigned mode, unsigned major, unsigned minor)
{
	cpio_header(f, name, mode, 0, major, minor);
}

void cpio_finish(FILE *f)
{
	cpio_header(f, "TRAILER!!!", 0, 0, 0, 0);
}

/* The files that go in: the init first, then the modules in load order. */
struct ramfs_input {
	char *data[VM_MAX_MODULES + 1];
	size_t len[VM_MAX_MODULES + 1];
	int n;
};

static void inputs_free(struct ramfs_input *in)
{
	while (in->n > 0)
		free(in->data[--in->n]);
}

static int read_inputs(const struct vm_host *h, const struct vm_modules *mods,
		       struct ramfs_input *in)
{
	char path[PATH_MAX * 2];
	int i;

	in->n = 0;
	if (!(in->data[0] = slurp_file(h->init, &in->len[0]))) {
		vm_error("cannot read the guest init %s: %s", h->init, strerror(errno));
		return -1;
	}
	in->n = 1;
	for (i = 0; i < mods->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", h->moddir, mods->path[i]);
		if (!(in->data[in->n] = slurp_file(path, &in->len[in->n]))) {
			vm_error("cannot read the kernel module %s: %s", path, strerror(errno));
			inputs_free(in);
			return -1;
		}
		in->n++;
	}
	return 0;
}

static uint64_t inputs_hash(const struct vm_host *h, const struct vm_modules *mods,
			    const struct ramfs_input *in)
{
	uint64_t hash = hash_bytes("utap-initramfs-1", 16, 0);
	int i;

	hash = hash_bytes(h->krel, strlen(h->krel) + 1, hash);
	for (i = 0; i < in->n; i++) {
		const char *name = i ? mods->path[i - 1] : "init";

		hash = hash_bytes(name, strlen(name) + 1, hash);
		hash = hash_bytes(&in->len[i], sizeof(in->len[i]), hash);
		hash = hash_bytes(in->data[i], in->len[i], hash);
	}
	return hash;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int write_cpio(const char *path, const struct vm_modules *mods,
		      const struct ramfs_input *in)
{
	char *buf = NULL, name[PATH_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len), *list;
	char *list_buf = NULL;
	size_t list_len = 0;
	int i, rc;

	list = open_memstream(&list_buf, &list_len);
	if (!f || !list)
		return -1;
	cpio_add_node(f, "dev", S_IFDIR | 0755, 0, 0);
	cpio_add_node(f, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_add_node(f, "modules", S_IFDIR | 0755, 0, 0);
	cpio_add(f, "init", S_IFREG | 0755, in->data[0], in->len[0]);
	for (i = 0; i < mods->n; i++) {
		snprintf(name, sizeof(name), "modules/%s", base_name(mods->path[i]));
		cpio_add(f, name, S_IFREG | 0644, in->data[i + 1], in->len[i + 1]);
		fprintf(list, "/%s\n", name);
	}
	fclose(list);
	cpio_add(f, VM_MODULE_LIST + 1, S_IFREG | 0644, list_buf, list_len);
	cpio_finish(f);
	rc = fclose(f) == 0 ? vm_write_atomic(path, buf, len) : -1;
	free(buf);
	free(list_buf);
	return rc;
}

static int order_guest_modules(const struct vm_host *h, struct vm_modules *mods)
{
	char path[PATH_MAX + 32], why[512];
	char *dep = NULL, *bi = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/modules.dep", h->moddir);
	if (!(dep = slurp_file(path, &len))) {
		vm_error("cannot read %s: %s; install the Debian package linux-image-%s",
			 path, strerror(errno), h->krel);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/modules.builtin", h->moddir);
	if (!(bi = slurp_file(path, &len)))
		bi = NULL;
	rc = vm_module_order(dep, bi ? bi : "", guest_modules,
			     sizeof(guest_modules) / sizeof(guest_modules[0]), mods, why,
			     sizeof(why));
	if (rc < 0)
		vm_error("kernel %s cannot run the guest: %s", h->krel, why);
	free(dep);
	free(bi);
	return rc;
}

/*
 * Put the path of an up-to-date initramfs for h->krel in PATH: from the cache
 * when there is one, else built into JOBDIR.
 */
int vm_initramfs(const struct vm_config *cfg, const struct vm_host *h, const char *jobdir,
		 char *path, size_t len)
{
	struct vm_modules mods = { .n = 0 };
	struct ramfs_input in = { .n = 0 };
	struct stat st;
	int rc = 0;

	if (order_guest_modules(h, &mods) < 0)
		return -1;
	if (read_inputs(h, &mods, &in) < 0) {
		vm_modules_free(&mods);
		return -1;
	}
	snprintf(path, len, "%s/initramfs-%s-%016llx.cpio", h->cache[0] ? h->cache : jobdir,
		 h->krel, (unsigned long long)inputs_hash(h, &mods, &in));
	if (stat(path, &st) == 0) {
		vm_note(cfg, "initramfs %s (cached)", path);
	} else if (write_cpio(path, &mods, &in) < 0) {
		vm_error("cannot write the guest initramfs %s: %s", path, strerror(errno));
		rc = -1;
	} else {
		vm_note(cfg, "initramfs %s (built: init + %d modules)", path, mods.n);
		if (h->cache[0]) {
			char prefix[300];

			snprintf(prefix, sizeof(prefix), "initramfs-%s-", h->krel);
			vm_prune_cache(h->cache, prefix, base_name(path));
		}
	}
	inputs_free(&in);
	vm_modules_free(&mods);
	return rc;
}
