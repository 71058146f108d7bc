/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwcap.h - snapshot a running program's registers and stack for the
 * unwinder's capture tests (the "coredump test" idea, in miniature).
 *
 * uwcap_snapshot(tag) saves every general register as it is at the call
 * site (pc = the return address, rsp = the caller's rsp after the return),
 * then writes $UWCAP_DIR/TAG.snap holding: those registers, a copy of the
 * stack from rsp to the top of its mapping (plus the whole main-thread
 * stack when rsp is elsewhere, e.g. on a sigaltstack), /proc/self/maps,
 * and glibc backtrace() taken in the same call as the oracle.
 *
 * File format (native endian, x86-64 only):
 *   char magic[8] = "UWCAP01\n"
 *   u64 regs[17]                  DWARF order: rax rdx rcx rbx rsi rdi rbp
 *                                 rsp r8..r15 rip
 *   u32 nr_regions; { u64 addr; u64 len; u8 bytes[len]; } ...
 *   u32 maps_len; char maps[maps_len]
 *   u32 nr_bt; u64 bt[nr_bt]
 */
#ifndef UWCAP_H
#define UWCAP_H

#ifdef __cplusplus
extern "C" {
#endif

void uwcap_snapshot(const char *tag);

#ifdef __cplusplus
}
#endif

#endif
