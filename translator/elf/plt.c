// SPDX-License-Identifier: GPL-2.0
/*
 * plt.c - PLT stubs and the symbols they jump to.
 *
 * Each stub of .plt (after PLT0), .plt.sec and .plt.got is decoded until
 * its indirect jmp *GOT(%rip); the GOT slot's relocation names the target:
 * JUMP_SLOT (.rela.plt) and GLOB_DAT (.rela.dyn) by their symbol,
 * IRELATIVE (a libc calling its own IFUNCs) by the IFUNC symbol at the
 * resolver address in its addend. This works for lazy and non-lazy PLTs,
 * with and without IBT, without knowing their layouts.
 */
#include "elf/plt.h"
#include "arch/x86_64/insn.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plt_files {
	Elf *elf;	/* the file with the PLT and its relocations */
	Elf *debug;	/* its separate debuginfo, or NULL */
};

struct got_name {
	uint64_t got;
	const char *name;	/* in the ELF file's string table */
};

struct got_names {
	struct got_name *v;
	size_t n, cap;
};

static int by_got(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int by_start(const void *a, const void *b)
{
	const struct elf_plt_stub *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Room for one more element of SIZE bytes in *V (holding N of CAP). */
static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* The first IFUNC symbol at VALUE in E's symbol tables (.dynsym, then .symtab). */
static const char *ifunc_in(Elf *e, uint64_t value)
{
	static const Elf64_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };

	for (size_t k = 0; k < 2; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[k] || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				const char *name;
				GElf_Sym s;

				if (!gelf_getsym(d, (int)i, &s) || s.st_value != value ||
				    GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC)
					continue;
				name = elf_strptr(e, sh.sh_link, s.st_name);
				if (name && *name)
					return name;
			}
		}
	}
	return NULL;
}

/* The same in the file, then in its separate debuginfo (a stripped file's locals). */
static const char *ifunc_at(const struct plt_files *f, uint64_t value)
{
	const char *name = ifunc_in(f->elf, value);

	return name || !f->debug ? name : ifunc_in(f->debug, value);
}

/* The name relocation R of symbol table SYMS (strings in section STRNDX) gives its slot. */
static const char *rela_target(const struct plt_files *f, const GElf_Rela *r, Elf_Data *syms,
			       size_t strndx)
{
	unsigned int type = GELF_R_TYPE(r->r_info);
	GElf_Sym s;

	if (type == R_X86_64_IRELATIVE)
		return ifunc_at(f, (uint64_t)r->r_addend);
	if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
		return NULL;
	if (!syms || !gelf_getsym(syms, (int)GELF_R_SYM(r->r_info), &s))
		return NULL;
	return elf_strptr(f->elf, strndx, s.st_name);
}

/* The named GOT slots of one SHT_RELA section. */
static int add_rela_names(const struct plt_files *f, Elf_Scn *scn, const GElf_Shdr *sh,
			  struct got_names *g)
{
	Elf_Scn *link = elf_getscn(f->elf, sh->sh_link);
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Data *syms = link ? elf_getdata(link, NULL) : NULL;
	GElf_Shdr lsh = { 0 };

	if (!d || (link && !gelf_getshdr(link, &lsh)))
		return 0;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;
		GElf_Rela r;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		name = rela_target(f, &r, syms, lsh.sh_link);
		if (!name || !*name)
			continue;
		if (reserve((void **)&g->v, &g->cap, g->n, sizeof(*g->v)))
			return -ENOMEM;
		g->v[g->n++] = (struct got_name){ r.r_offset, name };
	}
	return 0;
}

static int collect_got_names(const struct plt_files *f, struct got_names *g)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		if (add_rela_names(f, scn, &sh, g))
			return -ENOMEM;
	}
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), by_got);
	return 0;
}

static const char *got_lookup(const struct got_names *g, uint64_t got)
{
	struct got_name key = { got, NULL };
	const struct got_name *hit = g->n ? bsearch(&key, g->v, g->n, sizeof(*g->v), by_got) : NULL;

	return hit ? hit->name : NULL;
}

/* The GOT slot the stub at VADDR (BYTES, SIZE of them) jumps through, or 0. */
static uint64_t stub_got(const uint8_t *bytes, size_t size, uint64_t vaddr)
{
	size_t off = 0;

	while (off < size) {
		struct x86_insn_info xi;
		int len = x86_insn_decode(bytes + off, size - off, &xi);

		if (len <= 0)
			return 0;
		off += (size_t)len;
		if (xi.flow == X86_FLOW_JMP_IND && xi.has_mem && xi.rip_rel)
			return vaddr + off + (uint64_t)xi.disp;
		if (xi.flow != X86_FLOW_SEQ)
			return 0;
	}
	return 0;
}

/* Every stub of one PLT section whose GOT slot has a name. */
static int add_section_stubs(Elf_Scn *scn, const GElf_Shdr *sh, bool has_plt0, bool got_only,
			     const struct got_names *g, struct elf_plt *out, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t stub = sh->sh_entsize ? sh->sh_entsize : 16;

	if (!d || !d->d_buf || d->d_size < sh->sh_size || stub > 64)
		return 0;
	for (size_t off = has_plt0 ? stub : 0; off + stub <= sh->sh_size; off += stub) {
		uint64_t got = stub_got((const uint8_t *)d->d_buf + off, stub, sh->sh_addr + off);
		const char *name = got ? got_lookup(g, got) : NULL;
		char *full;

		if (!name)
			continue;
		if (reserve((void **)&out->stubs, cap, out->nstubs, sizeof(*out->stubs)) ||
		    asprintf(&full, "%s@plt", name) < 0)
			return -ENOMEM;
		out->stubs[out->nstubs++] = (struct elf_plt_stub){ sh->sh_addr + off,
								   sh->sh_addr + off + stub, full,
								   got_only };
	}
	return 0;
}

static int collect_stubs(Elf *e, const struct got_names *g, struct elf_plt *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, cap = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || (strcmp(sname, ".plt") && strcmp(sname, ".plt.sec") &&
			       strcmp(sname, ".plt.got")))
			continue;
		if (out->nsections < ELF_PLT_MAX_SECTIONS)
			out->sections[out->nsections++] = (struct elf_plt_section){
				sh.sh_addr, sh.sh_addr + sh.sh_size };
		/* PLT0 of .plt calls the resolver; it is no stub */
		if (add_section_stubs(scn, &sh, !strcmp(sname, ".plt"), !strcmp(sname, ".plt.got"), g,
				      out, &cap))
			return -ENOMEM;
	}
	return 0;
}

int elf_plt_read(Elf *e, Elf *debug, struct elf_plt *out)
{
	struct plt_files f = { e, debug };
	struct got_names g = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	if (!e)
		return 0;
	err = collect_got_names(&f, &g);
	if (!err)
		err = collect_stubs(e, &g, out);
	free(g.v);
	if (err) {
		elf_plt_free(out);
		return err;
	}
	if (out->nstubs)
		qsort(out->stubs, out->nstubs, sizeof(*out->stubs), by_start);
	return 0;
}

void elf_plt_free(struct elf_plt *p)
{
	for (size_t i = 0; i < p->nstubs; i++)
		free(p->stubs[i].name);
	free(p->stubs);
	memset(p, 0, sizeof(*p));
}
