/*
 * ksyms.h - the target kernel's symbol names, at translate time.
 *
 * Kernel probe points are checked, and their wildcards expanded, against the
 * symbols of the kernel the module is built for. Modules register kprobes by
 * symbol name, so only names matter here; addresses from the boot a list was
 * taken from are used only to mark the functions kprobes refuse.
 */
#ifndef UTAP_KSYMS_H
#define UTAP_KSYMS_H

#include "sema/sema.h"

struct ksym {
	const char *name;
	const char *module;	/* NULL for vmlinux */
	char type;		/* the kallsyms type letter: t/T/W text, d/D data ... */
	bool unprobeable;	/* init text, entry code, or on the kprobe blacklist */
};

struct ksyms {
	struct ksym *syms;	/* sorted by name, then module (vmlinux first) */
	size_t n;
	const char *source;	/* where the list came from, for messages */
};

/*
 * The symbol list of the session's target kernel, loaded once. NULL after
 * printing an error that names the kernel and why its symbols are unknown.
 */
const struct ksyms *ksyms_get(struct session *s);

/*
 * The target kernel's BTF file: /sys/kernel/btf/vmlinux of the running
 * kernel, or the copy read in the guest with the symbol list; NULL if none.
 */
const char *ksyms_btf_path(struct session *s);

/* Index of the first symbol called name in vmlinux (module NULL) or that module; -1 if none. */
long ksyms_find(const struct ksyms *k, const char *name, const char *module);

/* How many functions (text symbols) of vmlinux or module are called name. */
int ksyms_count_functions(const struct ksyms *k, const char *name, const char *module);

/* True for symbols of code: the only ones a kprobe can be put on. */
bool ksym_is_function(const struct ksym *sym);

/* Parses text in /proc/kallsyms format plus an optional kprobe blacklist (pure; for tests). */
struct ksyms *ksyms_parse(const char *kallsyms, const char *blacklist, const char *source);

/*
 * Functions of a kernel module, read from its .ko file under
 * /lib/modules/KREL (the module need not be loaded at translate time).
 * Returns a list like ksyms_get()'s, or NULL after an error.
 */
struct kmodule {
	const char *name;	/* as the kernel spells it: '-' becomes '_' */
	const char *path;
};
int kmodules_matching(struct session *s, const char *glob, struct kmodule **out);
/* "no kernel module 'NAME' in /lib/modules/KREL", and what to install, for messages. */
const char *kmodule_missing(struct session *s, const char *name);
const struct ksyms *kmodule_functions(struct session *s, const struct kmodule *m);

#endif /* UTAP_KSYMS_H */
