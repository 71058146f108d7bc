// SPDX-License-Identifier: GPL-2.0
/*
 * uwscan.c - raw CFI bytes: LEB128 and DW_EH_PE pointer decoding, and a
 * sanity scan of CFA programs before libdw runs them.
 *
 * libdw sizes its per-row register array by the largest register number a
 * program mentions, copies it for every DW_CFA_remember_state, and
 * re-runs the program from the start for every row we ask about. Hostile
 * CFI (a mapped file we did not choose) could make that gigabytes or
 * hours, so programs with absurd register numbers, state depth or row
 * counts are refused up front and their FDE counted as bad.
 */
#include <dwarf.h>
#include "elf/uwbuild_int.h"

#define MAX_CFI_REG	1024	/* x86-64 DWARF numbers end near 130 */
#define MAX_CFI_DEPTH	32	/* compilers nest remember_state 1-3 deep */
#define MAX_CFI_ROWS	8192	/* rows of one FDE; GCC's biggest are < 2000 */

bool uwb_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
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

bool uwb_read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *start = *p;
	unsigned int bits;

	if (!uwb_read_uleb(p, end, v))
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
bool uwb_read_encoded(const uint8_t **p, const uint8_t *end, int enc,
			 uint64_t field, bool apply, uint64_t *v)
{
	bool ok;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:	ok = read_fixed(p, end, 8, false, v); break;
	case DW_EH_PE_uleb128:	ok = uwb_read_uleb(p, end, v); break;
	case DW_EH_PE_udata2:	ok = read_fixed(p, end, 2, false, v); break;
	case DW_EH_PE_udata4:	ok = read_fixed(p, end, 4, false, v); break;
	case DW_EH_PE_udata8:	ok = read_fixed(p, end, 8, false, v); break;
	case DW_EH_PE_sleb128:	ok = uwb_read_sleb(p, end, v); break;
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

static bool skip(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if ((uint64_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* A register operand, refused when no real CFI would name it. */
static bool reg_operand(const uint8_t **p, const uint8_t *end)
{
	uint64_t reg;

	return uwb_read_uleb(p, end, &reg) && reg < MAX_CFI_REG;
}

static bool leb_operand(const uint8_t **p, const uint8_t *end)
{
	uint64_t v;

	return uwb_read_uleb(p, end, &v);
}

static bool block_operand(const uint8_t **p, const uint8_t *end)
{
	uint64_t len;

	return uwb_read_uleb(p, end, &len) && skip(p, end, len);
}

/* Operands of one extended opcode; *ROW set when it starts a new row. */
static bool scan_op(uint8_t op, const uint8_t **p, const uint8_t *end,
		    int enc, unsigned int *depth, bool *row)
{
	uint64_t v;

	switch (op) {
	case DW_CFA_nop:
	case DW_CFA_GNU_window_save:
		return true;
	case DW_CFA_set_loc:
		*row = true;
		return uwb_read_encoded(p, end, enc, 0, false, &v);
	case DW_CFA_advance_loc1:
		*row = true;
		return skip(p, end, 1);
	case DW_CFA_advance_loc2:
		*row = true;
		return skip(p, end, 2);
	case DW_CFA_advance_loc4:
		*row = true;
		return skip(p, end, 4);
	case DW_CFA_remember_state:
		return ++*depth <= MAX_CFI_DEPTH;
	case DW_CFA_restore_state:
		*depth -= *depth > 0;
		return true;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_GNU_args_size:
		return leb_operand(p, end);
	case DW_CFA_def_cfa_expression:
		return block_operand(p, end);
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_def_cfa_register:
		return reg_operand(p, end);
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_GNU_negative_offset_extended:
		return reg_operand(p, end) && leb_operand(p, end);
	case DW_CFA_register:
		return reg_operand(p, end) && reg_operand(p, end);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return reg_operand(p, end) && block_operand(p, end);
	default:
		return false;
	}
}

bool uwb_cfa_program_ok(const uint8_t *p, const uint8_t *end, int enc)
{
	unsigned int depth = 0, rows = 0;

	while (p < end) {
		uint8_t op = *p++;
		bool row = false;

		switch (op >> 6) {
		case 1:		/* DW_CFA_advance_loc */
			row = true;
			break;
		case 2:		/* DW_CFA_offset: register in the low bits */
			if (!leb_operand(&p, end))
				return false;
			break;
		case 3:		/* DW_CFA_restore */
			break;
		default:
			if (!scan_op(op, &p, end, enc, &depth, &row))
				return false;
		}
		rows += row;
		if (rows > MAX_CFI_ROWS)
			return false;
	}
	return true;
}
