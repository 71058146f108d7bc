/*
 * uvars.c - emitting the plans of user-space target variables. See uvars.h.
 */
#include "probes/uvars.h"

#include <inttypes.h>
#include <string.h>

enum plan_kind { PLAN_LONG, PLAN_PIECES, PLAN_STRING, PLAN_ENTRY };

struct plan {
	enum plan_kind kind;
	struct uaccess acc;	/* PLAN_LONG */
	int slot;		/* PLAN_ENTRY */
	struct piece *pieces;	/* PLAN_PIECES */
	int npieces;
	const char *str;	/* PLAN_STRING */
};

#define PRETTY_MAX_PIECES 256
#define PRETTY_MAX_DEPTH 8

void pretty_text(struct pretty_out *out, const char *text)
{
	sb_puts(&out->text, text);
}

static struct piece *new_piece(struct pretty_out *out, enum piece_fmt fmt)
{
	struct piece *p;

	if (out->n == out->cap) {
		struct piece *grown = arena_alloc(sizeof(*grown) * (out->cap = out->cap * 2 + 16));

		if (out->n)
			memcpy(grown, out->v, sizeof(*grown) * out->n);
		out->v = grown;
	}
	p = &out->v[out->n++];
	memset(p, 0, sizeof(*p));
	p->text = arena_strdup(out->text.buf ? out->text.buf : "");
	p->fmt = fmt;
	sb_free(&out->text);
	out->text = (struct strbuf){ 0 };
	return p;
}

void pretty_value(struct pretty_out *out, enum piece_fmt fmt, const struct uaccess *acc, int len)
{
	struct piece *p;

	if (out->n >= PRETTY_MAX_PIECES) {
		pretty_text(out, "...");
		return;
	}
	p = new_piece(out, fmt);
	p->acc = *acc;
	p->len = len;
}

struct uaccess access_plus(const struct uaccess *acc, struct step s)
{
	struct uaccess r = *acc;

	if (s.op != STEP_ADD || s.k)
		access_add(&r, s);
	return r;
}

bool pretty_elided(struct pretty_out *out, int depth, bool all, bool is_addr, const char *elided)
{
	if ((depth > 0 && !all) || depth > PRETTY_MAX_DEPTH) {
		pretty_text(out, elided);
		return true;
	}
	if (!is_addr) {
		pretty_text(out, "?");
		return true;
	}
	return false;
}

struct piece *pretty_end(struct pretty_out *out, int *n)
{
	if (out->text.buf && out->text.buf[0])
		new_piece(out, PIECE_TEXT);
	*n = out->n;
	return out->v;
}

bool access_add(struct uaccess *acc, struct step s)
{
	if (acc->nsteps == (int)ARRAY_LEN(acc->steps))
		return false;
	acc->steps[acc->nsteps++] = s;
	return true;
}

static struct plan *new_plan(struct node *n, enum plan_kind kind, enum type type)
{
	struct plan *p = arena_alloc(sizeof(*p));

	p->kind = kind;
	n->pdata = p;
	n->type = type;
	return p;
}

void uvar_set_long(struct node *n, const struct uaccess *acc)
{
	new_plan(n, PLAN_LONG, TY_LONG)->acc = *acc;
}

void uvar_set_pieces(struct node *n, struct piece *pieces, int npieces)
{
	struct plan *p = new_plan(n, PLAN_PIECES, TY_STRING);

	p->pieces = pieces;
	p->npieces = npieces;
}

void uvar_set_string(struct node *n, const char *s)
{
	new_plan(n, PLAN_STRING, TY_STRING)->str = s;
}

void uvar_set_entry(struct node *n, int slot)
{
	new_plan(n, PLAN_ENTRY, TY_LONG)->slot = slot;
}

#define MAX_ENTRY_CAPS 64	/* one bit each in the runtime's record */

int entry_caps_add(struct entry_caps *ec, const struct uaccess *acc, const char **why)
{
	for (int i = 0; i < acc->nsteps; i++)
		if (acc->steps[i].op == STEP_INDEX) {
			*why = "an index is a script expression, which cannot run at the entry";
			return -1;
		}
	if (ec->n == MAX_ENTRY_CAPS) {
		*why = "more than 64 values at the entry of one function";
		return -1;
	}
	if (ec->n == ec->cap) {
		struct uaccess *v = arena_alloc(sizeof(*v) * (ec->cap * 2 + 4));

		if (ec->n)
			memcpy(v, ec->v, sizeof(*v) * ec->n);
		ec->v = v;
		ec->cap = ec->cap * 2 + 4;
	}
	ec->v[ec->n] = *acc;
	return ec->n++;
}
static const char *conv_c(const struct scalar *sc, const char *x)
{
	static const char *const s[] = { NULL, "int8_t", "int16_t", NULL, "int32_t" };
	static const char *const u[] = { NULL, "uint8_t", "uint16_t", NULL, "uint32_t" };

	if (sc->size == 8)
		return arena_printf("(int64_t)(%s)", x);
	return arena_printf("(int64_t)(%s)(%s)", (sc->is_signed ? s : u)[sc->size], x);
}

/* The bit-field of ST in the unit X holds, sign-extended if it is signed. */
static const char *bits_c(const struct step *st, const char *x)
{
	int up = 64 - st->bits - (int)st->k;

	return arena_printf("(int64_t)((%s)((uint64_t)(%s) << %d) >> %d)",
			    st->sc.is_signed ? "int64_t" : "uint64_t", x, up, 64 - st->bits);
}

static void emit_load(struct emitter *em, const struct step *st, const char *t,
		      const struct node *n, const char *soft_ok, bool kernel)
{
	if (soft_ok)
		emit_line(em, "if (%s && utap_%cread_int((u64)%s, %d, %d, &%s)) %s = 0;", soft_ok,
			  kernel ? 'k' : 'u', t, st->sc.size, st->sc.is_signed, t, soft_ok);
	else if (kernel)
		emit_line(em, "if (utap_kread_int((u64)%s, %d, %d, &%s)) UTAP_ERROR(c, \"read fault "
			  "[man error::fault]\", %s, %s);", t, st->sc.size, st->sc.is_signed, t,
			  c_near(n), em->err_label);
	else
		emit_line(em, "if (utap_uload(c, (u64)%s, %d, %d, &%s)) "
			  "UTAP_ERROR(c, c->last_error, %s, %s);", t, st->sc.size,
			  st->sc.is_signed, t, c_near(n), em->err_label);
}

/*
 * The steps of ACC into long temp T. A failing load jumps to the error
 * label, or, with SOFT_OK set, clears *SOFT_OK (the variable is printed
 * as '?' by $$parms) and skips the rest.
 */
static void emit_access(struct emitter *em, const struct uaccess *acc, const char *t,
			const struct node *n, const char *soft_ok)
{
	emit_line(em, "%s = (int64_t)%s;", t, acc->base);
	for (int i = 0; i < acc->nsteps; i++) {
		const struct step *st = &acc->steps[i];
		struct val v;

		switch (st->op) {
		case STEP_ADD:
			emit_line(em, "%s += %" PRId64 "LL;", t, st->k);
			break;
		case STEP_INDEX:
			v = emit_value(em, st->index);
			emit_line(em, "%s += (%s) * %" PRId64 "LL;", t, v.c, st->k);
			break;
		case STEP_LOAD:
			emit_load(em, st, t, n, soft_ok, acc->kernel);
			break;
		case STEP_CONV:
			emit_line(em, "%s = %s;", t, conv_c(&st->sc, t));
			break;
		case STEP_BITS:
			emit_line(em, "%s = %s;", t, bits_c(st, t));
			break;
		}
	}
}

/* T = the value captured in SLOT; OK (if given) says whether there is one, else an error. */
static void emit_entry_read(struct emitter *em, int slot, const char *t, const char *ok,
			    const struct node *n)
{
	const char *have = arena_printf("utap_entry_has(c, %d)", slot);

	if (ok) {
		emit_line(em, "%s = %s;", ok, have);
	} else {
		emit_line(em, "if (!%s)", have);
		emit_line(em, "\tUTAP_ERROR(c, \"the value at the function's entry was not "
			  "recorded\", %s, %s);", c_near(n), em->err_label);
	}
	emit_line(em, "%s = utap_entry_value(c, %d);", t, slot);
}

static void emit_piece(struct emitter *em, const char *s, const struct piece *pc,
		       const struct node *n)
{
	const char *text = c_string_literal(pc->text, strlen(pc->text));
	const char *t, *ok;

	if (pc->fmt == PIECE_TEXT) {
		emit_line(em, "utap_piece_append(c, %s, %s, 0, 0, 0, 0);", s, text);
		return;
	}
	t = emit_new_long(em);
	ok = emit_new_long(em);
	if (pc->from_entry) {
		emit_entry_read(em, pc->entry_slot, t, ok, n);
	} else {
		emit_line(em, "%s = 1;", ok);
		emit_access(em, &pc->acc, t, n, ok);
	}
	emit_line(em, "utap_piece_append(c, %s, %s, %d, %s, %s, %d);", s, text,
		  (int)pc->fmt | (pc->acc.kernel ? PIECE_FROM_KERNEL : 0), ok, t, pc->len);
}

struct val uvar_emit(struct emitter *em, struct node *n)
{
	const struct plan *p = n->pdata;
	const char *t;

	emit_need(em, "umemory");
	if (p->kind == PLAN_STRING)
		return (struct val){ .type = TY_STRING, .c = c_string_literal(p->str, strlen(p->str)) };
	if (p->kind == PLAN_PIECES) {
		t = emit_new_str(em);
		emit_line(em, "%s[0] = 0;", t);
		for (int i = 0; i < p->npieces; i++)
			emit_piece(em, t, &p->pieces[i], n);
		return (struct val){ .type = TY_STRING, .c = t, .str_temp = true };
	}
	t = emit_new_long(em);
	if (p->kind == PLAN_ENTRY)
		emit_entry_read(em, p->slot, t, NULL, n);
	else
		emit_access(em, &p->acc, t, n, NULL);
	return (struct val){ .type = TY_LONG, .c = t };
}

/* The C lvalue of a register base ("((uint64_t)c->regs->di)"), or NULL. */
static const char *reg_lvalue(const char *base)
{
	static const char pre[] = "((uint64_t)c->regs->";
	size_t n = strlen(base);

	if (strncmp(base, pre, sizeof(pre) - 1) || n < sizeof(pre) + 1 || base[n - 1] != ')')
		return NULL;
	return arena_printf("c->regs->%.*s", (int)(n - sizeof(pre)), base + sizeof(pre) - 1);
}

bool uvar_store(struct emitter *em, struct node *n, const char *op, struct val v)
{
	const struct plan *p = n->pdata;
	struct uaccess addr;
	const char *t, *reg;
	int last = -1;

	if (!p || p->kind != PLAN_LONG || strcmp(op, "=") || v.type != TY_LONG) {
		error_at(n->loc, "only a number can be assigned to a target variable, with '='");
		return false;
	}
	for (int i = 0; i < p->acc.nsteps; i++) {
		if (p->acc.steps[i].op == STEP_BITS) {
			error_at(n->loc, "a bit-field cannot be assigned");
			return false;
		}
		if (p->acc.steps[i].op == STEP_LOAD)
			last = i;
	}
	if (last < 0) {
		bool plain = !p->acc.nsteps ||
			     (p->acc.nsteps == 1 && p->acc.steps[0].op == STEP_CONV);

		reg = plain && !p->acc.kernel ? reg_lvalue(p->acc.base) : NULL;
		if (!reg) {
			error_at(n->loc, "this variable is a computed value here, in no register "
				 "or memory, so it cannot be assigned");
			return false;
		}
		emit_line(em, "%s = (unsigned long)(%s);", reg, v.c);
		return true;
	}
	if (p->acc.kernel) {
		error_at(n->loc, "kernel memory cannot be assigned from a process probe");
		return false;
	}
	/* the address the last load would read, then a store of its size there */
	addr = p->acc;
	addr.nsteps = last;
	t = emit_new_long(em);
	emit_need(em, "umemory");
	emit_access(em, &addr, t, n, NULL);
	emit_line(em, "if (utap_ustore(c, (u64)%s, %d, %s)) UTAP_ERROR(c, c->last_error, %s, %s);",
		  t, p->acc.steps[last].sc.size, v.c, c_near(n), em->err_label);
	return true;
}

/* One capture into v[i]: like emit_access, in the capture function's own C. */
static void capture_one(struct strbuf *sb, const struct uaccess *acc, int i)
{
	sb_printf(sb, "\tt = (int64_t)%s;\n", acc->base);
	for (int k = 0; k < acc->nsteps; k++) {
		const struct step *st = &acc->steps[k];

		if (st->op == STEP_ADD)
			sb_printf(sb, "\tt += %" PRId64 "LL;\n", st->k);
		else if (st->op == STEP_LOAD)
			sb_printf(sb, "\tif (utap_uread_int((u64)t, %d, %d, &t))\n\t\tgoto skip_%d;\n",
				  st->sc.size, st->sc.is_signed, i);
		else if (st->op == STEP_CONV)
			sb_printf(sb, "\tt = %s;\n", conv_c(&st->sc, "t"));
		else if (st->op == STEP_BITS)
			sb_printf(sb, "\tt = %s;\n", bits_c(st, "t"));
	}
	sb_printf(sb, "\tv[%d] = t;\n\t*ok |= 1ULL << %d;\nskip_%d: __attribute__((unused));\n",
		  i, i, i);
}

void uvar_emit_capture_fn(struct strbuf *sb, const char *name, const struct entry_caps *ec)
{
	sb_printf(sb, "static unsigned long %s(struct pt_regs *regs, s64 *v, u64 *ok)\n{\n", name);
	/* the plans read registers as c->regs->..., as in a handler */
	sb_printf(sb, "\tstruct { struct pt_regs *regs; } cc = { regs }, *c = &cc;\n");
	sb_printf(sb, "\tint64_t t;\n\n\t*ok = 0;\n");
	for (int i = 0; i < ec->n; i++)
		capture_one(sb, &ec->v[i], i);
	/* at the entry the return address was the last push */
	sb_printf(sb, "\t(void)c;\n\treturn %s;\n}\n\n",
		  ec->ret_sp ? ec->ret_sp : "regs->sp + sizeof(long)");
}
