/*
 * test_itrace.c - the stepping engine's pure core (runtime/itrace/tracker.c):
 * the steps a thread's traps, syscalls, int3s and signals turn into, step
 * flags, basic blocks, and memory operand addresses.
 *
 * A fake address space holds a few hand-assembled functions; a test
 * replays the events the kernel glue would see for one run through them
 * and checks every emitted step (address, length, successor, flags).
 */
#include "itrace/tracker.h"
#include "unit.h"

/* it_loop: the loop of testsuite/progs/it_count.c, at FN */
#define FN 0x401000ULL
static const u8 fn_loop[] = {
	0x55,				/* +0  push %rbp */
	0x31, 0xc0,			/* +1  xor %eax,%eax */
	0x48, 0x01, 0xf8,		/* +3  add %rdi,%rax */
	0x48, 0xff, 0xcf,		/* +6  dec %rdi */
	0x75, 0xf8,			/* +9  jnz +3 */
	0x5d,				/* +11 pop %rbp */
	0xc3,				/* +12 ret */
};

/* a syscall stub at SYS */
#define SYS 0x402000ULL
static const u8 fn_sys[] = {
	0xb8, 0x6e, 0x00, 0x00, 0x00,	/* +0 mov $110,%eax */
	0x0f, 0x05,			/* +5 syscall */
	0x90,				/* +7 nop */
	0xc3,				/* +8 ret */
};

/* the caller's return address, and a signal handler */
#define RET_ADDR 0x403000ULL
#define HANDLER 0x404000ULL
static const u8 nop_ret[] = { 0x90, 0xc3 };

/* a debugger's scratch copy of it_loop's add (gdb's displaced stepping) */
#define SCRATCH 0x405000ULL
static const u8 scratch_add[] = { 0x48, 0x01, 0xf8, 0xc3 };
static const u8 int3_byte[] = { 0xcc };

/* the bytes at ip in the fake address space */
static const u8 *mem(u64 ip, size_t *n)
{
	static const struct { u64 base; const u8 *b; size_t n; } regions[] = {
		{ FN, fn_loop, sizeof(fn_loop) },
		{ SYS, fn_sys, sizeof(fn_sys) },
		{ RET_ADDR, nop_ret, sizeof(nop_ret) },
		{ HANDLER, nop_ret, sizeof(nop_ret) },
		{ SCRATCH, scratch_add, sizeof(scratch_add) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(regions); i++)
		if (ip >= regions[i].base && ip < regions[i].base + regions[i].n) {
			*n = regions[i].n - (ip - regions[i].base);
			return regions[i].b + (ip - regions[i].base);
		}
	*n = 0;
	return NULL;
}

static struct utap_trace_step steps[256];
static int nsteps;

static void collect(void *arg, const struct utap_trace_step *s)
{
	(void)arg;
	if (nsteps < (int)ARRAY_SIZE(steps))
		steps[nsteps] = *s;
	nsteps++;
}

static struct utap_tracker trk;

static void reset(void)
{
	nsteps = 0;
	memset(steps, 0, sizeof(steps));
	utap_trk_init(&trk, collect, NULL);
}

static void start(u64 ip)
{
	size_t n;
	const u8 *b = mem(ip, &n);

	utap_trk_start(&trk, ip, b, n);
}

static void trap(u64 ip)
{
	size_t n;
	const u8 *b = mem(ip, &n);

	utap_trk_trap(&trk, ip, b, n);
}

static void sys_enter(u64 ip)
{
	size_t n;
	const u8 *b = mem(ip, &n);

	utap_trk_sys_enter(&trk, ip, b, n);
}

static void sys_exit(u64 ip, bool may_restart)
{
	size_t n;
	const u8 *b = mem(ip, &n);

	utap_trk_sys_exit(&trk, ip, b, n, may_restart);
}

/* A tracer lets the thread go at ip, over the code that is there now. */
static void resume(u64 ip)
{
	size_t n;
	const u8 *b = mem(ip, &n);

	utap_trk_resume(&trk, ip, b, n);
}

/* a trap where an int3 sits (a uprobe or the uretprobe trampoline) */
static void trap_int3(u64 ip)
{
	utap_trk_trap(&trk, ip, int3_byte, 1);
}

#define CHECK_STEP(i, ip_, len_, next_, flags_) do { \
	CHECK_HEX(steps[i].ip, ip_); \
	CHECK_INT(steps[i].len, len_); \
	CHECK_HEX(steps[i].next_ip, next_); \
	CHECK_HEX(steps[i].flags, flags_); \
	CHECK_INT(steps[i].kind, UTAP_TRACE_STEP); \
	CHECK_INT(steps[i].size, sizeof(struct utap_trace_step)); \
} while (0)

#define BR UTAP_STEP_BRANCH
#define TK UTAP_STEP_TAKEN
#define CO UTAP_STEP_COND

/* One call of the loop with n = 3: every step, in order, with its flags. */
TEST(test_loop)
{
	static const u64 path[] = { 0, 1, 3, 6, 9, 3, 6, 9, 3, 6, 9, 11, 12 };

	reset();
	start(FN);
	for (size_t i = 1; i < ARRAY_SIZE(path); i++)
		trap(FN + path[i]);
	trap(RET_ADDR);
	CHECK_INT(nsteps, 13);
	CHECK_STEP(0, FN, 1, FN + 1, 0);
	CHECK_STEP(1, FN + 1, 2, FN + 3, 0);
	CHECK_STEP(2, FN + 3, 3, FN + 6, 0);
	CHECK_STEP(4, FN + 9, 2, FN + 3, BR | CO | TK);
	CHECK_STEP(10, FN + 9, 2, FN + 11, BR | CO);
	CHECK_STEP(12, FN + 12, 1, RET_ADDR, BR | UTAP_STEP_RET | TK);
	CHECK_MEM(steps[2].bytes, "\x48\x01\xf8\0\0", 5);
	CHECK_INT(trk.nsteps, 13);
}

/* Blocks of the same run: one per taken branch (two jnz, the ret). */
TEST(test_blocks)
{
	static const u64 path[] = { 0, 1, 3, 6, 9, 3, 6, 9, 3, 6, 9, 11, 12 };
	struct utap_block b = { 0 };
	struct { u64 start; u32 n, bytes; u64 next; } got[8];
	int nb = 0;

	reset();
	start(FN);
	for (size_t i = 1; i < ARRAY_SIZE(path); i++)
		trap(FN + path[i]);
	trap(RET_ADDR);
	for (int i = 0; i < nsteps; i++) {
		CHECK(!utap_block_breaks(&b, &steps[i]));
		if (utap_block_add(&b, &steps[i]) && nb < 8) {
			got[nb].start = b.start;
			got[nb].n = b.ninsns;
			got[nb].bytes = b.nbytes;
			got[nb].next = b.next_ip;
			nb++;
			utap_block_reset(&b);
		}
	}
	CHECK_INT(nb, 3);
	CHECK_HEX(got[0].start, FN);
	CHECK_INT(got[0].n, 5);
	CHECK_INT(got[0].bytes, 11);
	CHECK_HEX(got[0].next, FN + 3);
	CHECK_HEX(got[1].start, FN + 3);
	CHECK_INT(got[1].n, 3);
	CHECK_INT(got[1].bytes, 8);
	CHECK_HEX(got[2].start, FN + 3);
	CHECK_INT(got[2].n, 5);
	CHECK_INT(got[2].bytes, 10);
	CHECK_HEX(got[2].next, RET_ADDR);
	CHECK_INT(b.ninsns, 0);
}

/* A step that does not follow the open block closes it. */
TEST(test_block_break)
{
	struct utap_block b = { 0 };
	struct utap_trace_step s;
	struct utap_insn in;

	utap_insn_set(&in, FN + 1, fn_loop + 1, 2);
	utap_step_make(&s, &in, FN + 3, 0);
	CHECK(!utap_block_add(&b, &s));
	utap_insn_set(&in, HANDLER, nop_ret, 2);
	utap_step_make(&s, &in, HANDLER + 1, 0);
	CHECK(utap_block_breaks(&b, &s));
	utap_insn_set(&in, FN + 3, fn_loop + 3, 3);
	utap_step_make(&s, &in, FN + 6, 0);
	CHECK(!utap_block_breaks(&b, &s));
}

/*
 * The instruction after a syscall runs before the next trap; the syscall's
 * successor comes from the exit, and the nop is reported.
 */
TEST(test_syscall)
{
	reset();
	start(SYS);
	trap(SYS + 5);
	sys_enter(SYS + 5);
	CHECK_INT(nsteps, 1);
	sys_exit(SYS + 7, false);
	CHECK_INT(nsteps, 2);
	trap(SYS + 8);
	trap(RET_ADDR);
	CHECK_INT(nsteps, 4);
	CHECK_STEP(0, SYS, 5, SYS + 5, 0);
	CHECK_STEP(1, SYS + 5, 2, SYS + 7, 0);
	CHECK_STEP(2, SYS + 7, 1, SYS + 8, 0);
	CHECK_STEP(3, SYS + 8, 1, RET_ADDR, BR | UTAP_STEP_RET | TK);
}

/*
 * A syscall the kernel restarts: ip goes back to it, and it runs again.
 * With a tracer stopping the thread on its way out (a signal's stop), the
 * syscall stays held across the stop as well.
 */
static void syscall_restart(bool tracer)
{
	reset();
	start(SYS + 5);
	sys_enter(SYS + 5);
	sys_exit(SYS + 7, true);
	if (tracer)
		resume(SYS + 5);
	CHECK_INT(nsteps, 0);
	/* the kernel rewound ip: the syscall runs again without a trap */
	sys_enter(SYS + 5);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, SYS + 5, 2, SYS + 5, UTAP_STEP_EXCEPTION);
	sys_exit(SYS + 7, true);
	if (tracer)
		resume(SYS + 7);
	trap(SYS + 8);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(1, SYS + 5, 2, SYS + 7, 0);
	CHECK_STEP(2, SYS + 7, 1, SYS + 8, 0);
}

TEST(test_syscall_restart)
{
	syscall_restart(false);
}

TEST(test_syscall_restart_traced)
{
	syscall_restart(true);
}

/*
 * itrace_off() in a uretprobe: the ret traps at the trampoline's int3; the
 * ret really went to the return address.
 */
TEST(test_trampoline)
{
	reset();
	start(FN + 11);
	trap(FN + 12);
	trap_int3(0x7fffffffe000ULL);
	CHECK_INT(nsteps, 1);
	utap_trk_int3(&trk, 0x7fffffffe000ULL);
	utap_trk_int3_resolve(&trk, UTAP_INT3_TRAMPOLINE, RET_ADDR, NULL, 0, nop_ret, 2);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(1, FN + 12, 1, RET_ADDR, BR | UTAP_STEP_RET | TK);
	utap_trk_stop(&trk, 0, 0);
	CHECK_INT(nsteps, 2);
}

/* The trampoline's page is not readable before its first use: the same. */
TEST(test_trampoline_unreadable)
{
	reset();
	start(FN + 12);
	utap_trk_trap(&trk, 0x7fffffffe000ULL, NULL, 0);
	CHECK_INT(nsteps, 0);
	utap_trk_int3(&trk, 0x7fffffffe000ULL);
	utap_trk_int3_resolve(&trk, UTAP_INT3_TRAMPOLINE, RET_ADDR, NULL, 0, nop_ret, 2);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, FN + 12, 1, RET_ADDR, BR | UTAP_STEP_RET | TK);
	/* an ordinary instruction on a page not present yet: confirmed by the next trap */
	reset();
	start(FN + 11);
	utap_trk_trap(&trk, FN + 12, NULL, 0);
	CHECK_INT(nsteps, 0);
	trap(RET_ADDR);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(0, FN + 11, 1, FN + 12, 0);
	CHECK_STEP(1, FN + 12, 0, RET_ADDR, UTAP_STEP_DECODE_FAIL);
}

/* A uprobe inside the traced range: its instruction (emulated) is one step. */
TEST(test_uprobe_emulated)
{
	size_t n;
	const u8 *b;

	reset();
	start(FN + 9);
	trap(FN + 11);			/* jnz fell through */
	trap_int3(FN + 12);		/* a uprobe on the ret */
	utap_trk_int3(&trk, FN + 12);
	b = mem(RET_ADDR, &n);
	utap_trk_int3_resolve(&trk, UTAP_INT3_EMULATED, RET_ADDR, fn_loop + 12, 1, b, n);
	trap(RET_ADDR + 1);
	CHECK_INT(nsteps, 4);
	CHECK_STEP(1, FN + 11, 1, FN + 12, 0);
	CHECK_STEP(2, FN + 12, 1, RET_ADDR, BR | UTAP_STEP_RET | TK);
	CHECK_STEP(3, RET_ADDR, 1, RET_ADDR + 1, 0);
}

/* The same probe stepped out of line: the step comes after the XOL step. */
TEST(test_uprobe_xol)
{
	size_t n;
	const u8 *b;

	reset();
	start(FN + 1);
	trap_int3(FN + 3);
	utap_trk_int3(&trk, FN + 3);
	utap_trk_int3_resolve(&trk, UTAP_INT3_XOL, FN + 3, fn_loop + 3, 3, int3_byte, 1);
	CHECK_INT(nsteps, 1);
	CHECK(trk.in_xol);
	b = mem(FN + 6, &n);
	utap_trk_xol_done(&trk, FN + 6, b, n);
	trap(FN + 9);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(0, FN + 1, 2, FN + 3, 0);
	CHECK_STEP(1, FN + 3, 3, FN + 6, 0);
	CHECK_MEM(steps[1].bytes, "\x48\x01\xf8", 3);
	CHECK_STEP(2, FN + 6, 3, FN + 9, 0);
}

/* itrace_on() in the entry uprobe: the probed instruction is the first step. */
TEST(test_start_at_uprobe)
{
	size_t n;
	const u8 *b = mem(FN + 1, &n);

	reset();
	utap_trk_start(&trk, FN, int3_byte, 1);
	utap_trk_int3(&trk, FN);
	utap_trk_int3_resolve(&trk, UTAP_INT3_EMULATED, FN + 1, fn_loop, 1, b, n);
	trap(FN + 3);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(0, FN, 1, FN + 1, 0);
	CHECK_STEP(1, FN + 1, 2, FN + 3, 0);
}

/* The thread runs into an int3 at FN + 3; what ran there was settled as how. */
static void int3_at_add(enum utap_int3_how how)
{
	reset();
	start(FN + 1);
	trap_int3(FN + 3);
	utap_trk_int3(&trk, FN + 3);
	utap_trk_int3_resolve(&trk, how, FN + 4, NULL, 0, fn_loop + 4, 2);
}

/* The program's own int3: it ran, and a SIGTRAP handler is entered. */
TEST(test_real_int3_and_signal)
{
	size_t n;
	const u8 *b = mem(HANDLER, &n);

	int3_at_add(UTAP_INT3_REAL);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(1, FN + 3, 1, FN + 4, 0);
	utap_trk_signal(&trk, HANDLER, b, n);
	trap(HANDLER + 1);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(2, HANDLER, 1, HANDLER + 1, 0);
}

/* Back at the int3 (a timer asked for tracing while the thread sat on it). */
TEST(test_int3_not_run)
{
	size_t n;
	const u8 *b = mem(FN + 3, &n);

	reset();
	utap_trk_start(&trk, FN + 3, int3_byte, 1);
	utap_trk_int3(&trk, FN + 3);
	utap_trk_int3_resolve(&trk, UTAP_INT3_NOT_RUN, FN + 3, b, 3, int3_byte, 1);
	CHECK_INT(nsteps, 0);
	trap(FN + 6);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, FN + 3, 3, FN + 6, 0);
}

/* ... under a tracer (a debugger's breakpoint on the add, or the program's int3). */
static void traced_int3_at_add(void)
{
	int3_at_add(UTAP_INT3_TRACED);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, FN + 1, 2, FN + 3, 0);
}

/* gdb rewinds to its breakpoint, puts the add back and steps it: no int3 ran. */
TEST(test_debugger_breakpoint_in_place)
{
	traced_int3_at_add();
	resume(FN + 3);
	trap(FN + 6);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(1, FN + 3, 3, FN + 6, 0);
	CHECK_MEM(steps[1].bytes, "\x48\x01\xf8", 3);
}

/*
 * gdb steps its breakpoint's instruction out of line: the add runs in its
 * scratch copy, then gdb moves the thread on to FN + 6. The add shows
 * where it ran; the step the thread was at in the copy never ran.
 */
TEST(test_debugger_breakpoint_displaced)
{
	traced_int3_at_add();
	resume(SCRATCH);
	trap(SCRATCH + 3);
	resume(FN + 6);
	trap(FN + 9);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(1, SCRATCH, 3, SCRATCH + 3, 0);
	CHECK_STEP(2, FN + 6, 3, FN + 9, 0);
}

/* The program's own int3, and its tracer lets it go on after it: it ran. */
TEST(test_traced_int3_goes_on)
{
	traced_int3_at_add();
	resume(FN + 4);
	CHECK_INT(nsteps, 1);
	trap(FN + 6);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(1, FN + 3, 1, FN + 4, 0);
	CHECK_INT(steps[1].bytes[0], 0xcc);
}

/* ... or the tracer passes the SIGTRAP on to a handler: it ran too. */
TEST(test_traced_int3_signal)
{
	size_t n;
	const u8 *b = mem(HANDLER, &n);

	traced_int3_at_add();
	utap_trk_signal(&trk, HANDLER, b, n);
	resume(HANDLER);
	trap(HANDLER + 1);
	CHECK_INT(nsteps, 3);
	CHECK_STEP(1, FN + 3, 1, FN + 4, UTAP_STEP_EXCEPTION);
	CHECK_STEP(2, HANDLER, 1, HANDLER + 1, 0);
}

/*
 * A step waiting to see what runs at its successor (an int3 there) when a
 * debugger moves the thread elsewhere goes out with the successor it had.
 */
TEST(test_resume_elsewhere)
{
	reset();
	start(FN + 11);
	trap_int3(FN + 12);
	CHECK_INT(nsteps, 0);
	resume(HANDLER);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, FN + 11, 1, FN + 12, 0);
	trap(HANDLER + 1);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(1, HANDLER, 1, HANDLER + 1, 0);
}

/* A signal between a trap and the next instruction: the held step is flagged. */
TEST(test_signal_held)
{
	size_t n;
	const u8 *b = mem(HANDLER, &n);

	reset();
	start(FN + 11);
	trap_int3(FN + 12);
	utap_trk_signal(&trk, HANDLER, b, n);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, FN + 11, 1, FN + 12, UTAP_STEP_EXCEPTION);
	trap(HANDLER + 1);
	CHECK_STEP(1, HANDLER, 1, HANDLER + 1, 0);
}

/* exit_group: the syscall never returns. */
TEST(test_stop_in_syscall)
{
	reset();
	start(SYS + 5);
	sys_enter(SYS + 5);
	utap_trk_stop(&trk, 0, 0);
	CHECK_INT(nsteps, 1);
	CHECK_STEP(0, SYS + 5, 2, 0, 0);
	utap_trk_stop(&trk, 0, 0);
	CHECK_INT(nsteps, 1);
}

/* Unreadable code: the step is there, without length or bytes. */
TEST(test_unreadable)
{
	reset();
	utap_trk_start(&trk, 0x1000, NULL, 0);
	utap_trk_trap(&trk, 0x1004, NULL, 0);
	utap_trk_trap(&trk, 0x1008, nop_ret, 2);
	CHECK_INT(nsteps, 2);
	CHECK_STEP(0, 0x1000, 0, 0x1004, UTAP_STEP_DECODE_FAIL);
	CHECK_STEP(1, 0x1004, 0, 0x1008, UTAP_STEP_DECODE_FAIL);
}

/* rep movsb traps once per iteration at the same address. */
TEST(test_rep)
{
	static const u8 rep_movsb[] = { 0xf3, 0xa4, 0x90 };
	struct utap_block b = { 0 };

	reset();
	utap_trk_start(&trk, 0x1000, rep_movsb, 3);
	utap_trk_trap(&trk, 0x1000, rep_movsb, 3);
	utap_trk_trap(&trk, 0x1002, rep_movsb + 2, 1);
	CHECK_INT(nsteps, 2);
	CHECK(steps[0].flags & UTAP_STEP_REP);
	CHECK(!(steps[0].flags & (UTAP_STEP_TAKEN | UTAP_STEP_EXCEPTION)));
	CHECK(!utap_block_add(&b, &steps[0]));
	CHECK(!utap_block_breaks(&b, &steps[1]));
	CHECK(!utap_block_add(&b, &steps[1]));
	CHECK_INT(b.ninsns, 2);
}

/* The memory operand address comes from the registers before the instruction. */
TEST(test_ea)
{
	static const u8 load[] = { 0x48, 0x8b, 0x47, 0x08 };	/* mov 8(%rdi),%rax */
	u64 gpr[16] = { 0 };

	reset();
	gpr[7] = 0x7fff0000;			/* rdi */
	utap_trk_start(&trk, 0x1000, load, 4);
	utap_trk_pend_ea(&trk, gpr, 0, 0);
	utap_trk_trap(&trk, 0x1004, nop_ret, 2);
	CHECK_INT(nsteps, 1);
	CHECK(steps[0].flags & UTAP_STEP_HAS_EA);
	CHECK_HEX(steps[0].ea, 0x7fff0008);
	utap_trk_pend_ea(&trk, gpr, 0, 0);
	utap_trk_trap(&trk, 0x1005, nop_ret + 1, 1);
	CHECK(!(steps[1].flags & UTAP_STEP_HAS_EA));
}

/* Flags of a call and an indirect jump. */
TEST(test_flags)
{
	static const u8 call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };
	static const u8 jmp_rax[] = { 0xff, 0xe0 };
	struct utap_trace_step s;
	struct utap_insn in;

	utap_insn_set(&in, 0x1000, call, sizeof(call));
	utap_step_make(&s, &in, 0x1005, 0);
	CHECK_HEX(s.flags, BR | UTAP_STEP_CALL);
	CHECK(utap_step_ends_block(&s));
	utap_insn_set(&in, 0x1000, jmp_rax, sizeof(jmp_rax));
	utap_step_make(&s, &in, 0x5000, 0);
	CHECK_HEX(s.flags, BR | UTAP_STEP_INDIRECT | TK);
	utap_step_make(&s, &in, 0, 0);
	CHECK(utap_step_ends_block(&s));
}

static size_t code_at(void *arg, u64 addr, u8 *buf)
{
	size_t n;
	const u8 *b = mem(addr, &n);

	(void)arg;
	if (n > UTAP_INSN_BYTES)
		n = UTAP_INSN_BYTES;
	if (n)
		memcpy(buf, b, n);
	return n;
}

/* Block-step: the block that ended in a trap at next, found by decoding. */
TEST(test_block_walk)
{
	struct utap_trace_step last;
	struct utap_block b;

	/* push, xor, add, dec, jnz back to +3 */
	CHECK(utap_block_walk(FN, FN + 3, 0, code_at, NULL, 64, &b, &last));
	CHECK_INT(b.ninsns, 5);
	CHECK_INT(b.nbytes, 11);
	CHECK_HEX(b.start, FN);
	CHECK_HEX(last.ip, FN + 9);
	CHECK_HEX(last.next_ip, FN + 3);
	CHECK(last.flags & UTAP_STEP_TAKEN);
	/* the last round: the jnz falls through, the ret is the branch */
	CHECK(utap_block_walk(FN + 3, RET_ADDR, 0, code_at, NULL, 64, &b, &last));
	CHECK_INT(b.ninsns, 5);
	CHECK_INT(b.nbytes, 10);
	CHECK_HEX(last.ip, FN + 12);
	/* a syscall does not end a block */
	CHECK(utap_block_walk(SYS, RET_ADDR, 0, code_at, NULL, 64, &b, &last));
	CHECK_INT(b.ninsns, 4);
	/* up to an int3 (a uprobe) at +6: no branch */
	CHECK(utap_block_walk(FN, 0, FN + 6, code_at, NULL, 64, &b, &last));
	CHECK_INT(b.ninsns, 3);
	CHECK_HEX(last.ip, FN + 3);
	CHECK_HEX(last.next_ip, FN + 6);
	CHECK(!utap_block_walk(FN, 0, FN, code_at, NULL, 64, &b, &last));
	/* the flow cannot lead to next, code that cannot be read, too long */
	CHECK(!utap_block_walk(FN + 3, FN + 1, 0, code_at, NULL, 64, &b, &last) ||
	      last.ip == FN + 12);
	CHECK(!utap_block_walk(0x9000, RET_ADDR, 0, code_at, NULL, 64, &b, &last));
	CHECK(!utap_block_walk(FN, FN + 3, 0, code_at, NULL, 3, &b, &last));
}

int main(void)
{
	unit_prog = "test_itrace";
	RUN(test_loop);
	RUN(test_blocks);
	RUN(test_block_break);
	RUN(test_syscall);
	RUN(test_syscall_restart);
	RUN(test_syscall_restart_traced);
	RUN(test_trampoline);
	RUN(test_trampoline_unreadable);
	RUN(test_uprobe_emulated);
	RUN(test_uprobe_xol);
	RUN(test_start_at_uprobe);
	RUN(test_real_int3_and_signal);
	RUN(test_int3_not_run);
	RUN(test_debugger_breakpoint_in_place);
	RUN(test_debugger_breakpoint_displaced);
	RUN(test_traced_int3_goes_on);
	RUN(test_traced_int3_signal);
	RUN(test_resume_elsewhere);
	RUN(test_signal_held);
	RUN(test_stop_in_syscall);
	RUN(test_unreadable);
	RUN(test_rep);
	RUN(test_ea);
	RUN(test_flags);
	RUN(test_block_walk);
	return unit_done();
}
