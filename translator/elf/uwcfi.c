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
	bool z;			/* FDEs carry sized augmentation data */
};

struct cie_cache {
	struct cie_enc *v;
	size_t n, cap;
};

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
			if (!uwb_read_encoded(&p, end, p[-1], 0, false, &skip))
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

/* Index of the CIE at OFF in CC (parsed on first use), or -1 on no memory. */
static int cie_lookup(struct cie_cache *cc, const unsigned char *ident,
		      Elf_Data *data, bool eh, Dwarf_Off off)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	size_t i;
	int enc = -1;

	bool z = false;

	for (i = cc->n; i-- > 0;)
		if (cc->v[i].off == off)
			return i;
	if (dwarf_next_cfi(ident, data, eh, off, &next, &entry) == 0 &&
	    dwarf_cfi_cie_p(&entry)) {
		enc = cie_pc_encoding(&entry.cie, eh);
		z = entry.cie.augmentation && entry.cie.augmentation[0] == 'z';
		if (enc >= 0 && !uwb_cfa_program_ok(entry.cie.initial_instructions,
						    entry.cie.initial_instructions_end,
						    enc))
			enc = -1;
	}
	if (uwb_grow((void **)&cc->v, &cc->cap, cc->n, sizeof(*cc->v)))
		return -1;
	cc->v[cc->n++] = (struct cie_enc){ off, enc, z };
	return cc->n - 1;
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

/*
 * The pc range [*lo, *hi) of an FDE, after checking its CFA program;
 * false when either cannot be trusted to libdw.
 */
static bool fde_range(const Dwarf_FDE *fde, const struct cie_enc *cie,
		      uint64_t field, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t size, aug;

	if (cie->enc < 0 || (cie->enc & DW_EH_PE_indirect))
		return false;
	if (!uwb_read_encoded(&p, end, cie->enc, field, true, lo) ||
	    !uwb_read_encoded(&p, end, cie->enc & 0x0f, 0, false, &size))
		return false;
	/* "z": sized augmentation data, then the instructions */
	if (cie->z) {
		if (!uwb_read_uleb(&p, end, &aug) || aug > (uint64_t)(end - p))
			return false;
		p += aug;
	}
	if (!uwb_cfa_program_ok(p, end, cie->enc))
		return false;
	*hi = *lo + size;
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
		int cie;

		if (dwarf_next_cfi(ident, data, eh, off, &next, &entry) != 0 ||
		    next <= off)
			break;
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		rows->fdes++;
		cie = cie_lookup(&cc, ident, data, eh, entry.fde.CIE_pointer);
		if (cie < 0) {
			ret = -1;
			break;
		}
		field = shdr.sh_addr + (uint64_t)(entry.fde.start -
						  (const uint8_t *)data->d_buf);
		if (!fde_range(&entry.fde, &cc.v[cie], field, &lo, &hi)) {
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
