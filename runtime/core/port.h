/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port.h - the one header the runtime's pure core builds against.
 *
 * Pure code (format engine, maps, unwind-table lookup, decoders, trace
 * encoders) includes only this header so that the same source compiles into
 * the kernel module and into user-space unit tests and fuzzers.
 */
#ifndef UTAP_PORT_H
#define UTAP_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

/*
 * A helper with a loop that generated code calls from many places: kept
 * out of line, since inlining it at every call site costs the module's
 * compile more time than the call costs at run time.
 */
#define UTAP_OUTLINE static __attribute__((__noinline__, __unused__))

/*
 * A local the code fills before it reads it. The kernel builds with
 * -ftrivial-auto-var-init=zero, which otherwise clears it on every entry
 * (a rep stos per array, per unwound frame).
 */
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define UTAP_NOINIT __attribute__((__uninitialized__))
#endif
#endif
#ifndef UTAP_NOINIT
#define UTAP_NOINIT
#endif

#endif /* UTAP_PORT_H */
