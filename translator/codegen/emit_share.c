/*
 * emit_share.c - probe handlers that differ only in their string literals
 * share one C function.
 *
 * `probe syscall.*.return` gives some 360 handlers that differ in nothing
 * but the alias's name and the locations their errors report, and many
 * entry handlers are alike too; compiling each as its own function was
 * most of such a module's build. A handler's text is taken apart into its
 * shape (the C with every string literal replaced by a numbered hole and
 * its own names, utap_probe_H, utap_frame_pH, pH and utap_locks_H, by a
 * placeholder) and its literals. Handlers of one shape keep the first's
 * function, frame and lock list; the function reads the literals of the
 * probe it runs for from utap_lits[c->probe->index]. Equal shapes are the
 * same C up to the names and literals, so they do the same.
 *
 * A handler with embedded C (#define lines, comments) is kept as it is:
 * its literals may be in places a table entry cannot go.
 */
#include "emit.h"

#include <string.h>

struct handler_text {
	struct derived_probe *d;
	const char *frame, *unionm, *proto, *locks, *func;	/* as emitted */
	const char *fshape;		/* the function with holes */
	const char *shape;		/* frame, locks and function with holes: the key */
	uint64_t hash;
	const char **lits;
	int nlits;
	const char **same;	/* of a shape's first: the literals all its handlers have */
	int *slot, nslots;	/* the others' places in utap_lit[] */
	struct handler_text *first;	/* of its shape; itself when it is the first */
	struct handler_text *next;
};

/* The text sb got since len, cut off it. */
static const char *sb_cut(struct strbuf *sb, size_t len)
{
	const char *r = arena_strndup(sb->buf ? sb->buf + len : "", sb->len - len);

	sb->len = len;
	if (sb->buf)
		sb->buf[len] = 0;
	return r;
}

static bool is_ident(char ch, bool first)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (!first && ch >= '0' && ch <= '9');
}

/* The end of the literal that starts at p (a quote), escapes included. */
static const char *literal_end(const char *p)
{
	char q = *p++;

	while (*p && *p != q)
		p += p[0] == '\\' && p[1] ? 2 : 1;
	return *p ? p + 1 : p;
}

/*
 * text with the handler's names as "@N@" and, when lits is given, each
 * string literal as "@L<i>@", the literal appended to lits.
 */
static const char *shape_of(const char *text, const char *const names[4],
			    struct handler_text *lits)
{
	struct strbuf sb = { 0 };
	const char *p = text, *r;

	while (*p) {
		if ((*p == '"' && lits) || *p == '\'') {
			const char *e = literal_end(p);

			if (*p == '"') {
				lits->lits[lits->nlits] = arena_strndup(p, (size_t)(e - p));
				sb_printf(&sb, "@L%d@", lits->nlits++);
			} else {
				sb_putn(&sb, p, (size_t)(e - p));
			}
			p = e;
		} else if (is_ident(*p, true)) {
			const char *e = p;
			int i;

			while (is_ident(*e, false))
				e++;
			for (i = 0; i < 4; i++)
				if (strlen(names[i]) == (size_t)(e - p) && !strncmp(p, names[i], e - p))
					break;
			if (i < 4)
				sb_printf(&sb, "@N%d@", i);
			else
				sb_putn(&sb, p, (size_t)(e - p));
			p = e;
		} else {
			sb_putc(&sb, *p++);
		}
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

/*
 * A shape's text back as C, with the names of its first handler: a hole whose
 * literal every handler of the shape has is that literal, another one its
 * entry of utap_lit[] (slot[i]).
 */
static const char *unshape(const char *shape, const char *const names[4],
			   const char *const *same, const int *slot)
{
	struct strbuf sb = { 0 };
	const char *r;

	for (const char *p = shape; *p; p++) {
		int i;
		char kind;

		if (*p == '@' && sscanf(p, "@%c%d@", &kind, &i) == 2 &&
		    (kind == 'N' || kind == 'L')) {
			if (kind == 'N')
				sb_puts(&sb, names[i]);
			else if (same[i])
				sb_puts(&sb, same[i]);
			else
				sb_printf(&sb, "utap_lit[%d]", slot[i]);
			p = strchr(p + 1, '@');
		} else {
			sb_putc(&sb, *p);
		}
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

static size_t count_quotes(const char *s)
{
	size_t n = 0;

	while ((s = strchr(s, '"')))
		n++, s++;
	return n;
}

static void handler_names(const struct derived_probe *d, const char *names[4])
{
	names[0] = arena_printf("utap_probe_%d", d->handler);
	names[1] = arena_printf("utap_frame_p%d", d->handler);
	names[2] = arena_printf("p%d", d->handler);
	names[3] = arena_printf("utap_locks_%d", d->handler);
}

/* Emits handler d, kept aside in em->handlers until emit_shared_handlers. */
void emit_handler_shared(struct emitter *em, struct derived_probe *d)
{
	struct handler_text *h = arena_alloc(sizeof(*h)), **tail;
	size_t f = em->frames.len, u = em->unionm.len, p = em->protos.len, b = em->funcs.len;
	const char *names[4];

	emit_handler(em, d, &h->locks);
	h->d = d;
	h->first = h;
	h->frame = sb_cut(&em->frames, f);
	h->unionm = sb_cut(&em->unionm, u);
	h->proto = sb_cut(&em->protos, p);
	h->func = sb_cut(&em->funcs, b);
	for (tail = &em->handlers; *tail; tail = &(*tail)->next)
		;
	*tail = h;
	if (strchr(h->func, '#') || strstr(h->func, "/*"))
		return;
	handler_names(d, names);
	h->lits = arena_alloc(sizeof(*h->lits) * (count_quotes(h->func) / 2 + 1));
	h->fshape = shape_of(h->func, names, h);
	h->shape = arena_printf("%s\n%s\n%s", shape_of(h->frame, names, NULL),
				shape_of(h->locks, names, NULL), h->fshape);
	h->hash = hash_bytes(h->shape, strlen(h->shape), 0);
	for (struct handler_text *g = em->handlers; g != h; g = g->next)
		if (g->first == g && g->shape && g->hash == h->hash && !strcmp(g->shape, h->shape)) {
			h->first = g;
			break;
		}
}

/*
 * For each shape with more than one handler, its holes whose literal is the
 * same in all (same[], kept in the C) and the slots of the others.
 */
static void find_varying(struct emitter *em, struct handler_text *first)
{
	int n = 0;

	first->same = arena_alloc(sizeof(*first->same) * (size_t)(first->nlits + 1));
	first->slot = arena_alloc(sizeof(*first->slot) * (size_t)(first->nlits + 1));
	for (int i = 0; i < first->nlits; i++) {
		first->same[i] = first->lits[i];
		for (struct handler_text *h = em->handlers; h; h = h->next)
			if (h->first == first && strcmp(h->lits[i], first->lits[i]))
				first->same[i] = NULL;
		first->slot[i] = first->same[i] ? -1 : n++;
	}
	first->nslots = n;
}

/* The varying literals of each probe whose handler is a shared one, by probe index. */
static void emit_literal_tables(struct emitter *em, const bool *shared)
{
	struct strbuf table = { 0 };

	for (struct derived_probe *d = em->s->derived; d; d = d->next) {
		struct handler_text *h = em->handlers, *f;

		while (h && h->d->handler != d->handler)
			h = h->next;
		if (!h || !shared[h->first->d->handler])
			continue;
		f = h->first;
		sb_printf(&em->top, "static char *const utap_lit_%d[] = {", d->index);
		for (int i = 0; i < h->nlits; i++)
			if (!f->same[i])
				sb_printf(&em->top, "%s %s", f->slot[i] ? "," : "", h->lits[i]);
		sb_printf(&em->top, "%s };\n", f->nslots ? "" : " NULL");
		sb_printf(&table, "\t[%d] = utap_lit_%d,\n", d->index, d->index);
	}
	if (table.len)
		sb_printf(&em->top, "static char *const *const utap_lits[%d] = {\n%s};\n",
			  em->s->nderived, table.buf);
	sb_free(&table);
}

/*
 * Writes the handlers kept aside: each shape's first one, as it was or, when
 * others share it, reading its literals from utap_lit; the others' probes
 * run it (their derived probes take its handler number).
 */
void emit_shared_handlers(struct emitter *em)
{
	bool *shared = arena_alloc(sizeof(bool) * (size_t)(em->s->nderived + 1));
	int *handler_of = arena_alloc(sizeof(int) * (size_t)(em->s->nderived + 1));
	struct handler_text *h;

	for (h = em->handlers; h; h = h->next) {
		handler_of[h->d->handler] = h->first->d->handler;
		if (h->first != h)
			shared[h->first->d->handler] = true;
	}
	for (h = em->handlers; h; h = h->next)
		if (h->first == h && shared[h->d->handler])
			find_varying(em, h);
	emit_literal_tables(em, shared);
	for (h = em->handlers; h; h = h->next) {
		const char *names[4], *func = h->func;

		if (h->first != h)
			continue;
		if (shared[h->d->handler]) {
			const char *open = "(struct utap_context *c)\n{\n";

			handler_names(h->d, names);
			func = unshape(h->fshape, names, h->same, h->slot);
			if (h->nslots)
				func = arena_printf("%.*s\tchar *const *utap_lit = "
						    "utap_lits[c->probe->index];\n%s",
						    (int)(strstr(func, open) + strlen(open) - func),
						    func, strstr(func, open) + strlen(open));
		}
		em->s->nhandlers++;
		sb_puts(&em->frames, h->frame);
		sb_puts(&em->unionm, h->unionm);
		sb_puts(&em->protos, h->proto);
		sb_puts(&em->funcs, func);
	}
	for (struct derived_probe *d = em->s->derived; d; d = d->next)
		d->handler = handler_of[d->handler];
}
