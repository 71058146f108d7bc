/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmtrun.h - the 18 steps of the program fmtprog.sh assembles, from _start
 * to its exit syscall, as a stepping engine reports them (address, bytes,
 * branch class). Shared by the guest tests (fmtsteps.h), the unit tests
 * (test_fmt_lib.c) and bench/formats. Pure: core/port.h types only.
 */
#ifndef UTAP_TEST_FMTRUN_H
#define UTAP_TEST_FMTRUN_H

#include "core/port.h"
#include "itrace/trace_record.h"

#define UTAP_FMTRUN_STEPS 18

static const struct {
	u64 ip;
	u8 len;
	u8 bytes[5];
	u16 flags;
} utap_fmtrun[UTAP_FMTRUN_STEPS] = {
	{ 0x40100b, 5, { 0xbf, 0x03, 0x00, 0x00, 0x00 }, 0 },		/* mov $3,%edi */
	{ 0x401010, 5, { 0xe8, 0xeb, 0xff, 0xff, 0xff }, UTAP_STEP_BRANCH | UTAP_STEP_CALL },
	{ 0x401000, 2, { 0x31, 0xc0 }, 0 },				/* loop: xor */
	{ 0x401002, 3, { 0x48, 0x01, 0xf8 }, 0 },			/* add */
	{ 0x401005, 3, { 0x48, 0xff, 0xcf }, 0 },			/* dec */
	{ 0x401008, 2, { 0x75, 0xf8 }, UTAP_STEP_BRANCH | UTAP_STEP_COND },	/* jne */
	{ 0x401002, 3, { 0x48, 0x01, 0xf8 }, 0 },
	{ 0x401005, 3, { 0x48, 0xff, 0xcf }, 0 },
	{ 0x401008, 2, { 0x75, 0xf8 }, UTAP_STEP_BRANCH | UTAP_STEP_COND },
	{ 0x401002, 3, { 0x48, 0x01, 0xf8 }, 0 },
	{ 0x401005, 3, { 0x48, 0xff, 0xcf }, 0 },
	{ 0x401008, 2, { 0x75, 0xf8 }, UTAP_STEP_BRANCH | UTAP_STEP_COND },
	{ 0x40100a, 1, { 0xc3 }, UTAP_STEP_BRANCH | UTAP_STEP_RET },	/* ret */
	{ 0x401015, 3, { 0x48, 0x85, 0xc0 }, 0 },			/* test */
	{ 0x401018, 2, { 0x74, 0x03 }, UTAP_STEP_BRANCH | UTAP_STEP_COND },	/* je */
	{ 0x40101a, 3, { 0x48, 0x89, 0xc7 }, 0 },			/* mov %rax,%rdi */
	{ 0x40101d, 5, { 0xb8, 0x3c, 0x00, 0x00, 0x00 }, 0 },		/* mov $60,%eax */
	{ 0x401022, 2, { 0x0f, 0x05 }, 0 },				/* syscall */
};

/* Step I of the run on thread TID; NEXT_IPS: with its successor filled in. */
static inline void utap_fmtrun_step(struct utap_trace_step *s, unsigned int i, u32 tid,
				    bool next_ips)
{
	memset(s, 0, sizeof(*s));
	s->kind = UTAP_TRACE_STEP;
	s->size = sizeof(*s);
	s->tid = tid;
	s->ip = utap_fmtrun[i].ip;
	s->len = utap_fmtrun[i].len;
	s->flags = utap_fmtrun[i].flags;
	memcpy(s->bytes, utap_fmtrun[i].bytes, s->len);
	if (next_ips && i + 1 < UTAP_FMTRUN_STEPS)
		s->next_ip = utap_fmtrun[i + 1].ip;
	if ((s->flags & UTAP_STEP_BRANCH) && i + 1 < UTAP_FMTRUN_STEPS &&
	    utap_fmtrun[i + 1].ip != s->ip + s->len)
		s->flags |= UTAP_STEP_TAKEN;
}

#endif /* UTAP_TEST_FMTRUN_H */
