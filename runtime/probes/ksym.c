// SPDX-License-Identifier: GPL-2.0
/*
 * ksym.c - a kernel symbol's address in the running kernel (KASLR moves
 * them from boot to boot), for kernel.data("SYMBOL") and @var("name").
 * kallsyms_lookup_name() is not exported, so a kprobe on it (never armed:
 * registering it tells its address) finds it once. Process context only.
 */
#ifndef UTAP_PROBES_KSYM_C
#define UTAP_PROBES_KSYM_C

#include <linux/kprobes.h>

static unsigned long utap_ksym_lookup(const char *name)
{
	static unsigned long (*lookup)(const char *name);

	if (!lookup) {
		struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

		if (register_kprobe(&kp))
			return 0;
		lookup = (void *)kp.addr;
		unregister_kprobe(&kp);
	}
	return lookup(name);
}

#endif /* UTAP_PROBES_KSYM_C */
