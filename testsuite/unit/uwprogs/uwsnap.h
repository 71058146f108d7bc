/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwsnap.h - load a uwcap snapshot and unwind it with the runtime code.
 *
 * Used by the capture test and the unwind benchmark (both link the table
 * builder): every executable file mapping of the snapshot gets a table
 * (cached by path for the life of the process), the stack copy becomes a
 * nofault reader, and the mappings become the module lookup.
 */
#ifndef UWSNAP_H
#define UWSNAP_H

#include "elf/uwbuild.h"
#include "unwind/uwstep.h"

#define UWSNAP_MAX_REGIONS	2
#define UWSNAP_MAX_MODS		64
#define UWSNAP_MAX_BT		256

struct uwsnap_region {
	u64 addr, len;
	u8 *bytes;
};

struct uwsnap_mod {
	u64 start, end, bias;
	const void *table;	/* NULL: no table (or hidden) */
	char path[256];
};

struct uwsnap {
	struct uw_regs regs;
	struct uwsnap_region region[UWSNAP_MAX_REGIONS];
	int nr_regions;
	struct uwsnap_mod mod[UWSNAP_MAX_MODS];
	int nr_mods;
	u64 bt[UWSNAP_MAX_BT];
	u32 nr_bt;
	const char *hide;	/* modules whose path contains this get no table */
	unsigned long reads;	/* reader calls, for statistics */
};

/* Load FILE; 0 or -1 (message on stderr). Registers all known. */
int uwsnap_load(const char *file, struct uwsnap *s);
void uwsnap_free(struct uwsnap *s);

/* The oracle frames: backtrace() from the snapshot pc on. */
const u64 *uwsnap_oracle(const struct uwsnap *s, u32 *nr);

/* Reader, module lookup and walk ops over S (ops.ctx = S). */
int uwsnap_read(void *ctx, u64 addr, void *dst, u32 len);
int uwsnap_find(void *ctx, u64 pc, struct uw_module *mod);
void uwsnap_ops(struct uwsnap *s, struct uw_walk_ops *ops);

/* Run PROG with ARG and UWCAP_DIR=DIR; 0 when it exited 0. */
int uwsnap_run(const char *prog, const char *arg, const char *dir);

/* Directory of the running executable + "/../uwprogs" (where make puts them). */
const char *uwsnap_progdir(void);

#endif
