/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plt.h - names for PLT stubs ("printf@plt"), which no symbol table lists.
 * Used by the symbol table builder (backtraces, usymname()) and the trace
 * writers (callgrind, lcov), so code in a stub is not charged to whatever
 * symbol precedes .plt (often _init or __abi_tag).
 */
#ifndef UTAP_ELF_PLT_H
#define UTAP_ELF_PLT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One stub: [start, end) in ELF virtual addresses, its name "sym@plt". */
struct elf_plt_stub {
	uint64_t start, end;
	char *name;
	bool got_only;		/* in .plt.got (a GLOB_DAT slot), not a lazy .plt entry */
};

/* One PLT section: [start, end) in ELF virtual addresses. */
struct elf_plt_section {
	uint64_t start, end;
};

#define ELF_PLT_MAX_SECTIONS 3	/* .plt, .plt.sec, .plt.got */

struct elf_plt {
	struct elf_plt_stub *stubs;	/* sorted by start */
	size_t nstubs;
	struct elf_plt_section sections[ELF_PLT_MAX_SECTIONS];
	size_t nsections;
};

/*
 * The stubs of E's .plt (after PLT0), .plt.sec and .plt.got that jump
 * through a GOT slot with a named relocation: JUMP_SLOT or GLOB_DAT (the
 * symbol), or IRELATIVE (the IFUNC symbol at its resolver's address, in E
 * or else in its separate debuginfo DEBUG, which may be NULL).
 * 0, or -ENOMEM. A file without a PLT gives none. Free with elf_plt_free.
 */
int elf_plt_read(Elf *e, Elf *debug, struct elf_plt *out);
void elf_plt_free(struct elf_plt *p);

#endif /* UTAP_ELF_PLT_H */
