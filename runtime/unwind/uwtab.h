/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwtab.h - validate an unwind table and find the rule for a pc.
 *
 * Tables may come from user space at run time, so nothing here trusts a
 * byte of the blob before uw_table_validate() has accepted it; after that,
 * uw_table_lookup() never reads outside it.
 */
#ifndef UTAP_UWTAB_H
#define UTAP_UWTAB_H

#include "unwind/api.h"
#include "unwind/uwtab_format.h"

/* 0 when BLOB (LEN bytes, 4-byte aligned) is a well-formed table, else -EINVAL. */
UTAP_UNWIND_API
int uw_table_validate(const void *blob, size_t len);

/*
 * The rule covering file-relative address PC in a validated table, or
 * NULL when PC lies outside the table's text range. A range without CFI
 * yields a rule of kind UWT_NONE.
 */
const struct uwt_rule *uw_table_lookup(const void *blob, u64 pc);

/* Same, but also reports the row's [start, end) (file-relative). */
const struct uwt_rule *uw_table_lookup_range(const void *blob, u64 pc,
					     u64 *start, u64 *end);

static inline const struct uwt_header *uw_table_header(const void *blob)
{
	return (const struct uwt_header *)blob;
}

#endif /* UTAP_UWTAB_H */
