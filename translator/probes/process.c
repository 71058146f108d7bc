/*
 * process.c - the leading process / process("PATH") / process(PID)
 * component the user-space families share, and the uprobe table they
 * register through. See process.h.
 */
#include "probes/process.h"
#include "base/command.h"

#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <string.h>

const struct pp_component *process_kind(const struct probe_point *pp)
{
	const struct pp_component *c = pp->comps->next;

	return c && !strcmp(c->name, "library") ? c->next : c;
}

bool process_point_is(const struct probe_point *pp, const char *const names[], int n)
{
	const struct pp_component *c = pp->comps;

	if (!c || strcmp(c->name, "process") || !(c = process_kind(pp)))
		return false;
	for (int i = 0; i < n; i++)
		if (!strcmp(c->name, names[i]))
			return true;
	return false;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int add_binary(struct process_spec *out, const struct probe_point *pp, const char *path)
{
	const char *why = NULL;
	struct ubinary *b = ubin_open(path, &why);

	if (!b) {
		if (!pp->optional)
			error_at(pp->loc, "cannot probe '%s': %s", path, why);
		return -1;
	}
	for (int i = 0; i < out->nbins; i++)
		if (out->bins[i] == b)
			return 0;
	out->bins[out->nbins++] = b;
	return 0;
}

/* process("/usr/lib*\/libc.so.*"): every regular ELF file the pattern matches. */
static int read_glob(const struct probe_point *pp, const char *pattern, struct process_spec *out)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	out->bins = arena_alloc(sizeof(*out->bins) * (g.gl_pathc + 1));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = ubin_find(g.gl_pathv[i]);
		const char *why;

		/* a glob may sweep in scripts and data files: skip, don't fail */
		if (path && ubin_open(path, &why))
			add_binary(out, pp, path);
	}
	globfree(&g);
	return out->nbins ? 1 : 0;
}

static int read_path(const struct probe_point *pp, const char *name, struct process_spec *out)
{
	const char *path;

	if (strchr(name, '/') && has_glob(name))
		return read_glob(pp, name, out);
	path = ubin_find(name);
	if (!path) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "cannot find executable or library '%s'%s", name,
			 strchr(name, '/') ? "" : " (searched $PATH and the library directories)");
		return -1;
	}
	out->bins = arena_alloc(sizeof(*out->bins));
	return add_binary(out, pp, path) ? (pp->optional ? 0 : -1) : 1;
}

/*
 * process(PID): the executable is read on the machine that translates.
 * With --vm that is the host, whose PIDs mean nothing in the guest.
 */
static int read_pid(struct session *s, const struct probe_point *pp, int64_t pid,
		    struct process_spec *out)
{
	const char *path;

	out->pid = pid;
	if (pid <= 0) {
		error_at(pp->loc, "process(%" PRId64 "): not a process ID", pid);
		return -1;
	}
	if (s->vm) {
		error_at(pp->loc, "process(%" PRId64 ") needs the process's executable when "
			 "translating, but with --vm the PID is the guest's; use process(\"PATH\") "
			 "and test pid() in the handler", pid);
		return -1;
	}
	path = ubin_pid_exe((long)pid);
	if (!path) {
		if (pp->optional)
			return 0;
		error_at(pp->loc, "process(%" PRId64 "): no such process, or its executable "
			 "cannot be read", pid);
		return -1;
	}
	out->bins = arena_alloc(sizeof(*out->bins));
	return add_binary(out, pp, path) ? (pp->optional ? 0 : -1) : 1;
}

/* Bare `process` in a family that needs a binary: the -c command's executable. */
static int read_target(struct session *s, const struct probe_point *pp, struct process_spec *out)
{
	if (!s->cmd && !s->target_pid) {
		error_at(pp->loc, "'process' without a path or PID needs a target process "
			 "(-c CMD or -x PID)");
		return -1;
	}
	out->target_tree = true;
	if (s->target_pid) {
		int rc = read_pid(s, pp, s->target_pid, out);

		out->pid = 0;
		return rc;
	}
	if (!s->command->program || s->command->target_is_shell) {
		error_at(pp->loc, "cannot tell the program of -c '%s' (utap runs it as a shell "
			 "command): name it with process(\"PATH\")", s->cmd);
		return -1;
	}
	return read_path(pp, command_path(s->command) ? command_path(s->command) :
			 s->command->program, out);
}

static int add_library(struct process_spec *out, const struct probe_point *pp,
		       const char *path, const char *shown)
{
	int n = out->nbins;

	if (add_binary(out, pp, path))
		return -1;
	if (out->nbins > n)
		out->shown[n] = shown;
	return 0;
}

/* .library("PATH"): a file named by path (globs expand), needed or not. */
static int library_by_path(const struct probe_point *pp, const char *pattern,
			   struct process_spec *out)
{
	glob_t g;
	int rc = 0;

	if (glob(pattern, has_glob(pattern) ? 0 : GLOB_NOCHECK, NULL, &g) != 0)
		return 0;
	out->bins = arena_alloc(sizeof(*out->bins) * (g.gl_pathc + 1));
	out->shown = arena_alloc(sizeof(*out->shown) * (g.gl_pathc + 1));
	for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
		const char *path = ubin_find(g.gl_pathv[i]);

		if (path)
			rc = add_library(out, pp, path, arena_strdup(g.gl_pathv[i]));
		else if (!has_glob(pattern) && !pp->optional)
			error_at(pp->loc, "cannot find library '%s'", pattern), rc = -1;
	}
	globfree(&g);
	return rc ? -1 : out->nbins ? 1 : 0;
}

/* .library("NAME"): the needed libraries of out->exe whose DT_NEEDED name matches. */
static int library_by_name(const struct probe_point *pp, const char *pattern,
			   struct process_spec *out)
{
	struct ulib *libs;
	size_t n = ubin_needed(out->exe, &libs);

	out->bins = arena_alloc(sizeof(*out->bins) * (n + 1));
	out->shown = arena_alloc(sizeof(*out->shown) * (n + 1));
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(pattern, libs[i].name, 0) && add_library(out, pp, libs[i].path,
								       libs[i].path))
			return -1;
	if (out->nbins || pp->optional || has_glob(pattern))
		return out->nbins ? 1 : 0;
	error_at(pp->loc, "'%s' needs no library '%s' (%zu libraries: name one of their "
		 "DT_NEEDED names, a glob, or a path)", out->exe->path, pattern, n);
	return -1;
}

/*
 * process(...).library("PATTERN"): the probes go in libraries, and fire
 * only in processes running the executable. A PATTERN with a '/' is a
 * path; otherwise it matches the names of the libraries the executable
 * needs when it starts (stap's "statically determined to be in use").
 */
static int read_library(const struct probe_point *pp, const struct pp_component *lib,
			struct process_spec *out)
{
	const char *pattern = pp_component_arg_str(lib);

	if (!pattern || !*pattern) {
		error_at(pp->loc, ".library takes a library name, glob or path string");
		return -1;
	}
	if (out->nbins != 1) {
		error_at(pp->loc, ".library needs one executable in process(...), not %d",
			 out->nbins);
		return -1;
	}
	out->exe = out->bins[0];
	out->nbins = 0;
	return strchr(pattern, '/') ? library_by_path(pp, pattern, out) :
				      library_by_name(pp, pattern, out);
}

static int read_process(struct session *s, const struct probe_point *pp, bool need_binary,
			struct process_spec *out)
{
	const struct pp_component *c = pp->comps;
	const char *path = pp_component_arg_str(c);
	int64_t pid;

	if (path)
		return read_path(pp, path, out);
	if (pp_component_arg_num(c, &pid))
		return need_binary ? read_pid(s, pp, pid, out) : (out->pid = pid, 1);
	if (c->arg) {
		error_at(pp->loc, "process takes a path string or a PID");
		return -1;
	}
	if (need_binary)
		return read_target(s, pp, out);
	out->any = true;
	out->target_tree = s->cmd || s->target_pid;
	return 1;
}

int process_spec_read(struct session *s, const struct probe_point *pp, bool need_binary,
		      struct process_spec *out)
{
	const struct pp_component *lib = pp->comps->next;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!lib || strcmp(lib->name, "library"))
		return read_process(s, pp, need_binary, out);
	if (!need_binary) {
		error_at(pp->loc, ".library(...) goes with .function, .statement, .mark and .plt "
			 "probes, not .%s", lib->next ? lib->next->name : "library alone");
		return -1;
	}
	rc = read_process(s, pp, true, out);
	return rc <= 0 ? rc : read_library(pp, lib, out);
}

/* process(PID) or process("PATH"); B may be NULL for a PID (process(PID).end). */
const char *process_pp_prefix(const struct ubinary *b, int64_t pid)
{
	struct node arg = { .kind = N_STR };
	struct pp_component comp = { .name = "process", .arg = &arg };
	struct probe_point pp = { .comps = &comp };

	if (pid)
		return arena_printf("process(%" PRId64 ")", pid);
	arg.str = b->path;
	arg.str_len = strlen(b->path);
	return pp_string(&pp);
}

const char *process_site_prefix(const struct process_spec *spec, const struct ubinary *b)
{
	struct node arg = { .kind = N_STR };
	struct pp_component comp = { .name = "library", .arg = &arg };
	struct probe_point pp = { .comps = &comp };
	int i = 0;

	if (!spec->exe)
		return process_pp_prefix(b, spec->pid);
	while (i < spec->nbins - 1 && spec->bins[i] != b)
		i++;
	arg.str = spec->shown[i];
	arg.str_len = strlen(arg.str);
	return arena_printf("%s.%s", process_pp_prefix(spec->exe, spec->pid), pp_string(&pp));
}

int process_report_missing(const struct probe_point *pp, const struct process_spec *spec,
			   const char *what, const char *name, const char *detail)
{
	if (pp->optional || strpbrk(name, "*?["))
		return 0;
	if (spec->nbins == 1)
		error_at(pp->loc, "no %s '%s' in '%s'%s", what, name, spec->bins[0]->path, detail);
	else
		error_at(pp->loc, "no %s '%s' in any of the %d binaries matched", what, name,
			 spec->nbins);
	return -1;
}

struct usite *usite_new(const struct probe_point *pp, const struct process_spec *spec,
			const struct ubinary *b, uint64_t vaddr)
{
	struct usite *u = arena_alloc(sizeof(*u));

	if (!ubin_offset(b, vaddr, &u->offset)) {
		error_at(pp->loc, "address 0x%" PRIx64 " is not in a loadable segment of '%s'",
			 vaddr, b->path);
		return NULL;
	}
	u->bin = b;
	u->exe = spec->exe;
	u->vaddr = vaddr;
	u->pid = spec->pid;
	u->target_tree = spec->target_tree;
	u->optional = pp->optional;
	return u;
}

/* The capture functions of the table's .return probes that read entry values. */
static void emit_captures(struct emitter *em, struct derived_probe **dps, int n,
			  const char *name)
{
	for (int i = 0; i < n; i++) {
		const struct usite *u = dps[i]->data;

		if (u->caps.n)
			uvar_emit_capture_fn(&em->glue, arena_printf("%s_capture_%d", name, i),
					     &u->caps);
	}
}

/*
 * The handler of a .callee probe: the probe's own when the user stack's
 * return addresses are one of the call chains (relocated by the bias of
 * the probed binary, the same as its callers'), as stap's _caller_match;
 * -DSTAP_CALLEE_MATCHALL makes it fire for any caller. In a .return
 * probe the first of them is the pc itself, where the callee returned to.
 */
static const char *emit_callee_handler(struct emitter *em, const struct derived_probe *d,
				       const char *name, int i)
{
	const struct usite *u = d->data;
	const struct callers *cs = u->callers;
	const char *fn = arena_printf("%s_callee_%d", name, i);
	int first = u->is_return ? 0 : 1;

	sb_printf(&em->glue, "static void %s(struct utap_context *c)\n{\n#ifndef STAP_CALLEE_MATCHALL\n"
		  "\tstatic const u64 want[%d][%d] = {", fn, cs->nchains, cs->depth);
	for (int k = 0; k < cs->nchains * cs->depth; k++)
		sb_printf(&em->glue, "%s0x%" PRIx64 "%s", k % cs->depth ? ", " : " { ",
			  cs->ra[k], (k + 1) % cs->depth ? "" : " },");
	sb_printf(&em->glue, " };\n\tstruct utap_ustack *us = utap_ustack_get(c);\n"
		  "\tu64 bias = utap_uprobe_site(c) - 0x%" PRIx64 "ULL;\n\tint k, l = 0;\n\n"
		  "\tfor (k = 0; k < %d && l < %d; k++)\n"
		  "\t\tfor (l = 0; l < %d && (u32)l + %d < us->nr && us->pcs[l + %d] == bias + want[k][l]; l++)\n"
		  "\t\t\t;\n\tif (l < %d)\n\t\treturn;\n#endif\n\tutap_probe_%d(c);\n}\n\n",
		  u->vaddr, cs->nchains, cs->depth, cs->depth, first, first, cs->depth, d->handler);
	return fn;
}

void uprobe_emit_table(struct emitter *em, struct derived_probe **dps, int n, const char *name)
{
	const char **handlers = arena_alloc(sizeof(*handlers) * (size_t)(n ? n : 1));

	emit_need(em, "uprobe");
	emit_need(em, "umemory");
	for (int i = 0; i < n; i++)
		if (((const struct usite *)dps[i]->data)->exe && !em->uprobe_exe) {
			/* .library probes: the runtime's executable filter */
			sb_puts(&em->config, "#define UTAP_UPROBE_EXE 1\n");
			em->uprobe_exe = true;
		}
	emit_captures(em, dps, n, name);
	for (int i = 0; i < n; i++)
		handlers[i] = ((const struct usite *)dps[i]->data)->callers ?
			      emit_callee_handler(em, dps[i], name, i) :
			      arena_printf("utap_probe_%d", dps[i]->handler);
	sb_printf(&em->glue, "static struct utap_uprobe %s[%d] = {\n", name, n);
	for (int i = 0; i < n; i++) {
		const struct usite *u = dps[i]->data;

		sb_printf(&em->glue, "\t{ .path = %s, .offset = 0x%" PRIx64 ", .ref_ctr_offset = 0x%"
			  PRIx64 ", .pid = %" PRId64 ", .target_tree = %d, .is_return = %d, .optional = %d, "
			  "%s.probe = &utap_probes[%d], .handler = %s, .data = %s, "
			  ".capture = %s, .ncapture = %d, .capture_offset = 0x%" PRIx64 " },\n",
			  c_string_literal(u->bin->path, strlen(u->bin->path)), u->offset,
			  u->sema_offset, u->pid, u->target_tree, u->is_return, u->optional,
			  u->exe ? arena_printf(".exe_path = %s, ", c_string_literal(u->exe->path,
						strlen(u->exe->path))) : "",
			  dps[i]->index,
			  handlers[i], u->data_c ? u->data_c : "NULL",
			  u->caps.n ? arena_printf("%s_capture_%d", name, i) : "NULL", u->caps.n,
			  u->caps.n ? u->cap_offset : u->offset);
	}
	sb_printf(&em->glue, "};\n\n");
	sb_printf(&em->reg, "\t{\n\t\tint rc = utap_uprobes_register(%s, %d);\n\n"
		  "\t\tif (rc)\n\t\t\treturn rc;\n\t}\n", name, n);
	sb_printf(&em->unreg, "\tutap_uprobes_unregister(%s, %d);\n", name, n);
}
