/*
 * unit.h - the smallest test harness that reports like the rest of the suite.
 *
 * Each test prints "ok unit/PROG/TEST" or "FAIL unit/PROG/TEST: why"; the
 * suite runner counts those lines. A test keeps going after a failed check so
 * one run shows every broken expectation.
 */
#ifndef UTAP_UNIT_H
#define UTAP_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <stdarg.h>

static const char *unit_prog = "unit";
static int unit_failed_checks;
static int unit_tests_failed;
static int unit_tests_run;
static char unit_first_failure[512];

#define CHECK(cond) \
	unit_check((cond), __FILE__, __LINE__, "%s", #cond)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	unit_check(g_ == w_, __FILE__, __LINE__, "%s = %lld, want %lld", #got, g_, w_); \
} while (0)

#define CHECK_HEX(got, want) do { \
	unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
	unit_check(g_ == w_, __FILE__, __LINE__, "%s = %#llx, want %#llx", #got, g_, w_); \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	unit_check(g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, \
		   "%s = \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define CHECK_MEM(got, want, n) do { \
	unit_check(memcmp((got), (want), (n)) == 0, __FILE__, __LINE__, \
		   "%s differs from %s in %zu bytes", #got, #want, (size_t)(n)); \
} while (0)

__attribute__((format(printf, 4, 5)))
static void unit_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	char msg[400];

	if (ok)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (unit_failed_checks++ == 0)
		snprintf(unit_first_failure, sizeof(unit_first_failure), "%s:%d: %s", file, line, msg);
	fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, msg);
}

static void unit_run(const char *name, void (*fn)(void))
{
	unit_failed_checks = 0;
	fn();
	unit_tests_run++;
	if (unit_failed_checks) {
		unit_tests_failed++;
		printf("FAIL unit/%s/%s: %s\n", unit_prog, name, unit_first_failure);
	} else {
		printf("ok unit/%s/%s\n", unit_prog, name);
	}
	fflush(stdout);
}

#define RUN(fn) unit_run(#fn, fn)
#define TEST(name) static void name(void)

static int unit_done(void)
{
	return unit_tests_failed ? 1 : 0;
}

#endif /* UTAP_UNIT_H */
