/*
 * fuzz_regex.c - libFuzzer target for the regex compiler and matcher.
 *
 * Input: pattern, a 0 byte, subject (no 0 byte: the pattern alone, matched
 * against a few fixed subjects). Checks, for every input:
 *  - compiling never crashes or reads outside the pattern (an exact-size
 *    heap copy), and a failure names a position inside the pattern;
 *  - a program only jumps inside itself and names existing sets and slots;
 *  - the matcher stays inside utap_rx_work_size() bytes (exact-size heap
 *    block) and terminates; the boolean run agrees with the capturing run;
 *  - the match and every group lie inside the subject, groups inside the
 *    match;
 *  - when glibc's regcomp(REG_EXTENDED) accepts the pattern too and the two
 *    dialects mean the same (no backslash, no [= or [., no (?, no anchor
 *    but a leading ^ and a trailing $: glibc mishandles anchors inside
 *    groups), both find the same whole match and count the same groups.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/regex_compile.h"

#define FAIL() __builtin_trap()

static void check_program(const struct rx_compiled *rx)
{
	const struct utap_rx_prog *p = &rx->prog;
	int nthreads = 0;

	if (p->ninsn < 3 || p->ninsn > UTAP_RX_MAXINSN || p->ngroups > UTAP_RX_MAXGROUPS)
		FAIL();
	if (p->insn[p->ninsn - 1].op != UTAP_RX_MATCH)
		FAIL();
	for (int i = 0; i < p->ninsn; i++) {
		const struct utap_rx_insn *in = &p->insn[i];

		switch (in->op) {
		case UTAP_RX_SPLIT:
			if (in->y >= p->ninsn)
				FAIL();
			/* fall through */
		case UTAP_RX_JMP:
			if (in->x >= p->ninsn)
				FAIL();
			break;
		case UTAP_RX_CLASS:
			if (in->x >= rx->nsets)
				FAIL();
			nthreads++;
			break;
		case UTAP_RX_SAVE:
			if (in->x >= 2 * (p->ngroups + 1))
				FAIL();
			break;
		case UTAP_RX_CHAR:
		case UTAP_RX_ANY:
		case UTAP_RX_MATCH:
			nthreads++;
			break;
		case UTAP_RX_BOL:
		case UTAP_RX_EOL:
			break;
		default:
			FAIL();
		}
	}
	if (nthreads != p->nthreads)
		FAIL();
}

static bool is_quantifier(char c)
{
	return c == '*' || c == '+' || c == '?' || c == '{' || c == '}';
}

/*
 * Patterns whose meaning glibc shares (p compiled), and which glibc
 * compiles in reasonable time: its regcomp is exponential in stacked
 * repetitions (a++++) and expands intervals.
 */
static bool comparable(const char *p, size_t len)
{
	if (len > 100)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (i && is_quantifier(c) && c != '}' && is_quantifier(p[i - 1]))
			return false;
		if (i && c >= '0' && c <= '9' && p[i - 1] >= '0' && p[i - 1] <= '9')
			return false;

		if (c == '\\')
			return false;	/* stap: the next byte; glibc: \w, \1, ... */
		if (c == '(' && i + 1 < len && p[i + 1] == '?')
			return false;
		if ((c == '^' && i != 0) || (c == '$' && i != len - 1))
			return false;
		if (c != '[')
			continue;
		/* skip the bracket: ^, a leading ], [:class:] */
		i += 1 + (i + 1 < len && p[i + 1] == '^');
		i += i < len && p[i] == ']';
		for (; i < len && p[i] != ']'; i++) {
			if (p[i] == '\\')
				return false;	/* stap: the next byte; glibc: a backslash */
			if (p[i] == '[' && i + 1 < len && (p[i + 1] == '=' || p[i + 1] == '.'))
				return false;	/* glibc: equivalence classes, collating */
			if (p[i] == '[' && i + 1 < len && p[i + 1] == ':') {
				const char *end = memmem(p + i + 2, len - i - 2, ":]", 2);

				if (!end)
					return false;
				i = end - p + 1;
			}
		}
	}
	return true;
}

static void run(const struct rx_compiled *rx, bool compare, regex_t *re, const char *subject,
		size_t len)
{
	int nslots = 2 * (rx->prog.ngroups + 1);
	s32 cap[UTAP_RX_MAXSLOTS];
	void *work;
	int r, r0;

	work = malloc(utap_rx_work_size(&rx->prog, nslots));
	r = utap_rx_exec(&rx->prog, subject, len, cap, nslots, work);
	free(work);
	work = malloc(utap_rx_work_size(&rx->prog, 0));
	r0 = utap_rx_exec(&rx->prog, subject, len, NULL, 0, work);
	free(work);
	if (r != r0 || (r != 0 && r != 1))
		FAIL();
	if (r) {
		if (cap[0] < 0 || cap[0] > cap[1] || (size_t)cap[1] > len)
			FAIL();
		for (int k = 2; k < nslots; k += 2) {
			if (cap[k] < 0 && cap[k + 1] < 0)
				continue;
			if (cap[k] < cap[0] || cap[k] > cap[k + 1] || cap[k + 1] > cap[1])
				FAIL();
		}
	}
	if (compare && strlen(subject) == len) {
		regmatch_t m[1];
		int g = !regexec(re, subject, 1, m, 0);

		if (g != r)
			FAIL();
		if (r && (m[0].rm_so != cap[0] || m[0].rm_eo != cap[1]))
			FAIL();
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const subjects[] = { "", "a", "abcabc", "xaabbccx", "aaaaaaaaaaaaaaaa",
						"ab\ncd e1_2", "\xff\x80z" };
	const unsigned char *nul = memchr(data, 0, size);
	size_t plen = nul ? (size_t)(nul - data) : size;
	char *pattern = malloc(plen ? plen : 1), *subject;
	struct rx_compiled *rx;
	struct rx_error err;
	bool compare = false;
	regex_t re;

	memcpy(pattern, data, plen);
	rx = rx_compile(pattern, plen, &err);
	if (!rx) {
		if (err.pos < 0 || (size_t)err.pos > plen || !err.msg[0])
			FAIL();
		free(pattern);
		return 0;
	}
	check_program(rx);
	if (comparable(pattern, plen)) {
		char *z = strndup(pattern, plen);

		compare = !regcomp(&re, z, REG_EXTENDED);
		if (compare && (int)re.re_nsub != rx->prog.ngroups)
			FAIL();
		free(z);
	}
	if (nul) {
		size_t len = size - plen - 1;

		subject = malloc(len + 1);
		memcpy(subject, nul + 1, len);
		subject[len] = 0;
		run(rx, compare, &re, subject, strnlen(subject, len));
		free(subject);
	} else {
		for (size_t i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++)
			run(rx, compare, &re, subjects[i], strlen(subjects[i]));
	}
	if (compare)
		regfree(&re);
	rx_free(rx);
	free(pattern);
	return 0;
}
