/*
 * needs.c - the one way runtime code enters a module: by the name of a
 * runtime part in the table below.
 *
 * A provider asks for its part with emit_need(). A tapset (or a guru
 * script) names the parts its embedded C uses in a comment of that code,
 *
 *   function usymname:string (addr:long) %{ /+ utap-needs: usym +/ ... %}
 *   %{ /+ utap-needs: regs +/ %}             (top level: the file's code)
 *
 * ('+' for '*'), read when the function or the file is used. Each name is
 * a whole word of the table; anything else is an error at the code. A part
 * is included once, after core/runtime.h, and may ask the translator for
 * more (the tables of user backtraces, recorded regex groups).
 */
#include "emit.h"

#include <string.h>

struct runtime_part {
	const char *name;
	const char *file;	/* under runtime/; NULL: nothing to include */
	unsigned flags;		/* PART_* */
	const char *start;	/* called in utap_gen_register (process context), 0 or -errno */
};

static const struct runtime_part parts[] = {
	/* name			file				what else the translator does */
	{ "regs",		"probes/regs.c",		0, NULL },
	{ "kread",		"probes/kread.c",		0, NULL },
	{ "umemory",		"probes/umemory.c",		0, NULL },
	{ "tvar",		"probes/tvar.c",		0, NULL },
	{ "sysflags",		"probes/sysflags.c",		0, NULL },
	{ "kstack",		"unwind/kcontext.c",		0, NULL },
	{ "ktask",		"unwind/ktask.c",		0, "utap_ktask_start" },
	{ "ustack",		"unwind/ucontext.c",		PART_UNWIND | PART_USYMS, NULL },
	{ "usym",		"unwind/ucontext.c",		PART_USYMS, NULL },
	/* a function that names any address, not only code (usymdata) */
	{ "usymdata",		"unwind/ucontext.c",		PART_USYMS | PART_UDATA, NULL },
	{ "uline",		"unwind/ucontext.c",		PART_USYMS | PART_ULINES, NULL },
	{ "pystack",		"unwind/pyframes.c",		PART_UNWIND | PART_USYMS | PART_PYTHON, NULL },
	{ "regex",		"core/regex.c",			0, NULL },
	{ "utf",		"core/utf.c",			0, NULL },
	{ "softfp",		"core/softfp.c",		0, NULL },
	{ "regex_groups",	NULL,				PART_REGEX_GROUPS, NULL },
	{ "itrace",		"itrace/itrace.c",		0, NULL },
	{ "trace_formats",	"formats/output.c",		0, NULL },
	{ "kprobe",		"probes/kprobe.c",		0, NULL },
	{ "tracepoint",		"probes/tracepoint.c",		0, NULL },
	{ "timer",		"probes/timer.c",		0, NULL },
	{ "perf",		"probes/perf.c",		0, NULL },
	{ "hwbkpt",		"probes/hwbkpt.c",		0, NULL },
	{ "ksym",		"probes/ksym.c",		0, NULL },
	{ "procfs",		"probes/procfs.c",		0, NULL },
	{ "netfilter",		"probes/netfilter.c",		0, NULL },
	{ "uprobe",		"probes/uprobe.c",		0, NULL },
	{ "task_finder",	"probes/task_finder.c",		0, NULL },
};

struct included {
	const char *path;
	struct included *next;
};

static const struct runtime_part *find_part(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		if (strlen(parts[i].name) == len && !memcmp(parts[i].name, name, len))
			return &parts[i];
	return NULL;
}

bool emit_has_include(const struct emitter *em, const char *path)
{
	for (const struct included *i = em->included; i; i = i->next)
		if (!strcmp(i->path, path))
			return true;
	return false;
}

void emit_header(struct emitter *em, const char *path, const char *before)
{
	struct included *i;

	if (emit_has_include(em, path))
		return;
	i = arena_alloc(sizeof(*i));
	i->path = path;
	i->next = em->included;
	em->included = i;
	if (before)
		sb_puts(&em->includes, before);
	sb_printf(&em->includes, "#include \"%s\"\n", path);
}

static void need(struct emitter *em, const struct runtime_part *p)
{
	if (p->start && !emit_has_include(em, p->file))
		sb_printf(&em->reg, "\t{\n\t\tint rc = %s();\n\n\t\tif (rc)\n\t\t\treturn rc;\n\t}\n",
			  p->start);
	if (p->file)
		emit_header(em, p->file, NULL);
	em->parts |= p->flags;
}

void emit_need(struct emitter *em, const char *name)
{
	const struct runtime_part *p = find_part(name, strlen(name));

	if (!p)
		fatal("internal error: no runtime part '%s' (codegen/needs.c)", name);
	need(em, p);
}

static const char *part_names(void)
{
	struct strbuf sb = { 0 };
	const char *r;

	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", parts[i].name);
	r = arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The utap-needs: comments of one piece of embedded C; -1 after an error at LOC. */
static int read_needs(struct emitter *em, const char *code, struct loc loc)
{
	static const char marker[] = "utap-needs:";

	for (const char *p = strstr(code, marker); p; p = strstr(p, marker)) {
		const char *end = strstr(p, "*/");

		if (!end) {
			error_at(loc, "'utap-needs:' outside a /* */ comment");
			return -1;
		}
		for (p += strlen(marker); p < end; ) {
			const char *w = p;
			const struct runtime_part *part;

			if (*p == ' ' || *p == '\t' || *p == '\n') {
				p++;
				continue;
			}
			while (p < end && is_word_char(*p))
				p++;
			part = p > w && (p == end || *p == ' ' || *p == '\t' || *p == '\n') ?
			       find_part(w, (size_t)(p - w)) : NULL;
			if (!part) {
				while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
					p++;
				error_at(loc, "unknown runtime part '%.*s' after 'utap-needs:' "
					 "(the parts are %s)", (int)(p - w), w, part_names());
				return -1;
			}
			need(em, part);
		}
	}
	return 0;
}

int emit_needs(struct emitter *em)
{
	int rc = 0;

	for (struct function *fn = em->s->functions; fn; fn = fn->next_used)
		if (fn->embedded && read_needs(em, fn->embedded, fn->loc))
			rc = -1;
	for (struct embed *e = em->s->embeds; e; e = e->next)
		if (read_needs(em, e->code, e->loc))
			rc = -1;
	for (struct derived_probe *d = em->s->derived; d; d = d->next)
		if (d->needs)
			emit_need(em, d->needs);
	return rc;
}
