/*
 * emit_regex.c - pass 3 for `s =~ "re"` and `s !~ "re"`.
 *
 * The literal is compiled here (regex.c) and written out as static const
 * data: one program per distinct pattern. The match itself is a call to
 * the runtime (core/regex.c). The per-CPU memory the matcher works in is
 * sized by the generated init for the largest program. When the script
 * uses regex.stp's functions (marked "utap-needs: regex_groups"), every match
 * records its groups and subject in the probe context, and every handler
 * starts with no match recorded.
 */
#include "emit.h"
#include "regex_compile.h"

#include <string.h>

struct rx_emitted {
	const char *pattern;
	size_t len;
	int index;
	int nslots;		/* tracked when recording */
	struct rx_emitted *next;
};

/* the programs written so far, for the emitter writing them */
static const struct emitter *rx_owner;
static struct rx_emitted *rx_list;
static int rx_count;

static void emit_program(struct emitter *em, const struct rx_compiled *rx, int index)
{
	static const char *const ops[] = {
		[UTAP_RX_CHAR] = "CHAR", [UTAP_RX_ANY] = "ANY", [UTAP_RX_CLASS] = "CLASS",
		[UTAP_RX_SPLIT] = "SPLIT", [UTAP_RX_JMP] = "JMP", [UTAP_RX_SAVE] = "SAVE",
		[UTAP_RX_BOL] = "BOL", [UTAP_RX_EOL] = "EOL", [UTAP_RX_MATCH] = "MATCH",
	};
	const struct utap_rx_prog *p = &rx->prog;

	sb_printf(&em->top, "static const struct utap_rx_insn utap_rx_%d_insn[%d] = {\n", index,
		  p->ninsn);
	for (int i = 0; i < p->ninsn; i++) {
		const struct utap_rx_insn *in = &p->insn[i];

		sb_printf(&em->top, "\t{ UTAP_RX_%s, %d, %d, %d },\n", ops[in->op], in->c, in->x,
			  in->y);
	}
	sb_printf(&em->top, "};\n");
	if (rx->nsets) {
		sb_printf(&em->top, "static const struct utap_rx_set utap_rx_%d_sets[%d] = {\n",
			  index, rx->nsets);
		for (int i = 0; i < rx->nsets; i++) {
			sb_printf(&em->top, "\t{ {");
			for (int w = 0; w < 8; w++)
				sb_printf(&em->top, " %#x,", rx->sets[i].bits[w]);
			sb_printf(&em->top, " } },\n");
		}
		sb_printf(&em->top, "};\n");
	}
	sb_printf(&em->top, "static const struct utap_rx_prog utap_rx_%d = { "
		  ".insn = utap_rx_%d_insn, .sets = %s, .ninsn = %d, .nthreads = %d, "
		  ".ngroups = %d };\n", index, index,
		  rx->nsets ? arena_printf("utap_rx_%d_sets", index) : "NULL", p->ninsn,
		  p->nthreads, p->ngroups);
}

/* text for a C comment: no '*' followed by '/' */
static const char *comment_safe(const char *text)
{
	char *t = arena_strdup(text);

	for (char *p = t; (p = strstr(p, "*/")); p++)
		*p = '.';
	return t;
}

/* The program for the literal lit, compiled and written out once. */
static struct rx_emitted *rx_program(struct emitter *em, const struct node *lit)
{
	struct rx_emitted *e;
	struct rx_compiled *rx;
	struct rx_error err;

	if (rx_owner != em) {
		rx_owner = em;
		rx_list = NULL;
		rx_count = 0;
	}
	for (e = rx_list; e; e = e->next)
		if (e->len == lit->str_len && !memcmp(e->pattern, lit->str, e->len))
			return e;
	rx = rx_compile(lit->str, lit->str_len, &err);
	if (!rx) {
		error_at(lit->loc, "regex compilation error (at position %d): %s", err.pos,
			 err.msg);
		return NULL;
	}
	e = arena_alloc(sizeof(*e));
	e->pattern = lit->str;
	e->len = lit->str_len;
	e->index = rx_count++;
	e->nslots = 2 * (rx->prog.ngroups + 1);
	e->next = rx_list;
	rx_list = e;
	if (!e->index) {
		emit_need(em, "regex");
		sb_printf(&em->exit, "\tutap_rx_release();\n");
	}
	sb_printf(&em->top, "/* %s */\n", comment_safe(c_string_literal(lit->str, lit->str_len)));
	emit_program(em, rx, e->index);
	sb_printf(&em->init, "\tif (utap_rx_reserve(utap_rx_work_size(&utap_rx_%d, %d)))\n"
		  "\t\treturn -ENOMEM;\n", e->index, (em->parts & PART_REGEX_GROUPS) ? e->nslots : 0);
	rx_free(rx);
	return e;
}

struct val emit_regex(struct emitter *em, struct node *n)
{
	struct rx_emitted *e = rx_program(em, n->rhs);
	struct val s = emit_value(em, n->lhs);
	const char *t = emit_new_long(em);

	if (!e)
		return (struct val){ .type = TY_LONG, .c = "0" };
	emit_line(em, "%s = %sutap_rx_match(c, &utap_rx_%d, %s, %s);", t,
		  n->op[0] == '!' ? "!" : "", e->index, s.c,
		  (em->parts & PART_REGEX_GROUPS) ? "true" : "false");
	return (struct val){ .type = TY_LONG, .c = t };
}

void emit_regex_prologue(struct emitter *em)
{
	if (em->parts & PART_REGEX_GROUPS)
		emit_line(em, "c->rx.state = UTAP_RX_NONE;");
}
