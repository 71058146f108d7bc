/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - the limits a script runs under, with stap's names and defaults.
 * Each can be overridden with -D NAME=VALUE.
 */
#ifndef UTAP_CONFIG_H
#define UTAP_CONFIG_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100
#define UTAP_MAXTRYLOCK_DEFAULT	/* scaled up in a virtual machine: globals.c */
#endif
/* In a VM the host can deschedule a lock holder's vCPU for milliseconds. */
#ifndef MAXTRYLOCK_VM_FACTOR
#define MAXTRYLOCK_VM_FACTOR 100
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10		/* microseconds */
#endif
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif
#ifndef MINSTACKSPACE
#define MINSTACKSPACE 1024
#endif

/* One transport record carries at most this much probe output. */
#ifndef UTAP_PRINTBUF
#define UTAP_PRINTBUF 4000
#endif

#if MAXSTRINGLEN < 16 || MAXSTRINGLEN > 65536
#error "MAXSTRINGLEN must be between 16 and 65536"
#endif
#if MAXNESTING < 0 || MAXNESTING > 1000
#error "MAXNESTING must be between 0 and 1000"
#endif

#endif
