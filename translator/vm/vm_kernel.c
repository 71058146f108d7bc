/*
 * vm_kernel.c - boot the guest kernel without its self-decompression.
 *
 * Under TCG, the XZ decompressor inside a distro bzImage takes about two
 * seconds of every boot. A kernel built with CONFIG_PVH carries an entry
 * point qemu can jump to directly when given the uncompressed ELF, so the
 * ELF is unpacked once on the host (liblzma or zlib, as the bzImage's
 * payload requires) and cached beside the initramfs. Any kernel this does
 * not fit (other compression, no PVH note, no cache) boots as the bzImage.
 * A PVH-booted kernel skips the decompressor's KASLR: it runs at its link
 * address, which changes nothing for probes (symbols come from kallsyms).
 */
#include <elf.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/stat.h>

#include "vm_internal.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18

struct bytes {
	unsigned char *data;
	size_t len, cap;
};

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The compressed kernel inside a bzImage, located by its boot protocol header. */
static int bzimage_payload(const unsigned char *img, size_t len, const unsigned char **payload,
			   size_t *plen)
{
	size_t setup, off, n;

	if (len < 0x250 || memcmp(img + 0x202, "HdrS", 4) != 0 ||
	    (img[0x206] | img[0x207] << 8) < 0x208)
		return -1;
	setup = img[0x1f1] ? img[0x1f1] : 4;
	off = (setup + 1) * 512 + le32(img + 0x248);
	n = le32(img + 0x24c);
	if (off > len || n > len - off)
		return -1;
	*payload = img + off;
	*plen = n;
	return 0;
}

static int grow(struct bytes *out)
{
	size_t cap = out->cap ? out->cap * 2 : 64 << 20;
	unsigned char *p = realloc(out->data, cap);

	if (!p)
		return -1;
	out->data = p;
	out->cap = cap;
	return 0;
}

static int unxz(const unsigned char *in, size_t len, struct bytes *out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret rc = lzma_stream_decoder(&s, UINT64_MAX, 0);

	s.next_in = in;
	s.avail_in = len;
	while (rc == LZMA_OK) {
		if (out->len == out->cap && grow(out) < 0)
			break;
		s.next_out = out->data + out->len;
		s.avail_out = out->cap - out->len;
		rc = lzma_code(&s, LZMA_FINISH);
		out->len = out->cap - s.avail_out;
	}
	lzma_end(&s);
	return rc == LZMA_STREAM_END ? 0 : -1;
}

static int gunzip(const unsigned char *in, size_t len, struct bytes *out)
{
	z_stream s;
	int rc = Z_MEM_ERROR;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return -1;
	s.next_in = (unsigned char *)in;
	s.avail_in = len;
	do {
		if (out->len == out->cap && grow(out) < 0)
			break;
		s.next_out = out->data + out->len;
		s.avail_out = out->cap - out->len;
		rc = inflate(&s, Z_FINISH);
		out->len = out->cap - s.avail_out;
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	inflateEnd(&s);
	return rc == Z_STREAM_END ? 0 : -1;
}

/* Does one PT_NOTE segment hold Xen's PVH entry note? */
static bool note_has_pvh(const unsigned char *p, size_t len)
{
	while (len >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr n;
		size_t name, desc;

		memcpy(&n, p, sizeof(n));
		name = (n.n_namesz + 3) & ~3u;
		desc = (n.n_descsz + 3) & ~3u;
		if (name > len - sizeof(n) || desc > len - sizeof(n) - name)
			return false;
		if (n.n_type == XEN_ELFNOTE_PHYS32_ENTRY && n.n_namesz == 4 &&
		    memcmp(p + sizeof(n), "Xen", 4) == 0)
			return true;
		p += sizeof(n) + name + desc;
		len -= sizeof(n) + name + desc;
	}
	return false;
}

/* True if ELF is an x86-64 executable qemu can boot through the PVH entry. */
bool vm_elf_has_pvh(const unsigned char *elf, size_t len)
{
	Elf64_Ehdr eh;
	int i;

	if (len < sizeof(eh) || memcmp(elf, ELFMAG, SELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64)
		return false;
	memcpy(&eh, elf, sizeof(eh));
	if (eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff > len || eh.e_phnum > (len - eh.e_phoff) / sizeof(Elf64_Phdr))
		return false;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, elf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE && ph.p_offset <= len && ph.p_filesz <= len - ph.p_offset &&
		    note_has_pvh(elf + ph.p_offset, ph.p_filesz))
			return true;
	}
	return false;
}

/* The uncompressed ELF of a bzImage if it can boot through PVH; why not otherwise. */
static int unpack_kernel(const unsigned char *img, size_t len, struct bytes *elf,
			 const char **why)
{
	const unsigned char *payload;
	size_t plen;
	int rc;

	if (bzimage_payload(img, len, &payload, &plen) < 0) {
		*why = "not a bzImage with a boot protocol 2.08+ header";
		return -1;
	}
	if (plen >= 6 && memcmp(payload, "\xfd" "7zXZ\0", 6) == 0)
		rc = unxz(payload, plen, elf);
	else if (plen >= 2 && payload[0] == 0x1f && payload[1] == 0x8b)
		rc = gunzip(payload, plen, elf);
	else {
		*why = "its payload is neither xz nor gzip";
		return -1;
	}
	if (rc < 0) {
		*why = "its payload does not decompress";
		return -1;
	}
	if (!vm_elf_has_pvh(elf->data, elf->len)) {
		*why = "the kernel has no PVH entry point (CONFIG_PVH)";
		return -1;
	}
	return 0;
}

/* The cache name changes whenever the package replaces the image file. */
static void cached_name(const struct vm_host *h, const struct stat *st, char *name, size_t len)
{
	uint64_t hash = hash_bytes("utap-vmlinux-1", 14, 0);

	hash = hash_bytes(&st->st_size, sizeof(st->st_size), hash);
	hash = hash_bytes(&st->st_mtim, sizeof(st->st_mtim), hash);
	hash = hash_bytes(&st->st_ctim, sizeof(st->st_ctim), hash);
	hash = hash_bytes(&st->st_ino, sizeof(st->st_ino), hash);
	snprintf(name, len, "vmlinux-%s-%016llx", h->krel, (unsigned long long)hash);
}

static int unpack_into_cache(const struct vm_config *cfg, const struct vm_host *h,
			     const char *path)
{
	struct bytes elf = { NULL, 0, 0 };
	const char *why = NULL;
	char *img;
	size_t len;
	int rc = -1;

	if (!(img = slurp_file(h->kernel, &len))) {
		vm_note(cfg, "cannot read %s: %s", h->kernel, strerror(errno));
		return -1;
	}
	if (unpack_kernel((unsigned char *)img, len, &elf, &why) < 0)
		vm_note(cfg, "booting %s as it is: %s", h->kernel, why);
	else if (vm_write_atomic(path, elf.data, elf.len) < 0)
		vm_note(cfg, "cannot write %s: %s", path, strerror(errno));
	else
		rc = 0;
	free(img);
	free(elf.data);
	return rc;
}

/* Put in PATH the kernel file to give qemu: the cached PVH ELF or the bzImage itself. */
void vm_boot_kernel(const struct vm_config *cfg, const struct vm_host *h, char *path, size_t len)
{
	char name[300], prefix[300], none[PATH_MAX + 320];
	struct stat st;

	snprintf(path, len, "%s", h->kernel);
	if (!h->cache[0] || stat(h->kernel, &st) < 0)
		return;
	cached_name(h, &st, name, sizeof(name));
	snprintf(none, sizeof(none), "%s/%s.none", h->cache, name);
	snprintf(path, len, "%s/%s", h->cache, name);
	if (access(path, R_OK) == 0)
		return;
	if (access(none, F_OK) == 0 || unpack_into_cache(cfg, h, path) < 0) {
		/* remember that this image cannot be unpacked, so later runs skip trying */
		vm_write_atomic(none, "", 0);
		snprintf(path, len, "%s", h->kernel);
		return;
	}
	vm_note(cfg, "unpacked %s into %s (PVH boot skips the decompressor)", h->kernel, path);
	snprintf(prefix, sizeof(prefix), "vmlinux-%s-", h->krel);
	vm_prune_cache(h->cache, prefix, name);
}
