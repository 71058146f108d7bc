/*
 * process_bin.h - the user-space binaries that process(...) probes name:
 * finding them the way stap does, checking that they are ELF files a
 * uprobe can live in, their function symbols, and the file offsets that
 * uprobe_register() wants for link-time addresses.
 *
 * Every binary is opened once per translation (cached by canonical path)
 * and stays open: the SDT and DWARF readers work on the same handle.
 */
#ifndef UTAP_PROCESS_BIN_H
#define UTAP_PROCESS_BIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/debuginfo.h"

/* A function symbol: what .function("name") can resolve to. */
struct ufunc {
	const char *name;		/* the symbol: C name, or C++ mangled name */
	uint64_t vaddr;			/* link-time address (st_value) */
	uint64_t size;			/* st_size, 0 if unknown */
	const char *demangled;		/* C++: "ns::C<long>::f", no parameters (cxxname.h) */
	const char *dwname;		/* C++ with DWARF: "ns::C<long int>::f" (dwarf_names.h) */
	const struct ufunc *alias;	/* C++: the previous symbol of this function (C1/C2) */
};

struct useg {
	uint64_t vaddr, memsz, offset, filesz;
	unsigned flags;		/* PF_R | PF_W | PF_X */
};

struct sdt_note;
struct dwarf_file;
struct dwarf_site;

struct ubinary {
	const char *path;		/* canonical absolute path */
	bool is_dyn;			/* ET_DYN: PIE or shared library */
	const char *symsrc;		/* where the functions came from, for messages */
	struct ufunc *funcs;		/* sorted by name; one entry per name */
	size_t nfuncs;
	struct useg *segs;		/* PT_LOAD segments */
	size_t nsegs;
	struct utap_debuginfo di;	/* the file, its separate debuginfo, minidebuginfo */

	/* filled in on first use by sdt.c and dwarf_vars.c */
	bool sdt_loaded;
	struct sdt_note *notes;
	size_t nnotes;
	bool dwarf_loaded;
	struct dwarf_file *dwarf;
	bool dwnames_loaded;		/* ufunc.dwname filled in (dwarf_names.c) */
	bool inlines_loaded;		/* dwarf_inline.c */
	struct dwarf_site *inlines;
	size_t ninlines;
};

/*
 * The canonical path of the binary NAME names: a name with a '/' is taken
 * relative to the current directory; a bare name is searched in $PATH,
 * and, when it looks like a shared library ("*.so*"), in $LD_LIBRARY_PATH,
 * the ld.so.conf directories and the default library directories. NULL
 * when nothing is found.
 */
const char *ubin_find(const char *name);

/*
 * The binary at canonical PATH, opened and read (cached). NULL with *why
 * set to a reason ("not an ELF file", "...") when it cannot be probed.
 */
struct ubinary *ubin_open(const char *path, const char **why);

/* The address of symbol NAME (any type, .symtab or .dynsym); false if there is none. */
bool ubin_symbol(const struct ubinary *b, const char *name, uint64_t *vaddr);

/* The file offset of link-time address VADDR; false if no PT_LOAD maps it from the file. */
bool ubin_offset(const struct ubinary *b, uint64_t vaddr, uint64_t *offset);

/* True if VADDR lies in an executable PT_LOAD segment. */
bool ubin_is_code(const struct ubinary *b, uint64_t vaddr);

/* A shared library a program needs: its DT_NEEDED name and where it is. */
struct ulib {
	const char *name;		/* "libc.so.6"; the interpreter's own base name */
	const char *path;		/* canonical path */
};

/*
 * The libraries B needs when it starts, as the dynamic loader would find
 * them without running anything: B's DT_NEEDED entries, theirs in turn
 * (breadth first, each once), searched in DT_RUNPATH/DT_RPATH ($ORIGIN
 * expanded), LD_LIBRARY_PATH, ld.so.conf and the default directories, and
 * B's PT_INTERP. A name not found is left out. Returns the count.
 */
size_t ubin_needed(const struct ubinary *b, struct ulib **out);

/* The canonical path of /proc/PID/exe on this machine, or NULL. */
const char *ubin_pid_exe(long pid);

#endif /* UTAP_PROCESS_BIN_H */
