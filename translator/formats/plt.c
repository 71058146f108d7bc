/*
 * plt.c - names for PLT stubs ("printf@plt"), which no symbol table lists:
 * without them a call through the PLT would be charged to whatever symbol
 * precedes .plt (usually _init).
 *
 * Each stub of .plt (after PLT0), .plt.sec and .plt.got is decoded until
 * its indirect jmp *GOT(%rip); the GOT slot's relocation (JUMP_SLOT in
 * .rela.plt, GLOB_DAT in .rela.dyn) names the symbol. This works for lazy
 * and non-lazy PLTs, with and without IBT, without knowing their layouts.
 */
#include "formats/tout_int.h"
#include "arch/x86_64/insn.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct got_name {
	uint64_t got;
	const char *name;	/* in the ELF file's string table */
};

static int by_got(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int by_start(const void *a, const void *b)
{
	const struct tplt *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every GOT slot a JUMP_SLOT or GLOB_DAT relocation fills, with its symbol's name. */
static struct got_name *got_names(Elf *e, size_t *n)
{
	struct got_name *g = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;

	*n = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh, lsh;
		Elf_Data *d, *syms;
		Elf_Scn *link;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		link = elf_getscn(e, sh.sh_link);
		d = elf_getdata(scn, NULL);
		syms = link ? elf_getdata(link, NULL) : NULL;
		if (!d || !syms || !gelf_getshdr(link, &lsh))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;
			const char *name;
			unsigned int type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
				continue;
			if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
				continue;
			name = elf_strptr(e, lsh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (!grow((void **)&g, &cap, *n + 1, sizeof(*g)))
				break;
			g[(*n)++] = (struct got_name){ r.r_offset, name };
		}
	}
	tsort(g, *n, sizeof(*g), by_got);
	return g;
}

static const char *got_lookup(const struct got_name *g, size_t n, uint64_t got)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].got == got ? g[lo].name : NULL;
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

void tmod_load_plt(struct tmod *m)
{
	Elf *e = m->di.file.elf;
	struct got_name *g;
	Elf_Scn *scn = NULL;
	size_t ng, shstrndx;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return;
	g = got_names(e, &ng);
	if (!g)
		return;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sname;
		size_t stub, first;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || (strcmp(sname, ".plt") && strcmp(sname, ".plt.sec") &&
			       strcmp(sname, ".plt.got")))
			continue;
		d = elf_getdata(scn, NULL);
		stub = sh.sh_entsize ? sh.sh_entsize : 16;
		if (!d || !d->d_buf || d->d_size < sh.sh_size || stub > 64)
			continue;
		first = strcmp(sname, ".plt") ? 0 : stub;	/* PLT0 resolves, it is no stub */
		for (size_t off = first; off + stub <= sh.sh_size; off += stub) {
			uint64_t got = stub_got((const uint8_t *)d->d_buf + off, stub, sh.sh_addr + off);
			const char *name = got ? got_lookup(g, ng, got) : NULL;
			char *full;

			if (!name || !grow((void **)&m->plts, &m->capplts, m->nplts + 1,
					   sizeof(*m->plts)))
				continue;
			if (asprintf(&full, "%s@plt", name) < 0)
				continue;
			m->plts[m->nplts++] = (struct tplt){ sh.sh_addr + off, sh.sh_addr + off + stub,
							     full };
		}
	}
	free(g);
	tsort(m->plts, m->nplts, sizeof(*m->plts), by_start);
}

int64_t tmod_plt(const struct tmod *m, uint64_t rel, const char **name)
{
	size_t lo = 0, hi = m->nplts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->plts[mid].end <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->nplts || m->plts[lo].start > rel)
		return -1;
	*name = m->plts[lo].name;
	return (int64_t)lo;
}

void tmod_free_plt(struct tmod *m)
{
	for (size_t i = 0; i < m->nplts; i++)
		free(m->plts[i].name);
	free(m->plts);
	m->plts = NULL;
	m->nplts = m->capplts = 0;
}
