// SPDX-License-Identifier: GPL-2.0
/*
 * kread.c - reading kernel memory from a probe without faulting.
 *
 * Every read goes through copy_from_kernel_nofault(), which refuses user
 * addresses and returns an error instead of oopsing on an unmapped one. A
 * failure becomes the script's catchable error, with stap's texts.
 */
#ifndef UTAP_PROBES_KREAD_C
#define UTAP_PROBES_KREAD_C

/* Reads len bytes at addr into dst; on a fault sets stap's "read fault" error. */
static int utap_kread(struct utap_context *c, unsigned long addr, void *dst, size_t len)
{
	if (!copy_from_kernel_nofault(dst, (const void *)addr, len))
		return 0;
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "read fault [man error::fault] at 0x%016lx (addr)", addr);
	c->last_error = c->error_buf;
	return -EFAULT;
}

/* The integer of SIZE bytes at ADDR, extended as IS_SIGNED says; -EFAULT if unreadable. */
static int utap_kread_int(u64 addr, int size, bool is_signed, s64 *out)
{
	u64 raw = 0;
	unsigned int shift = 64 - 8 * (unsigned int)min(size, 8);

	*out = 0;
	if (size < 1 || size > 8 || copy_from_kernel_nofault(&raw, (const void *)addr, size))
		return -EFAULT;
	*out = shift == 0 ? (s64)raw : is_signed ? (s64)(raw << shift) >> shift :
	       (s64)((raw << shift) >> shift);
	return 0;
}

/* Reads len bytes at addr into dst: 0, or -EFAULT (a utap_utf_read_fn). */
static int __maybe_unused utap_kread_raw(void *dst, u64 addr, size_t len)
{
	return copy_from_kernel_nofault(dst, (const void *)(uintptr_t)addr, len) ? -EFAULT : 0;
}

/*
 * Copies the NUL-terminated string at addr into dst (at most max - 1 bytes
 * and a NUL). Reads stay inside one page at a time, so a string that ends
 * just before an unmapped page is read whole. Returns the length, or
 * -EFAULT with dst empty.
 */
static long utap_kstring(char *dst, unsigned long addr, size_t max)
{
	size_t n = 0;

	while (n + 1 < max) {
		size_t room = PAGE_SIZE - ((addr + n) & (PAGE_SIZE - 1));
		size_t chunk = min3(room, max - 1 - n, (size_t)64);
		size_t i;

		if (copy_from_kernel_nofault(dst + n, (const void *)(addr + n), chunk)) {
			dst[0] = 0;
			return -EFAULT;
		}
		for (i = 0; i < chunk; i++)
			if (!dst[n + i])
				return (long)(n + i);
		n += chunk;
	}
	dst[n] = 0;
	return (long)n;
}

/* kernel_string_n(): the string, or stap's "kernel string copy fault" error. */
static void utap_kernel_string(struct utap_context *c, char *dst, unsigned long addr, size_t max)
{
	if (utap_kstring(dst, addr, max) >= 0)
		return;
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "kernel string copy fault at 0x%016lx [man error::fault]", addr);
	c->last_error = c->error_buf;
}

#endif /* UTAP_PROBES_KREAD_C */
