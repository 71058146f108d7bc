/*
 * test_insn.c - hand-written vectors for the x86-64 decoder: the encodings
 * compilers rarely emit (prefix soup, the 15-byte limit, truncation, invalid
 * opcodes, VEX/EVEX/XOP/3DNow! forms, immediate quirks) and the memory
 * operand helpers.
 */
#include "arch/x86_64/insn.h"
#include "unit.h"

struct vec {
	const char *hex;	/* instruction bytes */
	int len;		/* expected length or -EINVAL */
	int flow;
};

#define SEQ X86_FLOW_SEQ
#define JCC X86_FLOW_JCC
#define JMP X86_FLOW_JMP
#define JMPI X86_FLOW_JMP_IND
#define CALL X86_FLOW_CALL
#define CALLI X86_FLOW_CALL_IND
#define RET X86_FLOW_RET
#define SYS X86_FLOW_SYSCALL
#define TRAP X86_FLOW_TRAP
#define FAR X86_FLOW_FAR
#define BAD (-EINVAL)

static const struct vec vectors[] = {
	/* control flow */
	{ "90", 1, SEQ },
	{ "c3", 1, RET },
	{ "c21000", 3, RET },
	{ "f3c3", 2, RET },			/* rep ret */
	{ "e800000000", 5, CALL },
	{ "ebfe", 2, JMP },
	{ "e9fbffffff", 5, JMP },
	{ "7405", 2, JCC },
	{ "0f8400010000", 6, JCC },
	{ "e3fe", 2, JCC },			/* jrcxz */
	{ "67e3fe", 3, JCC },			/* jecxz */
	{ "e2fe", 2, JCC },			/* loop */
	{ "e0fe", 2, JCC },			/* loopne */
	{ "c7f800000000", 6, JCC },		/* xbegin rel32 */
	{ "66c7f80000", 5, JCC },		/* xbegin rel16 */
	{ "c6f801", 3, SEQ },			/* xabort 1 */
	{ "ffd0", 2, CALLI },
	{ "41ffd3", 3, CALLI },
	{ "ff1500000000", 6, CALLI },
	{ "ffe0", 2, JMPI },
	{ "3effe0", 3, JMPI },			/* notrack jmp */
	{ "ff2500000000", 6, JMPI },
	{ "f2ffe0", 3, JMPI },			/* bnd jmp */
	{ "ff1c24", 3, FAR },			/* call far [rsp] */
	{ "48ff2c24", 4, FAR },			/* jmp far [rsp] */
	{ "ffd8", BAD, 0 },			/* call far needs memory */
	{ "ffe8", BAD, 0 },
	{ "fff8", BAD, 0 },			/* ff /7 */
	{ "cb", 1, FAR },
	{ "ca0800", 3, FAR },
	{ "48cf", 2, FAR },			/* iretq */
	{ "0f05", 2, SYS },
	{ "0f34", 2, SYS },
	{ "0f07", 2, FAR },			/* sysret */
	{ "cc", 1, TRAP },
	{ "cd80", 2, TRAP },
	{ "f1", 1, TRAP },
	{ "f4", 1, TRAP },
	{ "0f0b", 2, TRAP },
	{ "0fb9c0", 3, TRAP },			/* ud1 eax, eax */
	{ "0fffc0", 3, TRAP },			/* ud0 eax, eax */
	{ "f30f1efa", 4, SEQ },			/* endbr64 */
	/* Intel: 66 does not shorten near branches in 64-bit mode */
	{ "66e800000000", 6, CALL },
	{ "66e900000000", 6, JMP },
	{ "660f8400000000", 7, JCC },
	{ "66eb00", 3, JMP },

	/* immediates */
	{ "b811223344", 5, SEQ },
	{ "66b81122", 4, SEQ },
	{ "48b81122334455667788", 10, SEQ },	/* movabs */
	{ "6648b81122334455667788", 11, SEQ },	/* REX.W beats 66 */
	{ "4166b81122", 5, SEQ },		/* REX before 66 is void */
	{ "4841b811223344", 7, SEQ },		/* last REX counts */
	{ "49bf1122334455667788", 10, SEQ },
	{ "b011", 2, SEQ },
	{ "6811223344", 5, SEQ },
	{ "66681122", 4, SEQ },
	{ "6a11", 2, SEQ },
	{ "0500000080", 5, SEQ },
	{ "480500000080", 6, SEQ },
	{ "66051122", 4, SEQ },
	{ "690011223344", 6, SEQ },
	{ "6b0011", 3, SEQ },
	{ "8000ff", 3, SEQ },
	{ "810011223344", 6, SEQ },
	{ "66810011ff", 5, SEQ },
	{ "8300ff", 3, SEQ },
	{ "c8100001", 4, SEQ },			/* enter 16, 1 */
	{ "a01122334455667788", 9, SEQ },	/* mov al, moffs64 */
	{ "48a11122334455667788", 10, SEQ },
	{ "67a011223344", 6, SEQ },		/* moffs32 */
	{ "6748a311223344", 7, SEQ },
	{ "f6c011", 3, SEQ },			/* test al, 0x11 */
	{ "f6c811", 3, SEQ },			/* test, /1 alias */
	{ "f6d0", 2, SEQ },			/* not al */
	{ "f6f0", 2, SEQ },			/* div al */
	{ "f7c011223344", 6, SEQ },
	{ "66f7c01122", 5, SEQ },
	{ "48f7c011223344", 7, SEQ },
	{ "f7d8", 2, SEQ },			/* neg eax */
	{ "f7400811223344", 7, SEQ },		/* test [rax+8], imm32 */
	{ "c60011", 3, SEQ },
	{ "66c7001122", 5, SEQ },
	{ "c7c8", BAD, 0 },			/* c7 /1 */
	{ "c6c9", BAD, 0 },			/* c6 /1 */
	{ "c7f9", BAD, 0 },			/* /7 but not F8 */
	{ "c1e004", 3, SEQ },
	{ "0fbae004", 4, SEQ },			/* bt eax, 4 */
	{ "0fa4c204", 4, SEQ },			/* shld */
	{ "660f3a0fc108", 6, SEQ },		/* palignr */
	{ "660f3a0f442408ff", 8, SEQ },
	{ "660f73d808", 5, SEQ },		/* psrldq xmm0, 8 */
	{ "660f78c00102", 6, SEQ },		/* extrq xmm0, 1, 2 */
	{ "f20f78c10102", 6, SEQ },		/* insertq */
	{ "0f78c8", 3, SEQ },			/* vmread eax, ecx */
	{ "0f20c0", 3, SEQ },			/* mov rax, cr0 */
	{ "0f2000", 3, SEQ },			/* mod ignored: no disp */
	{ "0f23c8", 3, SEQ },			/* mov dr1, rax */

	/* invalid in 64-bit mode, or undefined */
	{ "06", BAD, 0 }, { "07", BAD, 0 }, { "0e", BAD, 0 }, { "16", BAD, 0 },
	{ "17", BAD, 0 }, { "1e", BAD, 0 }, { "1f", BAD, 0 }, { "27", BAD, 0 },
	{ "2f", BAD, 0 }, { "37", BAD, 0 }, { "3f", BAD, 0 }, { "60", BAD, 0 },
	{ "61", BAD, 0 }, { "8200ff", BAD, 0 }, { "9a112233445566", BAD, 0 },
	{ "ce", BAD, 0 }, { "d40a", BAD, 0 }, { "d50a", BAD, 0 },
	{ "d6", BAD, 0 }, { "ea112233445566", BAD, 0 },
	{ "8dc0", BAD, 0 },			/* lea with a register */
	{ "fed0", BAD, 0 },			/* fe /2 */
	{ "0f04", BAD, 0 }, { "0f0a", BAD, 0 }, { "0f24c0", BAD, 0 },
	{ "0f36", BAD, 0 }, { "0f3900", BAD, 0 }, { "0f7a00", BAD, 0 },
	{ "0fa6", BAD, 0 }, { "0f3850c0", BAD, 0 }, { "0f3a00c000", BAD, 0 },
	{ "0fb2c0", BAD, 0 },			/* lss needs memory */
	{ "0fb200", 3, SEQ },
	{ "f30fb8c0", 4, SEQ },			/* popcnt */
	{ "0fb8c0", BAD, 0 },			/* jmpe */
	{ "f20ff000", 4, SEQ },			/* lddqu */
	{ "660ff000", BAD, 0 },

	/* 8F: pop or XOP */
	{ "8fc0", 2, SEQ },			/* pop rax */
	{ "8f00", 2, SEQ },			/* pop [rax] */
	{ "418f4008", 4, SEQ },
	{ "8fe878c0c805", 6, SEQ },		/* vprotb xmm1, xmm0, 5 (map 8) */
	{ "8fe97890c8", 5, SEQ },		/* vprotb xmm1, xmm0, xmm0 (map 9) */
	{ "8fea781000d2040000", 9, SEQ },	/* bextr eax, [rax], imm32 */
	{ "8fe8790000", BAD, 0 },		/* pp != 0 */
	{ "8fe87bc0c805", BAD, 0 },
	{ "8fc4", 2, SEQ },			/* reg 0: pop rsp */
	{ "8fd0", BAD, 0 },			/* map 0x10 */
	{ "668fe878c0c805", BAD, 0 },		/* 66 before XOP */

	/* VEX */
	{ "c5f877", 3, SEQ },			/* vzeroupper */
	{ "c5fc77", 3, SEQ },			/* vzeroall */
	{ "c5fc28c1", 4, SEQ },			/* vmovaps ymm0, ymm1 */
	{ "c5fd6f0424", 5, SEQ },
	{ "c5f9700001", 5, SEQ },		/* vpshufd xmm0, [rax], 1 */
	{ "c4e27d1807", 5, SEQ },		/* vbroadcastss ymm0, [rdi] */
	{ "c4e37d18c101", 6, SEQ },		/* vinsertf128 */
	{ "c4e2e9920488", 6, SEQ },		/* vgatherdpd, vsib */
	{ "c4e1fb92cb", 5, SEQ },		/* kmovq k1, rbx */
	{ "c4e1f898c0", 5, SEQ },		/* kortestq k0, k0 */
	{ "c4c17a6f4500", 6, SEQ },
	{ "c4e0780000", BAD, 0 },		/* map 0 */
	{ "c4e4780000", BAD, 0 },		/* map 4 */
	{ "66c5f877", BAD, 0 },			/* 66 before VEX */
	{ "f3c5f877", BAD, 0 },
	{ "f0c5f877", BAD, 0 },
	{ "48c5f877", BAD, 0 },			/* REX before VEX */
	{ "c5f805", BAD, 0 },			/* VEX syscall */
	{ "c5f884", BAD, 0 },			/* VEX jcc */
	{ "c5f80f", BAD, 0 },			/* VEX 0F 0F */
	{ "c50877", BAD, 0 },			/* vzeroupper, vvvv != 1111 */
	{ "c5fa2800", BAD, 0 },			/* vmovaps has no F3 form */
	{ "c4e2fa4000", BAD, 0 },		/* vpmulld is 66 only */
	{ "c4e278f2c1", 5, SEQ },		/* andn eax, eax, ecx */
	{ "c4e37bf0c105", 6, SEQ },		/* rorx eax, ecx, 5 */
	{ "8c30", BAD, 0 },			/* mov [rax], seg 6 */
	{ "8ec8", BAD, 0 },			/* mov cs, eax */
	{ "8ed8", 2, SEQ },			/* mov ds, eax */

	/* EVEX */
	{ "62f1fe486f4601", 7, SEQ },		/* vmovdqu64 zmm0, [rsi+0x40] */
	{ "62f17c585846ff", 7, SEQ },		/* vaddps zmm0, zmm0, {1to16} */
	{ "62e1f520ef4c17fe", 8, SEQ },
	{ "62f37d203f0700", 7, SEQ },		/* vpcmpb k0, ymm0, [rdi], 0 */
	{ "62f27d49900488", 7, SEQ },		/* vpgatherdd zmm0{k1} */
	{ "62f1fa486f00", BAD, 0 },		/* P1 bit 2 clear */
	{ "62f9fe486f00", BAD, 0 },		/* P0 bit 3 set */
	{ "62f4fc486f00", BAD, 0 },		/* map 4 */
	{ "62f07c486f00", BAD, 0 },		/* map 0 */
	{ "62f57c485800", 6, SEQ },		/* map 5 (FP16) */
	{ "6662f1fe486f00", BAD, 0 },
	{ "62f17c7858c1", 6, SEQ },		/* L'L = 3 with rounding */
	{ "62f17c685800", BAD, 0 },		/* L'L = 3 with memory */

	/* 3DNow! */
	{ "0f0fc1b4", 4, SEQ },			/* pfmul mm0, mm1 */
	{ "0f0f4424089e", 6, SEQ },		/* pfadd mm0, [rsp+8] */
	{ "0f0fc100", BAD, 0 },
	{ "0f0e", 2, SEQ },			/* femms */

	/* x87 */
	{ "d9c9", 2, SEQ },
	{ "d9d0", 2, SEQ },			/* fnop */
	{ "d9d1", BAD, 0 },
	{ "d9d8", 2, SEQ },			/* fstp1 alias */
	{ "d9e2", BAD, 0 },
	{ "dae9", 2, SEQ },			/* fucompp */
	{ "daea", BAD, 0 },
	{ "dfe0", 2, SEQ },			/* fnstsw ax */
	{ "dfe1", BAD, 0 },
	{ "d908", BAD, 0 },			/* d9 /1 memory */
	{ "dd28", BAD, 0 },			/* dd /5 memory */
	{ "db28", 2, SEQ },			/* fld m80 */
	{ "dd442408", 4, SEQ },
	{ "df2c24", 3, SEQ },
	{ "9b", 1, SEQ },

	/* prefix soup and the 15-byte limit */
	{ "f3f266672e3e2636646526660148ff00", 15, SEQ },
	{ "f3f266672e3e2636646526664890", 14, SEQ },
	{ "f3f266672e3e2636646526f366f34890", BAD, 0 },	/* 16 bytes */
	{ "f0f3f266672e3e26366465664801ff00", BAD, 0 },	/* 16 with lock */
	{ "f3f266672e3e26366465f066480100", 15, SEQ },	/* lock add */

	/* lock: read-modify-write forms with a memory destination only */
	{ "f00100", 3, SEQ },			/* lock add [rax], eax */
	{ "f00300", BAD, 0 },			/* lock add eax, [rax] */
	{ "f001c0", BAD, 0 },			/* register destination */
	{ "f090", BAD, 0 },
	{ "f08b00", BAD, 0 },			/* mov */
	{ "f0ff00", 3, SEQ },			/* inc */
	{ "f0ff10", BAD, 0 },			/* call */
	{ "f0f618", 3, SEQ },			/* neg */
	{ "f0f60001", BAD, 0 },			/* test */
	{ "f0833800", BAD, 0 },			/* cmp */
	{ "f0830000", 4, SEQ },
	{ "f0480fb10a", 5, SEQ },		/* cmpxchg */
	{ "f00fc70e", 4, SEQ },			/* cmpxchg8b */
	{ "f00fbae005", BAD, 0 },		/* bt */
	{ "f00fba2805", 5, SEQ },		/* bts */
	{ "f08600", 3, SEQ },			/* xchg */
	{ "f0a4", BAD, 0 },			/* movs */
	{ "262626262648b81122334455667788", 15, SEQ },
	{ "26262626262648b81122334455667788", BAD, 0 },
	{ "2e2e2e2e2e2e2e2e2e2e0500000000", 15, SEQ },
	{ "2e2e2e2e2e2e2e2e2e2e2e0500000000", BAD, 0 },
	{ "40404040404040404040404040404090", BAD, 0 },	/* 16 REX */
	{ "404040404040404040404040404090", 15, SEQ },
};

static int parse_hex(const char *hex, u8 *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (hex[0] && hex[1] && n < max) {
		if (sscanf(hex, "%2x", &v) != 1)
			return -1;
		out[n++] = v;
		hex += 2;
	}
	return n;
}

/* Decode from a heap buffer of exactly n bytes so that ASan sees over-reads. */
static int decode_exact(const u8 *bytes, size_t n, struct x86_insn_info *in)
{
	u8 *p = malloc(n ? n : 1);
	int r;

	memcpy(p, bytes, n);
	r = x86_insn_decode(n ? p : NULL, n, in);
	free(p);
	return r;
}

static void test_vectors(void)
{
	struct x86_insn_info in;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vec *v = &vectors[i];
		u8 b[32];
		int n = parse_hex(v->hex, b, sizeof(b));
		int r = decode_exact(b, n, &in);

		if (r != v->len)
			fprintf(stderr, "  vector %s\n", v->hex);
		CHECK_INT(r, v->len);
		if (r > 0 && r == v->len && in.flow != v->flow) {
			fprintf(stderr, "  vector %s\n", v->hex);
			CHECK_INT(in.flow, v->flow);
		}
	}
}

/* Every proper prefix of a valid instruction is -EAGAIN, never more. */
static void test_truncation(void)
{
	struct x86_insn_info in;
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		u8 b[32];
		int n = parse_hex(vectors[i].hex, b, sizeof(b));
		int len = vectors[i].len;

		if (len <= 0)
			continue;
		for (k = 0; k < len; k++) {
			int r = decode_exact(b, k, &in);

			if (r != -EAGAIN)
				fprintf(stderr, "  %s cut to %d\n",
					vectors[i].hex, k);
			CHECK_INT(r, -EAGAIN);
		}
		for (k = len; k <= n; k++)
			CHECK_INT(decode_exact(b, k, &in), len);
	}
}

/* Too long is known as soon as the opcode is: no need for more bytes. */
static void test_too_long_early(void)
{
	struct x86_insn_info in;
	u8 b[16];
	int n = parse_hex("2626262626262648b8", b, sizeof(b));

	CHECK_INT(decode_exact(b, n, &in), -EINVAL);
	n = parse_hex("26262626262626262626262626262626", b, sizeof(b));
	CHECK_INT(decode_exact(b, 15, &in), -EINVAL);
	CHECK_INT(decode_exact(b, 14, &in), -EAGAIN);
}

static void test_branch_target(void)
{
	struct x86_insn_info in;
	u8 b[16];
	int n;

	n = parse_hex("e8fbffffff", b, sizeof(b));
	CHECK_INT(decode_exact(b, n, &in), 5);
	CHECK_HEX(x86_insn_branch_target(&in, 0x401000), 0x401000);
	n = parse_hex("7480", b, sizeof(b));
	decode_exact(b, n, &in);
	CHECK_INT(in.rel, -128);
	CHECK_HEX(x86_insn_branch_target(&in, 0x1000), 0x1000 + 2 - 128);
	n = parse_hex("0f85ffffff7f", b, sizeof(b));
	decode_exact(b, n, &in);
	CHECK_HEX(x86_insn_branch_target(&in, 0x1000), 0x1000 + 6 + 0x7fffffffull);
	n = parse_hex("66c7f81000", b, sizeof(b));	/* xbegin rel16 */
	decode_exact(b, n, &in);
	CHECK_HEX(x86_insn_branch_target(&in, 0x1000), 0x1000 + 5 + 0x10);
	n = parse_hex("66e900000080", b, sizeof(b));
	decode_exact(b, n, &in);
	CHECK_INT(in.rel, INT32_MIN);
}

static const u64 regs[16] = {
	0x1000, 0x2000, 0x3000, 0x4000, 0x7ffc0000, 0x6000, 0x7000, 0x8000,
	0x9000, 0xa000, 0xb000, 0xc000, 0xfffffffff0000000, 0xe000, 0xf000,
	0x10000,
};

struct ea_case {
	const char *hex;
	bool has;
	u64 ea;
	int nmem;
};

#define FSB 0x7f0000000000ull
#define GSB 0x7e0000000000ull

static const struct ea_case ea_cases[] = {
	{ "8b0424", true, 0x7ffc0000, 1 },		/* mov eax, [rsp] */
	{ "8b44980c", true, 0x1000 + 0x4000 * 4 + 12, 1 },
	{ "488b0500010000", true, 0x400000 + 7 + 0x100, 1 },	/* rip */
	{ "67488b0500010000", true, (u32)(0x400000 + 8 + 0x100), 1 },
	{ "64488b042528000000", true, FSB + 0x28, 1 },
	{ "65488b0425f0ffffff", true, GSB - 0x10, 1 },
	{ "418b442408", true, 0xfffffffff0000008, 1 },	/* [r12+8] */
	{ "428b0425f0ffffff", true, 0xffffffffeffffff0, 1 },	/* [r12*1-16] */
	{ "678b0418", true, 0x1000 + 0x4000, 1 },		/* [eax+ebx] */
	{ "67418b0424", true, 0xf0000000, 1 },			/* [r12d] */
	{ "a01122334455667788", true, 0x8877665544332211, 1 },
	{ "64a11000000000000000", true, FSB + 0x10, 1 },
	{ "67a011223344", true, 0x44332211, 1 },
	{ "8d0408", true, 0x3000, 0 },	/* lea: an address, no access */
	{ "0f1f440000", true, 0x2000, 0 },	/* nop [rax+rax] */
	{ "0f1800", true, 0x1000, 1 },		/* prefetchnta */
	{ "50", false, 0, 1 },			/* push rax */
	{ "ff30", true, 0x1000, 2 },		/* push [rax] */
	{ "ff10", true, 0x1000, 2 },		/* call [rax] */
	{ "8f00", true, 0x1000, 2 },		/* pop [rax] */
	{ "c3", false, 0, 1 },
	{ "a4", true, 0x7000, 2 },		/* movsb: source */
	{ "64a4", true, FSB + 0x7000, 2 },
	{ "aa", true, 0x8000, 1 },		/* stosb: es:[rdi] */
	{ "64aa", true, 0x8000, 1 },		/* override ignored */
	{ "67ae", true, 0x8000, 1 },
	{ "d7", true, 0x4000 + 0x00, 1 },	/* xlat: al = 0 */
	{ "0f2000", false, 0, 0 },
	{ "c4e2e9920488", false, 0, 1 },	/* vsib: no ea */
	{ "62f1fe486f4601", true, 0x7000 + 0x40, 1 },
	{ "62f1fe486f46ff", true, 0x7000 - 0x40, 1 },
	{ "62f17c58584601", true, 0x7000 + 4, 1 },	/* vaddps {1to16} */
	{ "62f1fd58584601", true, 0x7000 + 8, 1 },	/* vaddpd {1to8} */
	{ "62f1ff08104601", true, 0x7000 + 8, 1 },	/* vmovsd: T1S */
	{ "62f27d28584601", true, 0x7000 + 4, 1 },	/* vpbroadcastd */
	{ "62f27d48314601", true, 0x7000 + 16, 1 },	/* vpmovzxbd: QVM */
	{ "62f1ff28124601", true, 0x7000 + 32, 1 },	/* vmovddup ymm */
	{ "62f1ff08124601", true, 0x7000 + 8, 1 },	/* vmovddup xmm */
};

static void test_mem_ea(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ea_cases); i++) {
		const struct ea_case *c = &ea_cases[i];
		struct x86_insn_info in;
		u8 b[16];
		int n = parse_hex(c->hex, b, sizeof(b));
		u64 ea = 0;
		bool has;

		CHECK_INT(decode_exact(b, n, &in), n);
		has = x86_insn_mem_ea(&in, 0x400000, regs, FSB, GSB, &ea);
		if (has != c->has || (has && ea != c->ea) || in.nmem != c->nmem)
			fprintf(stderr, "  case %s\n", c->hex);
		CHECK_INT(has, c->has);
		if (has && c->has)
			CHECK_HEX(ea, c->ea);
		CHECK_INT(in.nmem, c->nmem);
	}
}

static void test_operand_fields(void)
{
	struct x86_insn_info in;
	u8 b[16];
	int n;

	n = parse_hex("2e648b00", b, sizeof(b));	/* last segment wins */
	decode_exact(b, n, &in);
	CHECK_INT(in.seg, X86_SEG_FS);
	n = parse_hex("4a8b44a510", b, sizeof(b));	/* [rbp + r12*4 + 16] */
	decode_exact(b, n, &in);
	CHECK_INT(in.base, X86_RBP);
	CHECK_INT(in.index, X86_R12);
	CHECK_INT(in.scale, 4);
	CHECK_INT(in.disp, 16);
	n = parse_hex("8b04e5f0ffffff", b, sizeof(b));	/* no base: disp32 */
	decode_exact(b, n, &in);
	CHECK_INT(in.base, X86_REG_NONE);
	CHECK_INT(in.index, X86_REG_NONE);
	CHECK_INT(in.disp, -16);
	n = parse_hex("62f27d49900488", b, sizeof(b));	/* vpgatherdd */
	decode_exact(b, n, &in);
	CHECK(in.vsib);
	CHECK_INT(in.index, 1);
	CHECK_INT(in.scale, 4);
	n = parse_hex("62f27d41900488", b, sizeof(b));	/* V' = 0: zmm17 */
	decode_exact(b, n, &in);
	CHECK_INT(in.index, 17);
	CHECK_INT(in.vl, 64);
	CHECK(in.vex_w == false);
	n = parse_hex("f3a4", b, sizeof(b));
	decode_exact(b, n, &in);
	CHECK(in.rep);
	n = parse_hex("f2ae", b, sizeof(b));
	decode_exact(b, n, &in);
	CHECK(in.rep);
	n = parse_hex("f390", b, sizeof(b));		/* pause */
	decode_exact(b, n, &in);
	CHECK(!in.rep);
	CHECK_INT(in.pp, 0xF3);
	n = parse_hex("66f20f58c1", b, sizeof(b));	/* addsd: F2 wins */
	decode_exact(b, n, &in);
	CHECK_INT(in.pp, 0xF2);
	CHECK_INT(in.map, X86_MAP_0F);
	CHECK_INT(in.opcode, 0x58);
	n = parse_hex("b4", b, sizeof(b));
	CHECK_INT(decode_exact(b, 0, &in), -EAGAIN);
}

int main(void)
{
	unit_prog = "test_insn";
	RUN(test_vectors);
	RUN(test_truncation);
	RUN(test_too_long_early);
	RUN(test_branch_target);
	RUN(test_mem_ea);
	RUN(test_operand_fields);
	return unit_done();
}
