// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uwwalk - table lookup and the walk over a fuzzed table and stack.
 *
 * Input: up to 16 rows (2-byte start delta + a 36-byte rule, bent into
 * range so most tables validate), 17 registers and a known mask, walk
 * flags, then the stack bytes (mapped at STACK). The walk must end, never
 * read outside the reader, and report a consistent trace, the same with
 * a cache of decoded rules as without.
 */
#include <stdlib.h>
#include <string.h>
#include "unwind/uwstep.h"
#include "uwprogs/uwmk.h"

#define CODE	0x400000ull
#define STACK	0x7ff000000000ull
#define MAXF	64

static unsigned long long table[8192];
static const unsigned char *stk;
static size_t stk_len;

static int reader(void *ctx, u64 addr, void *dst, u32 len)
{
	(void)ctx;
	if (addr < STACK || addr - STACK > stk_len || len > stk_len - (addr - STACK))
		return -EFAULT;
	memcpy(dst, stk + (addr - STACK), len);
	return 0;
}

static int finder(void *ctx, u64 pc, struct uw_module *m)
{
	(void)ctx;
	if (pc < CODE || pc >= CODE + 0x10000)
		return -ENOENT;
	m->table = pc < CODE + 0xc000 ? table : NULL;
	m->bias = 0;
	return 0;
}

static u64 fixup(void *ctx, u64 ra, u64 sp)
{
	(void)ctx;
	return ra == 0xdead ? sp : ra;
}

/* Fold arbitrary bytes into a rule the validator would take (mostly). */
static void bend(struct uwt_rule *r)
{
	int i;

	r->kind %= UWT_NR_KINDS;
	r->cfa_reg %= UWT_RIP;
	r->ra_how %= UWT_NR_RA;
	r->ra_reg %= UWT_NR_REGS;
	if (r->sp_reg != UWT_SP_IS_CFA)
		r->sp_reg %= UWT_RIP;
	if (r->kind == UWT_PLT)
		r->cfa_off2 &= 15;
	for (i = 0; i < UWT_NR_SAVED; i++) {
		u8 k = UWT_SAVE_KIND(r->save_how[i]) % UWT_NR_SAVE;

		r->save_how[i] = UWT_SAVE_HOW(k, (k == UWT_SAVE_IN_REG ||
						  k == UWT_SAVE_AT_REG) ?
						 UWT_SAVE_REG(r->save_how[i]) : 0);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct uwmk_row rows[16];
	struct uw_walk_ops ops = { reader, finder, fixup, NULL, NULL };
	struct uw_regs regs;
	struct uw_trace tr;
	static struct uw_rcache rc;
	u64 pcs[MAXF], cpcs[MAXF], start = CODE;
	u8 fl[MAXF], cfl[MAXF];
	u32 n = 0, flags, i;
	size_t len;

	if (size < 1)
		return 0;
	n = data[0] % 17;
	data++;
	size--;
	for (i = 0; i < n && size >= 2 + sizeof(struct uwt_rule); i++) {
		rows[i].start = start;
		memcpy(&rows[i].rule, data + 2, sizeof(struct uwt_rule));
		bend(&rows[i].rule);
		start += 1 + (data[0] | (data[1] << 8)) % 0x800;
		data += 2 + sizeof(struct uwt_rule);
		size -= 2 + sizeof(struct uwt_rule);
	}
	n = i;
	len = uwmk_table(table, sizeof(table), rows, n, start, 4 + n % 8);
	if (!len || uw_table_validate(table, len))
		return 0;
	if (size < sizeof(regs.val) + 5)
		return 0;
	memcpy(regs.val, data, sizeof(regs.val));
	memcpy(&regs.known, data + sizeof(regs.val), 4);
	flags = data[sizeof(regs.val) + 4];
	data += sizeof(regs.val) + 5;
	size -= sizeof(regs.val) + 5;
	regs.known &= UW_ALL_KNOWN;
	/* keep pc and sp near something interesting */
	regs.val[UWT_RIP] = CODE + regs.val[UWT_RIP] % 0x10000;
	regs.val[UWT_RSP] = STACK + regs.val[UWT_RSP] % (size + 16);
	stk = data;
	stk_len = size;
	memset(&tr, 0, sizeof(tr));
	tr.pcs = pcs;
	tr.frame_flags = fl;
	tr.max = MAXF;
	uw_walk(&regs, flags & 3, &ops, &tr);
	if (tr.nr > MAXF || tr.stop == UW_STOP_NONE || tr.stop >= UW_NR_STOPS ||
	    tr.inexact > tr.nr)
		abort();
	/* the cache of decoded rules changes nothing, cold or warm */
	memset(&rc, 0, sizeof(rc));	/* this table's bytes are new */
	ops.rcache = &rc;
	for (i = 0; i < 2; i++) {
		struct uw_trace tc = { .pcs = cpcs, .frame_flags = cfl, .max = MAXF };

		uw_walk(&regs, flags & 3, &ops, &tc);
		if (tc.nr != tr.nr || tc.stop != tr.stop || tc.inexact != tr.inexact ||
		    memcmp(cpcs, pcs, tr.nr * sizeof(*pcs)) || memcmp(cfl, fl, tr.nr))
			abort();
	}
	return 0;
}
