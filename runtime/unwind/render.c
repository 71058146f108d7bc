// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - backtraces and address lists as SystemTap prints them, for
 * user (ucontext.c) and kernel (kcontext.c) stacks alike: each side gives
 * its frames and a function that renders one address in a UTAP_SYM_* mode.
 *
 * To the probe's print buffer, or into a script string cut the way stap
 * cuts: sprint_*backtrace() at the byte (MAXSTRINGLEN - 1), sprint_*syms()
 * before the first line that does not fit.
 */
#ifndef UTAP_UNWIND_RENDER_C
#define UTAP_UNWIND_RENDER_C

#ifndef UTAP_UNWIND_SYM_C
#define UTAP_UNWIND_SYM_C
#include "unwind/sym.c"
#endif

/* Renders ADDR in MODE into buf[size], snprintf-like: returns the full length. */
typedef int (*utap_addr_fmt)(char *buf, size_t size, u64 addr, unsigned mode);

#define UTAP_RENDER_LINE 640

/* One piece of output: printed, or appended to buf[size] (cut at the byte). */
static void utap_render_put(struct utap_context *c, const char *s, int n, char *buf,
			    size_t size, size_t *used)
{
	size_t take;

	n = min_t(int, n, UTAP_RENDER_LINE - 1);
	if (!buf) {
		utap_print_bytes(c, s, n);
		return;
	}
	if (*used + 1 >= size)
		return;
	take = min_t(size_t, n, size - 1 - *used);
	memcpy(buf + *used, s, take);
	*used += take;
	buf[*used] = 0;
}

/*
 * Frames pcs[0..nr-1] in MODE; a frame whose flag has inexact set (if
 * flags) gets " (inexact)" in the symbolic modes. A marker line stands
 * for the whole stack when there is none (marker not NULL).
 */
static void utap_render_frames(struct utap_context *c, const u64 *pcs, const u8 *flags,
			       u8 inexact, u32 nr, const char *marker, unsigned mode,
			       utap_addr_fmt fmt, char *buf, size_t size)
{
	char line[UTAP_RENDER_LINE] UTAP_NOINIT;	/* each address is formatted into it */
	size_t used = 0;
	u32 i;

	if (buf && size)
		buf[0] = 0;
	if (marker) {
		utap_render_put(c, marker, strlen(marker), buf, size, &used);
		return;
	}
	for (i = 0; i < nr; i++) {
		unsigned m = mode;
		int n;

		if (mode == UTAP_SYM_NONE) {
			/* ubacktrace(), backtrace(): hex and a space, nothing to look up */
			n = utap_sym_hex(line, pcs[i]);
			line[n++] = ' ';
		} else {
			if (flags && (flags[i] & inexact))
				m |= UTAP_SYM_INEXACT;
			n = fmt(line, sizeof(line), pcs[i], m);
		}
		utap_render_put(c, line, n, buf, size, &used);
	}
}

/*
 * print_usyms()/print_syms(): " TOKEN : DATA" per address of a hex stack
 * string (ubacktrace(), backtrace()), each token printed as it was given.
 * With dst, into a script string, stopping before a line that does not fit.
 */
static void utap_render_syms(struct utap_context *c, const char *s, char *dst, utap_addr_fmt fmt)
{
	char line[UTAP_RENDER_LINE], num[24];
	size_t used = 0;

	if (dst)
		dst[0] = 0;
	while (*s) {
		size_t len;
		u64 addr;
		int n;

		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (!len)
			break;
		memcpy(num, s, min(len, sizeof(num) - 1));
		num[min(len, sizeof(num) - 1)] = 0;
		s += len;
		if (len >= sizeof(num) || kstrtoull(num, 0, &addr))
			continue;
		n = scnprintf(line, sizeof(line), " %s : ", num);
		n += min_t(int, fmt(line + n, sizeof(line) - n - 1, addr, UTAP_SYM_DATA),
			   (int)sizeof(line) - n - 2);
		line[n++] = '\n';
		line[n] = 0;
		if (!dst) {
			utap_print_bytes(c, line, n);
		} else {
			if (used + n >= MAXSTRINGLEN)
				break;
			memcpy(dst + used, line, n + 1);
			used += n;
		}
	}
	if (!dst)
		c->nprints++;
}

static bool utap_stack_end_error(struct utap_context *c, s64 n)
{
	snprintf(c->error_buf, MAXSTRINGLEN, "reached end of stack before unwinding to level %lld",
		 (long long)n);
	return false;
}

/*
 * callers(n)/ucallers(n): frames 0..n (all for n = -1) in hex, joined by
 * single spaces, stopping before an address that would not fit. False
 * (c->error_buf says why) when the stack ends before level n.
 */
static bool utap_stack_callers(struct utap_context *c, const u64 *pcs, u32 nr, s64 n, char *out)
{
	size_t used = 0;
	u32 i;

	out[0] = 0;
	if (n >= 0 && nr <= n)
		return utap_stack_end_error(c, n);
	for (i = 0; i < nr && (n < 0 || i <= n); i++) {
		char hex[24];
		int len = scnprintf(hex, sizeof(hex), "%s0x%llx", i ? " " : "",
				    (unsigned long long)pcs[i]);

		if (used + len >= MAXSTRINGLEN)
			break;
		memcpy(out + used, hex, len + 1);
		used += len;
	}
	return true;
}

/* stack(n)/ustack(n): the address of frame n; false when the stack ends first. */
static bool utap_stack_level(struct utap_context *c, const u64 *pcs, u32 nr, s64 n, s64 *out)
{
	if (n < 0 || nr <= n)
		return utap_stack_end_error(c, n);
	*out = pcs[n];
	return true;
}

#endif /* UTAP_UNWIND_RENDER_C */
