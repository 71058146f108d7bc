// SPDX-License-Identifier: GPL-2.0
/*
 * umemory.c - reading the current task's user memory from probe context.
 *
 * Every read goes through copy_from_user_nofault(): page faults are
 * disabled, so a missing or swapped-out page is a failed read, never a
 * sleep; a kernel thread (no user mm) fails every read. Callers turn a
 * failure into stap's catchable error or its documented fallback value.
 *
 * The same functions serve uprobes (the task is in user mode) and kernel
 * probes that run on a task's behalf (a kprobe in a syscall reads that
 * task's memory).
 */
#ifndef UTAP_PROBES_UMEMORY_C
#define UTAP_PROBES_UMEMORY_C

#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/mmap_lock.h>

#include "core/piece_format.h"
#include "probes/kread.c"

/*
 * Bytes of a file mapping that the task has not touched yet (a string in
 * .rodata, say) have no page table entry, so the non-faulting copy fails
 * although the data sits in the page cache. When the mapping can only
 * hold the file's bytes - shared, or private without a single anonymous
 * (copied-on-write) page - read them from the page cache. Nothing here
 * sleeps: trylock on the mmap lock, a lockless page cache lookup. Task
 * context only (the mmap lock is not for interrupts).
 */
static int utap_uread_pagecache(void *dst, u64 addr, size_t len)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct page *page = NULL;
	size_t off = offset_in_page(addr);
	void *kaddr;

	if (!in_task() || off + len > PAGE_SIZE || !mmap_read_trylock(mm))
		return -EFAULT;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file && (vma->vm_flags & VM_READ) &&
	    ((vma->vm_flags & VM_SHARED) || !vma->anon_vma))
		page = find_get_page(vma->vm_file->f_mapping, vma->vm_pgoff +
				     ((addr - vma->vm_start) >> PAGE_SHIFT));
	mmap_read_unlock(mm);
	if (!page)
		return -EFAULT;
	if (!PageUptodate(page)) {
		put_page(page);
		return -EFAULT;
	}
	kaddr = kmap_local_page(page);
	memcpy(dst, kaddr + off, len);
	kunmap_local(kaddr);
	put_page(page);
	return 0;
}

/* LEN bytes at user address ADDR into DST; 0 or -EFAULT. */
static int utap_uread(void *dst, u64 addr, size_t len)
{
	if (!current->mm || (current->flags & PF_KTHREAD))
		return -EFAULT;
	if (addr > TASK_SIZE_MAX || len > TASK_SIZE_MAX - addr)
		return -EFAULT;
	if (!copy_from_user_nofault(dst, (const void __user *)(uintptr_t)addr, len))
		return 0;
	/* page by page through the page cache */
	while (len) {
		size_t n = min_t(size_t, len, PAGE_SIZE - offset_in_page(addr));

		if (utap_uread_pagecache(dst, addr, n))
			return -EFAULT;
		dst += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/*
 * A SIZE-byte integer (1, 2, 4 or 8) at ADDR, sign- or zero-extended.
 * On a fault: -EFAULT and *out = 0.
 */
static int utap_uread_int(u64 addr, int size, bool is_signed, s64 *out)
{
	union { u8 b; u16 h; u32 w; u64 q; } v;

	*out = 0;
	if (utap_uread(&v, addr, size))
		return -EFAULT;
	switch (size) {
	case 1:
		*out = is_signed ? (s64)(s8)v.b : (s64)v.b;
		break;
	case 2:
		*out = is_signed ? (s64)(s16)v.h : (s64)v.h;
		break;
	case 4:
		*out = is_signed ? (s64)(s32)v.w : (s64)v.w;
		break;
	default:
		*out = (s64)v.q;
		break;
	}
	return 0;
}

/*
 * The same for a target variable: a fault becomes the script's error
 * (catchable with try/catch), with stap's wording.
 */
static int utap_uload(struct utap_context *c, u64 addr, int size, bool is_signed, s64 *out)
{
	if (!utap_uread_int(addr, size, is_signed, out))
		return 0;
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "read fault [man error::fault] at 0x%llx", (unsigned long long)addr);
	c->last_error = c->error_buf;
	return -EFAULT;
}

/* A guru write: the low SIZE bytes of V to user address ADDR, without faulting pages in. */
static int utap_ustore(struct utap_context *c, u64 addr, int size, s64 v)
{
	u64 raw = (u64)v;
	unsigned long left;

	pagefault_disable();
	left = __copy_to_user_inatomic((void __user *)addr, &raw, min_t(int, size, sizeof(raw)));
	pagefault_enable();
	if (!left)
		return 0;
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "write fault [man error::fault] at 0x%llx", (unsigned long long)addr);
	c->last_error = c->error_buf;
	return -EFAULT;
}

/*
 * The NUL-terminated string at ADDR into DST (SIZE bytes, always
 * terminated; longer strings are cut). Reads page by page, so a string
 * that ends just before an unmapped page is still read. Returns the
 * length, or -EFAULT with DST empty.
 */
static long utap_ustring(char *dst, u64 addr, size_t size)
{
	size_t done = 0;

	if (!size)
		return 0;
	while (done + 1 < size) {
		size_t page_left = PAGE_SIZE - ((addr + done) & (PAGE_SIZE - 1));
		size_t n = min(page_left, size - 1 - done);
		char *nul;

		if (utap_uread(dst + done, addr + done, n)) {
			dst[0] = 0;
			return -EFAULT;
		}
		nul = memchr(dst + done, 0, n);
		if (nul)
			return nul - dst;
		done += n;
	}
	dst[done] = 0;
	return done;
}

/*
 * stap's quoting of a string (string_quoted, user_string_quoted): in
 * double quotes, with C escapes for quotes, backslashes and control
 * characters, octal for other non-printable bytes and \uXXXX for UTF-8
 * sequences. If OUT (SIZE bytes) cannot hold all of IN, it ends in "...
 */
static int utap_utf8_decode(const unsigned char *s, size_t n, u32 *cp)
{
	int len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
	u32 v = len == 4 ? s[0] & 7 : len == 3 ? s[0] & 15 : s[0] & 31;

	if (len == 1 || s[0] >= 0xf8 || (size_t)len > n)
		return 1;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff ||
	    v < (len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000))
		return 1;
	*cp = v;
	return len;
}

/* The escaped form of the character at IN into ESC; how many input bytes it used. */
static int utap_escape_char(const unsigned char *in, size_t n, char *esc)
{
	u32 cp;
	int used = utap_utf8_decode(in, n, &cp);
	unsigned char ch = in[0];

	if (used > 1) {
		sprintf(esc, cp <= 0xffff ? "\\u%04x" : "\\U%08x", cp);
		return used;
	}
	if (ch == '"' || ch == '\\') {
		esc[0] = '\\';
		esc[1] = ch;
		esc[2] = 0;
	} else if (ch >= 0x20 && ch < 0x7f) {
		esc[0] = ch;
		esc[1] = 0;
	} else if (ch == 0) {		/* only buffers get here; stap writes \0, not \000 */
		esc[0] = '\\';
		esc[1] = '0';
		esc[2] = 0;
	} else if (ch >= 7 && ch <= 13) {
		esc[0] = '\\';
		esc[1] = "abtnvfr"[ch - 7];
		esc[2] = 0;
	} else {
		sprintf(esc, "\\%03o", ch);
	}
	return 1;
}

/* IN's first N bytes quoted into OUT; a NUL ends the string unless WHOLE (a buffer). */
static void utap_quote_bytes(char *out, size_t size, const char *in, size_t n, bool whole)
{
	size_t o = 0, i = 0;
	char esc[12];

	if (size < 8) {
		if (size)
			out[0] = 0;
		return;
	}
	out[o++] = '"';
	while (i < n && (whole || in[i])) {
		int used = utap_escape_char((const unsigned char *)in + i, n - i, esc);
		size_t len = strlen(esc);

		/* keep room for the closing quote, "..." and the NUL */
		if (o + len + 5 > size)
			break;
		memcpy(out + o, esc, len);
		o += len;
		i += used;
	}
	out[o++] = '"';
	if (i < n && (whole || in[i])) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

static void utap_quote(char *out, size_t size, const char *in, size_t n)
{
	utap_quote_bytes(out, size, in, n, false);
}

/* stap's user_string_n_quoted: "..." with escapes, the address in hex on a fault. */
static void utap_user_string_quoted(char *out, s64 addr, s64 inlen, s64 outlen)
{
	char raw[MAXSTRINGLEN];
	s64 in = clamp_t(s64, inlen + 1, 1, MAXSTRINGLEN);
	s64 size = clamp_t(s64, outlen + 1, 8, MAXSTRINGLEN);
	long n = utap_ustring(raw, (u64)addr, (size_t)in);

	if (n < 0)
		snprintf(out, MAXSTRINGLEN, "0x%llx", (unsigned long long)addr);
	else
		utap_quote(out, (size_t)size, raw, (size_t)n);
}

/* A char as stap's pretty-printer shows it: 'c', escaped, but for '"'. */
static void utap_piece_char(char *out, size_t room, unsigned char ch)
{
	char esc[12];

	if (ch == '\'')
		strcpy(esc, "\\'");
	else if (ch == '"')
		strcpy(esc, "\"");
	else
		utap_escape_char(&ch, 1, esc);
	snprintf(out, room, "'%s'", esc);
}

/*
 * Quoted bytes at ADDR: a string (LEN 0) or a char array of LEN bytes;
 * false if unreadable. Only a value from kernel memory (FROM_KERNEL) may
 * point into the kernel: its __user pointers are told apart by address.
 */
static bool utap_piece_string(struct utap_context *c, char *out, size_t room, u64 addr, int len,
			      bool from_kernel)
{
	bool kernel = from_kernel && addr >= TASK_SIZE_MAX;
	long n;

	if (len <= 0) {
		n = kernel ? utap_kstring(c->str_buf, addr, sizeof(c->str_buf)) :
			     utap_ustring(c->str_buf, addr, sizeof(c->str_buf));
	} else {
		n = min_t(long, len, sizeof(c->str_buf));
		if (kernel ? copy_from_kernel_nofault(c->str_buf, (const void *)addr, n) :
			     utap_uread(c->str_buf, addr, n))
			n = -EFAULT;
	}
	if (n < 0)
		return false;
	utap_quote(out, room, c->str_buf, n);
	return true;
}

/*
 * One piece of a target string ($$parms, $x$): TEXT, then V as FMT
 * (core/piece_format.h), or '?' when !OK. S holds
 * MAXSTRINGLEN bytes; what does not fit is cut.
 */
static void utap_piece_append(struct utap_context *c, char *s, const char *text, int fmt,
			      int ok, s64 v, int len)
{
	size_t used = strlen(s);
	char *out = s + used;
	size_t room = MAXSTRINGLEN - used;
	int w = snprintf(out, room, "%s", text);
	bool from_kernel = fmt & PIECE_FROM_KERNEL;

	fmt &= ~PIECE_FROM_KERNEL;
	if (w < 0 || (size_t)w >= room || fmt == PIECE_TEXT)
		return;
	out += w;
	room -= w;
	if (!ok) {
		snprintf(out, room, "?");
		return;
	}
	switch (fmt) {
	case PIECE_DEC:
		snprintf(out, room, "%lld", (long long)v);
		break;
	case PIECE_UDEC:
		snprintf(out, room, "%llu", (unsigned long long)v);
		break;
	case PIECE_CHAR:
		utap_piece_char(out, room, (unsigned char)v);
		break;
	case PIECE_STRING:
	case PIECE_CHARS:
		/* a NULL or unreadable char pointer is shown as the pointer */
		if ((fmt == PIECE_CHARS || v) &&
		    utap_piece_string(c, out, room, (u64)v, fmt == PIECE_CHARS ? len : 0,
				      from_kernel))
			break;
		fallthrough;
	default:
		snprintf(out, room, "0x%llx", (unsigned long long)v);
		break;
	}
}

#endif
