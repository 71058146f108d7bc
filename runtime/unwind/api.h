/* SPDX-License-Identifier: GPL-2.0 */
/*
 * api.h - how the unwind pure core (uwtab, uwstep, sym) declares its entry
 * points: external in user space (tests, the runner), static in the
 * module, which is one unit with the script, so what a script does not
 * call (line tables, the table walkers of tools) is left out of it.
 */
#ifndef UTAP_UNWIND_API_H
#define UTAP_UNWIND_API_H

#ifdef __KERNEL__
#define UTAP_UNWIND_API static __maybe_unused
#else
#define UTAP_UNWIND_API
#endif

/*
 * The walk, which the module calls from one place: inlined there, its
 * reader and finder become direct calls (an indirect one is a retpoline).
 */
#ifdef __KERNEL__
#define UTAP_UNWIND_WALK static __always_inline
#else
#define UTAP_UNWIND_WALK
#endif

#endif /* UTAP_UNWIND_API_H */
