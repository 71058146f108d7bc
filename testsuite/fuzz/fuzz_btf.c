// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_btf - the BTF reader on arbitrary bytes: a kernel's BTF and a
 * module's split BTF on top of it (translator/kernel/kbtf.c), as read from
 * files the translator does not control. The first two bytes say how many
 * of the rest are the base; every type id and name of either must resolve
 * without reading out of bounds or recursing without end.
 */
#include "kernel/kbtf.h"

#include <string.h>

/* What a script's walk asks of a type: its class, name, members and pointers. */
static void walk_type(const struct btf *b, uint32_t id)
{
	struct btf_info i;
	const char *name;
	uint32_t mtype, off, bits;

	btf_resolve(b, id, &i);
	name = btf_type_name(b, id);
	if (i.cls == BTF_C_STRUCT) {
		btf_find_type(b, name);
		btf_member(b, id, "x", &mtype, &off, &bits);
		for (unsigned k = 0; k < 8 && btf_member_at(b, id, k, &name, &mtype, &off, &bits); k++)
			btf_resolve(b, mtype, &i);
	}
}

static void walk_all(const struct btf *b)
{
	uint32_t proto = btf_func_proto(b, "f"), type;

	for (uint32_t id = 0; id < 64; id++)
		walk_type(b, id);
	for (int k = 0; k < btf_proto_nparams(b, proto) && k < 8; k++)
		if (btf_proto_param(b, proto, k, &type))
			walk_type(b, type);
	btf_proto_return(b, proto);
	btf_find_pointer(b, 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *why = NULL;
	const struct btf *base, *split;
	size_t nbase;

	if (size < 2)
		return 0;
	arena_reset();
	nbase = (size_t)data[0] | (size_t)data[1] << 8;
	data += 2;
	size -= 2;
	if (nbase > size)
		nbase = size;
	base = btf_parse(data, nbase, &why);
	if (!base)
		return 0;
	walk_all(base);
	split = btf_parse_split(data + nbase, size - nbase, base, &why);
	if (split)
		walk_all(split);
	return 0;
}
