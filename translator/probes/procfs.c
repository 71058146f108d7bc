/*
 * procfs.c - procfs probes, as stapprobes(3stap) gives them:
 *
 *   procfs("PATH").read  procfs("PATH").read.maxsize(N)  procfs("PATH").write
 *   procfs.read ...       (PATH "command")    .umask(M) before .read/.write
 *
 * The file is /proc/systemtap/<module>/PATH (PATH may name subdirectories,
 * made for it); runtime/probes/procfs.c says
 * when the handlers run. $value is the string the read probe fills (and
 * may append to past MAXSTRINGLEN, up to maxsize) or what was written.
 * Modes as stap's: 0400 read, 0200 write, 0600 both, less the umask.
 */
#include "codegen/emit.h"

#include <string.h>

extern const struct provider provider_procfs;

struct procfs_data {
	const char *path;
	bool write;
	int64_t umask;		/* -1: none given */
	int64_t maxsize;	/* 0: MAXSTRINGLEN */
};

/* "a/b/c": components neither empty nor "." / ".." */
static bool good_path(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* "__stdin" is the input probes' file (input.stp), a tapset's name only */
static int procfs_path(const struct pp_component *c, const char **path, struct loc loc)
{
	*path = "command";
	if (!c->arg)
		return 0;
	*path = pp_component_arg_str(c);
	if (!*path) {
		error_at(loc, "procfs takes a file name as a string: procfs(\"PATH\")");
		return -1;
	}
	if (!good_path(*path) || (!strcmp(*path, "__stdin") && !loc.src->is_tapset)) {
		error_at(loc, "\"%s\" cannot be a procfs file name: give names joined by '/', "
			 "none empty, '.' or '..', other than \"__stdin\"", *path);
		return -1;
	}
	return 0;
}

static int procfs_num(const struct pp_component *c, int64_t *out, int64_t max, struct loc loc)
{
	if (!pp_component_arg_num(c, out) || *out < 0 || *out > max) {
		error_at(loc, "'.%s' takes a number from 0 to %lld", c->name, (long long)max);
		return -1;
	}
	return 0;
}

static int procfs_parse(const struct probe_point *pp, struct procfs_data *p)
{
	const struct pp_component *c = pp->comps;

	p->umask = -1;
	if (procfs_path(c, &p->path, pp->loc))
		return -1;
	c = c->next;
	if (c && !strcmp(c->name, "umask")) {
		if (procfs_num(c, &p->umask, 0777, pp->loc))
			return -1;
		c = c->next;
	}
	if (!c || (strcmp(c->name, "read") && strcmp(c->name, "write")) || c->arg) {
		error_at(pp->loc, "expected procfs(\"PATH\").read or .write (with .umask(M) "
			 "before it, .maxsize(N) after .read)");
		return -1;
	}
	p->write = !strcmp(c->name, "write");
	c = c->next;
	if (c && !p->write && !strcmp(c->name, "maxsize")) {
		/* the buffer is one kmalloc: keep it within a few pages */
		if (procfs_num(c, &p->maxsize, 1 << 20, pp->loc))
			return -1;
		c = c->next;
	}
	if (c) {
		error_at(pp->loc, "unexpected '.%s' in a procfs probe point", c->name);
		return -1;
	}
	return 0;
}

/* stap allows one read probe per file, and any number of write probes */
static int procfs_check_reader(struct session *s, const struct procfs_data *p, struct loc loc)
{
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		const struct procfs_data *o = d->data;

		if (d->prov != &provider_procfs || !o || o->write || p->write ||
		    strcmp(o->path, p->path))
			continue;
		error_at(loc, "only one read procfs probe can exist for procfs path \"%s\" (the "
			 "first is at %s:%d)", p->path, d->point->loc.src->name, d->point->loc.line);
		return -1;
	}
	return 0;
}

static int procfs_resolve(struct session *s, struct probe_point *pp, struct derived_probe *proto)
{
	struct procfs_data *p = arena_alloc(sizeof(*p));
	struct derived_probe *d;

	if (procfs_parse(pp, p) || procfs_check_reader(s, p, pp->loc))
		return -1;
	d = new_derived(proto, pp_string(pp));
	d->data = p;
	d->ctx = CTX_TASK;	/* the reader's or writer's task, no registers */
	return 1;
}

/* ---- emit: one table row per file ---- */

struct procfs_file {
	struct derived_probe *reader;
	unsigned mode;
	int nwriters;
};

static bool same_file(struct derived_probe *a, struct derived_probe *b)
{
	return !strcmp(((struct procfs_data *)a->data)->path, ((struct procfs_data *)b->data)->path);
}

static bool first_of_file(struct derived_probe **dps, int i)
{
	for (int j = 0; j < i; j++)
		if (same_file(dps[j], dps[i]))
			return false;
	return true;
}

/*
 * The file of dps[i], its write probes' table written. Mode as stap's: 0400,
 * 0200 or 0600 alone; with a umask, 0444/0222/0666 less the umask (so
 * umask(0040) on a read file gives 0404).
 */
static struct procfs_file emit_writers(struct emitter *em, struct derived_probe **dps, int n,
				       int i)
{
	struct procfs_file f = { 0 };
	unsigned all = 0, umask = 0;
	bool has_umask = false;

	sb_printf(&em->glue, "static const struct utap_procfs_writer utap_procfs_w%d[] = {\n", i);
	for (int j = i; j < n; j++) {
		const struct procfs_data *p = dps[j]->data;

		if (!same_file(dps[i], dps[j]))
			continue;
		f.mode |= p->write ? 0200 : 0400;
		all |= p->write ? 0222 : 0444;
		if (p->umask >= 0) {
			has_umask = true;
			umask |= (unsigned)p->umask;
		}
		if (!p->write) {
			f.reader = dps[j];
			continue;
		}
		sb_printf(&em->glue, "\t{ &utap_probes[%d], utap_probe_%d },\n", dps[j]->index,
			  dps[j]->handler);
		f.nwriters++;
	}
	if (!f.nwriters)
		sb_printf(&em->glue, "\t{ NULL, NULL },\n");
	sb_printf(&em->glue, "};\n\n");
	if (has_umask)
		f.mode = all & ~umask;
	return f;
}

static void emit_file_row(struct strbuf *sb, struct derived_probe *d, int i,
			  const struct procfs_file *f)
{
	const struct procfs_data *p = d->data;
	const struct procfs_data *r = f->reader ? f->reader->data : NULL;

	sb_printf(sb, "\t{ .name = %s, .mode = 0%o, .bufsize = %s, ",
		  c_string_literal(p->path, strlen(p->path)), f->mode,
		  r && r->maxsize ? arena_printf("%lld", (long long)r->maxsize + 1) : "MAXSTRINGLEN");
	if (f->reader)
		sb_printf(sb, ".read_probe = &utap_probes[%d], .read_handler = utap_probe_%d, ",
			  f->reader->index, f->reader->handler);
	sb_printf(sb, ".writers = utap_procfs_w%d, .nwriters = %d },\n", i, f->nwriters);
}

/* Every directory the paths need, each once, parents first: "a", "a/b" for "a/b/f". */
static void emit_dirs(struct emitter *em, struct derived_probe **dps, int n)
{
	const char **seen;
	size_t cap = 1;
	int ndirs = 0;

	for (int i = 0; i < n; i++)
		for (const char *p = ((struct procfs_data *)dps[i]->data)->path; *p; p++)
			cap += *p == '/';
	seen = arena_alloc(sizeof(*seen) * cap);

	sb_printf(&em->glue, "static const char *const utap_procfs_dirs[] = {\n");
	for (int i = 0; i < n; i++) {
		const char *path = ((struct procfs_data *)dps[i]->data)->path;

		for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
			const char *dir = arena_strndup(path, (size_t)(slash - path));
			int j = 0;

			while (j < ndirs && strcmp(seen[j], dir))
				j++;
			if (j < ndirs)
				continue;
			seen[ndirs++] = dir;
			sb_printf(&em->glue, "\t%s,\n", c_string_literal(dir, strlen(dir)));
		}
	}
	sb_printf(&em->glue, "\tNULL\n};\n\n");
}

static void procfs_emit(struct emitter *em, struct derived_probe **dps, int n)
{
	struct strbuf rows = { 0 };
	int nfiles = 0;

	emit_need(em, "procfs");
	for (int i = 0; i < n; i++) {
		struct procfs_file f;

		if (!first_of_file(dps, i))
			continue;
		f = emit_writers(em, dps, n, i);
		emit_file_row(&rows, dps[i], i, &f);
		nfiles++;
	}
	sb_printf(&em->glue, "static struct utap_procfs_file utap_procfs_files[%d] = {\n%s};\n\n",
		  nfiles, rows.buf);
	sb_free(&rows);
	emit_dirs(em, dps, n);
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_procfs_register(utap_procfs_files, %d, "
		  "utap_procfs_dirs);\n\n\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", nfiles);
	sb_printf(&em->unreg, "\tutap_procfs_unregister(utap_procfs_files, %d);\n", nfiles);
}

/* ---- $value ---- */

static int procfs_target_var(struct session *s, struct derived_probe *d, struct node *n,
			     bool quiet)
{
	(void)s;
	if (n->kind == N_TARGET && !n->args && !n->op && !strcmp(n->name, "$value")) {
		n->type = TY_STRING;
		return 0;
	}
	if (!quiet)
		error_at(n->loc, "invalid target symbol for procfs probe, $value expected");
	return -1;
}

static struct val procfs_emit_target_var(struct emitter *em, struct derived_probe *d,
					 struct node *n)
{
	(void)em;
	(void)d;
	(void)n;
	return (struct val){ .type = TY_STRING, .c = "utap_procfs_value(c)" };
}

/* $value is the script's to set in a read probe; in a write probe it is what was written. */
static int procfs_free_write(struct derived_probe *d, struct node *lv)
{
	const struct procfs_data *p = d->data;

	if (lv->kind != N_TARGET || lv->args || strcmp(lv->name, "$value"))
		return 0;
	if (p->write) {
		error_at(lv->loc, "procfs $value variable is read-only in a procfs write probe");
		return -1;
	}
	return 1;
}

static bool procfs_store_target_var(struct emitter *em, struct derived_probe *d,
				    struct node *lhs, const char *op, struct val v)
{
	(void)d;
	if (strcmp(op, "=") && strcmp(op, ".=")) {
		error_at(lhs->loc, "$value is a string: assign it with '=' or append with '.='");
		return false;
	}
	if (v.type != TY_STRING) {
		error_at(lhs->loc, "$value is a string: a %s cannot be assigned to it",
			 type_name(v.type));
		return false;
	}
	emit_line(em, "utap_procfs_store(c, %s, %s);", v.c, strcmp(op, "=") ? "true" : "false");
	return true;
}

const struct provider provider_procfs = {
	.name = "procfs",
	.resolve = procfs_resolve,
	.emit = procfs_emit,
	.target_var = procfs_target_var,
	.emit_target_var = procfs_emit_target_var,
	.store_target_var = procfs_store_target_var,
	.free_write = procfs_free_write,
};
