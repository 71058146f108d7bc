/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kheaders.h - the kernel headers every module includes (runtime.h), kept
 * apart so that kbuild.c can precompile them once per kernel.
 */
#ifndef UTAP_KHEADERS_H
#define UTAP_KHEADERS_H

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/ring_buffer.h>
#include <linux/irq_work.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/ptrace.h>
#include <linux/version.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>	/* X86_FEATURE_HYPERVISOR: lock patience in a VM */
#endif

#endif /* UTAP_KHEADERS_H */
