/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwbuild_int.h - what the unwind-table builder's files share.
 *
 *   uwcfi.c    walks the FDEs of one CFI section and evaluates every row
 *   uwscan.c   decodes raw CFI fields and vets CFA programs for libdw
 *   uwclass.c  classifies one evaluated row into a struct uwt_rule
 *   uwbuild.c  picks a source, adds PLT rows, merges, interns, emits
 */
#ifndef UTAP_ELF_UWBUILD_INT_H
#define UTAP_ELF_UWBUILD_INT_H

#include <stdbool.h>
#include <elfutils/libdw.h>
#include "elf/uwbuild.h"
#include "unwind/uwtab_format.h"

/* One CFI row: [start, end) and what it means. */
struct uwb_row {
	uint64_t start, end;
	struct uwt_rule rule;
};

struct uwb_rows {
	struct uwb_row *v;
	size_t n, cap;
	unsigned int fdes, bad_fdes, cfi_rows, unsupported_rows, partial_rows;
	uint64_t unsupported_bytes;
};

/* Classification outcome of one row. */
enum uwb_class {
	UWB_OK,
	UWB_PARTIAL,		/* usable, but a saved register became unknown */
	UWB_UNSUPPORTED,	/* the rule set cannot express this CFA or RA */
};

enum uwb_class uwb_classify(Dwarf_Frame *frame, bool signal,
			    struct uwt_rule *rule);

/* A rule meaning "no CFI here". */
void uwb_none_rule(struct uwt_rule *rule);

/* LEB128 and DW_EH_PE decoding (uwscan.c); false when truncated or unknown. */
bool uwb_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool uwb_read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool uwb_read_encoded(const uint8_t **p, const uint8_t *end, int enc,
		      uint64_t field, bool apply, uint64_t *v);

/* False when a CFA program is malformed or would make libdw blow up. */
bool uwb_cfa_program_ok(const uint8_t *p, const uint8_t *end, int enc);

/* Make room for element N of the growable array *V (capacity *CAP). */
int uwb_grow(void **v, size_t *cap, size_t n, size_t size);

int uwb_rows_push(struct uwb_rows *rows, uint64_t start, uint64_t end,
		  const struct uwt_rule *rule);
void uwb_rows_free(struct uwb_rows *rows);

/*
 * Append the rows of every FDE in SCN (.eh_frame when EH, else
 * .debug_frame) of ELF, evaluated with CFI. -1 on allocation failure only;
 * malformed entries are skipped and counted.
 */
int uwb_section_rows(Elf *elf, Elf_Scn *scn, bool eh, Dwarf_CFI *cfi,
		     struct uwb_rows *rows);

#endif /* UTAP_ELF_UWBUILD_INT_H */
