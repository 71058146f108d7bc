/*
 * emit.c - pass 3: the elaborated script as one C file.
 *
 * Every expression is evaluated left to right into temporaries, so the C
 * compiler's own evaluation order never changes a script's meaning. Long
 * temporaries are C locals; string temporaries live in the probe's frame in
 * the per-CPU context (kernel stacks are too small for 512-byte strings).
 * A failing operation records its message and location and jumps to the
 * current error label: the function's end, or an enclosing catch block.
 */
#include "emit.h"
#include "kernel/kbuild.h"

#include <inttypes.h>
#include <string.h>

static struct val emit_expr(struct emitter *em, struct node *n);
static void emit_stmt(struct emitter *em, struct node *n);
static void emit_stmt_charged(struct emitter *em, struct node *n);
static void fail(struct emitter *em, const char *msg, const struct node *n);

void emit_line(struct emitter *em, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < em->indent; i++)
		sb_putc(em->out, '\t');
	va_start(ap, fmt);
	sb_vprintf(em->out, fmt, ap);
	va_end(ap);
	sb_putc(em->out, '\n');
}

const char *c_string_literal(const char *s, size_t len)
{
	struct strbuf sb = { 0 };
	const char *r;

	sb_putc(&sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			sb_printf(&sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(&sb, "\\n");
		else if (ch == '\t')
			sb_puts(&sb, "\\t");
		else if (ch < 32 || ch >= 127 || ch == '?')
			sb_printf(&sb, "\\%03o", ch);	/* octal: never swallows a following digit */
		else
			sb_putc(&sb, (char)ch);
	}
	sb_putc(&sb, '"');
	r = arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

/* "operator '/' at <input>:1:28" as a C string, for run-time error messages */
const char *c_near(const struct node *n)
{
	const char *where = arena_printf("%s at %s:%d:%d", n->near ? n->near : "statement",
					 n->loc.src ? n->loc.src->name : "?", n->loc.line,
					 n->loc.col);

	return c_string_literal(where, strlen(where));
}

static const char *new_label(struct emitter *em, const char *what)
{
	return arena_printf("%s_%d", what, em->nlabels++);
}

static const char *new_long(struct emitter *em)
{
	return arena_printf("t%d", em->nlong++);
}

static const char *new_str(struct emitter *em)
{
	int i = em->nstr++;

	if (em->nstr > em->maxstr)
		em->maxstr = em->nstr;
	return arena_printf("l->__s[%d]", i);
}

static struct val long_val(const char *c)
{
	return (struct val){ .type = TY_LONG, .c = c };
}

static struct val str_val(const char *c, bool temp)
{
	return (struct val){ .type = TY_STRING, .c = c, .str_temp = temp };
}

static const char *ctype_of(enum type t)
{
	return t == TY_STRING ? "char" : "int64_t";
}

static const char *csuffix_of(enum type t)
{
	return t == TY_STRING ? "[MAXSTRINGLEN]" : "";
}

/* utap_g_NAME; a private global also has its number: two files may each have one */
const char *emit_global_name(const struct symbol *sym)
{
	if (sym->is_private)
		return arena_printf("utap_g_%s_p%d", sym->name, sym->index);
	return arena_printf("utap_g_%s", sym->name);
}

static const char *var_lvalue(const struct symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return emit_global_name(sym);
	return arena_printf("l->l_%s", sym->name);
}

static const char *num_literal(int64_t v)
{
	if (v == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	return arena_printf("%" PRId64 "LL", v);
}

const char *emit_new_long(struct emitter *em)
{
	return new_long(em);
}

const char *emit_new_str(struct emitter *em)
{
	return new_str(em);
}

void emit_fail(struct emitter *em, const char *msg, const struct node *n)
{
	fail(em, msg, n);
}

struct val emit_value(struct emitter *em, struct node *n)
{
	return emit_expr(em, n);
}

static void check_error(struct emitter *em)
{
	emit_line(em, "if (unlikely(c->last_error)) goto %s;", em->err_label);
}

static void fail(struct emitter *em, const char *msg, const struct node *n)
{
	emit_line(em, "UTAP_ERROR(c, \"%s\", %s, %s);", msg, c_near(n), em->err_label);
}

/* ---- expressions ---- */

static struct val emit_var(struct emitter *em, struct node *n)
{
	const char *lv = var_lvalue(n->sym);
	const char *t;

	if (n->sym->type == TY_STRING)
		return str_val(lv, false);
	t = new_long(em);
	emit_line(em, "%s = %s;", t, lv);
	return long_val(t);
}

static struct val emit_binary(struct emitter *em, struct node *n)
{
	struct val a = emit_expr(em, n->lhs);
	struct val b = emit_expr(em, n->rhs);
	const char *t = new_long(em);
	const char *op = n->op;

	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		/* a literal 0 divisor goes through a temporary: gcc rejects "x / 0LL" */
		if (n->rhs->kind == N_NUM) {
			const char *d = new_long(em);

			emit_line(em, "%s = %s;", d, b.c);
			b = long_val(d);
		}
		emit_line(em, "if (unlikely(%s == 0))", b.c);
		em->indent++;
		fail(em, "division by 0", n);
		em->indent--;
		/* INT64_MIN / -1 traps on x86: negate instead, wrapping as stap does */
		emit_line(em, "%s = %s == -1 ? %s : %s %s %s;", t, b.c,
			  !strcmp(op, "/") ? arena_printf("(int64_t)(0 - (uint64_t)%s)", a.c) : "0",
			  a.c, op, b.c);
	} else if (!strcmp(op, "<<")) {
		emit_line(em, "%s = (int64_t)((uint64_t)%s << (%s & 63));", t, a.c, b.c);
	} else if (!strcmp(op, ">>")) {
		emit_line(em, "%s = %s >> (%s & 63);", t, a.c, b.c);
	} else if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) {
		emit_line(em, "%s = (int64_t)((uint64_t)%s %s (uint64_t)%s);", t, a.c, op, b.c);
	} else {
		emit_line(em, "%s = %s %s %s;", t, a.c, op, b.c);
	}
	return long_val(t);
}

static struct val emit_logical(struct emitter *em, struct node *n)
{
	const char *t = new_long(em);
	bool is_and = !strcmp(n->op, "&&");
	struct val a = emit_expr(em, n->lhs), b;

	emit_line(em, "%s = %s != 0;", t, a.c);
	emit_line(em, "if (%s%s) {", is_and ? "" : "!", t);
	em->indent++;
	b = emit_expr(em, n->rhs);
	emit_line(em, "%s = %s != 0;", t, b.c);
	em->indent--;
	emit_line(em, "}");
	return long_val(t);
}

static struct val emit_compare(struct emitter *em, struct node *n)
{
	struct val a = emit_expr(em, n->lhs);
	struct val b = emit_expr(em, n->rhs);
	const char *t = new_long(em);

	if (a.type == TY_STRING)
		emit_line(em, "%s = strcmp(%s, %s) %s 0;", t, a.c, b.c, n->op);
	else
		emit_line(em, "%s = %s %s %s;", t, a.c, n->op, b.c);
	return long_val(t);
}

static struct val emit_concat(struct emitter *em, struct node *n)
{
	struct val a = emit_expr(em, n->lhs);
	struct val b = emit_expr(em, n->rhs);
	const char *t;

	/* a chain a . b . c appends into the first temporary */
	if (a.str_temp) {
		emit_line(em, "utap_strlcat(%s, %s, MAXSTRINGLEN);", a.c, b.c);
		return a;
	}
	t = new_str(em);
	emit_line(em, "utap_strlcpy(%s, %s, MAXSTRINGLEN);", t, a.c);
	emit_line(em, "utap_strlcat(%s, %s, MAXSTRINGLEN);", t, b.c);
	return str_val(t, true);
}

static struct val emit_unary(struct emitter *em, struct node *n)
{
	struct val a = emit_expr(em, n->lhs);
	const char *t = new_long(em);

	if (!strcmp(n->op, "-"))
		emit_line(em, "%s = (int64_t)(0 - (uint64_t)%s);", t, a.c);
	else if (!strcmp(n->op, "!"))
		emit_line(em, "%s = !%s;", t, a.c);
	else if (!strcmp(n->op, "~"))
		emit_line(em, "%s = ~%s;", t, a.c);
	else
		emit_line(em, "%s = %s;", t, a.c);
	return long_val(t);
}

/* Writes v to the value slot p (a "void *" C name) of an array element. */
static void store_slot(struct emitter *em, const char *p, struct val v)
{
	if (v.type == TY_STRING)
		emit_line(em, "utap_strlcpy((char *)%s, %s, MAXSTRINGLEN);", p, v.c);
	else
		emit_line(em, "*(int64_t *)%s = %s;", p, v.c);
}

static void store_var(struct emitter *em, struct node *lhs, struct val v)
{
	const char *lv = var_lvalue(lhs->sym);

	if (v.type == TY_STRING)
		emit_line(em, "utap_strlcpy(%s, %s, MAXSTRINGLEN);", lv, v.c);
	else
		emit_line(em, "%s = %s;", lv, v.c);
}

static bool assignable(struct emitter *em, struct node *lhs)
{
	if (lhs->kind == N_TARGET || lhs->kind == N_CAST) {
		error_at(lhs->loc, "target variables cannot be assigned here (guru mode writes "
			 "are not supported)");
		return false;
	}
	if (lhs->sym && lhs->sym->type == TY_STATS) {
		error_at(lhs->loc, "statistics '%s' can only be added to with '<<<'", lhs->sym->name);
		return false;
	}
	return true;
}

/* x op= y for longs, computed like the binary operator */
static const char *compound_op(const char *assign_op)
{
	size_t n = strlen(assign_op);

	return arena_strndup(assign_op, n - 1);
}

static struct val apply_binary(struct emitter *em, struct node *n, const char *op,
			       struct val a, struct val b)
{
	struct node bin = *n, l = { .kind = N_NUM, .type = TY_LONG, .op = "val" },
		    r = { .kind = N_NUM, .type = TY_LONG, .op = "val" };

	/* the binary operator's checks (division by 0) on already-evaluated values */
	bin.kind = N_BINARY;
	bin.op = op;
	l.name = a.c;
	r.name = b.c;
	bin.lhs = &l;
	bin.rhs = &r;
	return emit_binary(em, &bin);
}

/* cur op rhs, for the compound assignments and ++/-- */
static struct val combine(struct emitter *em, struct node *n, struct val cur, struct val rhs)
{
	const char *t;

	if (!strcmp(n->op, ".=")) {
		t = new_str(em);
		emit_line(em, "utap_strlcpy(%s, %s, MAXSTRINGLEN);", t, cur.c);
		emit_line(em, "utap_strlcat(%s, %s, MAXSTRINGLEN);", t, rhs.c);
		return str_val(t, true);
	}
	return apply_binary(em, n, compound_op(n->op), cur, rhs);
}

static struct val read_slot(struct emitter *em, const char *p, enum type type)
{
	const char *t = type == TY_STRING ? new_str(em) : new_long(em);

	if (type == TY_STRING) {
		emit_line(em, "utap_strlcpy(%s, (const char *)%s, MAXSTRINGLEN);", t, p);
		return str_val(t, true);
	}
	emit_line(em, "%s = *(int64_t *)%s;", t, p);
	return long_val(t);
}

/* Who stores to a target variable: the one that resolved it (a @cast's), else the probe's family. */
static const struct provider *store_provider(struct emitter *em, const struct node *lhs)
{
	const struct provider *prov;

	if (lhs->kind != N_TARGET && lhs->kind != N_CAST)
		return NULL;
	prov = lhs->owner ? lhs->owner : em->probe ? em->probe->prov : NULL;
	return prov && prov->store_target_var ? prov : NULL;
}

static bool target_store(struct emitter *em, struct node *lhs)
{
	return store_provider(em, lhs) != NULL;
}

static void store_target(struct emitter *em, struct node *lhs, const char *op, struct val v)
{
	store_provider(em, lhs)->store_target_var(em, em->probe, lhs, op, v);
}

/*
 * A guru write with an operator (`$x += 4`, `$x++`): read, combine, store
 * with '='; the family stores ".=" itself (procfs's $value appends).
 */
static struct val store_combined(struct emitter *em, struct node *n, struct val rhs)
{
	struct val res = combine(em, n, emit_expr(em, n->lhs), rhs);

	store_target(em, n->lhs, "=", res);
	return res;
}

static struct val emit_assign(struct emitter *em, struct node *n)
{
	struct node *lhs = n->lhs;
	bool plain = !strcmp(n->op, "=");
	struct val rhs, cur, res;

	if (target_store(em, lhs)) {
		rhs = emit_expr(em, n->rhs);
		if (!plain && strcmp(n->op, ".="))
			return store_combined(em, n, rhs);
		store_target(em, lhs, n->op, rhs);
		return rhs;
	}
	if (!assignable(em, lhs))
		return long_val("0");
	if (lhs->kind == N_INDEX) {
		struct index_keys k = emit_index_keys(em, lhs);
		const char *p;

		rhs = emit_expr(em, n->rhs);
		p = emit_index_insert(em, lhs, &k);
		res = plain ? rhs : combine(em, n, read_slot(em, p, lhs->sym->type), rhs);
		store_slot(em, p, res);
		return res;
	}
	rhs = emit_expr(em, n->rhs);
	if (plain) {
		store_var(em, lhs, rhs);
		return lhs->sym->type == TY_STRING ? str_val(var_lvalue(lhs->sym), false) : rhs;
	}
	cur = emit_expr(em, lhs);
	res = combine(em, n, cur, rhs);
	store_var(em, lhs, res);
	return res;
}

static struct val emit_incdec(struct emitter *em, struct node *n, bool post)
{
	struct node *lhs = n->lhs;
	struct val one = long_val("1"), cur, res;
	const char *p = NULL;

	if (target_store(em, lhs)) {
		if (lhs->type == TY_STRING) {
			error_at(lhs->loc, "'%s' is a string: '%s' takes a number", lhs->name, n->op);
			return long_val("0");
		}
		/* the value before the store, for x++ */
		cur = long_val(arena_printf("%s", new_long(em)));
		emit_line(em, "%s = %s;", cur.c, emit_expr(em, lhs).c);
		res = apply_binary(em, n, n->op[0] == '+' ? "+" : "-", cur, one);
		store_target(em, lhs, "=", res);
		return post ? cur : res;
	}
	if (!assignable(em, lhs))
		return long_val("0");
	if (lhs->kind == N_INDEX) {
		struct index_keys k = emit_index_keys(em, lhs);

		p = emit_index_insert(em, lhs, &k);
		cur = read_slot(em, p, TY_LONG);
	} else {
		cur = emit_expr(em, lhs);
	}
	res = apply_binary(em, n, n->op[0] == '+' ? "+" : "-", cur, one);
	if (p)
		store_slot(em, p, res);
	else
		store_var(em, lhs, res);
	return post ? cur : res;
}

static struct val emit_ternary(struct emitter *em, struct node *n)
{
	struct val cond = emit_expr(em, n->cond), a, b;
	const char *t = n->type == TY_STRING ? new_str(em) : new_long(em);
	bool is_str = n->type == TY_STRING;

	emit_line(em, "if (%s) {", cond.c);
	em->indent++;
	a = emit_expr(em, n->then);
	if (is_str)
		emit_line(em, "utap_strlcpy(%s, %s, MAXSTRINGLEN);", t, a.c);
	else
		emit_line(em, "%s = %s;", t, a.c);
	em->indent--;
	emit_line(em, "} else {");
	em->indent++;
	b = emit_expr(em, n->els);
	if (is_str)
		emit_line(em, "utap_strlcpy(%s, %s, MAXSTRINGLEN);", t, b.c);
	else
		emit_line(em, "%s = %s;", t, b.c);
	em->indent--;
	emit_line(em, "}");
	return is_str ? str_val(t, true) : long_val(t);
}

static const char *fc_name(enum fmt_conv conv)
{
	static const char *const names[] = {
		[FC_LITERAL] = "UTAP_FC_LIT", [FC_SIGNED] = "UTAP_FC_SIGNED",
		[FC_UNSIGNED] = "UTAP_FC_UNSIGNED", [FC_OCTAL] = "UTAP_FC_OCTAL",
		[FC_HEX] = "UTAP_FC_HEX", [FC_HEX_UPPER] = "UTAP_FC_HEX_UPPER",
		[FC_POINTER] = "UTAP_FC_POINTER", [FC_STRING] = "UTAP_FC_STRING",
		[FC_CHAR] = "UTAP_FC_CHAR", [FC_MEMORY] = "UTAP_FC_MEMORY",
		[FC_MEMORY_HEX] = "UTAP_FC_MEMORY_HEX", [FC_BINARY] = "UTAP_FC_BINARY",
	};

	return names[conv];
}

/* A format array written, so that an equal format uses it again. */
struct fmt_seen {
	uint64_t hash;
	const char *pieces, *name;
	struct fmt_seen *next;
};

/* The parsed format as a static array, written once per distinct format; returns its name. */
static const char *emit_format(struct emitter *em, const struct fmt_spec *spec)
{
	struct strbuf sb = { 0 };
	struct fmt_seen *f;
	uint64_t h;

	for (const struct fmt_piece *p = spec->pieces; p; p = p->next) {
		int flags = p->flags;

		if (p->width == -2)
			flags |= 32;	/* UTAP_FF_WIDTH_ARG */
		if (p->prec == -2)
			flags |= 64;	/* UTAP_FF_PREC_ARG */
		if (p->conv == FC_LITERAL)
			sb_printf(&sb, "\t{ .conv = UTAP_FC_LIT, .lit = %s, .lit_len = %zu },\n",
				  c_string_literal(p->lit, p->lit_len), p->lit_len);
		else
			sb_printf(&sb, "\t{ .conv = %s, .flags = %d, .width = %d, .prec = %d },\n",
				  fc_name(p->conv), flags, p->width < 0 ? -1 : p->width,
				  p->prec < 0 ? -1 : p->prec);
	}
	sb_puts(&sb, "\t{ .conv = UTAP_FC_END },\n");
	h = hash_bytes(sb.buf, sb.len, 0);
	for (f = em->fmts; f; f = f->next)
		if (f->hash == h && !strcmp(f->pieces, sb.buf))
			break;
	if (!f) {
		f = arena_alloc(sizeof(*f));
		*f = (struct fmt_seen){ h, arena_strdup(sb.buf),
					arena_printf("utap_fmt_%d", em->nfmts++), em->fmts };
		em->fmts = f;
		sb_printf(&em->top, "static const struct utap_fmt_piece %s[] = {\n%s};\n", f->name,
			  f->pieces);
	}
	sb_free(&sb);
	return f->name;
}

static int count_args(const struct node *a)
{
	int n = 0;

	for (; a; a = a->next)
		n++;
	return n;
}

static struct val emit_print(struct emitter *em, struct node *n)
{
	int flags = n->print_flags;
	bool to_string = flags & PF_TO_STRING;
	struct node *args = n->args;
	const char *dst = NULL;

	if (flags & PF_FORMAT) {
		const char *fmt = emit_format(em, n->fmt);
		const char *arr = arena_printf("a%d", em->nlabels++);
		int nargs = n->nargs - 1, i = 0;
		struct val *vals = arena_alloc(sizeof(*vals) * (nargs + 1));

		for (struct node *a = args->next; a; a = a->next)
			vals[i++] = emit_expr(em, a);
		emit_line(em, "{");
		em->indent++;
		emit_line(em, "union utap_arg %s[%d];", arr, nargs ? nargs : 1);
		for (i = 0; i < nargs; i++)
			emit_line(em, "%s[%d].%c = %s;", arr, i, vals[i].type == TY_STRING ? 's' : 'l',
				  vals[i].c);
		if (to_string) {
			dst = new_str(em);
			emit_line(em, "utap_sprintf(%s, %s, %s);", dst, fmt, arr);
		} else {
			emit_line(em, "utap_printf(c, %s, %s);", fmt, arr);
		}
		em->indent--;
		emit_line(em, "}");
		return to_string ? str_val(dst, true) : long_val("0");
	}

	/* print/println/printd: each value as %d or %s, a delimiter between */
	{
		struct val delim = { 0 };
		struct val *vals = arena_alloc(sizeof(*vals) * (size_t)(count_args(args) + 1));
		int nv = 0;

		if (flags & PF_DELIM) {
			delim = emit_expr(em, args);
			args = args->next;
		}
		for (struct node *a = args; a; a = a->next) {
			/* histograms print straight away, in argument order */
			if (a->kind == N_HIST && !to_string) {
				vals[nv++] = (struct val){ .type = TY_UNKNOWN, .c = NULL, .str_temp =
							   false };
				continue;
			}
			vals[nv++] = emit_expr(em, a);
		}
		if (to_string) {
			dst = new_str(em);
			emit_line(em, "%s[0] = 0;", dst);
		}
		for (int i = 0; i < nv; i++) {
			if (i && (flags & PF_DELIM)) {
				if (to_string)
					emit_line(em, "utap_strlcat(%s, %s, MAXSTRINGLEN);", dst, delim.c);
				else
					emit_line(em, "utap_print_bytes(c, %s, strlen(%s));", delim.c,
						  delim.c);
			}
			if (!vals[i].c) {
				struct node *a = args;

				for (int j = 0; j < i; j++)
					a = a->next;
				emit_print_hist(em, a);
			} else if (to_string && vals[i].type == TY_STRING)
				emit_line(em, "utap_strlcat(%s, %s, MAXSTRINGLEN);", dst, vals[i].c);
			else if (to_string)
				emit_line(em, "utap_strcat_long(%s, %s);", dst, vals[i].c);
			else if (vals[i].type == TY_STRING)
				emit_line(em, "utap_print_bytes(c, %s, strlen(%s));", vals[i].c,
					  vals[i].c);
			else
				emit_line(em, "utap_print_long_raw(c, %s);", vals[i].c);
		}
		if (flags & PF_NEWLINE) {
			if (to_string)
				emit_line(em, "utap_strlcat(%s, \"\\n\", MAXSTRINGLEN);", dst);
			else
				emit_line(em, "utap_print_bytes(c, \"\\n\", 1);");
		}
		if (!to_string)
			emit_line(em, "c->nprints++;");
		return to_string ? str_val(dst, true) : long_val("0");
	}
}

/* f_NAME_NPARAMS, and _oN for the Nth same-arity overload after the first */
static const char *frame_member(struct emitter *em, struct function *fn)
{
	int nth = 0;

	if (fn->cname)
		return fn->cname;
	for (struct function *g = em->s->functions; g && g != fn; g = g->next_used)
		if (!strcmp(g->name, fn->name) && g->nparams == fn->nparams)
			nth++;
	fn->cname = nth ? arena_printf("f_%s_%d_o%d", fn->name, fn->nparams, nth) :
		arena_printf("f_%s_%d", fn->name, fn->nparams);
	return fn->cname;
}

static void take_result(struct emitter *em, struct function *fn, const char *f,
			struct val res)
{
	if (fn->ret == TY_STRING)
		emit_line(em, "utap_strlcpy(%s, %s->__retvalue, MAXSTRINGLEN);", res.c, f);
	else if (fn->ret == TY_LONG)
		emit_line(em, "%s = %s->__retvalue;", res.c, f);
}

/* One overload's call; if it says 'next', the next overload's, with the same arguments. */
static void emit_overload(struct emitter *em, struct node *n, struct function *fn,
			  const struct val *vals, struct val res)
{
	const char *m = frame_member(em, fn);
	const char *f = arena_printf("f%d", em->nlabels++);
	struct symbol *p;
	int i;

	emit_line(em, "{");
	em->indent++;
	emit_line(em, "struct utap_frame_%s *%s = &UTAP_FRAME(c, c->nesting + 1)->%s;", m, f, m);
	/* the parameters are the first nparams symbols of the function's locals */
	for (i = 0, p = fn->params; p && i < fn->nparams; p = p->next, i++) {
		if (p->type == TY_STRING)
			emit_line(em, "utap_strlcpy(%s->l_%s, %s, MAXSTRINGLEN);", f, p->name,
				  vals[i].c);
		else
			emit_line(em, "%s->l_%s = %s;", f, p->name, vals[i].c);
	}
	if (fn->can_next)
		emit_line(em, "%s->__next = 0;", f);
	emit_line(em, "c->nesting++;");
	emit_line(em, "utap_fn_%s(c);", m);
	emit_line(em, "c->nesting--;");
	if (fn->embedded)
		emit_line(em, "if (unlikely(c->last_error)) UTAP_CALL_FAILED(c, %s, %s);", c_near(n),
			  em->err_label);
	else
		check_error(em);
	if (fn->can_next) {
		emit_line(em, "if (%s->__next) {", f);
		em->indent++;
		if (fn->overload)
			emit_overload(em, n, fn->overload, vals, res);
		else
			fail(em, "all functions exhausted", n);
		em->indent--;
		emit_line(em, "} else {");
		em->indent++;
		take_result(em, fn, f, res);
		em->indent--;
		emit_line(em, "}");
	} else {
		take_result(em, fn, f, res);
	}
	em->indent--;
	emit_line(em, "}");
}

static struct val emit_call(struct emitter *em, struct node *n)
{
	struct function *fn = n->fn;
	struct val *vals = arena_alloc(sizeof(*vals) * (size_t)(count_args(n->args) + 1));
	struct val res = long_val("0");
	int i = 0;

	for (struct node *a = n->args; a; a = a->next)
		vals[i++] = emit_expr(em, a);
	if (fn->ret == TY_STRING)
		res = str_val(new_str(em), true);
	else if (fn->ret == TY_LONG)
		res = long_val(new_long(em));
	emit_line(em, "if (unlikely(c->nesting >= MAXNESTING))");
	em->indent++;
	/* stap names the called function where it is defined */
	fail(em, "MAXNESTING exceeded", &(struct node){ .loc = fn->loc,
		.near = arena_printf("identifier '%s'", fn->name) });
	em->indent--;
	emit_overload(em, n, fn, vals, res);
	return res;
}

/* %{ C %} as a value: CONTEXT is the probe's context, as in an embedded function */
static struct val emit_embedded_expr(struct emitter *em, struct node *n)
{
	const char *t = n->type == TY_STRING ? new_str(em) : new_long(em);

	sb_puts(em->out, "#define CONTEXT c\n");
	if (n->type == TY_STRING)
		emit_line(em, "utap_strlcpy(%s, (%s), MAXSTRINGLEN);", t, n->str);
	else
		emit_line(em, "%s = (int64_t)(%s);", t, n->str);
	sb_puts(em->out, "#undef CONTEXT\n");
	return n->type == TY_STRING ? str_val(t, true) : long_val(t);
}

static struct val emit_expr(struct emitter *em, struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		/* values already computed by emit_assign's compound form */
		if (n->op && !strcmp(n->op, "val"))
			return long_val(n->name);
		return long_val(num_literal(n->num));
	case N_STR:
		return str_val(c_string_literal(n->str, n->str_len), false);
	case N_VAR:
		return emit_var(em, n);
	case N_BINARY:
		return emit_binary(em, n);
	case N_LOGICAL:
		return emit_logical(em, n);
	case N_COMPARE:
		return emit_compare(em, n);
	case N_REGEX:
		return emit_regex(em, n);
	case N_CONCAT:
		return emit_concat(em, n);
	case N_UNARY:
		return emit_unary(em, n);
	case N_ASSIGN:
		return emit_assign(em, n);
	case N_PREINC:
		return emit_incdec(em, n, false);
	case N_POSTINC:
		return emit_incdec(em, n, true);
	case N_TERNARY:
		return emit_ternary(em, n);
	case N_PRINT:
		return emit_print(em, n);
	case N_CALL:
		return emit_call(em, n);
	case N_TARGET:
	case N_CAST:
	case N_ENTRY:
		/* a kernel @cast or @var is not the probe family's */
		if (n->owner)
			return n->owner->emit_target_var(em, em->probe, n);
		return em->probe->prov->emit_target_var(em, em->probe, n);
	case N_INDEX:
		if (n->sym && n->sym->type == TY_STATS) {
			error_at(n->loc, "'%s' is a statistics aggregate; read it with @count, "
				 "@sum, @min, @max, @avg or @hist_*", n->sym->name);
			return long_val("0");
		}
		return emit_index_read(em, n);
	case N_IN:
		return emit_in(em, n);
	case N_STATOP:
		return emit_stat_op(em, n);
	case N_AGG_ADD:
		emit_agg_add(em, n);
		return long_val("0");
	case N_EMBED:
		return emit_embedded_expr(em, n);
	case N_BUCKET:
		return emit_hist_bucket(em, n);
	default:
		error_at(n->loc, "this construct is not supported by the code generator yet");
		return long_val("0");
	}
}

/* ---- statements ---- */

static void emit_action_check(struct emitter *em, struct node *n, int count)
{
	if (count == 1)
		emit_line(em, "if (unlikely(--c->actionremaining < 0))");
	else
		emit_line(em, "if (unlikely((c->actionremaining -= %d) < 0))", count);
	em->indent++;
	fail(em, "MAXACTION exceeded", n);
	em->indent--;
}

/* The statement an action charge names in its error, or NULL when the
 * statement kind is not charged (loops charge per iteration themselves). */
static struct node *action_node(struct node *n)
{
	switch (n->kind) {
	case N_EXPR_STMT:
		return n->lhs;
	case N_IF:
	case N_RETURN:
	case N_DELETE:
		return n;
	default:
		return NULL;
	}
}

/* A block is charged once, up front, for all its own statements, as
 * stap does: one check per block instead of one per statement keeps
 * the module's code (and its compile time) small. */
static void emit_block(struct emitter *em, struct node *list)
{
	struct node *first = NULL;
	int count = 0;

	for (struct node *s = list; s; s = s->next) {
		struct node *a = action_node(s);

		if (a && !first)
			first = a;
		count += a != NULL;
	}
	if (count)
		emit_action_check(em, first, count);
	for (struct node *s = list; s; s = s->next)
		emit_stmt_charged(em, s);
}

static void emit_if(struct emitter *em, struct node *n)
{
	struct val cond = emit_expr(em, n->cond);

	emit_line(em, "if (%s) {", cond.c);
	em->indent++;
	emit_stmt(em, n->then);
	em->indent--;
	if (n->els) {
		emit_line(em, "} else {");
		em->indent++;
		emit_stmt(em, n->els);
		em->indent--;
	}
	emit_line(em, "}");
}

void emit_loop_body(struct emitter *em, void (*body)(struct emitter *, struct node *),
		    struct node *stmt, const char *brk, const char *cont)
{
	const char *save_brk = em->brk, *save_cont = em->cont;

	em->brk = brk;
	em->cont = cont;
	body(em, stmt);
	em->brk = save_brk;
	em->cont = save_cont;
	emit_line(em, "%s: __attribute__((unused));", cont);
}

/* while and for: cond stmts; if (!cond) break; body; cont: inc stmts */
static void emit_loop(struct emitter *em, struct node *n)
{
	const char *brk = new_label(em, "brk"), *cont = new_label(em, "cont");
	int mark;

	if (n->init) {
		mark = em->nstr;
		emit_expr(em, n->init);
		em->nstr = mark;
	}
	emit_line(em, "for (;;) {");
	em->indent++;
	emit_action_check(em, n, 1);
	if (n->cond) {
		struct val cond;

		mark = em->nstr;
		cond = emit_expr(em, n->cond);
		emit_line(em, "if (!%s)", cond.c);
		emit_line(em, "\tbreak;");
		em->nstr = mark;
	}
	emit_loop_body(em, emit_stmt, n->body, brk, cont);
	if (n->inc) {
		mark = em->nstr;
		emit_expr(em, n->inc);
		em->nstr = mark;
	}
	em->indent--;
	emit_line(em, "}");
	emit_line(em, "%s: __attribute__((unused));", brk);
}

static void emit_return(struct emitter *em, struct node *n)
{
	if (n->lhs) {
		struct val v = emit_expr(em, n->lhs);

		if (v.type == TY_STRING)
			emit_line(em, "utap_strlcpy(l->__retvalue, %s, MAXSTRINGLEN);", v.c);
		else
			emit_line(em, "l->__retvalue = %s;", v.c);
	}
	emit_line(em, "goto out;");
}

static void emit_delete(struct emitter *em, struct node *n)
{
	struct node *t = n->lhs;

	if (t->kind == N_VAR && t->sym->arity <= 0 && t->sym->type != TY_STATS) {
		const char *lv = var_lvalue(t->sym);

		if (t->sym->type == TY_STRING)
			emit_line(em, "%s[0] = 0;", lv);
		else
			emit_line(em, "%s = 0;", lv);
		return;
	}
	if ((t->kind == N_VAR || t->kind == N_INDEX) && t->sym && t->sym->kind == SYM_GLOBAL) {
		emit_delete_global(em, t);
		return;
	}
	error_at(n->loc, "'delete' needs a variable, an array or an array element");
}

static void emit_try(struct emitter *em, struct node *n)
{
	const char *catch = new_label(em, "catch"), *done = new_label(em, "try_done");
	const char *save = em->err_label;

	em->err_label = catch;
	emit_line(em, "{");
	em->indent++;
	emit_stmt(em, n->body);
	em->indent--;
	emit_line(em, "}");
	em->err_label = save;
	emit_line(em, "goto %s;", done);
	emit_line(em, "%s:", catch);
	em->indent++;
	emit_line(em, "if (unlikely(c->aborted)) goto %s;", save);	/* abort() is not caught */
	if (n->catch_var)
		emit_line(em, "utap_strlcpy(%s, c->last_error, MAXSTRINGLEN);",
			  var_lvalue(n->catch_var));
	emit_line(em, "c->last_error = NULL;");
	emit_line(em, "c->last_near = NULL;");
	emit_stmt(em, n->catch_body);
	em->indent--;
	emit_line(em, "%s: ;", done);
}

/* A statement whose action charge its enclosing block has paid. */
static void emit_stmt_charged(struct emitter *em, struct node *n)
{
	int mark = em->nstr;

	switch (n->kind) {
	case N_BLOCK:
		emit_block(em, n->body);
		break;
	case N_NULL:
		break;
	case N_EXPR_STMT:
		emit_expr(em, n->lhs);
		break;
	case N_IF:
		emit_if(em, n);
		break;
	case N_WHILE:
	case N_FOR:
		emit_loop(em, n);
		break;
	case N_BREAK:
		emit_line(em, "goto %s;", em->brk);
		break;
	case N_CONTINUE:
		emit_line(em, "goto %s;", em->cont);
		break;
	case N_NEXT:
		/* in a function: the caller runs the next overload */
		if (em->fn)
			emit_line(em, "l->__next = 1;");
		emit_line(em, "goto out;");
		break;
	case N_RETURN:
		emit_return(em, n);
		break;
	case N_DELETE:
		emit_delete(em, n);
		break;
	case N_TRY:
		emit_try(em, n);
		break;
	case N_FOREACH:
		emit_foreach(em, n, emit_stmt);
		break;
	case N_EMBED:
		emit_line(em, "{");
		sb_puts(em->out, n->str);
		sb_putc(em->out, '\n');
		emit_line(em, "}");
		break;
	default:
		error_at(n->loc, "this statement is not supported by the code generator yet");
		break;
	}
	em->nstr = mark;
}

/* A statement on its own (an if's branch, a loop's body): charged here. */
static void emit_stmt(struct emitter *em, struct node *n)
{
	struct node *a;

	if (!n)
		return;
	a = action_node(n);
	if (a)
		emit_action_check(em, a, 1);
	emit_stmt_charged(em, n);
}

/* ---- functions, probes, frames ---- */

static void emit_frame_struct(struct emitter *em, const char *name, struct symbol *locals,
			      const struct function *fn, int nstr)
{
	sb_printf(&em->frames, "struct utap_frame_%s {\n", name);
	if (fn && fn->ret != TY_UNKNOWN)
		sb_printf(&em->frames, "\t%s __retvalue%s;\n", ctype_of(fn->ret),
			  csuffix_of(fn->ret));
	if (fn && fn->can_next)
		sb_printf(&em->frames, "\tint __next;\n");
	/* prefixed: a script may name a local 'long' or 'int' */
	for (struct symbol *l = locals; l; l = l->next)
		sb_printf(&em->frames, "\t%s l_%s%s;\n", ctype_of(l->type), l->name,
			  csuffix_of(l->type));
	if (nstr)
		sb_printf(&em->frames, "\tchar __s[%d][MAXSTRINGLEN];\n", nstr);
	sb_printf(&em->frames, "\tchar __pad;\n};\n");
	sb_printf(&em->unionm, "\tstruct utap_frame_%s %s;\n", name, name);
}

static void emit_locals_init(struct emitter *em, struct symbol *locals)
{
	for (struct symbol *l = locals; l; l = l->next) {
		if (l->kind == SYM_PARAM)
			continue;
		if (l->type == TY_STRING)
			emit_line(em, "l->l_%s[0] = 0;", l->name);
		else
			emit_line(em, "l->l_%s = 0;", l->name);
	}
}

static void begin_function(struct emitter *em, struct strbuf *body)
{
	em->out = body;
	em->indent = 1;
	em->nlong = 0;
	em->nstr = em->maxstr = 0;
	em->nlabels = 0;	/* local names: alike functions read alike (emit_share.c) */
	em->err_label = "out";
	em->brk = em->cont = NULL;
}

static void flush_function(struct emitter *em, const char *signature, const char *frame_decl,
			   struct strbuf *body, const char *prologue, const char *epilogue)
{
	sb_printf(&em->funcs, "%s\n{\n\t%s\n", signature, frame_decl);
	for (int i = 0; i < em->nlong; i++)
		sb_printf(&em->funcs, "\tint64_t t%d;\n", i);
	if (prologue)
		sb_puts(&em->funcs, prologue);
	sb_putn(&em->funcs, body->buf ? body->buf : "", body->len);
	sb_printf(&em->funcs, "out: __attribute__((unused));\n\t;\n%s}\n\n",
		  epilogue ? epilogue : "");
	sb_free(body);
}

/* The names stap's embedded C uses, over utap's frame and context. */
static const char *const embedded_macros[] = {
	"STAP_RETVALUE (l->__retvalue)",
	"STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)",
	"STAP_NEXT do { l->__next = 1; goto out; } while (0)",
	"STAP_ERROR(...) do { snprintf(c->error_buf, MAXSTRINGLEN, __VA_ARGS__); "
		"c->last_error = c->error_buf; goto out; } while (0)",
	"CONTEXT c",
};

static void emit_embedded_function(struct emitter *em, struct function *fn)
{
	const char *m = frame_member(em, fn);
	struct strbuf body = { 0 };
	size_t i;

	for (struct symbol *p = fn->params; p; p = p->next)
		sb_printf(&body, "#define STAP_ARG_%s (l->l_%s)\n", p->name, p->name);
	for (i = 0; i < ARRAY_LEN(embedded_macros); i++) {
		const char *d = embedded_macros[i];

		/* a string is returned by copying it */
		if (fn->ret == TY_STRING && !strncmp(d, "STAP_RETURN", 11))
			d = "STAP_RETURN(v) do { utap_strlcpy(STAP_RETVALUE, (v), MAXSTRINGLEN); "
			    "goto out; } while (0)";
		sb_printf(&body, "#define %s\n", d);
	}
	sb_printf(&body, "{\n%s\n}\n", fn->embedded);
	for (i = 0; i < ARRAY_LEN(embedded_macros); i++)
		sb_printf(&body, "#undef %.*s\n", (int)strcspn(embedded_macros[i], " ("),
			  embedded_macros[i]);
	for (struct symbol *p = fn->params; p; p = p->next)
		sb_printf(&body, "#undef STAP_ARG_%s\n", p->name);
	emit_frame_struct(em, m, fn->params, fn, 0);
	em->nlong = 0;
	flush_function(em, arena_printf("static void utap_fn_%s(struct utap_context *c)", m),
		       arena_printf("struct utap_frame_%s *l __attribute__((unused)) = "
				    "&UTAP_FRAME(c, c->nesting)->%s;", m, m), &body, NULL, NULL);
}

static void emit_function(struct emitter *em, struct function *fn)
{
	const char *m = frame_member(em, fn);
	struct strbuf body = { 0 };

	sb_printf(&em->protos, "static void utap_fn_%s(struct utap_context *c);\n", m);
	if (fn->embedded) {
		emit_embedded_function(em, fn);
		return;
	}
	begin_function(em, &body);
	em->fn = fn;
	emit_locals_init(em, fn->locals);
	emit_stmt(em, fn->body);
	em->fn = NULL;
	emit_frame_struct(em, m, fn->locals, fn, em->maxstr);
	flush_function(em, arena_printf("static void utap_fn_%s(struct utap_context *c)", m),
		       arena_printf("struct utap_frame_%s *l __attribute__((unused)) = "
				    "&UTAP_FRAME(c, c->nesting)->%s;", m, m), &body, NULL, NULL);
}

/* A handler; *lock_list is the text of its lock list (in em->top), "" when none. */
void emit_handler(struct emitter *em, struct derived_probe *d, const char **lock_list)
{
	const char *m = arena_printf("p%d", d->handler);
	struct strbuf body = { 0 };
	size_t top = em->top.len;
	int nlocks;
	const char *locks = emit_handler_locks(em, d, &nlocks);

	*lock_list = arena_strdup(em->top.buf && em->top.len > top ? em->top.buf + top : "");

	begin_function(em, &body);
	em->probe = d;
	emit_locals_init(em, d->locals);
	emit_regex_prologue(em);
	if (d->cond) {
		struct val cond = emit_expr(em, d->cond);

		emit_line(em, "if (!%s)", cond.c);
		emit_line(em, "\tgoto out;");
		em->nstr = 0;
	}
	emit_stmt(em, d->body);
	emit_frame_struct(em, m, d->locals, NULL, em->maxstr);
	sb_printf(&em->protos, "static void utap_probe_%d(struct utap_context *c);\n", d->handler);
	/* a handler that cannot get its globals' locks is skipped, as in stap */
	flush_function(em, arena_printf("static void utap_probe_%d(struct utap_context *c)",
					d->handler),
		       arena_printf("struct utap_frame_%s *l __attribute__((unused)) = "
				    "&UTAP_FRAME(c, 0)->%s;", m, m), &body,
		       locks ? arena_printf("\tif (!utap_lock_globals(%s, %d))\n\t\treturn;\n", locks,
					    nlocks) : NULL,
		       locks ? arena_printf("\tutap_unlock_globals(%s, %d);\n", locks, nlocks) : NULL);
}

void emit_run_handler(struct strbuf *sb, const struct derived_probe *d, const char *state,
		      const char *indent)
{
	sb_printf(sb, "%sc = utap_context_enter(&utap_probes[%d], %s);\n", indent, d->index, state);
	sb_printf(sb, "%sif (c) {\n", indent);
	sb_printf(sb, "%s\tutap_probe_%d(c);\n", indent, d->handler);
	sb_printf(sb, "%s\tutap_context_leave(c);\n", indent);
	sb_printf(sb, "%s}\n", indent);
}

static void emit_probe_table(struct emitter *em)
{
	sb_printf(&em->top, "static const struct utap_probe utap_probes[%d] = {\n",
		  em->s->nderived);
	for (struct derived_probe *d = em->s->derived; d; d = d->next) {
		const char *pp = d->pp, *pn = d->listed_pp ? d->listed_pp : d->pp;

		sb_printf(&em->top, "\t{ .pp = %s, .pn = %s, .index = %d },\n",
			  c_string_literal(pp, strlen(pp)), c_string_literal(pn, strlen(pn)),
			  d->index);
	}
	sb_printf(&em->top, "};\n");
}

/* Each family once, in the order of its first row in the family table. */
static void emit_providers(struct emitter *em)
{
	/* one list for every provider in turn, as long as all the probes */
	struct derived_probe **list = arena_alloc(sizeof(*list) * (size_t)(em->s->nderived + 1));

	for (const struct probe_family *f = em->s->families; f && f->first; f++) {
		const struct provider *prov = f->prov;
		int n = 0;

		for (const struct probe_family *g = em->s->families; g != f; g++)
			if (g->prov == prov)
				prov = NULL;
		if (!prov)
			continue;
		for (struct derived_probe *d = em->s->derived; d; d = d->next)
			if (d->prov == prov)
				list[n++] = d;
		if (n)
			prov->emit(em, list, n);
	}
}

static void emit_hook(struct strbuf *out, const char *sig, struct strbuf *body, const char *ret)
{
	sb_printf(out, "%s\n{\n", sig);
	if (body->buf)
		sb_putn(out, body->buf, body->len);
	if (ret)
		sb_printf(out, "\treturn %s;\n", ret);
	sb_printf(out, "}\n\n");
}

static void assemble(struct emitter *em, struct strbuf *out)
{
	struct session *s = em->s;

	sb_printf(out, "/* Generated by utap %s from %s. */\n", UTAP_VERSION,
		  s->script_path ? s->script_path : "<input>");
	kbuild_put_config(out, s);
	/* as stap: unless -D gives it, MAXNESTING follows the call graph */
	sb_printf(out, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n", max_nesting(s));
	/* the runner's trace formats, for formats/output.c */
	sb_puts(out, "#define UTAP_RUNNER_FORMATS");
	for (unsigned int i = 0; s->runner_format && s->runner_format(i); i++)
		sb_printf(out, " \"%s\",", s->runner_format(i));
	sb_putc(out, '\n');
	sb_putn(out, em->config.buf ? em->config.buf : "", em->config.len);
	sb_puts(out, "#include \"core/runtime.h\"\n");
	sb_putn(out, em->includes.buf ? em->includes.buf : "", em->includes.len);
	sb_putc(out, '\n');
	for (struct embed *e = s->embeds; e; e = e->next)
		sb_printf(out, "%s\n", e->code);
	sb_putn(out, em->top.buf ? em->top.buf : "", em->top.len);
	sb_putn(out, em->frames.buf ? em->frames.buf : "", em->frames.len);
	sb_printf(out, "\nunion utap_frame {\n%s\tchar __none;\n};\n",
		  em->unionm.buf ? em->unionm.buf : "");
	sb_printf(out, "#define UTAP_FRAME_STRIDE ALIGN(sizeof(union utap_frame), 16)\n");
	sb_printf(out, "#define UTAP_FRAME(c, n) ((union utap_frame *)((c)->frames + "
		  "(size_t)(n) * UTAP_FRAME_STRIDE))\n\n");
	sb_putn(out, em->protos.buf ? em->protos.buf : "", em->protos.len);
	sb_putc(out, '\n');
	sb_putn(out, em->funcs.buf ? em->funcs.buf : "", em->funcs.len);
	sb_putn(out, em->glue.buf ? em->glue.buf : "", em->glue.len);
	/* UTAP_API: static, or external when the core is a separate object (core/kcore.h) */
	emit_hook(out, "UTAP_API size_t utap_gen_frames_size(void)", &(struct strbuf){ 0 },
		  "(MAXNESTING + 1) * UTAP_FRAME_STRIDE");
	emit_hook(out, "UTAP_API int utap_gen_init(void)", &em->init, "0");
	emit_hook(out, "UTAP_API void utap_gen_exit(void)", &em->exit, NULL);
	emit_hook(out, "UTAP_API int utap_gen_register(void)", &em->reg, "0");
	emit_hook(out, "UTAP_API void utap_gen_unregister(void)", &em->unreg, NULL);
	emit_hook(out, "UTAP_API void utap_gen_begin(void)", &em->begin, NULL);
	emit_hook(out, "UTAP_API void utap_gen_end(void)", &em->end, NULL);
}

int translate(struct session *s)
{
	struct emitter em = { .s = s };
	struct strbuf out = { 0 };
	int rc;

	if (emit_needs(&em))
		return -1;
	sb_puts(&em.begin, "\tstruct utap_context *c __maybe_unused;\n");
	sb_puts(&em.end, "\tstruct utap_context *c __maybe_unused;\n");
	emit_globals(&em);
	emit_probe_table(&em);
	if (emit_ustack_tables(&em))
		return -1;
	for (struct function *fn = s->functions; fn; fn = fn->next_used)
		emit_function(&em, fn);
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		bool seen = false;

		for (struct derived_probe *e = s->derived; e != d; e = e->next)
			if (e->handler == d->handler)
				seen = true;
		if (!seen)
			emit_handler_shared(&em, d);
	}
	emit_shared_handlers(&em);
	emit_providers(&em);
	emit_global_autoprint(&em);
	if (em.autoprint.len) {
		sb_puts(&em.top, "static const struct utap_probe utap_autoprint_probe = { .pp = "
			"\"end\", .index = -1 };\n");
		sb_printf(&em.end, "\tc = utap_context_enter(&utap_autoprint_probe, UTAP_STOPPING);\n"
			  "\tif (c) {\n%s\t\tutap_context_leave(c);\n\t}\n", em.autoprint.buf);
	}
	if (diag_errors)
		return -1;
	assemble(&em, &out);
	s->c_path = arena_printf("%s/%s.c", s->tmpdir, s->modname);
	rc = write_file(s->c_path, out.buf, out.len);
	sb_free(&out);
	if (rc)
		errorf("cannot write '%s'", s->c_path);
	return rc;
}
