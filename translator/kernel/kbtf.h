/*
 * kbtf.h - the target kernel's BTF: function prototypes and type layouts,
 * for kernel.function target variables without DWARF debuginfo.
 *
 * Debian builds its kernels with CONFIG_DEBUG_INFO_BTF; the kernel exports
 * the type information as /sys/kernel/btf/vmlinux (about 5 MB). It has every
 * non-inline function's prototype with parameter names, and the layout of
 * every struct, so $file->f_pos can be read at a known offset.
 */
#ifndef UTAP_KBTF_H
#define UTAP_KBTF_H

#include "sema/sema.h"

struct btf;

/* Parses raw BTF (a copy is kept); NULL and *why set if it is not BTF. */
struct btf *btf_parse(const void *data, size_t len, const char **why);

/*
 * Parses split BTF (a kernel module's .BTF) on top of BASE: the result
 * resolves the type ids and strings of both, and btf_func_proto() finds
 * only the split part's functions.
 */
struct btf *btf_parse_split(const void *data, size_t len, const struct btf *base,
			    const char **why);

/*
 * The session's target kernel's BTF: the running kernel's, or the one read
 * in the guest together with its symbol list (ksyms.c). NULL if it has none;
 * never an error by itself.
 */
const struct btf *btf_get(struct session *s);

/*
 * The BTF of kernel module MODULE (as the kernel names it: "nfs",
 * "scsi_mod") on the target kernel's, read once per session from the .BTF
 * section of its .ko under /lib/modules; the kernel's own for NULL. NULL
 * and *why (naming the module and what to install) if there is none.
 */
const struct btf *btf_get_module(struct session *s, const char *module, const char **why);

enum btf_class {
	BTF_C_VOID,
	BTF_C_INT,	/* integers, enums, bool, char */
	BTF_C_PTR,
	BTF_C_ARRAY,
	BTF_C_STRUCT,	/* struct or union */
	BTF_C_OTHER,	/* functions, floats ... */
};

/* A resolved type: typedefs and qualifiers skipped. */
struct btf_info {
	enum btf_class cls;
	uint32_t size;		/* bytes */
	bool is_signed;
	uint32_t target;	/* PTR: pointee; ARRAY: element */
	uint32_t nelems;	/* ARRAY */
	bool is_char, is_bool, is_enum;	/* INT's kinds */
	bool is_union;		/* STRUCT */
	bool is_float;		/* OTHER */
};

/* A function's prototype: the FUNC_PROTO id of the function called name, or 0. */
uint32_t btf_func_proto(const struct btf *b, const char *name);
int btf_proto_nparams(const struct btf *b, uint32_t proto);
const char *btf_proto_param(const struct btf *b, uint32_t proto, int i, uint32_t *type);
uint32_t btf_proto_return(const struct btf *b, uint32_t proto);

void btf_resolve(const struct btf *b, uint32_t type, struct btf_info *out);
/* The type named "struct x", "union x" or "x" (a struct, union, typedef, integer or enum), or 0. */
uint32_t btf_find_type(const struct btf *b, const char *name);
/* A pointer type to TARGET (typedefs and qualifiers of either side ignored), or 0. */
uint32_t btf_find_pointer(const struct btf *b, uint32_t target);

/*
 * Member name of struct or union type (anonymous members searched too):
 * its type, its offset in bits and its size in bits if it is a bit field
 * (else 0). False if there is no such member.
 */
bool btf_member(const struct btf *b, uint32_t type, const char *name, uint32_t *mtype,
		uint32_t *bit_offset, uint32_t *bit_size);

/* The type as stap lists it: "struct file*", "char const*", "size_t". */
const char *btf_type_name(const struct btf *b, uint32_t type);

/* Member I of struct or union TYPE (in declaration order); false past the last. */
bool btf_member_at(const struct btf *b, uint32_t type, unsigned i, const char **name,
		   uint32_t *mtype, uint32_t *bit_offset, uint32_t *bit_size);

#endif /* UTAP_KBTF_H */
