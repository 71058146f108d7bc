// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo.c - find the files that describe one ELF binary: its build-id,
 * its separate debuginfo file and its .gnu_debugdata minidebuginfo.
 * See debuginfo.h for the search order.
 */
#include "elf/debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"

/* A minidebuginfo is a few hundred KiB; refuse absurd decompressed sizes. */
#define MINIDEBUG_MAX_SIZE (256u << 20)

static void elf_library_init(void)
{
	static int done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

static int check_elf_kind(Elf *elf)
{
	GElf_Ehdr ehdr;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return -EINVAL;
	return 0;
}

int utap_elf_open(struct utap_elf *out, const char *path)
{
	int fd;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	elf_library_init();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	out->fd = fd;
	out->path = strdup(path);
	out->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!out->path || !out->elf || check_elf_kind(out->elf)) {
		utap_elf_close(out);
		return -EINVAL;
	}
	return 0;
}

int utap_elf_open_memory(struct utap_elf *out, void *image, size_t size, int own)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	elf_library_init();
	if (own) {
		out->mem = image;
		out->mem_size = size;
	}
	out->elf = elf_memory(image, size);
	if (!out->elf || check_elf_kind(out->elf)) {
		utap_elf_close(out);
		return -EINVAL;
	}
	return 0;
}

void utap_elf_close(struct utap_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e->path);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

/* Scan one block of notes for NT_GNU_BUILD_ID. */
static int build_id_in_notes(Elf_Data *data, struct utap_build_id *id)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp(name, "GNU", 4) != 0)
			continue;
		if (nhdr.n_descsz == 0 || nhdr.n_descsz > UTAP_BUILD_ID_MAX)
			return -EINVAL;
		id->len = nhdr.n_descsz;
		memcpy(id->bytes, (const char *)data->d_buf + desc_off, id->len);
		return 0;
	}
	return -ENOENT;
}

/*
 * Sections first: a separate debuginfo file keeps its PT_NOTE headers but
 * the bytes they point at may belong to NOBITS sections.
 */
static int build_id_from_sections(Elf *elf, struct utap_build_id *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && build_id_in_notes(data, id) == 0)
			return 0;
	}
	return -ENOENT;
}

static int build_id_from_segments(Elf *elf, struct utap_build_id *id)
{
	size_t i, nphdr;
	GElf_Phdr phdr;

	if (elf_getphdrnum(elf, &nphdr) != 0)
		return -ENOENT;
	for (i = 0; i < nphdr; i++) {
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
					    ELF_T_NHDR);
		if (data && build_id_in_notes(data, id) == 0)
			return 0;
	}
	return -ENOENT;
}

int utap_elf_build_id(Elf *elf, struct utap_build_id *id)
{
	memset(id, 0, sizeof(*id));
	if (build_id_from_sections(elf, id) == 0)
		return 0;
	return build_id_from_segments(elf, id);
}

void utap_build_id_hex(const struct utap_build_id *id, char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (size == 0)
		return;
	for (i = 0; i < id->len && 2 * i + 2 < size; i++) {
		buf[2 * i] = digits[id->bytes[i] >> 4];
		buf[2 * i + 1] = digits[id->bytes[i] & 15];
	}
	buf[2 * i] = '\0';
}

/* The section called NAME, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *sname;

		if (!gelf_getshdr(scn, shdr))
			continue;
		sname = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (sname && strcmp(sname, name) == 0)
			return scn;
	}
	return NULL;
}

int utap_elf_debuglink(Elf *elf, char *name, size_t size, uint32_t *crc)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", &shdr);
	Elf_Data *data;
	const unsigned char *p;
	size_t len, crc_off;
	GElf_Ehdr ehdr;

	if (!scn || shdr.sh_type == SHT_NOBITS || !(data = elf_rawdata(scn, NULL)) ||
	    !data->d_buf)
		return -ENOENT;
	p = data->d_buf;
	len = strnlen((const char *)p, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;	/* name, NUL, pad to 4 */
	if (len == 0 || len >= size || crc_off + 4 > data->d_size || !gelf_getehdr(elf, &ehdr))
		return -EINVAL;
	memcpy(name, p, len + 1);
	if (ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)p[crc_off] << 24 | (uint32_t)p[crc_off + 1] << 16 |
		       (uint32_t)p[crc_off + 2] << 8 | p[crc_off + 3];
	else
		*crc = (uint32_t)p[crc_off + 3] << 24 | (uint32_t)p[crc_off + 2] << 16 |
		       (uint32_t)p[crc_off + 1] << 8 | p[crc_off];
	return 0;
}

/* xz-decode IN into a malloc'ed buffer; grows the buffer as needed. */
static int xz_decompress(const void *in, size_t in_size, void **out, size_t *out_size)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = in_size * 4 + 4096;
	unsigned char *buf = NULL;
	lzma_ret ret;

	if (lzma_stream_decoder(&strm, MINIDEBUG_MAX_SIZE, 0) != LZMA_OK)
		return -ENOMEM;
	strm.next_in = in;
	strm.avail_in = in_size;
	do {
		if (!buf || strm.avail_out == 0) {
			size_t used = buf ? (size_t)(strm.next_out - buf) : 0;
			unsigned char *nbuf;

			if (buf)
				cap *= 2;
			if (cap > MINIDEBUG_MAX_SIZE)
				cap = MINIDEBUG_MAX_SIZE;
			if (used >= cap || !(nbuf = realloc(buf, cap))) {
				ret = LZMA_MEM_ERROR;
				break;
			}
			buf = nbuf;
			strm.next_out = buf + used;
			strm.avail_out = cap - used;
		}
		ret = lzma_code(&strm, LZMA_FINISH);
	} while (ret == LZMA_OK);
	*out_size = (size_t)(strm.next_out - buf);
	lzma_end(&strm);
	if (ret != LZMA_STREAM_END) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

int utap_elf_open_minidebug(Elf *elf, struct utap_elf *out)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(elf, ".gnu_debugdata", &shdr);
	Elf_Data *data;
	void *image;
	size_t size;
	int err;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!scn || shdr.sh_type == SHT_NOBITS)
		return -ENOENT;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size == 0)
		return -EINVAL;
	err = xz_decompress(data->d_buf, data->d_size, &image, &size);
	if (err)
		return err;
	return utap_elf_open_memory(out, image, size, 1);
}

/* CRC32 of the whole file at PATH, as .gnu_debuglink records it (zlib's crc32). */
static int file_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	if (n < 0)
		return -errno;
	*crc = (uint32_t)c;
	return 0;
}

/*
 * Open CANDIDATE and keep it only if it belongs to the binary: same
 * build-id when both have one, else the debuglink CRC (when given).
 */
static int try_candidate(const char *candidate, const struct utap_build_id *want,
			 const uint32_t *crc, const struct stat *self, struct utap_elf *out)
{
	struct utap_build_id got;
	struct stat st;
	uint32_t got_crc;

	if (stat(candidate, &st) != 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	if (self && st.st_dev == self->st_dev && st.st_ino == self->st_ino)
		return -ENOENT;
	if (utap_elf_open(out, candidate) != 0)
		return -ENOENT;
	if (want->len && utap_elf_build_id(out->elf, &got) == 0) {
		if (got.len == want->len && memcmp(got.bytes, want->bytes, got.len) == 0)
			return 0;
	} else if (crc && file_crc32(out->fd, &got_crc) == 0 && got_crc == *crc) {
		return 0;
	}
	utap_elf_close(out);
	return -ENOENT;
}

static int separate_by_build_id(const struct utap_build_id *id, const char *root,
				struct utap_elf *out)
{
	char hex[2 * UTAP_BUILD_ID_MAX + 1];
	char path[PATH_MAX];

	if (id->len < 2)
		return -ENOENT;
	utap_build_id_hex(id, hex, sizeof(hex));
	if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) >=
	    (int)sizeof(path))
		return -ENOENT;
	return try_candidate(path, id, NULL, NULL, out);
}

static int separate_by_debuglink(const char *path, Elf *elf, const struct utap_build_id *id,
				 const char *root, struct utap_elf *out)
{
	char link[NAME_MAX + 1], real[PATH_MAX], candidate[PATH_MAX];
	const char *fmts[] = { "%s/%s", "%s/.debug/%s", NULL };
	struct stat self;
	uint32_t crc;
	char *slash;
	int i;

	if (!path || utap_elf_debuglink(elf, link, sizeof(link), &crc) != 0)
		return -ENOENT;
	if (!realpath(path, real) || stat(real, &self) != 0)
		return -ENOENT;
	slash = strrchr(real, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';			/* real is now the binary's directory */
	for (i = 0; fmts[i]; i++) {
		if (snprintf(candidate, sizeof(candidate), fmts[i], real, link) >=
		    (int)sizeof(candidate))
			continue;
		if (try_candidate(candidate, id, &crc, &self, out) == 0)
			return 0;
	}
	if (snprintf(candidate, sizeof(candidate), "%s%s/%s", root, real, link) <
	    (int)sizeof(candidate) &&
	    try_candidate(candidate, id, &crc, &self, out) == 0)
		return 0;
	return -ENOENT;
}

int utap_elf_open_separate(const char *path, Elf *elf, const char *root,
			   struct utap_elf *out)
{
	struct utap_build_id id;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!root)
		root = DEFAULT_DEBUG_ROOT;
	if (utap_elf_build_id(elf, &id) != 0)
		id.len = 0;
	if (separate_by_build_id(&id, root, out) == 0)
		return 0;
	return separate_by_debuglink(path, elf, &id, root, out);
}

static void open_companions(struct utap_debuginfo *di, const char *path, const char *root,
			    unsigned flags)
{
	Elf *elf = di->file.elf;

	if (utap_elf_build_id(elf, &di->build_id) != 0)
		memset(&di->build_id, 0, sizeof(di->build_id));
	if (flags & UTAP_DI_SEPARATE)
		utap_elf_open_separate(path, elf, root, &di->separate);
	if (flags & UTAP_DI_MINI)
		utap_elf_open_minidebug(elf, &di->mini);
}

static void debuginfo_reset(struct utap_debuginfo *di)
{
	memset(di, 0, sizeof(*di));
	di->file.fd = di->separate.fd = di->mini.fd = -1;
}

int utap_debuginfo_open(struct utap_debuginfo *di, const char *path, const char *root,
			unsigned flags)
{
	int err;

	debuginfo_reset(di);
	err = utap_elf_open(&di->file, path);
	if (err)
		return err;
	open_companions(di, path, root, flags);
	return 0;
}

int utap_debuginfo_open_memory(struct utap_debuginfo *di, void *image, size_t size,
			       const char *path, const char *root, unsigned flags)
{
	int err;

	debuginfo_reset(di);
	err = utap_elf_open_memory(&di->file, image, size, 0);
	if (err)
		return err;
	open_companions(di, path, root, flags);
	return 0;
}

void utap_debuginfo_close(struct utap_debuginfo *di)
{
	utap_elf_close(&di->mini);
	utap_elf_close(&di->separate);
	utap_elf_close(&di->file);
}
