// SPDX-License-Identifier: GPL-2.0
/*
 * kcontext.c - kernel backtraces and kernel symbols in the module.
 *
 * The kernel unwinds itself: its own unwinder (ORC on x86-64) from the
 * probe's registers, the way perf takes kernel callchains: frame 0 is the
 * probe's ip, the unwinder gives the callers. kretprobes have already put
 * the real return address in the registers, and the unwinder maps
 * kretprobe-hijacked return addresses further up back to the real ones.
 * A probe without registers (a tracepoint, a timer, begin/end) starts
 * where it runs, with the module's own frames left out. Names come from
 * kallsyms (sprint_symbol, safe in any context); sym.c prints them in
 * SystemTap's forms, "[kernel]" standing for vmlinux.
 */
#include <linux/kallsyms.h>
#include <asm/unwind.h>

#include "unwind/render.c"

static struct utap_kstack *utap_kstack_get(struct utap_context *c)
{
	struct utap_kstack *ks = &c->kstack;
	struct pt_regs *regs = c->regs;
	struct unwind_state state;

	ks->nr = 0;
	ks->none = regs && user_mode(regs);
	if (ks->none)
		return ks;
	if (regs) {
		ks->pcs[ks->nr++] = instruction_pointer(regs);
		/* registers pushed by the CPU or an entry stub, or made up by software */
		if (regs->flags & X86_EFLAGS_FIXED)
			unwind_start(&state, current, regs, NULL);
		else
			unwind_start(&state, current, NULL, (unsigned long *)regs->sp);
	} else {
		unwind_start(&state, current, NULL, NULL);
	}
	for (; ks->nr < MAXBACKTRACE && !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		/* without registers, the walk starts in this module: the probe's own frames */
		if (!regs && !ks->nr && within_module(addr, THIS_MODULE))
			continue;
		ks->pcs[ks->nr++] = addr;
	}
	return ks;
}

/*
 * A kernel address in a SystemTap mode. sprint_symbol() gives
 * "NAME+0xOFF/0xSIZE [MODULE]" (no module part for vmlinux), or "0xADDR"
 * when no symbol covers the address.
 */
static int utap_ksym_format(char *buf, size_t size, u64 addr, unsigned mode)
{
	char sym[KSYM_SYMBOL_LEN + 8];
	const char *mod = "kernel";
	char *plus, *slash, *bracket;
	unsigned long long off, len;

	if (!addr || !(mode & (UTAP_SYM_SYMBOL | UTAP_SYM_MODULE)))
		goto bare;
	sprint_symbol(sym, addr);
	bracket = strstr(sym, " [");
	if (bracket) {
		*bracket = 0;
		mod = bracket + 2;
		mod = strim((char *)mod);
		if (*mod && mod[strlen(mod) - 1] == ']')
			((char *)mod)[strlen(mod) - 1] = 0;
	}
	plus = strrchr(sym, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!plus || !slash || plus == sym)
		goto bare;
	*plus = 0;
	*slash = 0;
	if (kstrtoull(plus + 1, 16, &off) || kstrtoull(slash + 1, 16, &len))
		goto bare;
	return utap_sym_format_known(buf, size, addr, sym, off, len, mod, mode);
bare:
	return utap_sym_format_known(buf, size, addr, NULL, 0, 0, NULL, mode);
}

/*
 * The kernel backtrace in a mode: to the print buffer when buf is NULL,
 * else into buf[size], cut at the byte as stap's sprint functions are.
 */
static void utap_kbacktrace_render(struct utap_context *c, unsigned mode, char *buf, size_t size)
{
	struct utap_kstack *ks = utap_kstack_get(c);
	char marker[UTAP_RENDER_LINE] UTAP_NOINIT;	/* written before it is read */

	if (ks->none)
		utap_sym_no_backtrace(marker, sizeof(marker), c->probe->pp, mode, true);
	utap_render_frames(c, ks->pcs, NULL, 0, ks->nr, ks->none ? marker : NULL, mode,
			   utap_ksym_format, buf, size);
}

/* print_syms(), sprint_syms() */
static void utap_print_ksyms(struct utap_context *c, const char *s, char *dst)
{
	utap_render_syms(c, s, dst, utap_ksym_format);
}
