// SPDX-License-Identifier: GPL-2.0
/*
 * uwclass.c - map one evaluated CFI row onto the table's closed rule set.
 *
 * libdw hands every rule over as a short DWARF expression: a plain
 * "CFA = reg + off" is one DW_OP_bregx, "saved at CFA + off" is
 * DW_OP_call_frame_cfa, DW_OP_plus_uconst, and so on. We recognise the
 * handful of shapes compilers, glibc and binutils emit and refuse the rest.
 */
#include <string.h>
#include <dwarf.h>
#include "elf/uwbuild_int.h"

static const int saved_regno[UWT_NR_SAVED] = UWT_SAVED_REGS;

static bool fits_s16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

static bool fits_s8(int64_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX;
}

/* A save slot's offset as the table keeps it: whole words, s8. */
static bool fits_save(int64_t v)
{
	return v % 8 == 0 && fits_s8(v / 8);
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* DW_OP_bregN / DW_OP_bregx: base register and offset. */
static bool op_breg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* DW_OP_regN / DW_OP_regx: "the value is in register N". */
static bool op_reg(const Dwarf_Op *op, unsigned int *reg)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		return true;
	}
	if (op->atom == DW_OP_regx) {
		*reg = op->number;
		return true;
	}
	return false;
}

/*
 * CFA-relative forms: [call_frame_cfa] [plus_uconst k] [stack_value].
 * *VAL says whether the rule yields the value itself (val_offset).
 */
static bool cfa_relative(const Dwarf_Op *ops, size_t n, int64_t *off, bool *val)
{
	size_t i = 1;

	if (n == 0 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (i < n && ops[i].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[i++].number;
	*val = i < n && ops[i].atom == DW_OP_stack_value;
	i += *val;
	return i == n;
}

/* lazy .plt: breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl; plus */
static bool plt_expr(const Dwarf_Op *ops, size_t n, int8_t *threshold)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	size_t i;

	if (n != sizeof(shape) || ops[0].number != 8 || ops[1].number != 0)
		return false;
	for (i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != shape[i])
			return false;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15)
		return false;
	*threshold = ops[4].atom - DW_OP_lit0;
	return true;
}

static bool classify_cfa(Dwarf_Frame *frame, bool signal, struct uwt_rule *r)
{
	Dwarf_Op *ops;
	size_t n;
	unsigned int reg;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &n) || n == 0)
		return false;
	if (plt_expr(ops, n, &r->cfa_off2)) {
		r->kind = UWT_PLT;
		r->cfa_reg = UWT_RSP;	/* documents the base; step hard-codes it */
		r->cfa_off = 8;
		return true;
	}
	if (!op_breg(&ops[0], &reg, &off) || reg >= UWT_RIP || !fits_s32(off))
		return false;
	r->cfa_reg = reg;
	r->cfa_off = off;
	/* DW_CFA_def_cfa, or an expression that is just "bregN off" */
	if (n == 1) {
		r->kind = UWT_CFA_REG;
		return true;
	}
	if (ops[1].atom != DW_OP_deref || n > 3)
		return false;
	/* glibc's __restore_rt: CFA = the saved RSP in the ucontext */
	if (signal && n == 2 && reg == UWT_RSP &&
	    off == UWT_SIGFRAME_GREGS + 8 * 15) {
		r->kind = UWT_SIGNAL;
		return true;
	}
	if (n == 3 && (ops[2].atom != DW_OP_plus_uconst ||
		       !fits_s8((int64_t)ops[2].number)))
		return false;
	r->kind = UWT_CFA_DEREF;
	r->cfa_off2 = n == 3 ? (int64_t)ops[2].number : 0;
	return true;
}

/* How the register REGNO comes back; false when libdw cannot say. */
static bool reg_rule(Dwarf_Frame *frame, int regno, Dwarf_Op *mem,
		     Dwarf_Op **ops, size_t *n)
{
	return dwarf_frame_register(frame, regno, mem, ops, n) == 0;
}

static bool classify_ra(Dwarf_Frame *frame, struct uwt_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	bool val;
	unsigned int reg;

	if (!reg_rule(frame, UWT_RIP, mem, &ops, &n))
		return false;
	if (n == 0) {
		/* undefined ends the stack; "same value" means nothing here */
		r->ra_how = UWT_RA_UNDEF;
		return ops != NULL;
	}
	if (n == 1 && op_reg(&ops[0], &reg) && reg < UWT_NR_REGS) {
		r->ra_how = UWT_RA_IN_REG;
		r->ra_reg = reg;
		return true;
	}
	if (!cfa_relative(ops, n, &off, &val) || val || !fits_s16(off))
		return false;
	r->ra_how = UWT_RA_AT_CFA;
	r->ra_off = off;
	return true;
}

/* The caller's RSP: the CFA itself (the x86-64 rule) or a register. */
static bool classify_sp(Dwarf_Frame *frame, struct uwt_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	bool val;
	unsigned int reg;

	if (!reg_rule(frame, UWT_RSP, mem, &ops, &n))
		return false;
	r->sp_reg = UWT_SP_IS_CFA;
	if (n == 1 && op_reg(&ops[0], &reg) && reg < UWT_RIP) {
		r->sp_reg = reg;
		return true;
	}
	return cfa_relative(ops, n, &off, &val) && val && off == 0;
}

/* One callee-saved register; false when it has to become unknown. */
static bool classify_saved(Dwarf_Frame *frame, int slot, struct uwt_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	bool val;
	unsigned int reg;

	r->save_how[slot] = UWT_SAVE_HOW(UWT_SAVE_UNDEF, 0);
	if (!reg_rule(frame, saved_regno[slot], mem, &ops, &n))
		return false;
	if (n == 0) {
		/*
		 * elfutils 0.188's x86-64 default rules call RBX "undefined"
		 * where the CFI says nothing (it swaps RAX and RBX); the ABI
		 * and every compiler treat RBX as callee-saved, so an
		 * undefined callee-saved register means "same value" here.
		 */
		r->save_how[slot] = UWT_SAVE_HOW(UWT_SAVE_SAME, 0);
		return true;
	}
	if (n == 1 && op_reg(&ops[0], &reg) && reg < UWT_RIP) {
		r->save_how[slot] = UWT_SAVE_HOW(UWT_SAVE_IN_REG, reg);
		return true;
	}
	if (cfa_relative(ops, n, &off, &val) && fits_save(off)) {
		r->save_how[slot] = UWT_SAVE_HOW(val ? UWT_SAVE_VAL_CFA :
						       UWT_SAVE_AT_CFA, 0);
		r->save_off8[slot] = off / 8;
		return true;
	}
	/* DW_CFA_expression "at reg + off" (DRAP saves RBP at [RBP]) */
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    op_breg(&ops[1], &reg, &off) && reg < UWT_RIP && fits_save(off)) {
		r->save_how[slot] = UWT_SAVE_HOW(UWT_SAVE_AT_REG, reg);
		r->save_off8[slot] = off / 8;
		return true;
	}
	return false;
}

void uwb_none_rule(struct uwt_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->kind = UWT_NONE;
	rule->sp_reg = UWT_SP_IS_CFA;
}

enum uwb_class uwb_classify(Dwarf_Frame *frame, bool signal,
			    struct uwt_rule *rule)
{
	enum uwb_class cls = UWB_OK;
	int i;

	uwb_none_rule(rule);
	if (!classify_cfa(frame, signal, rule)) {
		/* an undefined RA ends the stack whatever the CFA is */
		if (!classify_ra(frame, rule) || rule->ra_how != UWT_RA_UNDEF)
			goto unsupported;
		rule->kind = UWT_CFA_REG;
		rule->cfa_reg = UWT_RSP;
		return UWB_OK;
	}
	if (rule->kind == UWT_SIGNAL)
		return UWB_OK;	/* everything comes from the ucontext */
	if (!classify_ra(frame, rule) || !classify_sp(frame, rule))
		goto unsupported;
	for (i = 0; i < UWT_NR_SAVED; i++)
		if (!classify_saved(frame, i, rule))
			cls = UWB_PARTIAL;
	return cls;
unsupported:
	uwb_none_rule(rule);
	return UWB_UNSUPPORTED;
}
