/*
 * printf_format.c - printf formats are parsed at translate time.
 *
 * stap requires the format to be a literal, so conversions are checked
 * against the argument types here and the module gets a compact, already
 * validated description of each format instead of parsing at run time.
 */
#include "front/front.h"

#include <ctype.h>
#include <string.h>

static struct loc loc_at(struct loc base, const char *fmt, const char *p)
{
	/* the literal starts with a quote; point the caret into the string */
	base.col += (int)(p - fmt) + 1;
	base.off += (size_t)(p - fmt) + 1;
	return base;
}

static struct fmt_piece *new_piece(enum fmt_conv conv)
{
	struct fmt_piece *pc = arena_alloc(sizeof(*pc));

	pc->conv = conv;
	pc->width = -1;
	pc->prec = -1;
	return pc;
}

static int parse_number_or_star(const char **pp, struct fmt_spec *spec)
{
	const char *p = *pp;
	int v = 0;

	if (*p == '*') {
		*pp = p + 1;
		spec->nargs++;
		return -2;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		if (v < 100000)
			v = v * 10 + (*p - '0');
		p++;
	}
	/* the runtime clamps to its buffer anyway; the module keeps 16 bits */
	if (v > 4096)
		v = 4096;
	*pp = p;
	return v;
}

static enum fmt_conv conv_for(char c)
{
	switch (c) {
	case 'd':
	case 'i':
		return FC_SIGNED;
	case 'u':
		return FC_UNSIGNED;
	case 'o':
		return FC_OCTAL;
	case 'x':
		return FC_HEX;
	case 'X':
		return FC_HEX_UPPER;
	case 'p':
		return FC_POINTER;
	case 's':
		return FC_STRING;
	case 'c':
		return FC_CHAR;
	case 'm':
		return FC_MEMORY;
	case 'M':
		return FC_MEMORY_HEX;
	case 'b':
		return FC_BINARY;
	case '%':
		return FC_PERCENT;
	default:
		return FC_LITERAL;
	}
}

static int flag_for(char c)
{
	switch (c) {
	case '-':
		return FMT_F_LEFT;
	case '+':
		return FMT_F_PLUS;
	case ' ':
		return FMT_F_SPACE;
	case '#':
		return FMT_F_ALT;
	case '0':
		return FMT_F_ZERO;
	default:
		return 0;
	}
}

/* Why the character at p cannot be a conversion, in stap's grammar. */
static void bad_conversion(const char *p, const char *fmt, struct loc loc)
{
	struct loc at = loc_at(loc, fmt, p);

	if (!*p)
		error_at(at, "incomplete conversion at the end of the format");
	else if (flag_for(*p))
		error_at(at, "a second flag '%c' in a conversion: stap takes one flag each", *p);
	else if (*p == 'l' || *p == 'h' || *p == 'L' || *p == 'j' || *p == 'z' || *p == 't')
		error_at(at, "length modifier '%c' is not accepted: stap takes at most one 'l' "
			 "(every number is 64 bits)", *p);
	else if (*p == '%')
		error_at(at, "'%%%%' takes no flag, width or precision");
	else
		error_at(at, "unknown conversion '%%%c' in format", *p);
}

/*
 * Parses one %... conversion at *pp (just after the '%'); NULL on error.
 * stap's grammar: at most one flag, a width, a precision, one optional
 * 'l', then the conversion letter. A '.' without a number sets no
 * precision.
 */
static struct fmt_piece *parse_conversion(const char **pp, const char *fmt, struct loc loc,
					  struct fmt_spec *spec)
{
	const char *p = *pp;
	struct fmt_piece *pc = new_piece(FC_LITERAL);

	if (*p == '%') {
		*pp = p + 1;
		pc->conv = FC_PERCENT;
		return pc;
	}
	pc->flags = flag_for(*p);
	if (pc->flags)
		p++;
	pc->width = parse_number_or_star(&p, spec);
	if (*p == '.') {
		p++;
		pc->prec = parse_number_or_star(&p, spec);
	}
	if (*p == 'l')
		p++;
	pc->conv = conv_for(*p);
	if (pc->conv == FC_LITERAL || pc->conv == FC_PERCENT) {
		bad_conversion(p, fmt, loc);
		return NULL;
	}
	spec->nargs++;
	*pp = p + 1;
	return pc;
}

struct fmt_spec *parse_format(const char *fmt, size_t len, struct loc loc)
{
	struct fmt_spec *spec = arena_alloc(sizeof(*spec));
	struct fmt_piece head = { 0 }, *cur = &head;
	const char *p = fmt, *end = fmt + len;

	while (p < end) {
		struct fmt_piece *pc;

		if (*p != '%') {
			const char *q = p;

			while (q < end && *q != '%')
				q++;
			pc = new_piece(FC_LITERAL);
			pc->lit = p;
			pc->lit_len = (size_t)(q - p);
			p = q;
		} else {
			p++;
			pc = parse_conversion(&p, fmt, loc, spec);
			if (!pc)
				return NULL;
			if (pc->conv == FC_PERCENT) {
				pc->conv = FC_LITERAL;
				pc->lit = "%";
				pc->lit_len = 1;
			}
		}
		cur = cur->next = pc;
	}
	spec->pieces = head.next;
	return spec;
}
