// SPDX-License-Identifier: GPL-2.0
/*
 * regs.c - registers and function arguments of the probe context (x86-64).
 *
 * register("rax") and friends read c->regs: the kernel registers of a
 * kprobe, the user registers of a uprobe, or the interrupted registers of a
 * timer.profile/perf sample. Dwarfless argument access follows the calling
 * convention: rdi, rsi, rdx, rcx, r8, r9, then the stack above the return
 * address. In syscall probes the tapset points the argument functions at
 * the user registers the syscall wrapper received (__set_syscall_pt_regs),
 * where the fourth argument is in r10.
 */
#ifndef UTAP_PROBES_REGS_C
#define UTAP_PROBES_REGS_C

#include <linux/sched/task_stack.h>

struct utap_regname {
	const char *name;
	unsigned short offset;	/* in struct pt_regs */
	unsigned char bytes;	/* 8, or 4 for the e* names */
};

#define UTAP_REG(n, f, b) { n, offsetof(struct pt_regs, f), b }
static const struct utap_regname utap_regnames[] = {
	UTAP_REG("rax", ax, 8), UTAP_REG("ax", ax, 8), UTAP_REG("eax", ax, 4),
	UTAP_REG("rbx", bx, 8), UTAP_REG("bx", bx, 8), UTAP_REG("ebx", bx, 4),
	UTAP_REG("rcx", cx, 8), UTAP_REG("cx", cx, 8), UTAP_REG("ecx", cx, 4),
	UTAP_REG("rdx", dx, 8), UTAP_REG("dx", dx, 8), UTAP_REG("edx", dx, 4),
	UTAP_REG("rsi", si, 8), UTAP_REG("si", si, 8), UTAP_REG("esi", si, 4),
	UTAP_REG("rdi", di, 8), UTAP_REG("di", di, 8), UTAP_REG("edi", di, 4),
	UTAP_REG("rbp", bp, 8), UTAP_REG("bp", bp, 8), UTAP_REG("ebp", bp, 4),
	UTAP_REG("rsp", sp, 8), UTAP_REG("sp", sp, 8), UTAP_REG("esp", sp, 4),
	UTAP_REG("rip", ip, 8), UTAP_REG("ip", ip, 8), UTAP_REG("eip", ip, 4),
	UTAP_REG("r8", r8, 8), UTAP_REG("r9", r9, 8), UTAP_REG("r10", r10, 8),
	UTAP_REG("r11", r11, 8), UTAP_REG("r12", r12, 8), UTAP_REG("r13", r13, 8),
	UTAP_REG("r14", r14, 8), UTAP_REG("r15", r15, 8),
	UTAP_REG("orig_rax", orig_ax, 8), UTAP_REG("orig_ax", orig_ax, 8),
	UTAP_REG("orig_eax", orig_ax, 4),
	UTAP_REG("rflags", flags, 8), UTAP_REG("eflags", flags, 8), UTAP_REG("flags", flags, 8),
	UTAP_REG("cs", cs, 8), UTAP_REG("xcs", cs, 8), UTAP_REG("ss", ss, 8),
	UTAP_REG("xss", ss, 8),
};
#undef UTAP_REG

static void utap_set_error(struct utap_context *c, const char *fmt, ...) __printf(2, 3);
static void utap_set_error(struct utap_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
}

/* The value of register name in c->regs; sets the error and returns 0 if unavailable. */
static s64 utap_register(struct utap_context *c, const char *name, bool is_signed)
{
	size_t i;
	u64 v;

	if (!c->regs) {
		utap_set_error(c, "cannot access CPU registers in this context");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(utap_regnames); i++) {
		const struct utap_regname *r = &utap_regnames[i];

		if (strcmp(r->name, name))
			continue;
		v = *(const unsigned long *)((const char *)c->regs + r->offset);
		if (r->bytes == 4)
			return is_signed ? (s64)(s32)v : (s64)(u32)v;
		return (s64)v;
	}
	utap_set_error(c, "Unknown register: %s", name);
	return 0;
}

/*
 * Syscall argument registers: set by the syscall tapset, valid only in the
 * probe hit that set them (the glue of every kernel probe family resets them).
 */
struct utap_syscall_regs {
	struct pt_regs *uregs;		/* the user registers the syscall got */
	const struct pt_regs *owner;	/* c->regs when they were set */
	long native;			/* a __syscall probe's x86-64 number, or -1 */
};
static DEFINE_PER_CPU(struct utap_syscall_regs, utap_sysregs);

static void utap_regs_reset_syscall(void)
{
	this_cpu_write(utap_sysregs.uregs, NULL);
}

static void utap_regs_set_syscall(struct utap_context *c, unsigned long uregs)
{
	this_cpu_write(utap_sysregs.uregs, (struct pt_regs *)uregs);
	this_cpu_write(utap_sysregs.owner, c->regs);
	this_cpu_write(utap_sysregs.native, -1);
}

/* The x86-64 number of the syscall a __syscall probe is on (set after the registers). */
static void utap_regs_set_native(long nr)
{
	this_cpu_write(utap_sysregs.native, nr);
}

static struct pt_regs *utap_regs_syscall(struct utap_context *c)
{
	struct pt_regs *r = this_cpu_read(utap_sysregs.uregs);

	return r && this_cpu_read(utap_sysregs.owner) == c->regs ? r : NULL;
}

static long utap_regs_native(struct utap_context *c)
{
	return utap_regs_syscall(c) ? this_cpu_read(utap_sysregs.native) : -1;
}

/*
 * Where argument n (1-based) of the probed function is, or of the syscall
 * when the syscall registers are set: a register slot in *slot, or a stack
 * address in *stack (user memory if *user). -1 with the error set when
 * there is none.
 */
static int utap_arg_where(struct utap_context *c, int n, unsigned long **slot,
			  unsigned long *stack, bool *user)
{
	static const unsigned short fn_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	static const unsigned short sys_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, r10),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	static const unsigned short ia32_regs[] = {
		offsetof(struct pt_regs, bx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, bp),
	};
	struct pt_regs *sys = utap_regs_syscall(c);

	*slot = NULL;
	*stack = 0;
	*user = false;
	if (!c->regs) {
		utap_set_error(c, "cannot access function args in this context");
		return -1;
	}
	if (n < 1 || n > 16) {
		utap_set_error(c, "cannot access arg(%d)", n);
		return -1;
	}
	if (sys && n > 6) {
		utap_set_error(c, "cannot access arg(%d) of a syscall", n);
		return -1;
	}
	if (sys || n <= 6) {
		/*
		 * the syscall's registers are the user ones its wrapper reads (so
		 * writable); a 32-bit task's arguments are in its own registers
		 */
		const unsigned short *regs = !sys ? fn_regs : in_ia32_syscall() ? ia32_regs :
				       sys_regs;

		*slot = (unsigned long *)((char *)(sys ? sys : c->regs) + regs[n - 1]);
		return 0;
	}
	/* at the function's entry the stack holds the return address, then arg 7.. */
	*stack = c->regs->sp + 8 * (unsigned long)(n - 6);
	*user = c->user_mode;
	return 0;
}

/* v truncated to bytes, sign- or zero-extended. */
static s64 utap_arg_extend(unsigned long v, int bytes, bool is_signed)
{
	switch (bytes) {
	case 1:
		return is_signed ? (s64)(s8)v : (s64)(u8)v;
	case 2:
		return is_signed ? (s64)(s16)v : (s64)(u16)v;
	case 4:
		return is_signed ? (s64)(s32)v : (s64)(u32)v;
	default:
		return (s64)v;
	}
}

/* Argument n (see utap_arg_where()), truncated to bytes and extended. */
static s64 utap_arg(struct utap_context *c, int n, int bytes, bool is_signed)
{
	unsigned long *slot, stack, v = 0;
	bool user;
	int rc;

	if (utap_arg_where(c, n, &slot, &stack, &user))
		return 0;
	/* a 32-bit task's syscall arguments are 32 bits wide */
	if (slot && utap_regs_syscall(c) && in_ia32_syscall() && bytes > 4)
		bytes = 4;
	if (slot)
		return utap_arg_extend(*slot, bytes, is_signed);
	rc = user ? copy_from_user_nofault(&v, (const void __user *)stack, sizeof(v)) :
		    copy_from_kernel_nofault(&v, (const void *)stack, sizeof(v));
	if (rc) {
		utap_set_error(c, "read fault [man error::fault] at 0x%016lx (arg %d)", stack, n);
		return 0;
	}
	return utap_arg_extend(v, bytes, is_signed);
}

/*
 * Sets argument n to v truncated to bytes and extended to the whole
 * register (set_int_arg() and friends, guru mode). An argument on a kernel
 * stack is written where it is; on a user stack through the user mapping.
 */
static void utap_set_arg(struct utap_context *c, int n, int bytes, bool is_signed, s64 v)
{
	unsigned long *slot, stack, w = (unsigned long)utap_arg_extend(v, bytes, is_signed);
	bool user;
	int rc;

	if (utap_arg_where(c, n, &slot, &stack, &user))
		return;
	if (slot) {
		*slot = w;
		return;
	}
	if (user) {
		rc = copy_to_user_nofault((void __user *)stack, &w, sizeof(w));
	} else {
		pagefault_disable();
		rc = 0;
		__put_kernel_nofault((void *)stack, &w, unsigned long, fault);
		goto done;
fault:
		rc = -EFAULT;
done:
		pagefault_enable();
	}
	if (rc)
		utap_set_error(c, "write fault [man error::fault] at 0x%016lx (arg %d)", stack, n);
}

/* The user-mode IP of the current task: the probe's own if it interrupted user mode. */
static unsigned long utap_uaddr(struct utap_context *c)
{
	if (c->regs && c->user_mode)
		return instruction_pointer(c->regs);
	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	return instruction_pointer(task_pt_regs(current));
}

#endif /* UTAP_PROBES_REGS_C */
