// SPDX-License-Identifier: GPL-2.0
/*
 * test_uwstep - one step per rule kind and the walk's stop reasons, on
 * hand-made tables and stacks.
 *
 * The "process": code at 0x400000-0x500000 (one module, bias 0x10000000
 * so file addresses differ from run-time ones), a second table-less
 * mapping at 0x600000 (JIT-like), and a 4 KiB stack at 0x7ff000000000.
 */
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "unwind/uwstep.h"
#include "uwprogs/uwmk.h"

#define BIAS		0x10000000ull
#define CODE		(0x400000ull + BIAS)	/* run-time address of file 0x400000 */
#define JIT		0x600000ull
#define STACK		0x7ff000000000ull
#define STACK_WORDS	512

static u64 stack[STACK_WORDS];
static u64 table[4096];
static u64 alt[64];		/* a sigaltstack, elsewhere in memory */
#define ALT		0x7fe000000000ull

static int reader(void *ctx, u64 addr, void *dst, u32 len)
{
	(void)ctx;
	if (addr >= STACK && addr - STACK <= sizeof(stack) &&
	    len <= sizeof(stack) - (addr - STACK)) {
		memcpy(dst, (u8 *)stack + (addr - STACK), len);
		return 0;
	}
	if (addr >= ALT && addr - ALT <= sizeof(alt) &&
	    len <= sizeof(alt) - (addr - ALT)) {
		memcpy(dst, (u8 *)alt + (addr - ALT), len);
		return 0;
	}
	return -EFAULT;
}

static int finder(void *ctx, u64 pc, struct uw_module *m)
{
	if (pc >= CODE && pc < CODE + 0x100000) {
		m->table = ctx ? ctx : table;	/* a test's other table */
		m->bias = BIAS;
		return 0;
	}
	if (pc >= JIT && pc < JIT + 0x1000) {
		m->table = NULL;
		m->bias = 0;
		return 0;
	}
	return -ENOENT;
}

static u64 fixup_calls;

static u64 fixup(void *ctx, u64 ra, u64 sp)
{
	(void)ctx;
	(void)sp;
	fixup_calls++;
	return ra == 0xdead000 ? CODE + 0x300 : ra;
}

static const struct uw_walk_ops ops = { reader, finder, NULL, NULL, NULL };

/* file address -> run-time address */
static u64 at(u64 file)
{
	return file + BIAS;
}

/* One table for the whole file: rows at file addresses. */
static void set_table(const struct uwmk_row *rows, u32 n)
{
	size_t len = uwmk_table(table, sizeof(table), rows, n, 0x410000, 6);

	CHECK(len > 0);
	CHECK_INT(uw_table_validate(table, len), 0);
}

static void set_one_rule(struct uwt_rule r)
{
	struct uwmk_row row = { 0x400000, r };

	set_table(&row, 1);
}

static struct uw_regs regs_at(u64 pc, u64 sp)
{
	struct uw_regs r;
	int i;

	for (i = 0; i < UWT_NR_REGS; i++)
		r.val[i] = 0x1000 + i;
	r.val[UWT_RIP] = pc;
	r.val[UWT_RSP] = sp;
	r.known = UW_ALL_KNOWN;
	return r;
}

static u64 *word(u64 addr)
{
	return &stack[(addr - STACK) / 8];
}

static enum uw_stop step(struct uw_regs *r, u32 *flags)
{
	return uw_step(table, BIAS, r, flags, reader, NULL);
}

static void cfa_rsp_with_saves(void)
{
	struct uwt_rule rule = uwmk_cfa(UWT_RSP, 32);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	uwmk_save(&rule, 0, UWT_SAVE_AT_CFA, 0, -24);	/* rbx */
	uwmk_save(&rule, 2, UWT_SAVE_AT_CFA, 0, -16);	/* r12 */
	set_one_rule(rule);
	memset(stack, 0, sizeof(stack));
	*word(STACK + 0x120 - 8) = at(0x400500);
	*word(STACK + 0x120 - 16) = 0x1212;
	*word(STACK + 0x120 - 24) = 0xb0b0;
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RIP], at(0x400500));
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x120);
	CHECK_HEX(r.val[UWT_RBX], 0xb0b0);
	CHECK_HEX(r.val[UWT_R12], 0x1212);
	CHECK_HEX(r.val[UWT_RBP], 0x1000 + UWT_RBP);	/* same value */
	CHECK_HEX(r.known, UW_BIT(UWT_RIP) | UW_BIT(UWT_RSP) | UW_BIT(UWT_RBX) |
			   UW_BIT(UWT_RBP) | UW_BIT(UWT_R12) | UW_BIT(UWT_R13) |
			   UW_BIT(UWT_R14) | UW_BIT(UWT_R15));
	CHECK_INT(flags, 0);	/* the caller's pc is a return address */
}

static void same_value_keeps_unknown(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	set_one_rule(uwmk_cfa(UWT_RSP, 8));
	*word(STACK + 0x100) = at(0x400500);
	r.known &= ~UW_BIT(UWT_RBP);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK(!uw_known(&r, UWT_RBP));
	CHECK(uw_known(&r, UWT_RBX));
	CHECK(!uw_known(&r, UWT_RAX) && !uw_known(&r, UWT_RDI));
}

static void cfa_rbp_needs_rbp(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100), before;
	u32 flags = UW_FRAME_EXACT_PC;

	set_one_rule(uwmk_cfa(UWT_RBP, 16));
	r.known &= ~UW_BIT(UWT_RBP);
	before = r;
	CHECK_INT(step(&r, &flags), UW_STOP_UNKNOWN_REG);
	CHECK_MEM(&r, &before, sizeof(r));
	/* with RBP known it works; RBP comes back from CFA - 16 */
	r.val[UWT_RBP] = STACK + 0x200;
	r.known |= UW_BIT(UWT_RBP);
	{
		struct uwt_rule rule = uwmk_cfa(UWT_RBP, 16);

		uwmk_save(&rule, 1, UWT_SAVE_AT_CFA, 0, -16);
		set_one_rule(rule);
	}
	*word(STACK + 0x208) = at(0x400600);
	*word(STACK + 0x200) = STACK + 0x300;
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x210);
	CHECK_HEX(r.val[UWT_RBP], STACK + 0x300);
	CHECK_HEX(r.val[UWT_RIP], at(0x400600));
}

/* GCC's DRAP: CFA = *(rbp - 8), rbp at [rbp], rbx at [rbp - 16]. */
static void deref_cfa_drap(void)
{
	struct uwt_rule rule = uwmk_rule(UWT_CFA_DEREF, UWT_RBP, -8);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	uwmk_save(&rule, 1, UWT_SAVE_AT_REG, UWT_RBP, 0);
	uwmk_save(&rule, 0, UWT_SAVE_AT_REG, UWT_RBP, -16);
	set_one_rule(rule);
	r.val[UWT_RBP] = STACK + 0x140;
	*word(STACK + 0x140 - 8) = STACK + 0x180;	/* the saved CFA */
	*word(STACK + 0x140) = 0xbbbb;			/* caller's rbp */
	*word(STACK + 0x140 - 16) = 0x3333;		/* caller's rbx */
	*word(STACK + 0x180 - 8) = at(0x400700);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x180);
	CHECK_HEX(r.val[UWT_RIP], at(0x400700));
	CHECK_HEX(r.val[UWT_RBP], 0xbbbb);
	CHECK_HEX(r.val[UWT_RBX], 0x3333);
	/* the DRAP pointer itself unreadable: read fault */
	r = regs_at(at(0x400010), STACK + 0x100);
	r.val[UWT_RBP] = 0x1234560;
	CHECK_INT(step(&r, &flags), UW_STOP_READ_FAULT);
}

static void plt_before_and_after_push(void)
{
	struct uwt_rule rule = uwmk_rule(UWT_PLT, UWT_RSP, 8);
	struct uw_regs r;
	u32 flags = UW_FRAME_EXACT_PC;

	rule.cfa_off2 = 11;
	set_one_rule(rule);
	*word(STACK + 0x100) = at(0x400800);	/* RA before the push */
	*word(STACK + 0x108) = at(0x400900);	/* RA after it */
	r = regs_at(at(0x400020 + 6), STACK + 0x100);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RIP], at(0x400800));
	r = regs_at(at(0x400020 + 11), STACK + 0x100);
	flags = UW_FRAME_EXACT_PC;
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RIP], at(0x400900));
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x110);
}

/* __restore_rt: everything from the ucontext at SP + 40. */
static void signal_frame(void)
{
	static const u8 order[17] = { 8, 9, 10, 11, 12, 13, 14, 15, 5, 4, 6,
				      3, 1, 0, 2, 7, 16 };
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = 0;
	int i;

	set_one_rule(uwmk_rule(UWT_SIGNAL, 0, 0));
	for (i = 0; i < 17; i++)
		*word(STACK + 0x100 + 40 + 8 * i) = 0x5000 + 8 * order[i];
	*word(STACK + 0x100 + 40 + 8 * 15) = STACK + 0x40;	/* rsp: below! */
	*word(STACK + 0x100 + 40 + 8 * 16) = at(0x400a00);	/* rip */
	r.known = UW_BIT(UWT_RIP) | UW_BIT(UWT_RSP);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.known, UW_ALL_KNOWN);
	for (i = 0; i < 15; i++)
		if (i != UWT_RSP)
			CHECK_HEX(r.val[i], 0x5000 + 8 * i);
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x40);
	CHECK_HEX(r.val[UWT_RIP], at(0x400a00));
	CHECK_INT(flags, UW_FRAME_EXACT_PC | UW_FRAME_SIGNAL);
}

static void end_of_stack(void)
{
	struct uwt_rule rule = uwmk_cfa(UWT_RSP, 8);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	rule.ra_how = UWT_RA_UNDEF;
	set_one_rule(rule);
	CHECK_INT(step(&r, &flags), UW_STOP_END);
}

/* __vfork: RA popped into RDI, SP unchanged; needs RDI known. */
static void ra_in_register(void)
{
	struct uwt_rule rule = uwmk_cfa(UWT_RSP, 0);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	rule.ra_how = UWT_RA_IN_REG;
	rule.ra_reg = UWT_RDI;
	set_one_rule(rule);
	r.val[UWT_RDI] = at(0x400b00);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RIP], at(0x400b00));
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x100);
	r = regs_at(at(0x400010), STACK + 0x100);
	r.known &= ~UW_BIT(UWT_RDI);
	CHECK_INT(step(&r, &flags), UW_STOP_UNKNOWN_REG);
}

/* __longjmp-style rows: CFA and SP from registers, saves from registers. */
static void register_rules(void)
{
	struct uwt_rule rule = uwmk_cfa(UWT_RDI, 0);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	rule.sp_reg = UWT_R8;
	uwmk_save(&rule, 1, UWT_SAVE_IN_REG, UWT_R9, 0);
	uwmk_save(&rule, 2, UWT_SAVE_VAL_CFA, 0, 16);
	uwmk_save(&rule, 3, UWT_SAVE_UNDEF, 0, 0);
	set_one_rule(rule);
	r.val[UWT_RDI] = STACK + 0x180;
	r.val[UWT_R8] = STACK + 0x1c0;
	r.val[UWT_R9] = 0x9999;
	*word(STACK + 0x178) = at(0x400c00);
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RSP], STACK + 0x1c0);
	CHECK_HEX(r.val[UWT_RBP], 0x9999);
	CHECK_HEX(r.val[UWT_R12], STACK + 0x190);
	CHECK(!uw_known(&r, UWT_R13));
	CHECK(!uw_known(&r, UWT_R8));
}

/* Save slots far apart (no single window) and one out of reach. */
static void save_slots_read_one_by_one(void)
{
	struct uwt_rule rule = uwmk_cfa(UWT_RSP, 0x100);
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;
	unsigned long i;

	uwmk_save(&rule, 0, UWT_SAVE_AT_CFA, 0, -0xf0);
	uwmk_save(&rule, 5, UWT_SAVE_AT_CFA, 0, -0x3f8);	/* below the stack */
	set_one_rule(rule);
	for (i = 0; i < STACK_WORDS; i++)
		stack[i] = 0;
	*word(STACK + 0x1f8) = at(0x400d00);
	*word(STACK + 0x110) = 0x7777;
	CHECK_INT(step(&r, &flags), UW_STOP_NONE);
	CHECK_HEX(r.val[UWT_RBX], 0x7777);
	CHECK(!uw_known(&r, UWT_R15));	/* lost, but the frame is fine */
	CHECK_HEX(r.val[UWT_RIP], at(0x400d00));
}

static void bad_frames(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	u32 flags = UW_FRAME_EXACT_PC;

	set_one_rule(uwmk_cfa(UWT_RSP, 12));
	CHECK_INT(step(&r, &flags), UW_STOP_CFA_ALIGN);
	set_one_rule(uwmk_cfa(UWT_RSP, 0));
	CHECK_INT(step(&r, &flags), UW_STOP_CFA_NOT_ABOVE);
	set_one_rule(uwmk_cfa(UWT_RSP, -64));
	CHECK_INT(step(&r, &flags), UW_STOP_CFA_NOT_ABOVE);
	/* a dereferenced CFA may not jump down either (only signal frames may) */
	set_one_rule(uwmk_rule(UWT_CFA_DEREF, UWT_RSP, 0));
	*word(STACK + 0x100) = STACK + 0x80;
	CHECK_INT(step(&r, &flags), UW_STOP_CFA_NOT_ABOVE);
	set_one_rule(uwmk_cfa(UWT_RSP, 8));
	r.val[UWT_RSP] = STACK + sizeof(stack);		/* RA beyond the stack */
	CHECK_INT(step(&r, &flags), UW_STOP_READ_FAULT);
	set_one_rule(uwmk_rule(UWT_NONE, 0, 0));
	CHECK_INT(step(&r, &flags), UW_STOP_NO_TABLE);
	r.known &= ~UW_BIT(UWT_RIP);
	CHECK_INT(step(&r, &flags), UW_STOP_NO_REGS);
}

/* Three frames: a -> b -> c; rows at 0x400000 (c), 0x400100 (b), 0x400200 (a, end) */
static void three_frame_table(void)
{
	struct uwmk_row rows[4];
	struct uwt_rule end = uwmk_cfa(UWT_RSP, 8);

	end.ra_how = UWT_RA_UNDEF;
	rows[0] = (struct uwmk_row){ 0x400000, uwmk_cfa(UWT_RSP, 16) };
	rows[1] = (struct uwmk_row){ 0x400100, uwmk_cfa(UWT_RSP, 32) };
	rows[2] = (struct uwmk_row){ 0x400200, end };
	rows[3] = (struct uwmk_row){ 0x400300, uwmk_rule(UWT_NONE, 0, 0) };
	set_table(rows, 4);
	memset(stack, 0, sizeof(stack));
	/* c at sp 0x100: RA at 0x108 into b's last byte + 1 (= 0x400200!) */
	*word(STACK + 0x108) = at(0x400200);
	/* b at sp 0x110: RA at 0x128 into a */
	*word(STACK + 0x128) = at(0x400250);
}

static void walk(const struct uw_regs *start, u32 flags,
		 const struct uw_walk_ops *o, struct uw_trace *tr, u64 *pcs,
		 u32 max)
{
	tr->pcs = pcs;
	tr->frame_flags = NULL;
	tr->max = max;
	uw_walk(start, flags, o, tr);
}

/* The RA of b's call sits on a row boundary: only pc - 1 finds b's row. */
static void walk_uses_pc_minus_one(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	struct uw_trace tr;
	u64 pcs[8];

	three_frame_table();
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 3);
	CHECK_HEX(pcs[1], at(0x400200));
	CHECK_HEX(pcs[2], at(0x400250));
	CHECK_STR(uw_stop_name(tr.stop), uw_stop_name(UW_STOP_END));
	CHECK_INT(tr.inexact, 0);
	/* a syscall-entry pc is a return address too: pc 0x400100 is c's */
	r.val[UWT_RIP] = at(0x400100);
	walk(&r, UW_WALK_PC_IS_RA, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 3);
	walk(&r, 0, &ops, &tr, pcs, 8);		/* exact: b's rule, wrong stack */
	CHECK(tr.nr != 3 || tr.stop != UW_STOP_END);
}

static void walk_limits(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	struct uw_trace tr;
	u64 pcs[8];

	three_frame_table();
	walk(&r, 0, &ops, &tr, pcs, 2);
	CHECK_INT(tr.nr, 2);
	CHECK_INT(tr.stop, UW_STOP_MAX_FRAMES);
	walk(&r, 0, &ops, &tr, pcs, 3);		/* exactly full: still "end" */
	CHECK_INT(tr.nr, 3);
	CHECK_INT(tr.stop, UW_STOP_END);
	walk(&r, 0, &ops, &tr, pcs, 0);
	CHECK_INT(tr.nr, 0);
	CHECK_INT(tr.stop, UW_STOP_MAX_FRAMES);
	r.known = UW_BIT(UWT_RIP);
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 0);
	CHECK_INT(tr.stop, UW_STOP_NO_REGS);
}

static void walk_stop_reasons(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	struct uw_trace tr;
	u64 pcs[8];

	three_frame_table();
	*word(STACK + 0x128) = 0;
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 2);
	CHECK_INT(tr.stop, UW_STOP_PC_ZERO);
	*word(STACK + 0x128) = 0x900000;		/* nowhere */
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 3);
	CHECK_INT(tr.stop, UW_STOP_NO_MODULE);
	CHECK_HEX(tr.stop_pc, 0x900000);
	*word(STACK + 0x128) = at(0x400380);		/* a NONE row */
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.nr, 3);
	CHECK_INT(tr.stop, UW_STOP_NO_TABLE);
	*word(STACK + 0x128) = JIT + 0x10;		/* known, no table */
	walk(&r, 0, &ops, &tr, pcs, 8);
	CHECK_INT(tr.stop, UW_STOP_NO_TABLE);
}

/* Names exist and differ for every stop reason. */
static void stop_names(void)
{
	int i, j;

	for (i = 0; i < UW_NR_STOPS; i++) {
		CHECK(uw_stop_name(i) && strcmp(uw_stop_name(i), "?"));
		for (j = 0; j < i; j++)
			CHECK(strcmp(uw_stop_name(i), uw_stop_name(j)));
	}
	CHECK_STR(uw_stop_name(UW_NR_STOPS), "?");
}

/*
 * handler (c's rule) -> __restore_rt (SIGNAL) -> interrupted code on
 * another, lower stack, whose pc sits exactly on a row start.
 */
static void walk_through_signal_on_altstack(void)
{
	struct uwmk_row rows[4];
	struct uw_regs r = regs_at(at(0x400010), ALT + 0x100 - 0x100);
	struct uw_trace tr;
	u64 pcs[8];
	u8 fl[8];
	int i;

	rows[0] = (struct uwmk_row){ 0x400000, uwmk_cfa(UWT_RSP, 8) };
	rows[1] = (struct uwmk_row){ 0x400100, uwmk_rule(UWT_SIGNAL, 0, 0) };
	rows[2] = (struct uwmk_row){ 0x400200, uwmk_cfa(UWT_RSP, 0x40) };
	rows[3] = (struct uwmk_row){ 0x400300, uwmk_cfa(UWT_RSP, 8) };
	rows[3].rule.ra_how = UWT_RA_UNDEF;
	set_table(rows, 4);
	memset(alt, 0, sizeof(alt));
	memset(stack, 0, sizeof(stack));
	r.val[UWT_RSP] = ALT;
	alt[0] = at(0x400101);			/* handler returns to __restore_rt */
	for (i = 0; i < 17; i++)
		alt[(8 + 40) / 8 + i] = 0;
	alt[(8 + 40) / 8 + 15] = STACK + 0x80;	/* interrupted rsp (main stack) */
	alt[(8 + 40) / 8 + 16] = at(0x400200);	/* interrupted pc: row start */
	*word(STACK + 0x80 + 0x38) = at(0x400310);
	tr.frame_flags = fl;
	tr.pcs = pcs;
	tr.max = 8;
	uw_walk(&r, 0, &ops, &tr);
	CHECK_INT(tr.nr, 4);
	CHECK_HEX(pcs[2], at(0x400200));
	CHECK_INT(fl[2], UW_FRAME_EXACT_PC | UW_FRAME_SIGNAL);
	CHECK_STR(uw_stop_name(tr.stop), uw_stop_name(UW_STOP_END));
}

/* A uretprobe trampoline address is mapped back by the callback. */
static void walk_fixes_return_addresses(void)
{
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);
	struct uw_walk_ops o = { reader, finder, fixup, NULL, NULL };
	struct uw_trace tr;
	u64 pcs[8];

	three_frame_table();
	*word(STACK + 0x108) = 0xdead000;	/* hijacked RA */
	*word(STACK + 0x128) = at(0x400250);
	fixup_calls = 0;
	walk(&r, 0, &o, &tr, pcs, 8);
	CHECK_HEX(pcs[1], CODE + 0x300);
	CHECK(fixup_calls >= 1);
}

/*
 * Two files whose rows start at the same addresses with other rules (two
 * builds of one program, two processes), walked in turn with one cache of
 * decoded rules: each walk is the one without the cache, warm or cold.
 */
static u64 table2[4096];

static void one_rule_into(u64 *buf, size_t cap, struct uwt_rule rule)
{
	struct uwmk_row row = { 0x400000, rule };
	size_t len = uwmk_table(buf, cap, &row, 1, 0x410000, 6);

	CHECK(len > 0);
	CHECK_INT(uw_table_validate(buf, len), 0);
}

static void walk_pcs(void *tab, struct uw_rcache *rc, u64 *pcs, struct uw_trace *tr)
{
	struct uw_walk_ops o = { reader, finder, NULL, tab, rc };
	struct uw_regs r = regs_at(at(0x400010), STACK + 0x100);

	memset(pcs, 0, 8 * sizeof(*pcs));
	walk(&r, 0, &o, tr, pcs, 8);
}

static void rule_cache_keys_by_table(void)
{
	struct uwt_rule a = uwmk_cfa(UWT_RSP, 16), b = uwmk_cfa(UWT_RSP, 32);
	static struct uw_rcache rc;
	u64 want[2][8], got[8];
	struct uw_trace tr, tw[2];
	int i, used = 0;

	uwmk_save(&b, 0, UWT_SAVE_AT_CFA, 0, -16);	/* b saves rbx */
	one_rule_into(table, sizeof(table), a);
	one_rule_into(table2, sizeof(table2), b);
	memset(stack, 0, sizeof(stack));
	*word(STACK + 0x108) = at(0x400300);	/* a's RA, b's rbx */
	*word(STACK + 0x118) = at(0x400400);	/* b's RA, a's next RA */
	*word(STACK + 0x128) = at(0x400500);
	walk_pcs(table, NULL, want[0], &tw[0]);
	walk_pcs(table2, NULL, want[1], &tw[1]);
	CHECK(tw[0].nr > 2 && tw[1].nr > 1);
	CHECK_HEX(want[0][1], at(0x400300));
	CHECK_HEX(want[1][1], at(0x400400));	/* the same pcs, other frames */
	memset(&rc, 0, sizeof(rc));
	for (i = 0; i < 6; i++) {
		walk_pcs(i & 1 ? table2 : table, &rc, got, &tr);
		CHECK_INT(tr.nr, tw[i & 1].nr);
		CHECK_INT(tr.stop, tw[i & 1].stop);
		CHECK(memcmp(got, want[i & 1], sizeof(got)) == 0);
	}
	for (i = 0; i < (int)UW_RCACHE_SIZE; i++)
		used += rc.slot[i].table != NULL;
	CHECK(used >= 2);	/* both tables' rows were kept, and met again */
}

/*
 * JIT code without a table: the frame-pointer fallback takes a valid RBP
 * frame (inexact), and refuses RBP below SP, misaligned, or returning
 * into unknown memory.
 */
static void frame_pointer_fallback(void)
{
	struct uw_regs r = regs_at(JIT + 0x10, STACK + 0x100);
	struct uw_trace tr;
	u8 fl[8];
	u64 pcs[8];

	three_frame_table();
	r.val[UWT_RBP] = STACK + 0x120;
	*word(STACK + 0x120) = 0;		/* saved rbp */
	*word(STACK + 0x128) = at(0x400250);	/* RA into a: END row */
	tr.frame_flags = fl;
	tr.pcs = pcs;
	tr.max = 8;
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.nr, 2);
	CHECK_INT(tr.inexact, 1);
	CHECK_INT(fl[1], UW_FRAME_INEXACT);
	CHECK_INT(tr.stop, UW_STOP_END);
	uw_walk(&r, 0, &ops, &tr);		/* fallback off */
	CHECK_INT(tr.nr, 1);
	CHECK_INT(tr.stop, UW_STOP_NO_TABLE);
	r.val[UWT_RBP] = STACK + 0xf8;		/* below SP */
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.nr, 1);
	r.val[UWT_RBP] = STACK + 0x124;		/* misaligned */
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.nr, 1);
	r.val[UWT_RBP] = STACK + 0x120;
	*word(STACK + 0x128) = 0x900000;	/* RA into nothing */
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.nr, 1);
	r.known &= ~UW_BIT(UWT_RBP);
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.nr, 1);
	CHECK_INT(tr.stop, UW_STOP_NO_TABLE);
	r.val[UWT_RIP] = 0x900000;		/* no module at all */
	uw_walk(&r, UW_WALK_FP_FALLBACK, &ops, &tr);
	CHECK_INT(tr.stop, UW_STOP_NO_MODULE);
}

int main(void)
{
	unit_prog = "test_uwstep";
	RUN(cfa_rsp_with_saves);
	RUN(same_value_keeps_unknown);
	RUN(cfa_rbp_needs_rbp);
	RUN(deref_cfa_drap);
	RUN(plt_before_and_after_push);
	RUN(signal_frame);
	RUN(end_of_stack);
	RUN(ra_in_register);
	RUN(register_rules);
	RUN(save_slots_read_one_by_one);
	RUN(bad_frames);
	RUN(walk_uses_pc_minus_one);
	RUN(walk_limits);
	RUN(walk_stop_reasons);
	RUN(stop_names);
	RUN(walk_through_signal_on_altstack);
	RUN(walk_fixes_return_addresses);
	RUN(frame_pointer_fallback);
	RUN(rule_cache_keys_by_table);
	return unit_done();
}
