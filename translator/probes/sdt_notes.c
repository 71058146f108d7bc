/*
 * sdt_notes.c - reading SDT notes and their argument descriptions. See sdt_notes.h.
 *
 * An NT_STAPSDT note (owner "stapsdt", type 3) holds three addresses -
 * the marker, the link-time address of .stapsdt.base, the semaphore -
 * then three NUL-terminated strings: provider, name, arguments. If the
 * file was prelinked, .stapsdt.base moved and both addresses move with it.
 */
#include "probes/sdt_notes.h"
#include "base/base.h"

#include <ctype.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define NT_STAPSDT 3

const char *const sdt_reg_names[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

/* ---- registers ------------------------------------------------------------ */

struct reg_form {
	int reg, width, shift;
};

/* "rax", "eax", "ax", "al", "ah", "r8d", "sil", "rip" ... */
static bool reg_from_name(const char *n, struct reg_form *out)
{
	static const char legacy[4] = { 'a', 'b', 'c', 'd' };
	static const char *const sidx[4] = { "si", "di", "bp", "sp" };
	size_t len = strlen(n);

	for (int i = 0; i < 4; i++) {
		char x[4] = { legacy[i], 'x', 0 }, l[3] = { legacy[i], 'l', 0 },
		     h[3] = { legacy[i], 'h', 0 };

		if ((n[0] == 'r' || n[0] == 'e') && !strcmp(n + 1, x))
			return *out = (struct reg_form){ i, n[0] == 'r' ? 8 : 4, 0 }, true;
		if (!strcmp(n, x) || !strcmp(n, l) || !strcmp(n, h))
			return *out = (struct reg_form){ i, n[1] == 'x' ? 2 : 1, n[1] == 'h' ? 8 : 0 },
			       true;
	}
	for (int i = 0; i < 4; i++) {
		const char *s = sidx[i];

		if ((n[0] == 'r' || n[0] == 'e') && !strcmp(n + 1, s))
			return *out = (struct reg_form){ 4 + i, n[0] == 'r' ? 8 : 4, 0 }, true;
		if (!strcmp(n, s))
			return *out = (struct reg_form){ 4 + i, 2, 0 }, true;
		if (len == 3 && !strncmp(n, s, 2) && n[2] == 'l')
			return *out = (struct reg_form){ 4 + i, 1, 0 }, true;
	}
	if (n[0] == 'r' && isdigit((unsigned char)n[1])) {
		char *end;
		long r = strtol(n + 1, &end, 10);
		int width = !*end ? 8 : !strcmp(end, "d") ? 4 : !strcmp(end, "w") ? 2 :
			    (!strcmp(end, "b") || !strcmp(end, "l")) ? 1 : 0;

		if (r >= 8 && r <= 15 && width)
			return *out = (struct reg_form){ (int)r, width, 0 }, true;
	}
	if (!strcmp(n, "rip") || !strcmp(n, "eip"))
		return *out = (struct reg_form){ 16, n[0] == 'r' ? 8 : 4, 0 }, true;
	return false;
}

/* "%name" at *p: the register; advances *p past it. */
static bool read_reg(const char **p, struct reg_form *out)
{
	char name[8];
	size_t n = 0;

	if (**p != '%')
		return false;
	(*p)++;
	while (isalnum((unsigned char)**p) && n + 1 < sizeof(name))
		name[n++] = *(*p)++;
	name[n] = 0;
	return reg_from_name(name, out);
}

/* ---- operands -------------------------------------------------------------- */

/* A number or "symbol[+-number]" at *p (the displacement of a memory operand). */
static const char *read_disp(const struct ubinary *b, const char **p, struct sdt_arg *a)
{
	const char *s = *p;
	char *end;

	if (isalpha((unsigned char)*s) || *s == '_' || *s == '.') {
		char sym[256];
		size_t n = 0;
		uint64_t addr;

		while ((isalnum((unsigned char)*s) || strchr("_.$@", *s)) && n + 1 < sizeof(sym))
			sym[n++] = *s++;
		sym[n] = 0;
		if (!ubin_symbol(b, sym, &addr))
			return arena_printf("unknown symbol '%s'", sym);
		a->disp = (int64_t)addr;
		a->rip_relative = true;
		if (*s == '+' || *s == '-') {
			a->disp += strtoll(s, &end, 0);
			s = end;
		}
		*p = s;
		return NULL;
	}
	if (*s == '(')
		return NULL;
	a->disp = strtoll(s, &end, 0);
	if (end == s)
		return "a displacement that is not a number";
	*p = end;
	return NULL;
}

/* "(%base[,%index[,scale]])" at *p. */
static const char *read_mem(const char **p, struct sdt_arg *a)
{
	struct reg_form base = { -1, 0, 0 }, index;
	const char *s = *p;

	if (*s != '(')
		return NULL;	/* an absolute address or a symbol: no registers */
	s++;
	if (*s == '%' && !read_reg(&s, &base))
		return "an unknown base register";
	if (base.reg == 16) {
		/* sym(%rip) names sym's address; a number(%rip) would need the next insn */
		if (!a->rip_relative)
			return "a %rip-relative number";
		base.reg = -1;
	}
	a->reg = base.reg;
	if (*s == ',') {
		s++;
		if (!read_reg(&s, &index))
			return "an unknown index register";
		a->index = index.reg;
		if (*s == ',') {
			a->scale = (int)strtol(s + 1, (char **)&s, 10);
			if (a->scale != 1 && a->scale != 2 && a->scale != 4 && a->scale != 8)
				return "a bad scale";
		}
	}
	if (*s != ')')
		return "a memory operand without ')'";
	*p = s + 1;
	return NULL;
}

const char *sdt_parse_arg(const struct ubinary *b, const char *text, struct sdt_arg *a)
{
	const char *p = text, *at = strchr(text, '@'), *err;
	struct reg_form r;

	memset(a, 0, sizeof(*a));
	a->reg = a->index = -1;
	a->scale = 1;
	a->size = 8;
	a->is_signed = true;
	if (at) {
		int size = atoi(text);

		if (abs(size) != 1 && abs(size) != 2 && abs(size) != 4 && abs(size) != 8)
			return "a size that is not 1, 2, 4 or 8";
		a->size = abs(size);
		a->is_signed = size < 0;
		p = at + 1;
	}
	if (*p == '%') {
		if (!read_reg(&p, &r) || r.reg == 16)
			return "an unknown register";
		a->kind = SDT_REG;
		a->reg = r.reg;
		a->reg_width = r.width;
		a->reg_shift = r.shift;
	} else if (*p == '$') {
		char *end;

		a->kind = SDT_IMM;
		a->disp = strtoll(p + 1, &end, 0);
		if (end == p + 1)
			return "an immediate that is not a number";
		p = end;
	} else {
		a->kind = SDT_MEM;
		err = read_disp(b, &p, a);
		if (!err)
			err = read_mem(&p, a);
		if (err)
			return err;
	}
	return *p ? "trailing text" : NULL;
}

/* ---- notes ------------------------------------------------------------------- */

static bool section_addr(Elf *elf, const char *want, uint64_t *addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want)) {
			*addr = sh.sh_addr;
			return true;
		}
	}
	return false;
}

static void parse_args(const struct ubinary *b, struct sdt_note *n)
{
	char *copy = arena_strdup(n->args), *save = NULL;
	int max = 1;

	for (const char *s = n->args; *s; s++)
		max += *s == ' ';
	n->argv = arena_alloc(sizeof(*n->argv) * max);
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *err = sdt_parse_arg(b, tok, &n->argv[n->nargs]);

		if (err) {
			n->error = arena_printf("argument %d '%s': %s", n->nargs + 1, tok, err);
			return;
		}
		n->nargs++;
	}
}

/* One note's description: 3 addresses, then provider, name, arguments. */
static bool read_note(const char *desc, size_t size, uint64_t base_shift, struct sdt_note *n)
{
	const char *s = desc + 24, *end = desc + size;
	const char *strs[3];
	uint64_t pc, base, sema;

	if (size < 27)
		return false;
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sema, desc + 16, 8);
	for (int i = 0; i < 3; i++) {
		const char *nul = memchr(s, 0, (size_t)(end - s));

		if (!nul)
			return false;
		strs[i] = s;
		s = nul + 1;
		if (s >= end && i < 2)
			return false;
	}
	n->provider = arena_strdup(strs[0]);
	n->name = arena_strdup(strs[1]);
	n->args = arena_strdup(strs[2]);
	n->pc = pc + (base ? base_shift - base : 0);
	n->semaphore = sema ? sema + (base ? base_shift - base : 0) : 0;
	return true;
}

static void add_note(struct ubinary *b, const struct sdt_note *n, size_t *cap)
{
	if (b->nnotes == *cap) {
		struct sdt_note *v = arena_alloc(sizeof(*v) * (*cap * 2 + 8));

		if (b->nnotes)
			memcpy(v, b->notes, sizeof(*v) * b->nnotes);
		b->notes = v;
		*cap = *cap * 2 + 8;
	}
	b->notes[b->nnotes++] = *n;
}

size_t sdt_load(struct ubinary *b)
{
	Elf *elf = b->di.file.elf;
	uint64_t base = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	if (b->sdt_loaded)
		return b->nnotes;
	b->sdt_loaded = true;
	section_addr(elf, ".stapsdt.base", &base);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			struct sdt_note n = { 0 };

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((char *)data->d_buf + name_off, "stapsdt", 8))
				continue;
			if (!read_note((char *)data->d_buf + desc_off, nh.n_descsz, base, &n))
				continue;
			parse_args(b, &n);
			add_note(b, &n, &cap);
		}
	}
	return b->nnotes;
}
