/*
 * drcov_read.h - a strict reader for drcov coverage files (DynamoRIO's
 * drcovlib format, versions 1-3 of the file, module tables of versions
 * 1-5, binary BB tables). Used by the tests, the fuzzers and build/fmtdump.
 *
 *   DRCOV VERSION: 2
 *   DRCOV FLAVOR: drcov-64
 *   Module Table: version 2, count M          ("Module Table: M" in v1)
 *   Columns: id, base, end, entry, path       (column names vary by version)
 *   M lines, comma-separated, the path last (it may contain commas)
 *   BB Table: K bbs
 *   K x { u32 start; u16 size; u16 mod_id; }  little-endian, mod 0xffff = unknown
 */
#ifndef UTAP_FORMATS_DRCOV_READ_H
#define UTAP_FORMATS_DRCOV_READ_H

#include <stddef.h>
#include <stdint.h>

struct drcov_module {
	uint32_t id;
	int32_t containing_id;	/* -1 when the table has no such column */
	uint64_t base, end;	/* "start" in tables of version >= 3 */
	uint64_t entry;
	uint64_t offset;	/* version >= 4 */
	uint64_t preferred_base; /* version >= 5 */
	char *path;
};

struct drcov_bb {
	uint32_t start;		/* offset from its module's base */
	uint16_t size;
	uint16_t mod;
};

struct drcov_file {
	int version;		/* of the file */
	char *flavor;
	int table_version;	/* of the module table (1 for the old form) */
	uint32_t nmods;
	struct drcov_module *mods;
	uint32_t nbbs;
	struct drcov_bb *bbs;
};

/*
 * Parse DATA. Returns 0, or -1 with a message in ERR (ERRSIZE bytes). On
 * success F owns its memory: drcov_free(). Checks: the header lines and
 * counts, column names, numbers, module ids (unique, BB references only
 * to listed modules or 0xffff), and that exactly K records follow.
 */
int drcov_parse(const void *data, size_t size, struct drcov_file *f, char *err, size_t errsize);

void drcov_free(struct drcov_file *f);

/* The module with id ID, or NULL. */
const struct drcov_module *drcov_module(const struct drcov_file *f, uint32_t id);

#endif /* UTAP_FORMATS_DRCOV_READ_H */
