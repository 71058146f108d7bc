/*
 * test_regex.c - regular expressions: the translator's compiler and the
 * module's Pike VM, in user space.
 *
 *  - a table of patterns and subjects with the expected match and groups
 *    (leftmost-longest whole match, greedy ordered groups, stap's dialect);
 *  - the same table against glibc's regexec(REG_EXTENDED) wherever the two
 *    dialects mean the same thing;
 *  - bad patterns: the message and the position;
 *  - generated patterns against two oracles: a matcher that works on the
 *    parse tree with sets of positions (every pattern), and glibc (patterns
 *    without anchors inside them, where glibc has bugs of its own);
 *  - limits: program size, group count, nesting, matcher memory, time.
 *
 * The compiler is included whole so that the tree oracle can walk its
 * parse tree.
 */
#include "unit.h"
#include "../../translator/codegen/regex.c"

#include <regex.h>
#include <time.h>

/* One run: "-" for no match, else "start,end" per group, -1,-1 for unset. */
static char result[1024];

static const char *run(const char *pattern, const char *subject)
{
	struct rx_error err;
	struct rx_compiled *rx = rx_compile(pattern, strlen(pattern), &err);
	int nslots, r, r0, n = 0;
	s32 cap[UTAP_RX_MAXSLOTS];
	void *work;

	if (!rx) {
		snprintf(result, sizeof(result), "error %d: %s", err.pos, err.msg);
		return result;
	}
	nslots = 2 * (rx->prog.ngroups + 1);
	/* exactly the size promised: ASan catches a byte more */
	work = malloc(utap_rx_work_size(&rx->prog, nslots));
	r = utap_rx_exec(&rx->prog, subject, strlen(subject), cap, nslots, work);
	free(work);
	work = malloc(utap_rx_work_size(&rx->prog, 0));
	r0 = utap_rx_exec(&rx->prog, subject, strlen(subject), NULL, 0, work);
	free(work);
	rx_free(rx);
	if (r != r0)
		return "boolean and capturing runs disagree";
	if (!r)
		return "-";
	for (int k = 0; k < nslots; k += 2)
		n += snprintf(result + n, sizeof(result) - n, "%s%d,%d", k ? " " : "", cap[k],
			      cap[k + 1]);
	return result;
}

struct rx_case {
	const char *pattern, *subject, *want;
	bool glibc;		/* glibc means the same (whole match compared) */
};

static const struct rx_case cases[] = {
	/* literals, unanchored search, leftmost */
	{ "abc", "abc", "0,3", true },
	{ "abc", "xxabcxabc", "2,5", true },
	{ "abc", "ab", "-", true },
	{ "", "", "0,0", true },
	{ "", "xyz", "0,0", true },
	{ "b", "abcb", "1,2", true },
	/* the whole match is leftmost, then longest */
	{ "a|ab", "ab", "0,2", true },
	{ "ab|a", "ab", "0,2", true },
	{ "abc|b", "xabcd", "1,4", true },
	{ "b|abc", "xabcd", "1,4", true },
	{ "x*", "aaa", "0,0", true },
	{ "a*", "baaa", "0,0", true },
	{ "a+", "baaa", "1,4", true },
	{ "(a|ab)(c|bcd)(d*)", "abcd", "0,4 0,1 1,4 4,4", true },
	{ "(a|ab)(bc|c)", "abc", "0,3 0,1 1,3", true },
	{ "(ab|a)(bc|c)", "abc", "0,3 0,2 2,3", true },
	{ "(a*)(a+)", "aaa", "0,3 0,2 2,3", true },
	{ "(a+)(a*)", "aaa", "0,3 0,3 3,3", true },
	{ "(a*)+", "b", "0,0 0,0", true },
	{ "(a*)*", "aa", "0,2 0,2", true },
	{ "(a|b)*", "ab", "0,2 1,2", true },
	{ "(a|b)*c", "abac", "0,4 2,3", true },
	{ "(x)?y", "y", "0,1 -1,-1", true },
	{ "a(b)?c", "ac", "0,2 -1,-1", true },
	{ "a|(b)", "a", "0,1 -1,-1", true },
	{ "a|(b)", "b", "0,1 0,1", true },
	{ "((a)|b)+", "ab", "0,2 1,2 0,1", true },
	{ "(a.*)(b.*)", "axbxb", "0,5 0,4 4,5", true },
	{ ".*", "anything", "0,8", true },
	{ "(.*)x(.*)", "axbxc", "0,5 0,3 4,5", true },
	/* anchors */
	{ "^a", "ab", "0,1", true },
	{ "^a", "ba", "-", true },
	{ "a$", "ba", "1,2", true },
	{ "a$", "ab", "-", true },
	{ "^$", "", "0,0", true },
	{ "^$", "a", "-", true },
	{ "$", "abc", "3,3", true },
	{ "^", "abc", "0,0", true },
	{ "^abc$", "abc", "0,3", true },
	{ "a^b", "ab", "-", false },
	{ "a$b", "ab", "-", false },
	{ "(^a|b)", "ba", "0,1 0,1", false },
	{ "(^a|b)", "ca", "-", false },
	{ "x(^a|b)", "xa", "-", false },
	{ "(a$|b)c", "abc", "1,3 1,2", false },
	{ "(^)*a", "ba", "1,2 -1,-1", false },
	{ "(a|$)", "b", "1,1 1,1", false },
	/* dot and bytes */
	{ "a.c", "abc", "0,3", true },
	{ "a.c", "a\nc", "0,3", true },
	{ "a.c", "ac", "-", true },
	{ ".", "\xff", "0,1", true },
	{ "\xc3\xa9+", "caf\xc3\xa9\xa9", "3,6", true },
	{ "[\x80-\xff]+", "ab\x80\x90z", "2,4", true },
	/* brackets */
	{ "[abc]+", "xxbcay", "2,5", true },
	{ "[^abc]+", "abxyc", "2,4", true },
	{ "[a-c]+", "zabcd", "1,4", true },
	{ "[a-]+", "b-a-", "1,4", true },
	{ "[-a]+", "b-a-", "1,4", true },
	{ "[]a]+", "x]a]", "1,4", true },
	{ "[^]a]+", "]a]xy", "3,5", true },
	{ "[a\\]]+", "x]a]", "1,4", false },
	{ "[\\^a]+", "x^a", "1,3", false },
	{ "[^\n]+", "ab\ncd", "0,2", true },
	{ "[[:digit:]]+", "ab 123 4567", "3,6", true },
	{ "[[:d:]]+", "ab 123", "3,6", false },
	{ "[[:alpha:]]+", "12abC3", "2,5", true },
	{ "[[:alnum:]]+", "--a1B2--", "2,6", true },
	{ "[[:space:]]+", "a \t\n\v\f\rb", "1,7", true },
	{ "[[:s:]]+", "a \tb", "1,3", false },
	{ "[[:upper:]][[:lower:]]+", "abcDefG", "3,6", true },
	{ "[[:u:]][[:l:]]+", "abcDefG", "3,6", false },
	{ "[[:xdigit:]]+", "xx0aF9g", "2,6", true },
	{ "[[:punct:]]+", "ab!-/@[`{~c", "2,10", true },
	{ "[[:blank:]]+", "a \t\nb", "1,3", true },
	{ "[[:cntrl:]]+", "a\001\037\177b", "1,4", true },
	{ "[[:print:]]+", "\001ab c\002", "1,5", true },
	{ "[[:graph:]]+", " ab c", "1,3", true },
	{ "[^[:alpha:]0-9]+", "ab,;9", "2,4", true },
	{ "[[:digit:]-]+", "a1-2b", "1,4", true },
	/* repetition */
	{ "a{2}", "aaa", "0,2", true },
	{ "a{2,}", "aaaab", "0,4", true },
	{ "a{2,3}", "aaaa", "0,3", true },
	{ "a{0,1}b", "aab", "1,3", true },
	{ "a{0}b", "ab", "1,2", true },
	{ "(ab){1,2}", "abababab", "0,4 2,4", true },
	{ "x{3,5}", "xxxxxxx", "0,5", true },
	{ "x{3,5}", "xx", "-", true },
	{ "(a){0}b", "ab", "1,2 -1,-1", true },
	{ "a**", "aaa", "0,3", false },
	{ "a+?", "aaa", "0,3", false },
	{ "(a{1,2}){2}", "aaaa", "0,4 2,4", true },
	{ "(a|b){2,3}c", "ababc", "1,5 3,4", true },
	/* groups */
	{ "(?:ab)+(c)", "ababc", "0,5 4,5", false },
	{ "()", "x", "0,0 0,0", true },
	{ "a||b", "b", "0,1", true },
	{ "|", "x", "0,0", true },
	{ "(((a)))", "a", "0,1 0,1 0,1 0,1", true },
	{ "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "abcdefghijk",
	  "0,11 0,1 1,2 2,3 3,4 4,5 5,6 6,7 7,8 8,9 9,10 10,11", true },
	/* a backslash makes the next byte literal */
	{ "a\\.c", "abc a.c", "4,7", true },
	{ "\\(x\\)", "(x)", "0,3", true },
	{ "\\\\", "a\\b", "1,2", true },
	{ "\\*", "a*", "1,2", true },
	{ "\\d", "1d", "1,2", false },
	{ "\\{", "{", "0,1", true },
	{ "]}", "a]}", "1,3", true },
};

TEST(table)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rx_case *t = &cases[i];

		unit_check(!strcmp(run(t->pattern, t->subject), t->want), __FILE__, __LINE__,
			   "/%s/ on \"%s\": got %s, want %s", t->pattern, t->subject, result,
			   t->want);
	}
}

/* glibc's whole match for the cases where the dialects agree */
static const char *glibc_run(const char *pattern, const char *subject, int *nsub)
{
	regex_t re;
	regmatch_t m[1];
	int r;

	if (regcomp(&re, pattern, REG_EXTENDED))
		return "glibc: no";
	*nsub = (int)re.re_nsub;
	/* one slot only: glibc's group resolution can loop on some patterns */
	r = regexec(&re, subject, 1, m, 0);
	regfree(&re);
	if (r)
		return "-";
	snprintf(result, sizeof(result), "%d,%d", (int)m[0].rm_so, (int)m[0].rm_eo);
	return result;
}

TEST(table_against_glibc)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rx_case *t = &cases[i];
		char want[64];
		const char *sp;
		int nsub = -1, groups = 0;

		if (!t->glibc)
			continue;
		sp = strchr(t->want, ' ');
		snprintf(want, sizeof(want), "%.*s",
			 sp ? (int)(sp - t->want) : (int)strlen(t->want), t->want);
		unit_check(!strcmp(glibc_run(t->pattern, t->subject, &nsub), want), __FILE__,
			   __LINE__, "glibc: /%s/ on \"%s\": %s, want %s", t->pattern, t->subject,
			   result, want);
		for (const char *c = t->want; *c; c++)
			groups += *c == ' ';
		if (strcmp(t->want, "-"))
			unit_check(nsub == groups, __FILE__, __LINE__, "glibc: /%s/ has %d groups, "
				   "want %d", t->pattern, nsub, groups);
	}
}

struct bad_case {
	const char *pattern;
	int pos;
	const char *msg;
};

static const struct bad_case bad[] = {
	{ "*a", 0, "unexpected '*'" },
	{ "a|+", 2, "unexpected '+'" },
	{ "(?a)", 2, "unexpected '(?' followed by 'a'" },
	{ "(?", 2, "unexpected end of regex" },
	{ "{1}", 0, "unexpected '{'" },
	{ "(ab", 3, "expected ')', found end of regex" },
	{ "ab)", 2, "unbalanced ')'" },
	{ "a\\", 1, "unexpected end of regex after '\\'" },
	{ "[ab", 0, "unclosed character class" },
	{ "[]", 0, "unclosed character class" },
	{ "[^]", 0, "unclosed character class" },
	{ "[z-a]", 3, "inverted character range 'z'-'a'" },
	{ "[[:alpah:]]", 1, "unknown character class 'alpah'" },
	{ "[[:alpha", 1, "unclosed character class '[:alpha'" },
	{ "a{", 2, "expected a number" },
	{ "a{x}", 2, "expected a number" },
	{ "a{1", 3, "expected '}', found end of regex" },
	{ "a{1,x}", 4, "expected '}' or a number" },
	{ "a{1x}", 3, "expected ',' or '}'" },
	{ "a{3,2}", 5, "the maximum repetition count 2 is below the minimum 3" },
	{ "a{12345}", 2, "12345 is too large" },
	{ "a{99999999999999999999}", 2, "99999999999999999999 is too large" },
	{ "^*", 1, "'*' applied to an anchor" },
	{ "a$+", 2, "'+' applied to an anchor" },
	{ "a{2000}", 0, "regex too large (more than 2000 instructions)" },
	{ "(a{100}){100}", 1, "regex too large (more than 2000 instructions)" },
};

TEST(errors)
{
	struct rx_error err;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rx_compiled *rx = rx_compile(bad[i].pattern, strlen(bad[i].pattern), &err);

		unit_check(!rx && err.pos == bad[i].pos && !strcmp(err.msg, bad[i].msg), __FILE__,
			   __LINE__, "/%s/: %s at %d, want %s at %d", bad[i].pattern,
			   rx ? "compiled" : err.msg, err.pos, bad[i].msg, bad[i].pos);
		rx_free(rx);
	}
	/* a NUL byte is not a pattern byte */
	CHECK(!rx_compile("a\0b", 3, &err) && err.pos == 1);
}

TEST(limits)
{
	char p[4096];
	struct rx_error err;
	struct rx_compiled *rx;
	int n = 0;

	/* 32 groups compile, 33 do not */
	for (int i = 0; i < UTAP_RX_MAXGROUPS; i++)
		n += sprintf(p + n, "(a)");
	rx = rx_compile(p, n, &err);
	CHECK(rx && rx->prog.ngroups == UTAP_RX_MAXGROUPS);
	rx_free(rx);
	strcat(p, "(b)");
	rx = rx_compile(p, strlen(p), &err);
	CHECK(!rx && !strcmp(err.msg, "more than 32 subexpressions") && err.pos == 96);
	rx_free(rx);

	/* nesting */
	n = 0;
	for (int i = 0; i < RX_MAXDEPTH + 1; i++)
		n += sprintf(p + n, "(?:");
	rx = rx_compile(p, strlen(p), &err);
	CHECK(!rx && !strcmp(err.msg, "regex nested too deeply"));
	memset(p, '?', 1000);
	p[0] = 'a';
	p[1000] = 0;
	rx = rx_compile(p, strlen(p), &err);
	CHECK(!rx && !strcmp(err.msg, "regex nested too deeply"));

	/* many groups over a long program: too much matcher memory */
	n = 0;
	for (int i = 0; i < 30; i++)
		n += sprintf(p + n, "([ab]{0,10})");
	rx = rx_compile(p, n, &err);
	CHECK(!rx && strstr(err.msg, "its matcher needs") && strstr(err.msg, "at most 32768"));
	rx_free(rx);
}

/*
 * The tree oracle: the set of positions a node can end at, from a set of
 * positions (bit i: position i; subjects shorter than 64).
 */
static u64 ends(const struct rx_state *st, const struct rxn *n, const char *s, int len, u64 from)
{
	u64 to = 0, cur, all;
	int i;

	switch (n->kind) {
	case RXN_EMPTY:
		return from;
	case RXN_CHAR:
	case RXN_ANY:
	case RXN_SET:
		for (i = 0; i < len; i++) {
			u8 b = (u8)s[i];

			if (!(from >> i & 1))
				continue;
			if (n->kind == RXN_ANY || (n->kind == RXN_CHAR && b == n->c) ||
			    (n->kind == RXN_SET && utap_rx_in_set(&st->sets[n->set], b)))
				to |= 1ull << (i + 1);
		}
		return to;
	case RXN_BOL:
		return from & 1;
	case RXN_EOL:
		return from & (1ull << len);
	case RXN_CAT:
		for (const struct rxn *k = n->kid; k; k = k->next)
			from = ends(st, k, s, len, from);
		return from;
	case RXN_ALT:
		for (const struct rxn *k = n->kid; k; k = k->next)
			to |= ends(st, k, s, len, from);
		return to;
	case RXN_GROUP:
		return ends(st, n->kid, s, len, from);
	case RXN_REPEAT:
		cur = from;
		for (i = 0; i < n->min && cur; i++)
			cur = ends(st, n->kid, s, len, cur);
		all = cur;
		for (i = n->min; (n->max < 0 || i < n->max) && cur; i++) {
			cur = ends(st, n->kid, s, len, cur) & ~all;
			all |= cur;
		}
		return all;
	}
	return 0;
}

/* Random patterns over a small alphabet; anchors only when asked. */
static unsigned long long seed = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed % n);
}

static int gen_pattern(char *p, int depth, bool anchors)
{
	static const char *const atoms[] = {
		"[ab]", "[^a]", "[a-c]", "[[:alpha:]]", ".", "^", "$",
	};
	static const char *const ops[] = { "*", "+", "?", "{0,2}", "{2}", "{1,}", "{1,3}" };
	int n = 0, k = 1 + rnd(3);

	for (int i = 0; i < k; i++) {
		bool atom = true;

		switch (rnd(depth > 2 ? 7 : 9)) {
		case 0: case 1: case 2:
			p[n++] = "abc"[rnd(3)];
			break;
		case 3: case 4:
			n += sprintf(p + n, "%s", atoms[rnd(anchors ? 7 : 5)]);
			atom = p[n - 1] != '^' && p[n - 1] != '$';
			break;
		case 5:
			p[n++] = '|';
			atom = false;
			break;
		case 6:
			p[n++] = 'a';
			break;
		default:
			p[n++] = '(';
			n += gen_pattern(p + n, depth + 1, anchors);
			if (rnd(3) == 0) {
				p[n++] = '|';
				n += gen_pattern(p + n, depth + 1, anchors);
			}
			p[n++] = ')';
			break;
		}
		if (atom && rnd(3) == 0)
			n += sprintf(p + n, "%s", ops[rnd(7)]);
	}
	p[n] = 0;
	return n;
}

/* Leftmost-longest from the oracle: "start,end" or "-". */
static const char *oracle(const char *pattern, const char *s, char *buf)
{
	struct rx_error err;
	struct rx_state st = { .re = (const unsigned char *)pattern, .len = strlen(pattern),
			       .err = &err, .maxnodes = 3 * strlen(pattern) + 8 };
	struct rxn *root;
	int len = (int)strlen(s);

	st.nodes = malloc(st.maxnodes * sizeof(*st.nodes));
	root = parse_alt(&st);
	strcpy(buf, "-");
	for (int i = 0; root && !st.failed && i <= len; i++) {
		u64 e = ends(&st, root, s, len, 1ull << i);

		if (e) {
			sprintf(buf, "%d,%d", i, 63 - __builtin_clzll(e));
			break;
		}
	}
	free(st.nodes);
	free(st.sets);
	return buf;
}

static void differential(bool anchors, int npatterns, int *compared, int *against_glibc)
{
	char p[8192], s[16], want[32], got[1100];

	for (int it = 0; it < npatterns; it++) {
		struct rx_error err;
		struct rx_compiled *rx;
		regex_t re;
		int glibc_ok;

		gen_pattern(p, 0, anchors);
		rx = rx_compile(p, strlen(p), &err);
		if (!rx)
			continue;
		rx_free(rx);
		glibc_ok = !anchors && !regcomp(&re, p, REG_EXTENDED);
		for (int j = 0; j < 8; j++) {
			int len = (int)rnd(9);
			const char *sp;

			for (int i = 0; i < len; i++)
				s[i] = "abcx"[rnd(4)];
			s[len] = 0;
			snprintf(got, sizeof(got), "%s", run(p, s));
			sp = strchr(got, ' ');
			if (sp)
				*(char *)sp = 0;
			oracle(p, s, want);
			(*compared)++;
			unit_check(!strcmp(got, want), __FILE__, __LINE__,
				   "/%s/ on \"%s\": got %s, tree oracle %s", p, s, got, want);
			if (glibc_ok) {
				regmatch_t m[1];

				if (regexec(&re, s, 1, m, 0))
					strcpy(want, "-");
				else
					sprintf(want, "%d,%d", (int)m[0].rm_so, (int)m[0].rm_eo);
				(*against_glibc)++;
				unit_check(!strcmp(got, want), __FILE__, __LINE__,
					   "/%s/ on \"%s\": got %s, glibc %s", p, s, got, want);
			}
		}
		if (glibc_ok)
			regfree(&re);
	}
}

TEST(generated)
{
	int compared = 0, glibc = 0;

	differential(false, 4000, &compared, &glibc);
	differential(true, 4000, &compared, &glibc);
	/* 64000 runs, 32000 of them against glibc too (the seed is fixed) */
	CHECK(compared > 50000 && glibc > 25000);
}

/* Groups lie inside the whole match; a group's end is not before its start. */
TEST(group_invariants)
{
	char p[8192], s[16];

	for (int it = 0; it < 3000; it++) {
		struct rx_error err;
		struct rx_compiled *rx;
		s32 cap[UTAP_RX_MAXSLOTS];
		int nslots, len = (int)rnd(12);
		void *work;

		gen_pattern(p, 0, true);
		rx = rx_compile(p, strlen(p), &err);
		if (!rx)
			continue;
		for (int i = 0; i < len; i++)
			s[i] = "abcx"[rnd(4)];
		s[len] = 0;
		nslots = 2 * (rx->prog.ngroups + 1);
		work = malloc(utap_rx_work_size(&rx->prog, nslots));
		if (utap_rx_exec(&rx->prog, s, len, cap, nslots, work)) {
			for (int k = 2; k < nslots; k += 2) {
				bool unset = cap[k] < 0 && cap[k + 1] < 0;
				bool inside = cap[k] >= cap[0] && cap[k] <= cap[k + 1] &&
					      cap[k + 1] <= cap[1];

				unit_check(unset || inside, __FILE__, __LINE__,
					   "/%s/ on \"%s\": group %d at %d,%d outside %d,%d", p, s,
					   k / 2, cap[k], cap[k + 1], cap[0], cap[1]);
			}
		}
		free(work);
		rx_free(rx);
	}
}

/* The worst cases stay linear: every thread steps once per byte. */
TEST(linear_time)
{
	static const char *const patterns[] = {
		"(a*)*b", "(a|a)*b", "(a|aa)*c", "(x+x+)+y", "([ab]{0,10}){0,10}z", "(.*)*(.*)*$q",
	};
	char s[512];
	struct rx_error err;
	clock_t t0 = clock();

	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
		struct rx_compiled *rx = rx_compile(patterns[i], strlen(patterns[i]), &err);
		int nslots = rx ? 2 * (rx->prog.ngroups + 1) : 0;
		void *work = rx ? malloc(utap_rx_work_size(&rx->prog, nslots)) : NULL;
		s32 cap[UTAP_RX_MAXSLOTS];

		CHECK(rx != NULL);
		if (!rx)
			continue;
		CHECK(utap_rx_exec(&rx->prog, s, strlen(s), cap, nslots, work) == 0);
		free(work);
		rx_free(rx);
	}
	/* sanitizers included: a backtracking matcher would not finish */
	CHECK((clock() - t0) / (CLOCKS_PER_SEC / 1000) < 5000);
}

TEST(programs)
{
	struct rx_error err;
	struct rx_compiled *rx = rx_compile("a(b|c)*d", 8, &err);
	static const struct utap_rx_insn want[] = {
		{ UTAP_RX_SAVE, 0, 0, 0 },	{ UTAP_RX_CHAR, 'a', 0, 0 },
		{ UTAP_RX_SPLIT, 0, 3, 10 },	{ UTAP_RX_SAVE, 0, 2, 0 },
		{ UTAP_RX_SPLIT, 0, 5, 7 },	{ UTAP_RX_CHAR, 'b', 0, 0 },
		{ UTAP_RX_JMP, 0, 8, 0 },	{ UTAP_RX_CHAR, 'c', 0, 0 },
		{ UTAP_RX_SAVE, 0, 3, 0 },	{ UTAP_RX_JMP, 0, 2, 0 },
		{ UTAP_RX_CHAR, 'd', 0, 0 },	{ UTAP_RX_SAVE, 0, 1, 0 },
		{ UTAP_RX_MATCH, 0, 0, 0 },
	};

	CHECK(rx && rx->prog.ninsn == ARRAY_SIZE(want));
	if (rx && rx->prog.ninsn == ARRAY_SIZE(want))
		CHECK_MEM(rx->insn, want, sizeof(want));
	CHECK(rx && rx->prog.nthreads == 5 && rx->prog.ngroups == 1 && rx->nsets == 0);
	rx_free(rx);

	/* identical brackets share one set */
	rx = rx_compile("[ab][ab][^x]", 12, &err);
	CHECK(rx && rx->nsets == 2);
	rx_free(rx);
}

int main(void)
{
	unit_prog = "test_regex";
	RUN(table);
	RUN(table_against_glibc);
	RUN(errors);
	RUN(limits);
	RUN(generated);
	RUN(group_invariants);
	RUN(linear_time);
	RUN(programs);
	return unit_done();
}
