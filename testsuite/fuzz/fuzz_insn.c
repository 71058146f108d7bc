/*
 * fuzz_insn.c - libFuzzer target for the x86-64 decoder.
 *
 * Checks, for every input:
 *  - no read outside the input (it is decoded from an exact-size heap copy);
 *  - the result is -EAGAIN, -EINVAL or a length <= min(size, 15);
 *  - decoding is deterministic (same bytes, same result and fields);
 *  - decode(buf, size) agrees with decode(buf padded to 15 bytes): a length
 *    or -EINVAL must not change when more bytes follow, and -EAGAIN must
 *    mean the padded decode needed bytes past size;
 *  - every proper prefix of a decoded instruction is -EAGAIN;
 *  - the memory-operand helpers do not crash on what the decoder produced.
 */
#include <stdlib.h>

#include "arch/x86_64/insn.h"

#define FAIL() __builtin_trap()

static int decode_exact(const u8 *data, size_t size, struct x86_insn_info *in)
{
	u8 *p = malloc(size ? size : 1);
	int r;

	memcpy(p, data, size);
	r = x86_insn_decode(p, size, in);
	free(p);
	return r;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct x86_insn_info a, b, c;
	u64 gpr[16], ea;
	u8 pad[X86_MAX_INSN_LEN];
	size_t n = size < X86_MAX_INSN_LEN ? size : X86_MAX_INSN_LEN;
	int ra, rb, rc, k;
	unsigned int i;

	ra = decode_exact(data, size, &a);
	if (ra != -EAGAIN && ra != -EINVAL &&
	    (ra < 1 || ra > X86_MAX_INSN_LEN || (size_t)ra > size))
		FAIL();
	if (ra > 0 && a.len != ra)
		FAIL();

	rb = decode_exact(data, size, &b);
	if (rb != ra || memcmp(&a, &b, sizeof(a)) != 0)
		FAIL();

	/* the same bytes followed by filler (0x90 and 0xFF: two fillers) */
	for (i = 0; i < 2; i++) {
		memset(pad, i ? 0xFF : 0x90, sizeof(pad));
		memcpy(pad, data, n);
		rc = decode_exact(pad, sizeof(pad), &c);
		if (rc == -EAGAIN)
			FAIL();		/* 15 bytes always suffice */
		if (ra == -EAGAIN) {
			if (rc > 0 && (size_t)rc <= size)
				FAIL();	/* could have been decided */
		} else if (size >= X86_MAX_INSN_LEN || ra > 0) {
			if (rc != ra || (ra > 0 && memcmp(&a, &c, sizeof(a))))
				FAIL();
		} else if (rc != ra) {
			/* -EINVAL on a short buffer must hold when padded */
			FAIL();
		}
	}

	if (ra > 0) {
		for (k = 0; k < ra; k++)
			if (decode_exact(data, k, &c) != -EAGAIN)
				FAIL();
		for (i = 0; i < 16; i++)
			gpr[i] = 0x1000 * i + (u64)data[0] * 0x100000001ull;
		x86_insn_mem_ea(&a, 0x400000, gpr, 0x7f00, 0x7e00, &ea);
		x86_insn_branch_target(&a, 0x400000);
		if (a.nmem > 4 || (a.has_modrm && a.len < 2))
			FAIL();
	}
	return 0;
}
