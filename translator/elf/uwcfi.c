// SPDX-License-Identifier: GPL-2.0
/*
 * uwcfi.c - enumerate the FDEs of one CFI section and evaluate each row.
 *
 * libdw evaluates a CFA program for an address (dwarf_cfi_addrframe) and
 * tells the row's extent, but has no FDE iterator. So we walk the section
 * with dwarf_next_cfi, decode each FDE's pc range ourselves (the pointer
 * encodings of the CIE's "R" augmentation), then step through the FDE one
 * row at a time.
 */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <dwarf.h>
#include "elf/uwbuild_int.h"

/* A FDE pointer encoding we understood, per CIE. */
struct cie_enc {
	Dwarf_Off off;
	int enc;		/* DW_EH_PE_* of pc fields, -1: unusable CIE */
};

struct cie_cache {
	struct cie_enc *v;
	size_t n, cap;
};

static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *start = *p;
	unsigned int bits;

	if (!read_uleb(p, end, v))
		return false;
	bits = 7 * (unsigned int)(*p - start);
	if (bits < 64 && (*v >> (bits - 1)) & 1)
		*v |= ~0ull << bits;
	return true;
}

/* Little-endian fixed-size field of SIZE bytes, sign-extended if SIGNED. */
static bool read_fixed(const uint8_t **p, const uint8_t *end, unsigned int size,
		       bool is_signed, uint64_t *v)
{
	unsigned int i;

	if ((size_t)(end - *p) < size)
		return false;
	*v = 0;
	for (i = 0; i < size; i++)
		*v |= (uint64_t)(*p)[i] << (8 * i);
	if (is_signed && size < 8 && (*v >> (8 * size - 1)) & 1)
		*v |= ~0ull << (8 * size);
	*p += size;
	return true;
}

/*
 * Decode one DW_EH_PE-encoded value at *P. FIELD is the vaddr of the field
 * for pc-relative values; APPLY false ignores the application bits (used
 * for address_range, which is a plain size).
 */
static bool read_encoded(const uint8_t **p, const uint8_t *end, int enc,
			 uint64_t field, bool apply, uint64_t *v)
{
	bool ok;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:	ok = read_fixed(p, end, 8, false, v); break;
	case DW_EH_PE_uleb128:	ok = read_uleb(p, end, v); break;
	case DW_EH_PE_udata2:	ok = read_fixed(p, end, 2, false, v); break;
	case DW_EH_PE_udata4:	ok = read_fixed(p, end, 4, false, v); break;
	case DW_EH_PE_udata8:	ok = read_fixed(p, end, 8, false, v); break;
	case DW_EH_PE_sleb128:	ok = read_sleb(p, end, v); break;
	case DW_EH_PE_sdata2:	ok = read_fixed(p, end, 2, true, v); break;
	case DW_EH_PE_sdata4:	ok = read_fixed(p, end, 4, true, v); break;
	case DW_EH_PE_sdata8:	ok = read_fixed(p, end, 8, true, v); break;
	default:		return false;
	}
	if (!ok || !apply)
		return ok;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:	return true;
	case DW_EH_PE_pcrel:	*v += field; return true;
	default:		return false;	/* textrel/datarel: not in x86-64 code */
	}
}

/* The pc encoding from a CIE's augmentation ("zR", "zPLR", "zRS" ...). */
static int cie_pc_encoding(const Dwarf_CIE *cie, bool eh)
{
	const char *aug = cie->augmentation;
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	uint64_t skip;

	if (!eh)
		return DW_EH_PE_absptr;
	if (!aug || aug[0] == '\0')
		return DW_EH_PE_absptr;
	if (aug[0] != 'z' || !p)
		return -1;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
			return p < end ? *p : -1;
		case 'L':
			p++;
			break;
		case 'P':
			if (p >= end)
				return -1;
			p++;
			if (!read_encoded(&p, end, p[-1], 0, false, &skip))
				return -1;
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_lookup(struct cie_cache *cc, const unsigned char *ident,
		      Elf_Data *data, bool eh, Dwarf_Off off)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	size_t i;
	int enc = -1;

	for (i = cc->n; i-- > 0;)
		if (cc->v[i].off == off)
			return cc->v[i].enc;
	if (dwarf_next_cfi(ident, data, eh, off, &next, &entry) == 0 &&
	    dwarf_cfi_cie_p(&entry))
		enc = cie_pc_encoding(&entry.cie, eh);
	if (uwb_grow((void **)&cc->v, &cc->cap, cc->n, sizeof(*cc->v)))
		return -1;
	cc->v[cc->n++] = (struct cie_enc){ off, enc };
	return enc;
}

int uwb_grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? 2 * *cap : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, want * size);
	if (!p)
		return -1;
	*v = p;
	*cap = want;
	return 0;
}

int uwb_rows_push(struct uwb_rows *rows, uint64_t start, uint64_t end,
		  const struct uwt_rule *rule)
{
	if (uwb_grow((void **)&rows->v, &rows->cap, rows->n, sizeof(*rows->v)))
		return -1;
	rows->v[rows->n++] = (struct uwb_row){ start, end, *rule };
	return 0;
}

void uwb_rows_free(struct uwb_rows *rows)
{
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

/* Evaluate every row of the FDE covering [lo, hi). */
static int fde_rows(Dwarf_CFI *cfi, uint64_t lo, uint64_t hi,
		    struct uwb_rows *rows)
{
	uint64_t a = lo;

	while (a < hi) {
		Dwarf_Frame *frame;
		Dwarf_Addr start, end;
		struct uwt_rule rule;
		enum uwb_class cls;
		bool signal;

		if (dwarf_cfi_addrframe(cfi, a, &frame)) {
			rows->bad_fdes++;
			return 0;
		}
		if (dwarf_frame_info(frame, &start, &end, &signal) < 0 ||
		    end <= a) {
			free(frame);
			rows->bad_fdes++;
			return 0;
		}
		if (end > hi)
			end = hi;
		cls = uwb_classify(frame, signal, &rule);
		free(frame);
		rows->cfi_rows++;
		rows->partial_rows += cls == UWB_PARTIAL;
		if (cls == UWB_UNSUPPORTED) {
			rows->unsupported_rows++;
			rows->unsupported_bytes += end - a;
		}
		if (uwb_rows_push(rows, a, end, &rule))
			return -1;
		a = end;
	}
	return 0;
}

/* The pc range [*lo, *hi) of an FDE; false when it cannot be decoded. */
static bool fde_range(const Dwarf_FDE *fde, int enc, uint64_t field,
		      uint64_t *lo, uint64_t *hi)
{
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t len;

	if (enc < 0 || (enc & DW_EH_PE_indirect))
		return false;
	if (!read_encoded(&p, end, enc, field, true, lo) ||
	    !read_encoded(&p, end, enc & 0x0f, 0, false, &len))
		return false;
	*hi = *lo + len;
	return *hi >= *lo;
}

static Elf_Data *section_data(Elf_Scn *scn)
{
	GElf_Shdr shdr;

	if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
		return NULL;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	return elf_getdata(scn, NULL);
}

int uwb_section_rows(Elf *elf, Elf_Scn *scn, bool eh, Dwarf_CFI *cfi,
		     struct uwb_rows *rows)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Data *data = section_data(scn);
	struct cie_cache cc = { 0 };
	Dwarf_Off off = 0, next;
	GElf_Shdr shdr;
	int ret = 0;

	if (!ident || !data || !data->d_buf || !gelf_getshdr(scn, &shdr))
		return 0;
	while (off < data->d_size) {
		Dwarf_CFI_Entry entry;
		uint64_t lo, hi, field;
		int enc;

		if (dwarf_next_cfi(ident, data, eh, off, &next, &entry) != 0 ||
		    next <= off)
			break;
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		rows->fdes++;
		enc = cie_lookup(&cc, ident, data, eh, entry.fde.CIE_pointer);
		field = shdr.sh_addr + (uint64_t)(entry.fde.start -
						  (const uint8_t *)data->d_buf);
		if (!fde_range(&entry.fde, enc, field, &lo, &hi)) {
			rows->bad_fdes++;
			continue;
		}
		if (hi == lo)
			continue;
		ret = fde_rows(cfi, lo, hi, rows);
		if (ret)
			break;
	}
	free(cc.v);
	return ret;
}
