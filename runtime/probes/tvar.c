// SPDX-License-Identifier: GPL-2.0
/*
 * tvar.c - target variables typed by the kernel headers the module is
 * compiled against ($prev->pid in a tracepoint): the translator emits C
 * that only computes addresses from the header's types, and every read of
 * memory goes through these helpers, which cannot fault.
 */
#ifndef UTAP_PROBES_TVAR_C
#define UTAP_PROBES_TVAR_C

/*
 * An array (not a pointer): it decays in ?:, so its type changes. (Not
 * (x) + 0, which is invalid for a pointer to an incomplete struct the
 * headers only declare, such as struct proc_dir_entry.)
 */
#define UTAP_TV_IS_ARRAY(x) \
	(__builtin_classify_type(x) == 5 && !__builtin_types_compatible_p(typeof(x), typeof(0 ? (x) : (x))))

/* Whether a value of x's type is sign-extended to 64 bits (x is not evaluated). */
#define UTAP_TV_SIGNED(x) _Generic((x),					\
	signed char: 1, short: 1, int: 1, long: 1, long long: 1,	\
	char: ((char)-1 < 0),						\
	default: 0)

/* A struct or union has no single value: the script must name a member. */
#define UTAP_TV_SCALAR(x) \
	(__builtin_classify_type(x) != 12 && __builtin_classify_type(x) != 13)

/*
 * The object pointer x points to, or x itself when it is a struct or union
 * held in place: stap's -> on an embedded member ($bio->bi_iter->bi_sector)
 * is C's '.'.
 */
#define UTAP_TV_OBJ(x) (*__builtin_choose_expr(UTAP_TV_SCALAR(x), (x), &(x)))

static void utap_tv_fault(struct utap_context *c, unsigned long addr, const char *what)
{
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "read fault [man error::fault] at 0x%016lx (%s)", addr, what);
}

/* Reads len bytes at addr; on a fault formats the error in c->error_buf and returns -EFAULT. */
static int utap_tv_read(struct utap_context *c, unsigned long addr, void *dst, size_t len,
			const char *what)
{
	if (!copy_from_kernel_nofault(dst, (const void *)addr, len))
		return 0;
	utap_tv_fault(c, addr, what);
	return -EFAULT;
}

static s64 utap_tv_extend(u64 raw, size_t size, bool is_signed)
{
	unsigned int shift;

	if (size >= 8)
		return (s64)raw;
	shift = 64 - 8 * (unsigned int)size;
	return is_signed ? (s64)(raw << shift) >> shift : (s64)((raw << shift) >> shift);
}

/* A guru write: the low size bytes of v to addr; on a fault the error is in c->error_buf. */
static int utap_tv_store(struct utap_context *c, unsigned long addr, size_t size, int64_t v,
			 const char *what)
{
	u64 raw = (u64)v;
	void *dst = (void *)addr;

	/* copy_to_kernel_nofault() is not exported: its per-size stores */
	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault(dst, &raw, u8, fault);
		break;
	case 2:
		__put_kernel_nofault(dst, &raw, u16, fault);
		break;
	case 4:
		__put_kernel_nofault(dst, &raw, u32, fault);
		break;
	default:
		__put_kernel_nofault(dst, &raw, u64, fault);
		break;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "write fault [man error::fault] at 0x%016lx (%s)", addr, what);
	return -EFAULT;
}

/* The scalar of size bytes at addr, extended to 64 bits. */
static int utap_tv_value(struct utap_context *c, unsigned long addr, size_t size, bool is_signed,
			 int64_t *out, const char *what)
{
	u64 raw = 0;

	if (size > sizeof(raw))
		size = sizeof(raw);
	if (utap_tv_read(c, addr, &raw, size, what))
		return -EFAULT;
	*out = utap_tv_extend(raw, size, is_signed);
	return 0;
}

/* A bit field of bits bits, bit_offset bits into the byte at addr. */
static int utap_tv_bits(struct utap_context *c, unsigned long addr, unsigned int bit_offset,
			unsigned int bits, bool is_signed, int64_t *out, const char *what)
{
	u64 raw = 0;
	size_t bytes = (bit_offset + bits + 7) / 8;

	if (bytes > sizeof(raw) || !bits)
		bytes = sizeof(raw);
	if (utap_tv_read(c, addr, &raw, bytes, what))
		return -EFAULT;
	raw >>= bit_offset;
	if (bits < 64)
		raw &= (1ULL << bits) - 1;
	*out = bits < 64 && is_signed && (raw >> (bits - 1)) ? (s64)(raw | ~((1ULL << bits) - 1)) :
	       (s64)raw;
	return 0;
}

/* An in-memory value of our own (a probe argument), for $$parms: never faults. */
static u64 utap_tv_local(const void *p, size_t size, bool is_signed)
{
	u64 raw = 0;

	memcpy(&raw, p, min(size, sizeof(raw)));
	return (u64)utap_tv_extend(raw, size, is_signed);
}

#endif /* UTAP_PROBES_TVAR_C */
