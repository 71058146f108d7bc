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

/* Parses one %... conversion at *pp (just after the '%'); NULL on error. */
static struct fmt_piece *parse_conversion(const char **pp, const char *fmt, struct loc loc,
					  struct fmt_spec *spec)
{
	const char *p = *pp, *start = p - 1;
	struct fmt_piece *pc = new_piece(FC_LITERAL);

	for (;; p++) {
		if (*p == '-')
			pc->flags |= FMT_F_LEFT;
		else if (*p == '+')
			pc->flags |= FMT_F_PLUS;
		else if (*p == ' ')
			pc->flags |= FMT_F_SPACE;
		else if (*p == '#')
			pc->flags |= FMT_F_ALT;
		else if (*p == '0')
			pc->flags |= FMT_F_ZERO;
		else
			break;
	}
	pc->width = parse_number_or_star(&p, spec);
	if (*p == '.') {
		p++;
		pc->prec = parse_number_or_star(&p, spec);
		if (pc->prec == -1)
			pc->prec = 0;
	}
	/* length modifiers are accepted and ignored: every integer is 64 bits */
	while (*p == 'l' || *p == 'L' || *p == 'h' || *p == 'j' || *p == 'z' || *p == 't')
		p++;
	if (!*p) {
		error_at(loc_at(loc, fmt, start), "incomplete conversion at the end of the format");
		return NULL;
	}
	pc->conv = conv_for(*p);
	if (pc->conv == FC_LITERAL) {
		error_at(loc_at(loc, fmt, p), "unknown conversion '%%%c' in format", *p);
		return NULL;
	}
	if (pc->conv == FC_BINARY && pc->width >= 0 && pc->width != 1 && pc->width != 2 &&
	    pc->width != 4 && pc->width != 8) {
		error_at(loc_at(loc, fmt, start), "'%%b' width must be 1, 2, 4 or 8 bytes");
		return NULL;
	}
	if (pc->conv != FC_PERCENT)
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
