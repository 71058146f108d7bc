/*
 * test_insn_corpus.c - the x86-64 decoder against Capstone on real binaries.
 *
 * Every executable section of each binary is walked linearly, restarting at
 * each function symbol. At every instruction the decoder's length, flow
 * class, direct branch target and memory operand (base, index, scale,
 * displacement, segment) are compared with Capstone's, and x86_insn_mem_ea()
 * is compared with the address computed from Capstone's operand breakdown.
 *
 *   test_insn_corpus            the default corpus (a few seconds)
 *   test_insn_corpus --all      also the large binaries (gdb, qemu, x265, ...)
 *   test_insn_corpus FILE...    just those files
 *
 * Cases where Capstone 4.0.2 is wrong are excluded by capstone_wrong() below,
 * each with the bytes and what the Intel SDM says, and counted.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "arch/x86_64/insn.h"
#include "unit.h"

struct stats {
	unsigned long insns, bytes;
	unsigned long len_bad, flow_bad, target_bad, mem_bad, ea_bad;
	unsigned long mem_checked, ea_checked, branches;
	unsigned long both_invalid, cs_only_invalid, we_only_invalid;
	unsigned long cs_wrong;
	unsigned long objdump_checked, objdump_bad, lenient;
};

/*
 * Instructions Capstone 4.0.2 cannot decode (it predates AVX512BW mask
 * moves, pkru access, ...). They are checked in one batch with GNU objdump:
 * each goes into a 16-byte slot padded with nops, and objdump must see an
 * instruction of exactly our length at the start of every slot.
 */
#define SLOT 16
struct gap {
	u8 *bytes;
	u8 *lens;		/* our length, one per slot */
	size_t nbytes, cap;
	unsigned long count;
};
static struct gap gaps;

static csh cs;
static struct stats total;
static int reports;

/* ------------------------------------------------------------------ */
/* Capstone registers */

struct csreg {
	int num;	/* hardware number, or -1 */
	int bits;	/* 64, 32 or vector */
	bool rip;
};

static struct csreg cs_reg(unsigned int r)
{
	static const unsigned int r64[16] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
		X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
		X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	static const unsigned int r32[16] = {
		X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
		X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
		X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
		X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D,
	};
	struct csreg out = { -1, 0, false };
	int i;

	if (r == X86_REG_INVALID)
		return out;
	if (r == X86_REG_RIP || r == X86_REG_EIP) {
		out.rip = true;
		out.bits = r == X86_REG_RIP ? 64 : 32;
		return out;
	}
	for (i = 0; i < 16; i++) {
		if (r == r64[i])
			return (struct csreg){ i, 64, false };
		if (r == r32[i])
			return (struct csreg){ i, 32, false };
	}
	if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31)
		return (struct csreg){ r - X86_REG_XMM0, 128, false };
	if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31)
		return (struct csreg){ r - X86_REG_YMM0, 256, false };
	if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31)
		return (struct csreg){ r - X86_REG_ZMM0, 512, false };
	out.bits = -1;		/* something else: report */
	return out;
}

static int cs_seg(unsigned int r)
{
	switch (r) {
	case X86_REG_ES: return X86_SEG_ES;
	case X86_REG_CS: return X86_SEG_CS;
	case X86_REG_SS: return X86_SEG_SS;
	case X86_REG_DS: return X86_SEG_DS;
	case X86_REG_FS: return X86_SEG_FS;
	case X86_REG_GS: return X86_SEG_GS;
	}
	return X86_SEG_NONE;
}

/* Capstone's instruction id and operands -> our flow class */
static int cs_flow(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	bool imm = x->op_count > 0 && x->operands[0].type == X86_OP_IMM;

	switch (ci->id) {
	case X86_INS_JA: case X86_INS_JAE: case X86_INS_JB: case X86_INS_JBE:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_JE: case X86_INS_JNE: case X86_INS_JG: case X86_INS_JGE:
	case X86_INS_JL: case X86_INS_JLE: case X86_INS_JO: case X86_INS_JNO:
	case X86_INS_JP: case X86_INS_JNP: case X86_INS_JS: case X86_INS_JNS:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_XBEGIN:
		return X86_FLOW_JCC;
	case X86_INS_JMP:
		return imm ? X86_FLOW_JMP : X86_FLOW_JMP_IND;
	case X86_INS_CALL:
		return imm ? X86_FLOW_CALL : X86_FLOW_CALL_IND;
	case X86_INS_RET:
		return X86_FLOW_RET;
	case X86_INS_SYSCALL: case X86_INS_SYSENTER:
		return X86_FLOW_SYSCALL;
	case X86_INS_INT3: case X86_INS_INT: case X86_INS_INT1: case X86_INS_INTO:
	case X86_INS_UD0: case X86_INS_UD2: case X86_INS_UD2B: case X86_INS_HLT:
		return X86_FLOW_TRAP;
	case X86_INS_LJMP: case X86_INS_LCALL: case X86_INS_RETF: case X86_INS_RETFQ:
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_SYSRET: case X86_INS_SYSEXIT:
		return X86_FLOW_FAR;
	}
	return X86_FLOW_SEQ;
}

/* ------------------------------------------------------------------ */
/* Where Capstone 4.0.2 is wrong (checked against the Intel SDM) */

static const char *capstone_wrong(const u8 *b, size_t n, const cs_insn *ci,
				  int len, const struct x86_insn_info *in)
{
	/*
	 * 0F FF (ud0) and 0F B9 (ud1) take a ModRM byte: SDM vol. 2 "UD -
	 * Undefined Instruction": "0F FF /r UD0 r32, r/m32", "0F B9 /r UD1
	 * r32, r/m32". Capstone 4 ends them after two bytes, e.g.
	 * 0f ff c8 34 = ud0 ecx, eax is 3 bytes, Capstone says 2.
	 */
	if ((ci->id == X86_INS_UD0 || ci->id == X86_INS_UD2B) &&
	    len > ci->size && in->has_modrm)
		return "ud0/ud1 ModRM";
	/*
	 * 66 before a near jmp/call/jcc rel32: SDM vol. 2 JMP/CALL/Jcc, "In
	 * 64-bit mode the operand size is fixed at 64 bits" and the
	 * displacement stays 32 bits on Intel 64; Capstone decodes AMD's
	 * rel16 form, e.g. 66 e9 dd 00 4d a0 is 6 bytes, Capstone says 4.
	 */
	if (in->opsize && in->rel && len == ci->size + 2 &&
	    (in->flow == X86_FLOW_JMP || in->flow == X86_FLOW_CALL ||
	     in->flow == X86_FLOW_JCC))
		return "66 near branch";
	/*
	 * LOCK on an instruction whose destination is not memory: SDM vol. 2
	 * "LOCK": "#UD if the LOCK prefix is used with an instruction not
	 * listed [add, adc, and, btc, btr, bts, cmpxchg, cmpxch8b, cmpxchg16b,
	 * dec, inc, neg, not, or, sbb, sub, xor, xadd, xchg] or the
	 * destination operand is not a memory operand". Capstone decodes
	 * e.g. f0 03 16 = lock add edx, [rsi].
	 */
	/*
	 * MOV to CS: SDM vol. 2 MOV, "#UD if an attempt is made to load the
	 * CS register"; Capstone decodes 8e c9 = mov cs, ecx.
	 */
	if (len == -EINVAL && ci->id == X86_INS_MOV &&
	    ci->detail->x86.operands[0].type == X86_OP_REG &&
	    ci->detail->x86.operands[0].reg == X86_REG_CS)
		return "mov to cs";
	if (len == -EINVAL && n > 0 && memchr(b, 0xF0, ci->size - 1) &&
	    ci->detail->x86.prefix[0] == X86_PREFIX_LOCK)
		return "lock without a memory destination";
	return NULL;
}

/* ------------------------------------------------------------------ */

/* Print the first few cases of each kind (count is that kind's tally). */
static void report(const char *what, unsigned long count, u64 addr,
		   const u8 *b, size_t n, const cs_insn *ci, int len,
		   const char *detail)
{
	char hex[64];
	size_t i;

	if (count > 8 || reports++ > 200)
		return;
	for (i = 0; i < n && i < 15; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	fprintf(stderr, "  %s at %#llx: %s: capstone '%s %s' len %d, ours %d %s\n",
		what, (unsigned long long)addr, hex, ci ? ci->mnemonic : "-",
		ci ? ci->op_str : "", ci ? ci->size : 0, len, detail ? detail : "");
}

static const u64 gpr_vals[16] = {
	0x1111000000001000, 0x2222000000002010, 0x3333000000003020,
	0x4444000000004030, 0x5555000000005040, 0x6666000000006050,
	0x7777000000007060, 0x8888000000008070, 0x9999000000009080,
	0xaaaa00000000a090, 0xbbbb00000000b0a0, 0xcccc00000000c0b0,
	0xdddd00000000d0c0, 0xeeee00000000e0d0, 0xffff00000000f0e0,
	0x0123000080000000,
};
#define FS_BASE 0x00007f0000100000ull
#define GS_BASE 0x00007f0000200000ull

static void compare_mem(u64 addr, const u8 *b, size_t n, const cs_insn *ci,
			const struct x86_insn_info *in, struct stats *st)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *mop = NULL;
	struct csreg base, index;
	char why[128];
	u64 want, got;
	bool trunc;
	int i;

	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && !mop)
			mop = &x->operands[i];
	if (in->implicit & (X86_IMP_SRC | X86_IMP_DST | X86_IMP_XLAT))
		return;		/* string operands: tested by hand */
	if (!mop && !in->has_mem)
		return;
	st->mem_checked++;
	if (!mop || !in->has_mem) {
		st->mem_bad++;
		report("mem presence", st->mem_bad, addr, b, n, ci, in->len,
		       in->has_mem ? "ours has mem" : "ours has none");
		return;
	}
	base = cs_reg(mop->mem.base);
	index = cs_reg(mop->mem.index);
	if (in->enc == X86_ENC_EVEX && !in->vsib && index.bits > 64 &&
	    index.num == in->index) {
		/*
		 * Capstone bug: with EVEX.V' = 0 (P2 bit 3 clear, i.e. vvvv
		 * names zmm16-31) it shows the SIB index of an ordinary
		 * memory operand as a vector register, e.g.
		 * 62 e1 f5 20 ef 4c 17 fe = vpxorq ymm17, ymm17,
		 * [rdi + rdx - 0x40], shown as [rdi + xmm2 - 0x40]. SDM vol.
		 * 2 2.7.1: V' extends vvvv, or the index only with VSIB.
		 */
		st->cs_wrong++;
		index.bits = 64;
	}
	why[0] = 0;
	if (base.bits < 0 || index.bits < 0)
		snprintf(why, sizeof(why), "odd capstone register");
	else if (base.rip != in->rip_rel || base.num != in->base)
		snprintf(why, sizeof(why), "base %d rip %d", in->base, in->rip_rel);
	else if (index.num != in->index || (index.bits > 64) != in->vsib)
		snprintf(why, sizeof(why), "index %d vsib %d", in->index, in->vsib);
	else if (index.num >= 0 && mop->mem.scale != in->scale)
		snprintf(why, sizeof(why), "scale %d", in->scale);
	else if (mop->mem.disp != in->disp)
		snprintf(why, sizeof(why), "disp %#llx", (long long)in->disp);
	else if (cs_seg(mop->mem.segment) != in->seg)
		snprintf(why, sizeof(why), "seg %d", in->seg);
	if (why[0]) {
		st->mem_bad++;
		report("mem operand", st->mem_bad, addr, b, n, ci, in->len, why);
		return;
	}

	/* the effective address from Capstone's breakdown */
	if (in->vsib) {
		if (x86_insn_mem_ea(in, addr, gpr_vals, FS_BASE, GS_BASE, &got)) {
			st->ea_bad++;
			report("ea vsib", st->ea_bad, addr, b, n, ci, in->len, "ea for vsib");
		}
		return;
	}
	trunc = base.bits == 32 || index.bits == 32 || in->adsize;
	want = (u64)mop->mem.disp;
	if (base.rip)
		want += addr + ci->size;
	else if (base.num >= 0)
		want += gpr_vals[base.num];
	if (index.num >= 0)
		want += gpr_vals[index.num] * (u64)mop->mem.scale;
	if (trunc)
		want = (u32)want;
	if (mop->mem.segment == X86_REG_FS)
		want += FS_BASE;
	else if (mop->mem.segment == X86_REG_GS)
		want += GS_BASE;
	st->ea_checked++;
	if (!x86_insn_mem_ea(in, addr, gpr_vals, FS_BASE, GS_BASE, &got) ||
	    got != want) {
		st->ea_bad++;
		snprintf(why, sizeof(why), "ea %#llx want %#llx",
			 (unsigned long long)got, (unsigned long long)want);
		report("ea", st->ea_bad, addr, b, n, ci, in->len, why);
	}
}

/* Decode one instruction both ways; returns how far to advance. */
static size_t check_one(u64 addr, const u8 *b, size_t n, cs_insn *ci,
			struct stats *st)
{
	struct x86_insn_info in;
	const u8 *p = b;
	size_t sz = n;
	u64 a = addr;
	bool ok;
	int len, flow;
	const char *wrong;

	len = x86_insn_decode(b, n, &in);
	ok = cs_disasm_iter(cs, &p, &sz, &a, ci);
	if (!ok) {
		if (len < 0) {
			st->both_invalid++;
			return 1;
		}
		st->cs_only_invalid++;
		if (gaps.nbytes + SLOT > gaps.cap) {
			gaps.cap = gaps.cap ? gaps.cap * 2 : 4096;
			gaps.bytes = realloc(gaps.bytes, gaps.cap);
			gaps.lens = realloc(gaps.lens, gaps.cap / SLOT);
		}
		memset(gaps.bytes + gaps.nbytes, 0x90, SLOT);
		memcpy(gaps.bytes + gaps.nbytes, b, len);
		gaps.lens[gaps.count] = len;
		gaps.nbytes += SLOT;
		gaps.count++;
		return len;
	}
	st->insns++;
	st->bytes += ci->size;
	wrong = capstone_wrong(b, n, ci, len, &in);
	if (wrong) {
		st->cs_wrong++;
		return len > 0 ? (size_t)len : ci->size;
	}
	if (len < 0) {
		st->we_only_invalid++;
		report("ours invalid", st->we_only_invalid, addr, b, n, ci, len, NULL);
		return ci->size;
	}
	if (len != ci->size) {
		st->len_bad++;
		report("length", st->len_bad, addr, b, n, ci, len, NULL);
		return ci->size;
	}
	flow = cs_flow(ci);
	if (flow != in.flow) {
		char why[32];

		snprintf(why, sizeof(why), "flow %d want %d", in.flow, flow);
		st->flow_bad++;
		report("flow", st->flow_bad, addr, b, n, ci, len, why);
	} else if (flow == X86_FLOW_JCC || flow == X86_FLOW_JMP ||
		   flow == X86_FLOW_CALL) {
		st->branches++;
		if (x86_insn_branch_target(&in, addr) !=
		    (u64)ci->detail->x86.operands[0].imm) {
			st->target_bad++;
			report("target", st->target_bad, addr, b, n, ci, len, NULL);
		}
	}
	compare_mem(addr, b, n, ci, &in, st);
	return len;
}

/* Disassemble the gaps with objdump; count slots where it disagrees. */
static void check_gaps_with_objdump(struct stats *st)
{
	char tmp[] = "/tmp/test_insn_gapsXXXXXX", cmd[256], line[512];
	unsigned long seen = 0, carry = 0, carry_at = 0;
	FILE *f;
	int fd;

	if (!gaps.count)
		return;
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, gaps.bytes, gaps.nbytes) != (ssize_t)gaps.nbytes) {
		st->objdump_bad = gaps.count;
		return;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "objdump -D -b binary -m i386:x86-64 "
		 "--insn-width=15 %s", tmp);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a;
		char *tab, *mn, *q;
		int nb = 0, ours;

		if (sscanf(line, " %lx:\t", &a) != 1 ||
		    !(tab = strchr(line, '\t')))
			continue;
		if (a % SLOT && a != carry_at)
			continue;
		mn = strchr(tab + 1, '\t');
		for (q = tab + 1; *q && q != mn; q++)
			if (q[0] != ' ' && (q[1] == ' ' || q[1] == '\t'))
				nb++;
		/* objdump shows a superseded REX on a line of its own */
		if (nb == 1 && mn && !strncmp(mn + 1, "rex", 3) &&
		    !strchr(mn + 1, ' ')) {
			carry += 1;
			carry_at = a + 1;
			continue;
		}
		nb += carry;
		a -= carry;
		carry = 0;
		carry_at = 0;
		seen++;
		ours = gaps.lens[a / SLOT];
		if (mn && strstr(mn, "(bad)") && nb < ours) {
			/*
			 * objdump rejects an encoding we accept: data in
			 * .text hitting a rule the decoder does not check
			 * (VEX.vvvv/W/L or mod restrictions per instruction).
			 */
			if (st->lenient++ < 4) {
				fprintf(stderr, "  accepted, objdump says "
					"undefined:");
				for (nb = 0; nb < ours; nb++)
					fprintf(stderr, " %02x",
						gaps.bytes[a + nb]);
				fprintf(stderr, "\n");
			}
		} else if (nb != ours || !mn || strstr(mn, "(bad)")) {
			if (st->objdump_bad++ < 8) {
				fprintf(stderr, "  objdump disagrees, ours %d:",
					ours);
				for (nb = 0; nb < ours; nb++)
					fprintf(stderr, " %02x",
						gaps.bytes[a + nb]);
				fprintf(stderr, "; objdump: %s", line);
			}
		}
	}
	if (f)
		pclose(f);
	unlink(tmp);
	if (seen != gaps.count) {
		fprintf(stderr, "  objdump showed %lu of %lu slots\n", seen,
			gaps.count);
		st->objdump_bad++;
	}
	st->objdump_checked = gaps.count;
	gaps.nbytes = 0;
	gaps.count = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Function symbol addresses from .symtab and .dynsym, sorted. */
static size_t collect_symbols(Elf *e, u64 **out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;
	u64 *v = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, cnt;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; i < cnt; i++) {
			GElf_Sym sym;
			int t;

			gelf_getsym(d, i, &sym);
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || !sym.st_value)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(v, cap * sizeof(*v));
			}
			v[n++] = sym.st_value;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	*out = v;
	return n;
}

static void walk_range(u64 addr, const u8 *b, u64 start, u64 end, u64 sec_end,
		       cs_insn *ci, struct stats *st)
{
	u64 pos = start;

	while (pos < end)
		pos += check_one(addr + (pos - start), b + (pos - start) ,
				 sec_end - pos, ci, st);
}

static bool check_file(const char *path, struct stats *st)
{
	Elf_Scn *scn = NULL;
	u64 *syms;
	size_t nsyms;
	cs_insn *ci;
	Elf *e;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return false;
	}
	nsyms = collect_symbols(e, &syms);
	ci = cs_malloc(cs);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		u64 lo, hi, s;
		size_t k;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		lo = sh.sh_addr;
		hi = sh.sh_addr + d->d_size;
		s = lo;
		/* ranges between consecutive restart points */
		for (k = 0; k <= nsyms; k++) {
			u64 t = k < nsyms ? syms[k] : hi;

			if (t <= s)
				continue;
			if (t > hi)
				t = hi;
			walk_range(s, (const u8 *)d->d_buf + (s - lo), s, t,
				   hi, ci, st);
			s = t;
			if (s >= hi)
				break;
		}
	}
	check_gaps_with_objdump(st);
	cs_free(ci, 1);
	free(syms);
	elf_end(e);
	close(fd);
	return true;
}

static const char *cur_path;

static void test_binary(void)
{
	struct stats st = { 0 };

	if (!check_file(cur_path, &st)) {
		CHECK(!"cannot read the binary");
		return;
	}
	printf("# %s: %lu insns (%lu bytes), %lu branches, %lu mem operands, "
	       "%lu ea; mismatches: len %lu flow %lu target %lu mem %lu ea %lu; "
	       "invalid: both %lu, ours-only %lu; "
	       "capstone gaps %lu (objdump agrees on %lu, calls %lu undefined); "
	       "capstone wrong (excluded) %lu\n",
	       cur_path, st.insns, st.bytes, st.branches, st.mem_checked,
	       st.ea_checked, st.len_bad, st.flow_bad, st.target_bad,
	       st.mem_bad, st.ea_bad, st.both_invalid, st.we_only_invalid,
	       st.cs_only_invalid,
	       st.objdump_checked - st.objdump_bad - st.lenient, st.lenient,
	       st.cs_wrong);
	CHECK(st.insns > 0);
	CHECK_INT(st.len_bad, 0);
	CHECK_INT(st.flow_bad, 0);
	CHECK_INT(st.target_bad, 0);
	CHECK_INT(st.mem_bad, 0);
	CHECK_INT(st.ea_bad, 0);
	CHECK_INT(st.objdump_checked, st.cs_only_invalid);
	CHECK_INT(st.objdump_bad, 0);
	CHECK_INT(st.we_only_invalid, 0);
#define ADD(f) total.f += st.f
	ADD(insns); ADD(bytes); ADD(branches); ADD(mem_checked); ADD(ea_checked);
	ADD(len_bad); ADD(flow_bad); ADD(target_bad); ADD(mem_bad); ADD(ea_bad);
	ADD(both_invalid); ADD(cs_only_invalid); ADD(we_only_invalid);
	ADD(cs_wrong); ADD(objdump_checked); ADD(objdump_bad);
	ADD(lenient);
#undef ADD
}

static const char *const default_corpus[] = {
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib64/ld-linux-x86-64.so.2",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/lib/x86_64-linux-gnu/libm.so.6",
	"/usr/bin/python3.11",
};

static const char *const large_corpus[] = {
	"/usr/bin/gdb",
	"/usr/bin/qemu-system-x86_64",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/x86_64-linux-gnu/libx265.so.199",
	"/usr/lib/x86_64-linux-gnu/libSvtAv1Enc.so.1",
	"/usr/lib/x86_64-linux-gnu/libaom.so.3",
	"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
};

static void run_file(const char *path, bool must_exist)
{
	const char *slash = strrchr(path, '/');

	if (!must_exist && access(path, R_OK) != 0)
		return;
	cur_path = path;
	unit_run(slash ? slash + 1 : path, test_binary);
}

int main(int argc, char **argv)
{
	size_t i;
	int a;
	bool all = argc > 1 && strcmp(argv[1], "--all") == 0;

	unit_prog = "test_insn_corpus";
	elf_version(EV_CURRENT);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		printf("FAIL unit/%s/capstone: cs_open failed\n", unit_prog);
		return 1;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

	if (argc > 1 && !all) {
		for (a = 1; a < argc; a++)
			run_file(argv[a], true);
	} else {
		for (i = 0; i < ARRAY_SIZE(default_corpus); i++)
			run_file(default_corpus[i], true);
		for (i = 0; all && i < ARRAY_SIZE(large_corpus); i++)
			run_file(large_corpus[i], false);
	}
	printf("# total: %lu insns compared, %lu mismatches, %lu excluded "
	       "(capstone wrong)\n", total.insns,
	       total.len_bad + total.flow_bad + total.target_bad +
	       total.mem_bad + total.ea_bad + total.objdump_bad +
	       total.we_only_invalid, total.cs_wrong);
	cs_close(&cs);
	return unit_done();
}
