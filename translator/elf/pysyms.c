// SPDX-License-Identifier: GPL-2.0
/*
 * pysyms.c - a CPython binary's dynamic symbols for pybacktrace(). They
 * are read from .dynsym, which strip keeps: Debian's python3.11 has no
 * other symbol table.
 */
#include "elf/pysyms.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#define UTAP_PY_SYM_NAME(name, sym) sym,
static const char *const py_names[UTAP_PY_NSYMS] = { UTAP_PY_SYMS(UTAP_PY_SYM_NAME) };
#undef UTAP_PY_SYM_NAME

static void scan_dynsym(Elf *e, uint64_t vals[UTAP_PY_NSYMS])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			for (int k = 0; name && k < UTAP_PY_NSYMS; k++)
				if (!strcmp(name, py_names[k]))
					vals[k] = sym.st_value;
		}
	}
}

bool elf_py_syms(const char *path, uint64_t vals[UTAP_PY_NSYMS])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	memset(vals, 0, UTAP_PY_NSYMS * sizeof(vals[0]));
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		scan_dynsym(e, vals);
	if (e)
		elf_end(e);
	close(fd);
	return vals[UTAP_PY_RUNTIME] != 0;
}
