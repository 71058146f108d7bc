/*
 * drcov.c - the drcov writer: DynamoRIO drcov version 2 with the Linux
 * module table (id, base, end, entry, path) and the binary BB table.
 *
 * One module per mapped file and process, from the image base (where the
 * ELF header is mapped) to the end of the image; a block's start is its
 * offset from that base, which is what Lighthouse, bncov and drcov2lcov add
 * to their own image base. Blocks are unique (module, start, size) in the
 * order they first ran; a block ends at every control transfer (taken or
 * not) and before every discontinuity, as DynamoRIO's blocks do.
 */
#include "runner/trace/tout_int.h"

#include <inttypes.h>
#include <stdlib.h>

static void module_extent(struct tout *t, struct tmod *m, uint64_t *base, uint64_t *end)
{
	tmod_load(t, m);
	if (m->img_hi > m->img_lo && m->img_lo <= m->lo && m->hi <= m->img_hi) {
		*base = m->img_lo;
		*end = m->img_hi;
	} else {
		*base = m->base;
		*end = m->hi;
	}
}

static int drcov_write(struct tout *t, FILE *f)
{
	uint64_t *bases = calloc(t->nmods ? t->nmods : 1, sizeof(*bases));
	uint32_t n = 0;

	if (!bases)
		return -1;
	fprintf(f, "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov-64\n");
	fprintf(f, "Module Table: version 2, count %zu\n", t->nmods);
	fprintf(f, "Columns: id, base, end, entry, path\n");
	for (size_t i = 0; i < t->nmods; i++) {
		struct tmod *m = &t->mods[i];
		char buf[4096];
		uint64_t end;

		module_extent(t, m, &bases[i], &end);
		fprintf(f, "%3zu, 0x%016" PRIx64 ", 0x%016" PRIx64 ", 0x%016" PRIx64 ", %s\n", i,
			bases[i], end, m->entry, tout_printable(m->path, buf, sizeof(buf)));
	}
	for (size_t i = 0; i < t->nbbs; i++)
		if (t->bbs[i].start - bases[t->bbs[i].mod] <= UINT32_MAX && t->bbs[i].mod < 0xffff)
			n++;
	fprintf(f, "BB Table: %" PRIu32 " bbs\n", n);
	for (size_t i = 0; i < t->nbbs; i++) {
		const struct tbb *b = &t->bbs[i];
		uint64_t off = b->start - bases[b->mod];
		unsigned char rec[8];

		if (off > UINT32_MAX || b->mod >= 0xffff)
			continue;
		rec[0] = off;
		rec[1] = off >> 8;
		rec[2] = off >> 16;
		rec[3] = off >> 24;
		rec[4] = b->size;
		rec[5] = b->size >> 8;
		rec[6] = b->mod;
		rec[7] = b->mod >> 8;
		fwrite(rec, 1, sizeof(rec), f);
	}
	free(bases);
	return 0;
}

const struct tout_writer tout_drcov = {
	.name = "drcov",
	.blocks = true,
	.write = drcov_write,
};
