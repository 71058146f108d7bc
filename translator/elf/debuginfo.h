/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo.h - open an ELF file together with the debug data that belongs
 * to it: its build-id, its separate debuginfo file (found by build-id or by
 * .gnu_debuglink) and its .gnu_debugdata "minidebuginfo" (an xz-compressed
 * ELF holding a .symtab of the local functions that .dynsym lacks).
 *
 * Every reader of symbols, CFI or line tables in the translator starts here,
 * so that they all agree on which files describe one binary.
 *
 * Lookup order for the separate file (the one distros install under
 * /usr/lib/debug):
 *   1. ROOT/.build-id/xx/rest.debug, where xx/rest is the build-id in hex;
 *   2. the .gnu_debuglink name in the binary's own directory, in DIR/.debug/,
 *      and in ROOT/DIR/ (DIR = the binary's directory, absolute).
 * A candidate is accepted only when it matches: equal build-ids if both
 * have one, else the debuglink CRC32 of the whole candidate file.
 *
 * All functions return 0 on success and a negative errno-style value when
 * the thing asked for is absent (-ENOENT) or broken (-EINVAL, -ENOMEM).
 * Nothing here prints; callers decide what is worth a warning.
 */
#ifndef UTAP_ELF_DEBUGINFO_H
#define UTAP_ELF_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

/* Build-ids are 20 bytes (sha1) in practice; allow longer ones (e.g. md5/uuid/sha256). */
#define UTAP_BUILD_ID_MAX 64

struct utap_build_id {
	size_t len;			/* 0: the file has no build-id */
	unsigned char bytes[UTAP_BUILD_ID_MAX];
};

/*
 * One opened ELF image. Either backed by a file descriptor or by a heap
 * buffer (a decompressed .gnu_debugdata, or bytes handed in by a fuzzer);
 * utap_elf_close() releases whichever it owns.
 */
struct utap_elf {
	Elf *elf;			/* NULL: not open */
	int fd;				/* -1 when not file-backed */
	void *mem;			/* owned image for elf_memory(), or NULL */
	size_t mem_size;
	char *path;			/* owned copy of the path, or NULL */
};

/* Open PATH read-only with libelf. Sets elf_version() on first use. */
int utap_elf_open(struct utap_elf *out, const char *path);

/*
 * Wrap an in-memory image. Takes ownership of IMAGE (allocated with
 * malloc) when OWN is nonzero; otherwise the caller keeps IMAGE alive for
 * as long as OUT is open.
 */
int utap_elf_open_memory(struct utap_elf *out, void *image, size_t size, int own);

/* Release everything OUT owns; safe on a zeroed or already-closed struct. */
void utap_elf_close(struct utap_elf *e);

/* Read the NT_GNU_BUILD_ID note (from PT_NOTE segments, else SHT_NOTE sections). */
int utap_elf_build_id(Elf *elf, struct utap_build_id *id);

/* Lowercase hex of ID into BUF (needs 2 * len + 1 bytes); "" when len is 0. */
void utap_build_id_hex(const struct utap_build_id *id, char *buf, size_t size);

/* The .gnu_debuglink file name (NUL-terminated, copied to NAME) and its CRC32. */
int utap_elf_debuglink(Elf *elf, char *name, size_t size, uint32_t *crc);

/*
 * Decompress .gnu_debugdata (xz, via liblzma, into memory with a size cap)
 * and open the result with elf_memory(). -ENOENT when the section is absent.
 */
int utap_elf_open_minidebug(Elf *elf, struct utap_elf *out);

/*
 * Find and open the separate debuginfo file of the binary at PATH (whose
 * opened image is ELF). ROOT is the debug root, NULL for "/usr/lib/debug"
 * (tests pass their own). PATH may be NULL when only the build-id route
 * applies. -ENOENT when nothing matching was found.
 */
int utap_elf_open_separate(const char *path, Elf *elf, const char *root,
			   struct utap_elf *out);

/*
 * Everything known about one binary. Any of separate/mini may be absent
 * (elf == NULL). The readers use them in this order of preference:
 * separate debuginfo (full .symtab, .debug_line, .debug_frame), the file
 * itself (.symtab or .dynsym, .eh_frame), then minidebuginfo (.symtab).
 */
struct utap_debuginfo {
	struct utap_elf file;
	struct utap_elf separate;
	struct utap_elf mini;
	struct utap_build_id build_id;	/* of the file itself */
};

/* Which companions utap_debuginfo_open*() should look for. */
#define UTAP_DI_SEPARATE	0x1u	/* search the file system for separate debuginfo */
#define UTAP_DI_MINI		0x2u	/* decompress .gnu_debugdata */
#define UTAP_DI_ALL		(UTAP_DI_SEPARATE | UTAP_DI_MINI)

/* Open PATH and the companions named in FLAGS. Only a failure to open PATH is an error. */
int utap_debuginfo_open(struct utap_debuginfo *di, const char *path,
			const char *root, unsigned flags);

/*
 * The same for an image already in memory (fuzzers, run-time builds from
 * bytes). PATH, if not NULL, names where it came from for the debuglink
 * search; with flags lacking UTAP_DI_SEPARATE the file system is never touched.
 */
int utap_debuginfo_open_memory(struct utap_debuginfo *di, void *image, size_t size,
			       const char *path, const char *root, unsigned flags);

void utap_debuginfo_close(struct utap_debuginfo *di);

#endif /* UTAP_ELF_DEBUGINFO_H */
