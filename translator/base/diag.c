/*
 * diag.c - diagnostics in the form compilers use:
 *
 *   <input>:1:26: error: expected ')' after arguments, found '}'
 *    probe begin { printf("x" }
 *                             ^
 */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

int diag_errors;
int diag_warnings;
bool diag_suppress_warnings;
bool diag_silent;	/* count but print nothing (the fuzzer) */

static void show_line(struct loc loc)
{
	const char *text, *start, *end;
	int i;

	if (!loc.src || !loc.src->text)
		return;
	text = loc.src->text;
	start = text + loc.off;
	if (loc.off > loc.src->len)
		return;
	while (start > text && start[-1] != '\n')
		start--;
	end = start;
	while (*end && *end != '\n')
		end++;
	fprintf(stderr, " %.*s\n ", (int)(end - start), start);
	/* keep tabs so the caret lines up under the same glyphs */
	for (i = 0; start + i < text + loc.off && start[i]; i++)
		fputc(start[i] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}

static void vdiag(struct loc loc, const char *kind, const char *fmt, va_list ap)
{
	if (diag_silent)
		return;
	if (loc.src)
		fprintf(stderr, "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
	else
		fprintf(stderr, "utap: %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	show_line(loc);
}

void error_at(struct loc loc, const char *fmt, ...)
{
	static struct loc last;
	va_list ap;

	/* a second error at the very same place is an echo of the first */
	if (diag_errors && loc.src && loc.src == last.src && loc.off == last.off)
		return;
	last = loc;
	diag_errors++;
	va_start(ap, fmt);
	vdiag(loc, "error", fmt, ap);
	va_end(ap);
	if (diag_errors == 50 && !diag_silent)
		fprintf(stderr, "utap: too many errors; the rest are not shown\n");
}

void warn_at(struct loc loc, const char *fmt, ...)
{
	va_list ap;

	diag_warnings++;
	if (diag_suppress_warnings)
		return;
	va_start(ap, fmt);
	vdiag(loc, "warning", fmt, ap);
	va_end(ap);
}

void note_at(struct loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(loc, "note", fmt, ap);
	va_end(ap);
}

void errorf(const char *fmt, ...)
{
	va_list ap;

	diag_errors++;
	if (diag_silent)
		return;
	fputs("utap: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	diag_warnings++;
	if (diag_suppress_warnings || diag_silent)
		return;
	fputs("utap: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("utap: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
