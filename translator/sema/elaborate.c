/*
 * elaborate.c - pass 2: from parsed files to what the module contains.
 *
 * Expands probe aliases, hands each concrete probe point to its provider,
 * resolves names (locals, globals, functions, in the user's script first and
 * the tapsets second), and collects exactly the functions, globals and
 * embedded code the script uses: nothing else is emitted.
 */
#include "sema/sema.h"
#include "sema/provider.h"

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct scope {
	struct symbol **locals;		/* list head to add to */
	struct function *fn;		/* NULL in a probe body */
	const struct source *src;	/* for private symbols */
	bool in_loop;
	bool in_probe;
	struct derived_probe *probe;	/* the probe whose body this is */
};

static struct session *cur;		/* the session being elaborated */
static struct derived_probe **derived_tail;
static int alias_depth;

/* ---- derived probes, made by the providers ---- */

struct derived_probe *new_derived(struct derived_probe *proto, const char *pp)
{
	struct derived_probe *d = arena_alloc(sizeof(*d));

	*d = *proto;
	d->pp = pp;
	d->next = NULL;
	d->index = cur->nderived++;
	*derived_tail = d;
	derived_tail = &d->next;
	return d;
}

/* ---- tapsets ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static struct pp_env pp_env_for(struct session *s)
{
	struct pp_env env = {
		.kernel_vr = s->krel,
		.arch = "x86_64",
		.args = s->args,
		.nargs = s->nargs,
		.guru = s->guru,
		.library = s->tapset_macros,
	};
	char *v = arena_strdup(s->krel ? s->krel : "0");
	char *dash = strchr(v, '-');

	if (dash)
		*dash = 0;
	env.kernel_v = v;
	if (s->kbuild)
		env.kconfig_path = arena_printf("%s/.config", s->kbuild);
	return env;
}

/* Lexer and preprocessor errors stop the file there: parsing broken tokens only echoes them. */
struct file *parse_source(struct session *s, const struct source *src)
{
	struct pp_env env = pp_env_for(s);
	int before = diag_errors;
	struct token *tok = tokenize(src);

	if (diag_errors == before)
		tok = preprocess(tok, &env);
	if (diag_errors != before) {
		struct file *f = arena_alloc(sizeof(*f));

		f->src = src;
		return f;
	}
	return parse_file(src, tok);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static void load_tapset_file(struct session *s, const char *path, struct file ***tail)
{
	struct source *src = source_from_file(path, true);

	if (!src) {
		errorf("cannot read tapset file '%s'", path);
		return;
	}
	if (!tail) {
		struct pp_env env = pp_env_for(s);
		int before = diag_errors;
		struct token *tok = tokenize(src);

		if (diag_errors == before)
			s->tapset_macros = preprocess_macros(tok, &env);
		return;
	}
	**tail = parse_source(s, src);
	*tail = &(**tail)->next;
}

/*
 * Loads every .stp file of a tapset directory (with tail), or every .stpm
 * macro file (tail NULL), in name order, subdirectories included.
 */
static void load_tapset_dir(struct session *s, const char *dir, struct file ***tail)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = arena_strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		const char *path = arena_printf("%s/%s", dir, names[i]);
		struct stat st;

		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			/* arch directories other than ours are skipped */
			if (!strcmp(names[i], "x86_64") || !strcmp(names[i], "linux"))
				load_tapset_dir(s, path, tail);
			continue;
		}
		if (has_suffix(names[i], tail ? ".stp" : ".stpm"))
			load_tapset_file(s, path, tail);
	}
	free(names);
}

int load_tapsets(struct session *s)
{
	struct file **tail = &s->tapset_files;

	for (int i = 0; i < s->nincdirs; i++)
		load_tapset_dir(s, s->incdirs[i], &tail);
	load_tapset_dir(s, arena_printf("%s/tapsets", s->datadir), &tail);
	return diag_errors ? -1 : 0;
}

int load_tapset_macros(struct session *s)
{
	for (int i = 0; i < s->nincdirs; i++)
		load_tapset_dir(s, s->incdirs[i], NULL);
	load_tapset_dir(s, arena_printf("%s/tapsets", s->datadir), NULL);
	return diag_errors ? -1 : 0;
}

/* ---- lookups ---- */

/* The file a name is written in: an alias's body mixes the tapset's with the script's. */
static const struct source *written_in(const struct scope *sc, struct loc loc)
{
	return loc.src ? loc.src : sc->src;
}

static bool visible(const struct source *owner, bool is_private, const struct source *from)
{
	return !is_private || owner == from;
}

static struct file *all_files(struct session *s)
{
	/* the user's file first, then the tapsets: the script shadows the library */
	static struct file head;

	head = *s->user_file;
	head.next = s->tapset_files;
	return &head;
}

/*
 * The overloads of name with nargs parameters visible from a file, in the
 * order a call tries them: by priority, then as declared (the script's
 * before the tapsets'). Each one's 'overload' is the one after it.
 */
static struct function *find_function(struct session *s, const char *name, int nargs,
				      const struct source *from, bool *name_exists)
{
	struct function *first = NULL, **tail;

	*name_exists = false;
	for (struct file *f = all_files(s); f; f = f->next)
		for (struct function *fn = f->functions; fn; fn = fn->next) {
			if (strcmp(fn->name, name) || !visible(fn->src, fn->is_private, from))
				continue;
			*name_exists = true;
			if (fn->nparams != nargs)
				continue;
			for (tail = &first; *tail && (*tail)->priority <= fn->priority;
			     tail = &(*tail)->overload)
				;
			fn->overload = *tail;
			*tail = fn;
		}
	return first;
}

static struct global *find_global(struct session *s, const char *name,
				  const struct source *from)
{
	for (struct file *f = all_files(s); f; f = f->next)
		for (struct global *g = f->globals; g; g = g->next)
			if (!strcmp(g->sym->name, name) && visible(g->src, g->sym->is_private, from))
				return g;
	return NULL;
}

static struct symbol *find_local(struct symbol *list, const char *name)
{
	for (struct symbol *l = list; l; l = l->next)
		if (!strcmp(l->name, name))
			return l;
	return NULL;
}

static void mark_file_used(struct session *s, const struct source *src);

static void use_global(struct session *s, struct global *g)
{
	if (g->used)
		return;
	g->used = true;
	g->sym->index = s->nglobals++;
	mark_file_used(s, g->src);
}

static struct symbol *add_local(struct scope *sc, const char *name, struct loc loc)
{
	struct symbol *l = new_symbol(name, SYM_LOCAL, loc);
	struct symbol **tail = sc->locals;

	while (*tail)
		tail = &(*tail)->next;
	*tail = l;
	return l;
}

static struct symbol *resolve_name(struct session *s, struct scope *sc, const char *name,
				   struct loc loc, bool as_array)
{
	struct symbol *l = find_local(*sc->locals, name);
	struct global *g;

	if (l) {
		if (as_array) {
			error_at(loc, "'%s' is a local variable, not an array (arrays must be global)",
				 name);
			return NULL;
		}
		return l;
	}
	g = find_global(s, name, written_in(sc, loc));
	if (g) {
		use_global(s, g);
		return g->sym;
	}
	if (as_array) {
		error_at(loc, "unresolved array '%s': missing 'global %s' declaration?", name, name);
		return NULL;
	}
	return add_local(sc, name, loc);
}

/* ---- resolving bodies ---- */

static void resolve_function(struct session *s, struct function *fn);

/*
 * Writes to the probed program or kernel need guru mode, as in stap: a
 * pass-2 error. A family's own free variable (procfs's $value) is not one.
 */
static void check_target_write(struct session *s, struct scope *sc, struct node *lv)
{
	int (*free_write)(struct derived_probe *, struct node *) =
		sc->probe ? sc->probe->prov->free_write : NULL;

	if (!lv || (lv->kind != N_TARGET && lv->kind != N_CAST))
		return;
	if (free_write && free_write(sc->probe, lv))
		return;
	if (s->guru || written_in(sc, lv->loc)->is_tapset)
		return;
	error_at(lv->loc, "write to target variable not permitted; needs guru mode (-g)");
}

static void resolve_node(struct session *s, struct scope *sc, struct node *n);

static void resolve_list(struct session *s, struct scope *sc, struct node *n)
{
	for (; n; n = n->next)
		resolve_node(s, sc, n);
}

static void set_arity(struct symbol *sym, int arity, struct loc loc)
{
	if (!sym)
		return;
	if (sym->arity == -1) {
		sym->arity = arity;
		return;
	}
	if (sym->arity != arity) {
		if (sym->arity == 0)
			error_at(loc, "'%s' is used as an array here but is a scalar", sym->name);
		else if (arity == 0)
			error_at(loc, "array '%s' is used without an index", sym->name);
		else
			error_at(loc, "array '%s' is indexed with %d keys here but with %d elsewhere",
				 sym->name, arity, sym->arity);
		note_at(sym->loc, "'%s' is declared here", sym->name);
	}
}

static void resolve_call(struct session *s, struct scope *sc, struct node *n)
{
	bool exists;
	struct function *fn = find_function(s, n->name, n->nargs, written_in(sc, n->loc), &exists);

	resolve_list(s, sc, n->args);
	if (!fn) {
		if (exists)
			error_at(n->loc, "function '%s' does not take %d argument%s", n->name,
				 n->nargs, n->nargs == 1 ? "" : "s");
		else
			error_at(n->loc, "unresolved function '%s'", n->name);
		return;
	}
	n->fn = fn;
	if (fn->guru && !s->guru)
		error_at(n->loc, "function '%s' may not be used unless -g is specified", n->name);
	/* every same-arity overload is checked, as stap does; unreached ones are dropped later */
	for (; fn; fn = fn->overload)
		resolve_function(s, fn);
	if (!n->fn->overload && !n->fn->ctype_mixed) {
		n->ctype = n->fn->ctype;
		n->cmodule = n->fn->cmodule;
	}
}

/* return VALUE: a function all of whose returns are one typed value is typed so. */
static void note_return_type(struct function *fn, const struct node *v)
{
	bool first = fn && !fn->ctype && !fn->ctype_mixed;

	if (!fn || fn->ctype_mixed)
		return;
	if (v && v->ctype && (first || (!strcmp(fn->ctype, v->ctype) &&
					!strcmp(fn->cmodule, v->cmodule)))) {
		fn->ctype = v->ctype;
		fn->cmodule = v->cmodule;
		return;
	}
	fn->ctype = NULL;
	fn->ctype_mixed = true;
}

static void resolve_array_ref(struct session *s, struct scope *sc, struct node *arr, int arity)
{
	if (arr->kind != N_VAR) {
		error_at(arr->loc, "expected an array name");
		return;
	}
	arr->sym = resolve_name(s, sc, arr->name, arr->loc, true);
	set_arity(arr->sym, arity, arr->loc);
}

static void resolve_foreach(struct session *s, struct scope *sc, struct node *n)
{
	struct node *arr = n->lhs->kind == N_INDEX ? n->lhs->lhs : n->lhs;
	bool was_loop = sc->in_loop;

	if (n->lhs->kind == N_HIST) {
		/* foreach (b in @hist_log(x)): b runs over the bucket numbers */
		if (n->fe_nkeys != 1)
			error_at(n->lhs->loc, "foreach over histogram buckets takes one variable");
		resolve_node(s, sc, n->lhs);
	} else {
		resolve_array_ref(s, sc, arr, n->fe_nkeys);
	}
	if (n->lhs->kind == N_INDEX)
		resolve_list(s, sc, n->lhs->args);
	for (int i = 0; i < n->fe_nkeys; i++) {
		struct symbol *k = n->fe_keys[i];
		struct symbol *l;

		if (!k)
			continue;
		l = find_local(*sc->locals, k->name);
		if (!l && find_global(s, k->name, sc->src))
			error_at(k->loc, "foreach key '%s' must be a local variable, not a global",
				 k->name);
		n->fe_keys[i] = l ? l : add_local(sc, k->name, k->loc);
	}
	if (n->fe_value) {
		struct symbol *l = find_local(*sc->locals, n->fe_value->name);

		n->fe_value = l ? l : add_local(sc, n->fe_value->name, n->fe_value->loc);
	}
	if (n->fe_limit)
		resolve_node(s, sc, n->fe_limit);
	sc->in_loop = true;
	resolve_node(s, sc, n->body);
	sc->in_loop = was_loop;
}

static void resolve_loop(struct session *s, struct scope *sc, struct node *n)
{
	bool was_loop = sc->in_loop;

	resolve_node(s, sc, n->init);
	resolve_node(s, sc, n->cond);
	resolve_node(s, sc, n->inc);
	sc->in_loop = true;
	resolve_node(s, sc, n->body);
	sc->in_loop = was_loop;
}

static bool is_target(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ENTRY;
}

/* $vars belong to the probe's family: its provider checks and types them. */
/*
 * Index expressions and @cast operands are ordinary script expressions; the
 * target variable in @entry() is the provider's to resolve, with @entry.
 */
static void resolve_target_args(struct session *s, struct scope *sc, struct node *n)
{
	for (struct node *a = n->args; a; a = a->next)
		if (!(a->kind == N_STR && a->op && !strcmp(a->op, "->")))
			resolve_node(s, sc, a);
	if (n->kind == N_ENTRY && n->lhs && n->lhs->kind == N_TARGET)
		resolve_target_args(s, sc, n->lhs);
	else
		resolve_node(s, sc, n->lhs);
}

/* One entry of a @cast module list: "kernel", "kernel<h.h>", or a kernel module's name. */
static bool is_kernel_module_entry(const char *m, size_t len, bool in_process)
{
	if (len >= 6 && !strncmp(m, "kernel", 6) && (len == 6 || m[6] == '<'))
		return true;
	/* a bare name is a kernel module's but in a process probe, where it is a binary's */
	if (!len || in_process)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)m[i]) && m[i] != '_' && m[i] != '-')
			return false;
	return true;
}

/*
 * @cast(p, "type", "kernel"), "kernel<header.h>", "nfs" or a list of them
 * ("kernel:nfs") reads a kernel or kernel module type in any probe or
 * function; with no module too, but in a process probe (whose module is
 * its binary). Else the probe's family resolves it.
 */
static bool is_kernel_cast(const struct session *s, const struct scope *sc, const struct node *n)
{
	const struct node *module = n->lhs && n->lhs->next ? n->lhs->next->next : NULL;
	bool in_process = sc->probe && !strcmp(sc->probe->point->comps->name, "process");

	if (n->kind != N_CAST || strcmp(n->name, "@cast") || !s->kernel_cast)
		return false;
	if (!module)
		return !in_process;	/* stap takes the probe's own module */
	if (module->kind != N_STR)
		return false;
	for (const char *m = module->str;; m += strcspn(m, ":") + 1) {
		if (!is_kernel_module_entry(m, strcspn(m, ":"), in_process))
			return false;
		if (!m[strcspn(m, ":")])
			return true;
	}
}

/* $x$ where the family cannot pretty-print: an error, before the family sees $x. */
static bool pretty_refused(const struct provider *prov, const struct node *n, const char *where)
{
	if (!n->pretty || prov->pretty)
		return false;
	error_at(n->loc, "pretty-printing ('%.*s' after %s) is not supported in %s yet; print "
		 "the members you want", n->pretty, "$$", n->name,
		 where);
	return true;
}

/* @var("name") outside a process probe: a kernel variable. */
static bool is_kernel_var(const struct session *s, const struct scope *sc, const struct node *n)
{
	return n->kind == N_CAST && !strcmp(n->name, "@var") && s->kernel_var &&
	       (!sc->probe || strcmp(sc->probe->point->comps->name, "process"));
}

/* @cast(p, "type", "/path/to/binary" or "<header.h>") outside a process probe: user memory. */
static bool is_user_cast(const struct session *s, const struct scope *sc, const struct node *n)
{
	const struct node *module = n->lhs && n->lhs->next ? n->lhs->next->next : NULL;

	if (n->kind != N_CAST || strcmp(n->name, "@cast") || !s->user_cast || !module ||
	    module->kind != N_STR || (module->str[0] != '<' && !strchr(module->str, '/')))
		return false;
	return !sc->probe || strcmp(sc->probe->point->comps->name, "process");
}

/* The provider of a target variable that needs no probe of its family, or NULL. */
static const struct provider *context_free_provider(const struct session *s,
						    const struct scope *sc, const struct node *n)
{
	if (is_kernel_var(s, sc, n))
		return s->kernel_var;
	if (is_kernel_cast(s, sc, n))
		return s->kernel_cast;
	if (is_user_cast(s, sc, n))
		return s->user_cast;
	return NULL;
}

static void resolve_target(struct session *s, struct scope *sc, struct node *n);

static struct node *string_at(struct loc loc, const char *str)
{
	struct node *n = arena_alloc(sizeof(*n));

	n->kind = N_STR;
	n->loc = loc;
	n->str = str;
	n->str_len = strlen(str);
	n->type = TY_STRING;
	return n;
}

/*
 * x->member: x a local assigned a typed value earlier in the body becomes
 * @cast(x, "TYPE", "MODULE")->member, as stap's autocast reads it.
 */
static void resolve_autocast(struct session *s, struct scope *sc, struct node *n)
{
	struct node *var = n->lhs, *type, *module;

	resolve_node(s, sc, var);
	if (var->kind == N_CALL) {
		if (!var->fn)
			return;
		if (!var->ctype) {
			error_at(n->loc, "'%s()' has no type for '->': its returns are not one typed "
				 "value (a $variable, @cast or @var pointer to a struct); write "
				 "@cast(%s(...), \"struct ...\")", var->name, var->name);
			return;
		}
	} else if (var->kind != N_VAR) {
		/* (expr)->m: a target value, or the live branch of a known condition */
		if (!var->ctype) {
			error_at(n->loc, "this expression has no type for '->': it is not a "
				 "$variable, @cast or @var pointer to a struct; write "
				 "@cast(EXPR, \"struct ...\")");
			return;
		}
	} else if (!var->sym) {
		return;
	} else if (!var->sym->ctype) {
		error_at(n->loc, "'%s' has no type for '->': it must be a local assigned a typed value "
			 "(a $variable, @cast or @var pointer to a struct) before this use; or "
			 "write @cast(%s, \"struct ...\")", var->name, var->name);
		return;
	}
	type = string_at(var->loc, var->kind == N_VAR ? var->sym->ctype : var->ctype);
	module = string_at(var->loc, var->kind == N_VAR ? var->sym->cmodule : var->cmodule);
	var->next = type;
	type->next = module;
	n->name = "@cast";
	n->nargs = 3;
	resolve_target(s, sc, n);
}

/* After x = VALUE: a local keeps the type of a typed value for autocast. */
static void note_assigned_type(struct node *n)
{
	struct symbol *sym = n->lhs->sym;

	if (n->kind != N_ASSIGN || strcmp(n->op, "=") || n->lhs->kind != N_VAR || !sym ||
	    sym->kind == SYM_GLOBAL)
		return;
	sym->ctype = n->rhs->ctype;
	sym->cmodule = n->rhs->cmodule;
}

static void resolve_target(struct session *s, struct scope *sc, struct node *n)
{
	const struct provider *prov = sc->probe ? sc->probe->prov : NULL;

	if (n->kind == N_CAST && !strcmp(n->name, "@autocast")) {
		resolve_autocast(s, sc, n);
		return;
	}
	if (n->kind == N_CAST && !strcmp(n->name, "@perf")) {
		if (s->perf_counter)
			s->perf_counter->target_var(s, sc->probe, n, false);
		else
			error_at(n->loc, "@perf needs perf counter probes, which are not here");
		return;
	}
	if (context_free_provider(s, sc, n)) {
		prov = context_free_provider(s, sc, n);
		resolve_target_args(s, sc, n);
		if (!pretty_refused(prov, n, arena_printf("a kernel %s", n->name)))
			prov->target_var(s, sc->probe, n, false);
		return;
	}
	if (!sc->probe) {
		error_at(n->loc, "target variable '%s' is only available in a probe handler, not "
			 "in a function", n->name ? n->name : "@cast");
		return;
	}
	if (!prov->target_var) {
		error_at(n->loc, "target variable '%s' is not available in probe '%s'",
			 n->name ? n->name : "@cast", sc->probe->pp);
		return;
	}
	resolve_target_args(s, sc, n);
	if (!pretty_refused(prov, n, arena_printf("probe '%s'", sc->probe->pp)))
		prov->target_var(s, sc->probe, n, false);
}

static bool has_target_vars(const struct node *n)
{
	if (!n)
		return false;
	if (is_target(n))
		return true;
	if (has_target_vars(n->lhs) || has_target_vars(n->rhs) || has_target_vars(n->cond) ||
	    has_target_vars(n->then) || has_target_vars(n->els) || has_target_vars(n->init) ||
	    has_target_vars(n->inc) || has_target_vars(n->catch_body) ||
	    has_target_vars(n->fe_limit))
		return true;
	for (const struct node *c = n->body; c; c = c->next)
		if (has_target_vars(c))
			return true;
	for (const struct node *c = n->args; c; c = c->next)
		if (has_target_vars(c))
			return true;
	return false;
}

/* A condition known at translate time (after @defined is folded): *v gets it. */
static bool const_cond(const struct node *n, int64_t *v)
{
	int64_t a;

	if (n->kind == N_NUM) {
		*v = n->num;
		return true;
	}
	if (n->kind == N_UNARY && !strcmp(n->op, "!") && const_cond(n->lhs, &a)) {
		*v = !a;
		return true;
	}
	return false;
}

/* Replaces n by what it evaluates to, keeping its place in a list. */
static void replace_node(struct node *n, const struct node *by)
{
	struct node *next = n->next;

	*n = *by;
	n->next = next;
}

/*
 * if, ?: and && || with a condition known at translate time resolve only
 * the branch that can run, so that @defined($x) ? $x : 0 works where $x
 * is not available: stap drops the dead branch before reporting it.
 * Returns false if the node is not such a construct; resolves it whole
 * otherwise.
 */
static bool resolve_live_branch(struct session *s, struct scope *sc, struct node *n)
{
	int64_t v;

	if (n->kind != N_IF && n->kind != N_TERNARY && n->kind != N_LOGICAL)
		return false;
	if (n->kind == N_LOGICAL) {
		resolve_node(s, sc, n->lhs);
		if (!const_cond(n->lhs, &v) || (!strcmp(n->op, "&&") ? v != 0 : v == 0)) {
			resolve_node(s, sc, n->rhs);	/* the right side decides */
			return true;
		}
		n->kind = N_NUM;
		n->num = v != 0;
		n->type = TY_LONG;
		return true;
	}
	resolve_node(s, sc, n->cond);
	if (!const_cond(n->cond, &v)) {
		resolve_node(s, sc, n->then);
		resolve_node(s, sc, n->els);
		return true;
	}
	if (n->kind == N_TERNARY) {
		struct node *live = v ? n->then : n->els;

		resolve_node(s, sc, live);
		replace_node(n, live);
		return true;
	}
	if (v) {
		resolve_node(s, sc, n->then);
		n->els = NULL;
	} else {
		resolve_node(s, sc, n->els);
		n->then = NULL;
	}
	return true;
}

static void resolve_node(struct session *s, struct scope *sc, struct node *n)
{
	if (!n)
		return;
	if (resolve_live_branch(s, sc, n))
		return;
	switch (n->kind) {
	case N_NUM:
	case N_STR:
	case N_NULL:
	case N_ARGC:
		return;
	case N_VAR:
		n->sym = resolve_name(s, sc, n->name, n->loc, false);
		if (n->sym)
			set_arity(n->sym, 0, n->loc);
		return;
	case N_INDEX:
		resolve_array_ref(s, sc, n->lhs, n->nargs);
		n->sym = n->lhs->sym;
		resolve_list(s, sc, n->args);
		return;
	case N_IN:
		resolve_array_ref(s, sc, n->lhs, n->nargs);
		n->sym = n->lhs->sym;
		resolve_list(s, sc, n->args);
		return;
	case N_CALL:
		resolve_call(s, sc, n);
		return;
	case N_PRINT:
		resolve_list(s, sc, n->args);
		return;
	case N_STATOP:
	case N_HIST:
		resolve_node(s, sc, n->lhs);
		resolve_list(s, sc, n->args);
		resolve_node(s, sc, n->rhs);
		return;
	case N_FOREACH:
		resolve_foreach(s, sc, n);
		return;
	case N_WHILE:
	case N_FOR:
		resolve_loop(s, sc, n);
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!sc->in_loop)
			error_at(n->loc, "'%s' outside a loop", n->kind == N_BREAK ? "break" :
				 "continue");
		return;
	case N_DELETE:
		/* "delete a" names a whole array or a scalar: no arity implied */
		if (n->lhs->kind == N_VAR) {
			n->lhs->sym = resolve_name(s, sc, n->lhs->name, n->lhs->loc, false);
			return;
		}
		resolve_node(s, sc, n->lhs);
		return;
	case N_NEXT:
		/* in a function it falls through to the next overload (stap 4.x) */
		if (sc->fn)
			sc->fn->can_next = true;
		else if (!sc->in_probe)
			error_at(n->loc, "'next' is only allowed in a probe body");
		return;
	case N_RETURN:
		if (!sc->fn)
			error_at(n->loc, "'return' outside a function; use 'next' to leave a probe");
		resolve_node(s, sc, n->lhs);
		note_return_type(sc->fn, n->lhs);
		return;
	case N_TRY:
		resolve_node(s, sc, n->body);
		if (n->catch_var) {
			struct symbol *l = find_local(*sc->locals, n->catch_var->name);

			n->catch_var = l ? l : add_local(sc, n->catch_var->name, n->catch_var->loc);
		}
		resolve_node(s, sc, n->catch_body);
		return;
	case N_PROBEWRITE:
		error_at(n->loc, "@probewrite(%s) is only known in a probe that uses an alias; "
			 "write it in the alias's blocks (probe NAME = POINT { ... }, { ... })",
			 n->name);
		return;
	case N_EMBED:
		if (s->guru || written_in(sc, n->loc)->is_tapset)
			return;
		if (n->name)
			error_at(n->loc, "%s reads a C constant, which needs guru mode (-g)", n->name);
		else
			error_at(n->loc, "embedded C code needs guru mode (-g)");
		return;
	case N_TARGET:
	case N_CAST:
	case N_ENTRY:
		resolve_target(s, sc, n);
		return;
	case N_DEFINED:
		/* @defined(x): only target variables can be undefined */
		if (context_free_provider(s, sc, n->lhs)) {
			n->num = context_free_provider(s, sc, n->lhs)->target_var(
					 s, sc->probe, clone_node(n->lhs), true) == 0;
		} else if (is_target(n->lhs)) {
			n->num = sc->probe && sc->probe->prov->target_var &&
				 sc->probe->prov->target_var(s, sc->probe, clone_node(n->lhs), true) == 0;
		} else {
			n->num = 1;
			resolve_node(s, sc, n->lhs);
		}
		n->kind = N_NUM;
		n->type = TY_LONG;
		return;
	case N_ASSIGN:
		check_target_write(s, sc, n->lhs);
		resolve_node(s, sc, n->lhs);
		resolve_node(s, sc, n->rhs);
		note_assigned_type(n);
		return;
	case N_PREINC:
	case N_POSTINC:
		check_target_write(s, sc, n->lhs);
		break;
	default:
		break;
	}
	resolve_node(s, sc, n->lhs);
	resolve_node(s, sc, n->rhs);
	resolve_node(s, sc, n->cond);
	resolve_node(s, sc, n->then);
	resolve_node(s, sc, n->els);
	resolve_list(s, sc, n->body);
	resolve_list(s, sc, n->args);
}

static void resolve_function(struct session *s, struct function *fn)
{
	struct scope sc;

	if (fn->used)
		return;
	fn->used = true;
	fn->locals = fn->params;
	mark_file_used(s, fn->src);
	if (fn->embedded) {
		if (!s->guru && !fn->src->is_tapset)
			error_at(fn->loc, "function '%s' has embedded C code, which needs guru mode (-g)",
				 fn->name);
	} else {
		sc = (struct scope){ .locals = &fn->locals, .fn = fn, .src = fn->src };
		resolve_node(s, &sc, fn->body);
	}
	{
		struct function **tail = &s->functions;

		while (*tail)
			tail = &(*tail)->next_used;
		*tail = fn;
	}
}

/* ---- probes and aliases ---- */

static struct node *block_of(struct node *first, struct node *second, struct loc loc)
{
	struct node *b = arena_alloc(sizeof(*b));

	b->kind = N_BLOCK;
	b->loc = loc;
	first = clone_node(first);
	second = clone_node(second);
	first->next = second;
	b->body = first;
	return b;
}

static struct node *and_conditions(struct node *a, struct node *b)
{
	struct node *n;

	if (!a)
		return b;
	if (!b)
		return a;
	n = arena_alloc(sizeof(*n));
	n->kind = N_LOGICAL;
	n->op = "&&";
	n->loc = a->loc;
	n->lhs = a;
	n->rhs = b;
	return n;
}

static bool component_matches(const struct pp_component *pattern, const struct pp_component *name)
{
	if (fnmatch(pattern->name, name->name, 0) != 0)
		return false;
	if (!pattern->arg && !name->arg)
		return true;
	if (!pattern->arg || !name->arg || pattern->arg->kind != name->arg->kind)
		return false;
	if (name->arg->kind == N_NUM)
		return pattern->arg->num == name->arg->num;
	return fnmatch(pattern->arg->str, name->arg->str, 0) == 0;
}

/* Returns the components of point left after an alias name, or NULL if it doesn't match. */
static bool alias_matches(const struct probe_point *point, const struct probe_point *alias_name,
			  const struct pp_component **suffix)
{
	const struct pp_component *p = point->comps, *a = alias_name->comps;

	for (; a; a = a->next, p = p->next)
		if (!p || !component_matches(p, a))
			return false;
	*suffix = p;
	return true;
}

static struct probe_point *with_suffix(const struct probe_point *target,
				       const struct pp_component *suffix, bool optional)
{
	struct probe_point *pp = arena_alloc(sizeof(*pp));
	struct pp_component head = { 0 }, *cur = &head;

	*pp = *target;
	pp->next = NULL;
	for (const struct pp_component *c = target->comps; c; c = c->next) {
		cur = cur->next = arena_alloc(sizeof(*cur));
		*cur = *c;
		cur->next = NULL;
	}
	for (const struct pp_component *c = suffix; c; c = c->next) {
		cur = cur->next = arena_alloc(sizeof(*cur));
		*cur = *c;
		cur->next = NULL;
	}
	pp->comps = head.next;
	pp->optional = pp->optional || optional;
	return pp;
}

static int derive_point(struct session *s, struct probe *probe, struct probe_point *point,
			struct node *body, struct node *cond, bool aliased);

/*
 * Set while a point with a '*' in a component's name resolves: as in stap,
 * what one candidate cannot be (syscall_any.s(1) for *.s(1)) is no error,
 * only no match; the point as a whole must still match something.
 */
static bool wildcard_quiet;
/* The next derive_point() is a family's, for a wildcard the aliases were already matched to */
static bool families_only;

static bool has_name_wildcard(const struct probe_point *pp)
{
	for (const struct pp_component *c = pp->comps; c; c = c->next)
		if (strchr(c->name, '*'))
			return true;
	return false;
}

/* *.s(1): each probe family whose first component the pattern matches, once */
static int derive_family_wildcard(struct session *s, struct probe *probe,
				  struct probe_point *point, struct node *body, struct node *cond)
{
	int total = 0;

	for (const struct probe_family *f = s->families; f && f->first; f++) {
		const struct probe_family *g = s->families;
		struct probe_point *named;
		struct pp_component *first;
		int n;

		while (g != f && strcmp(g->first, f->first))
			g++;
		if (g != f || f->first[0] == '_' || fnmatch(point->comps->name, f->first, 0))
			continue;
		named = with_suffix(point, NULL, false);
		first = arena_alloc(sizeof(*first));
		*first = *named->comps;
		first->name = f->first;
		named->comps = first;
		families_only = true;
		n = derive_point(s, probe, named, body, cond, false);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/* The first component after the first whose name is a pattern, or NULL. */
static struct pp_component *later_wildcard(const struct probe_point *pp)
{
	for (struct pp_component *c = pp->comps->next; c; c = c->next)
		if (strchr(c->name, '*') || strchr(c->name, '?'))
			return c;
	return NULL;
}

/* POINT with component WILD named NAME, and with '**' kept after it when MORE */
static struct probe_point *with_component(const struct probe_point *point,
					  const struct pp_component *wild, const char *name,
					  bool more)
{
	struct probe_point *named = with_suffix(point, NULL, false);
	struct pp_component *c = named->comps;

	for (const struct pp_component *o = point->comps; o != wild; o = o->next)
		c = c->next;
	c->name = name;
	if (more) {
		struct pp_component *rest = arena_alloc(sizeof(*rest));

		*rest = *c;
		rest->name = "**";
		c->arg = NULL;
		c->next = rest;
	}
	return named;
}

/* How many components a '**' is standing for at most: stap's trees are shallow. */
enum { MAX_GLOB_COMPONENTS = 3 };
static int glob_components;

/*
 * timer.*(1), kernel.*("sched:*"): a pattern after the first component
 * stands for each name the point's families take there ('**' for one to
 * three of them), each resolved quietly, as stap expands its match tree.
 */
static int derive_component_wildcard(struct session *s, struct probe *probe,
				     struct probe_point *point, struct pp_component *wild,
				     struct node *body, struct node *cond, bool aliased)
{
	const char *tried[64];
	int ntried = 0, total = 0;
	bool globstar = !strcmp(wild->name, "**");

	for (const struct probe_family *f = s->families; f && f->first; f++) {
		if (strcmp(f->first, point->comps->name) || !f->prov->words)
			continue;
		for (const char *const *w = f->prov->words; *w; w++) {
			bool seen = false;

			for (int i = 0; i < ntried; i++)
				seen |= !strcmp(tried[i], *w);
			if (seen || ntried == (int)ARRAY_LEN(tried) ||
			    (!globstar && fnmatch(wild->name, *w, 0)))
				continue;
			tried[ntried++] = *w;
			for (int more = 0; more <= (globstar && glob_components <
						    MAX_GLOB_COMPONENTS - 1); more++) {
				int n;

				glob_components += more;
				n = derive_point(s, probe, with_component(point, wild, *w, more),
						 body, cond, aliased);
				glob_components -= more;
				if (n < 0)
					return -1;
				total += n;
			}
		}
	}
	return total;
}

/* The outermost alias name (with the point's suffix) being expanded: -l lists it. */
static const char *alias_listed_pp;

/* The aliases being expanded, innermost first: -p2 prints them after "<-". */
static const char *alias_origin;

/* "NAME = POINT, POINT <- " and the outer aliases' text */
static const char *alias_origin_text(const struct probe *alias, const char *outer)
{
	struct strbuf sb = { 0 };
	const char *text;

	dump_probe_head(&sb, alias);
	sb_puts(&sb, " <- ");
	sb_puts(&sb, outer ? outer : "");
	text = arena_strdup(sb.buf);
	sb_free(&sb);
	return text;
}

static struct node *new_empty_block(struct loc loc)
{
	struct node *b = arena_alloc(sizeof(*b));

	b->kind = N_BLOCK;
	b->loc = loc;
	return b;
}

/*
 * `NAME = __unavailable("why")` in an alias body: a variable stap's alias
 * has that the stock kernel cannot give without debuginfo. Reading it is an
 * error at the use, naming why; the statement itself is dropped.
 */
static const char *unavailable_marker(const struct node *st)
{
	const struct node *a = st->kind == N_EXPR_STMT ? st->lhs : NULL;

	if (!a || a->kind != N_ASSIGN || strcmp(a->op, "=") || a->lhs->kind != N_VAR ||
	    a->rhs->kind != N_CALL || strcmp(a->rhs->name, "__unavailable") ||
	    !a->rhs->args || a->rhs->args->kind != N_STR)
		return NULL;
	return a->rhs->args->str;
}

struct unavailable_use {
	const char *name;
	struct node *use;
};

static void find_unavailable_use(struct node *n, void *ctx)
{
	struct unavailable_use *u = ctx;

	if (!u->use && n->kind == N_VAR && !strcmp(n->name, u->name))
		u->use = n;
}

/* The alias's body without its markers; NULL after an error at a use of a marked variable. */
static struct node *alias_body_for(const struct probe *alias, struct node *body, struct node *cond)
{
	struct node *b, head = { 0 }, *cur = &head;

	if (!alias->body || alias->body->kind != N_BLOCK)
		return alias->body ? alias->body : new_empty_block(body->loc);
	b = arena_alloc(sizeof(*b));
	*b = *alias->body;
	for (struct node *st = alias->body->body; st; st = st->next) {
		const char *why = unavailable_marker(st);
		struct unavailable_use u = { why ? st->lhs->lhs->name : NULL, NULL };

		if (!why) {
			cur = cur->next = clone_node(st);
			continue;
		}
		ast_walk(body, find_unavailable_use, &u);
		ast_walk(cond, find_unavailable_use, &u);
		if (u.use) {
			error_at(u.use->loc, "'%s' is not available in this probe: %s", u.name, why);
			return NULL;
		}
	}
	b->body = head.next;
	return b;
}

/* ---- @probewrite ---- */

struct probewrite {
	const char *name;
	bool written;
};

static bool names(const struct node *lv, const char *name)
{
	if (lv && lv->kind == N_INDEX)
		lv = lv->lhs;
	return lv && (lv->kind == N_VAR || (lv->kind == N_TARGET && !lv->args)) &&
	       !strcmp(lv->name, name);
}

/* A write as stap counts one: assignment, ++/--, <<<, delete, a foreach or catch binding */
static void find_write(struct node *n, void *arg)
{
	struct probewrite *w = arg;

	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_AGG_ADD:
	case N_DELETE:
		w->written |= names(n->lhs, w->name);
		return;
	case N_FOREACH:
		for (int i = 0; i < n->fe_nkeys; i++)
			w->written |= !strcmp(n->fe_keys[i]->name, w->name);
		w->written |= n->fe_value && !strcmp(n->fe_value->name, w->name);
		return;
	case N_TRY:
		w->written |= n->catch_var && !strcmp(n->catch_var->name, w->name);
		return;
	default:
		return;
	}
}

static void settle_probewrite(struct node *n, void *body)
{
	struct probewrite w = { n->name, false };

	if (n->kind != N_PROBEWRITE)
		return;
	ast_walk(body, find_write, &w);
	n->kind = N_NUM;
	n->num = w.written;
}

/* An alias's probe: each @probewrite in it is 1 if the body the alias was
 * given (the user's, with any outer alias's prologue) writes the variable */
static struct node *alias_block(const struct probe *alias, struct node *prologue,
				struct node *body)
{
	struct node *b = alias->is_epilogue ? block_of(body, prologue, body->loc) :
			 block_of(prologue, body, body->loc);

	if (alias->epilogue)
		b = block_of(b, alias->epilogue, body->loc);
	ast_walk(b, settle_probewrite, body);
	return b;
}

/*
 * An alias body that starts with the statement `__unavailable("why")`: a
 * probe point stap has that the stock kernel cannot give a module (a
 * function of a module whose BTF utap does not read). Using it is an error at
 * the point, naming why; an optional use matches nothing.
 */
static const char *unavailable_alias(const struct probe *alias)
{
	const struct node *st = alias->body && alias->body->kind == N_BLOCK ? alias->body->body :
			       NULL;
	const struct node *call = st && st->kind == N_EXPR_STMT ? st->lhs : NULL;

	if (!call || call->kind != N_CALL || strcmp(call->name, "__unavailable") ||
	    !call->args || call->args->kind != N_STR)
		return NULL;
	return call->args->str;
}

/* Why the last unavailable alias a point matched cannot be had, for a wildcard's error. */
static const char *unavailable_seen;

static int derive_alias(struct session *s, struct probe *probe, struct probe_point *point,
			struct probe_point *name, struct node *body, struct node *cond,
			struct probe *alias, const struct pp_component *suffix)
{
	const char *saved_listed = alias_listed_pp, *saved_origin = alias_origin;
	const char *why = unavailable_alias(alias);
	struct node *alias_body;
	int total = 0, n = 0;

	if (why) {
		unavailable_seen = why;
		if (point->optional || wildcard_quiet)
			return 0;
		error_at(point->loc, "probe point '%s' is not available: %s", pp_string(point), why);
		return -1;
	}
	alias_body = alias_body_for(alias, body, cond);
	if (!alias_body)
		return -1;
	/* -L lists every variable of the alias, used or not */
	if (alias_body != alias->body && !alias->is_epilogue && !s->list_pattern)
		elide_unread_alias_vars(s, alias_body, body, cond);

	if (alias_depth == 1)
		alias_listed_pp = pp_string(with_suffix(name, suffix, false));
	alias_origin = alias_origin_text(alias, alias_origin);

	for (struct probe_point *t = alias->points; t; t = t->next) {
		struct probe_point *target = with_suffix(t, suffix, point->optional);
		struct node *combined = alias_block(alias, alias_body, body);

		n = derive_point(s, probe, target, combined, and_conditions(cond, t->cond), true);
		if (n < 0)
			break;
		total += n;
		if (n > 0 && t->sufficient)
			break;
	}
	/* an alias a wildcard tried that gave nothing brings none of its file */
	if (total > 0)
		mark_file_used(s, alias->src);
	alias_listed_pp = saved_listed;
	alias_origin = saved_origin;
	return n < 0 ? -1 : total;
}

static const struct provider *find_provider(const struct session *s, const struct probe_point *pp)
{
	for (const struct probe_family *f = s->families; f && f->first; f++)
		if (!strcmp(f->first, pp->comps->name) && (!f->prov->match || f->prov->match(pp)))
			return f->prov;
	return NULL;
}

static int count_components(const struct pp_component *c)
{
	int n = 0;

	for (; c; c = c->next)
		n++;
	return n;
}

/* The fewest components any alias leaves as a suffix of point, or -1 if
 * no alias matches: the most specific alias wins, as in stap, so that
 * "foo.a.return = ..." is used for foo.a.return rather than "foo.a" + .return. */
static int shortest_alias_suffix(struct session *s, const struct probe_point *point)
{
	int best = -1;

	for (struct file *f = all_files(s); f; f = f->next)
		for (struct probe *a = f->probes; a; a = a->next)
			for (struct probe_point *name = a->alias_names; a->is_alias && name;
			     name = name->next) {
				const struct pp_component *suffix;
				int n;

				if (!alias_matches(point, name, &suffix))
					continue;
				n = count_components(suffix);
				if (best < 0 || n < best)
					best = n;
			}
	return best;
}

/*
 * An optional point that fails to resolve (a family's component it does not
 * have, a bad argument) matches nothing, quietly, as in stap: what it derived
 * is taken back and its errors are not shown.
 */
static int resolve_optional(struct session *s, const struct provider *prov,
			    struct probe_point *point, struct derived_probe *proto)
{
	struct derived_probe **tail = derived_tail;
	int errors = diag_errors, nderived = s->nderived, n;
	bool silent = diag_silent;

	diag_silent = true;
	n = prov->resolve(s, point, proto);
	diag_silent = silent;
	if (n >= 0 && diag_errors == errors)
		return n;
	diag_errors = errors;
	*tail = NULL;
	derived_tail = tail;
	s->nderived = nderived;
	return 0;
}

static int derive_point(struct session *s, struct probe *probe, struct probe_point *point,
			struct node *body, struct node *cond, bool aliased)
{
	struct derived_probe proto = { 0 };
	const struct provider *prov;
	int total = 0;
	bool any_alias = false;
	int want_suffix;

	if (++alias_depth > 32) {
		error_at(point->loc, "probe alias expansion is too deep (recursive alias?)");
		alias_depth--;
		return -1;
	}
	want_suffix = families_only ? -1 : shortest_alias_suffix(s, point);
	families_only = false;
	for (struct file *f = all_files(s); f; f = f->next) {
		for (struct probe *a = f->probes; a; a = a->next) {
			const struct pp_component *suffix;

			if (!a->is_alias || want_suffix < 0)
				continue;
			for (struct probe_point *name = a->alias_names; name; name = name->next) {
				int n;

				if (!alias_matches(point, name, &suffix) ||
				    count_components(suffix) != want_suffix)
					continue;
				any_alias = true;
				n = derive_alias(s, probe, point, name, body, cond, a, suffix);
				if (n < 0) {
					alias_depth--;
					return -1;
				}
				total += n;
				break;
			}
		}
	}
	if (strchr(point->comps->name, '*')) {
		/* a wildcard first component stands for aliases and families alike */
		int n = derive_family_wildcard(s, probe, point, body, cond);

		alias_depth--;
		return n < 0 ? -1 : total + n;
	}
	if (later_wildcard(point)) {
		int n = derive_component_wildcard(s, probe, point, later_wildcard(point), body,
						  cond, aliased);

		alias_depth--;
		return n < 0 ? -1 : total + n;
	}
	if (any_alias) {
		alias_depth--;
		return total;
	}
	prov = find_provider(s, point);
	alias_depth--;
	if (!prov) {
		if (point->optional || wildcard_quiet)
			return 0;
		error_at(point->loc, "unknown probe point '%s'", pp_string(point));
		return -1;
	}
	proto.prov = prov;
	proto.point = point;
	proto.probe = probe;
	proto.body = body;
	proto.cond = cond;
	proto.listed_pp = aliased ? alias_listed_pp : NULL;
	proto.origin = aliased ? alias_origin : NULL;
	return point->optional || wildcard_quiet ? resolve_optional(s, prov, point, &proto) :
						   prov->resolve(s, point, &proto);
}

static void derive_probe(struct session *s, struct probe *probe)
{
	for (struct probe_point *pp = probe->points; pp; pp = pp->next) {
		int n;

		wildcard_quiet = has_name_wildcard(pp);
		unavailable_seen = NULL;
		n = derive_point(s, probe, pp, probe->body, pp->cond, false);
		wildcard_quiet = false;

		if (n == 0 && !pp->optional && unavailable_seen)
			error_at(pp->loc, "probe point '%s' is not available: %s", pp_string(pp),
				 unavailable_seen);
		else if (n == 0 && !pp->optional)
			error_at(pp->loc, "probe point '%s' matches nothing (add '?' to make it "
				 "optional)", pp_string(pp));
		if (n > 0 && pp->sufficient)
			break;
	}
}

/* Tapset files whose symbols are used contribute their own (non-alias) probes too. */
static struct file **used_tapsets;	/* as many as there are tapset files */
static int nused_tapsets;

static void mark_file_used(struct session *s, const struct source *src)
{
	(void)s;
	if (!src->is_tapset)
		return;
	for (int i = 0; i < nused_tapsets; i++)
		if (used_tapsets[i]->src == src)
			return;
	for (struct file *f = s->tapset_files; f; f = f->next)
		if (f->src == src)
			used_tapsets[nused_tapsets++] = f;
}

static int nhandlers;

/*
 * Target variables differ per probe point: such bodies are not shared.
 * The copies are made before any is resolved, since resolving folds
 * @defined and drops dead branches in place.
 */
static void unshare_target_bodies(struct session *s, struct derived_probe *from)
{
	for (struct derived_probe *d = from; d; d = d->next) {
		if (!has_target_vars(d->body) && !has_target_vars(d->cond))
			continue;
		for (struct derived_probe *e = s->derived; e != d; e = e->next)
			if (e->body == d->body)
				d->body = clone_node(d->body);
		for (struct derived_probe *e = s->derived; e != d; e = e->next)
			if (e->cond == d->cond && d->cond)
				d->cond = clone_node(d->cond);
	}
}

/* ---- @entry(EXPR) of any expression ---- */

/*
 * @entry(EXPR) where the family cannot save EXPR at the entry itself (an
 * expression that is not a target variable, or a family without entry
 * data: syscalls on sys_exit) becomes, as in stap, a per-thread global
 * that a probe on the matching entry point fills:
 *
 *   global __entry_N%   probe ENTRY? { __entry_N[tid()] = (EXPR) }
 *
 * and the @entry reads it back through a function of the same file.
 */
struct entry_lift {
	struct session *s;
	struct derived_probe *d;
};

static int nentry_lifts;

static bool entry_is_native(const struct derived_probe *d, const struct node *n)
{
	const char *fam = d->prov->name;

	return n->lhs && (n->lhs->kind == N_TARGET || n->lhs->kind == N_CAST) &&
	       (!strcmp(fam, "kernel.function") || !strcmp(fam, "process.function/statement"));
}

/* The point without its .return (and what follows it, .maxactive(N)) */
static const char *entry_point_text(const struct probe_point *pp)
{
	struct probe_point copy = *pp;
	struct pp_component *head = NULL, **tail = &head;

	for (const struct pp_component *c = pp->comps; c && strcmp(c->name, "return"); c = c->next) {
		*tail = arena_alloc(sizeof(**tail));
		**tail = *c;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	copy.comps = head;
	copy.optional = copy.sufficient = false;
	copy.cond = NULL;
	return pp_string(&copy);
}

static void append_file(struct session *s, struct file *f)
{
	struct probe **pt = &s->user_file->probes;
	struct function **ft = &s->user_file->functions;
	struct global **gt = &s->user_file->globals;

	while (*pt)
		pt = &(*pt)->next;
	while (*ft)
		ft = &(*ft)->next;
	while (*gt)
		gt = &(*gt)->next;
	*pt = f->probes;
	*ft = f->functions;
	*gt = f->globals;
}

static void lift_entry(struct node *n, void *arg)
{
	struct entry_lift *l = arg;
	struct strbuf expr = { 0 };
	struct node saved = *n;
	struct file *f;
	const char *text;
	int k;

	if (n->kind != N_ENTRY || entry_is_native(l->d, n) || !n->lhs)
		return;
	k = ++nentry_lifts;
	dump_expr(&expr, n->lhs);
	text = arena_printf("global __entry_%d%%\n"
			    "probe %s? { __entry_%d[tid()] = (%s) }\n"
			    "function __entry_value_%d () { return __entry_%d[tid()] }\n",
			    k, entry_point_text(l->d->point), k, expr.buf ? expr.buf : "0", k, k);
	sb_free(&expr);
	f = parse_source(l->s, source_from_string("<@entry>", text));
	if (!f->probes)
		return;
	append_file(l->s, f);
	memset(n, 0, sizeof(*n));
	n->kind = N_CALL;
	n->name = arena_printf("__entry_value_%d", k);
	n->loc = saved.loc;
	n->near = saved.near;
	n->next = saved.next;
	derive_probe(l->s, f->probes);
}

static void lift_entry_exprs(struct session *s, struct derived_probe *from)
{
	for (struct derived_probe *d = from; d; d = d->next) {
		struct entry_lift l = { s, d };

		if (d->ctx & CTX_RETURN)
			ast_walk(d->body, lift_entry, &l);
	}
}

/* Handlers are shared by derived probes of one body (probe a, b { ... }). */
static struct derived_probe *resolve_probe_bodies(struct session *s, struct derived_probe *from)
{
	struct derived_probe *last = from;

	unshare_target_bodies(s, from);
	lift_entry_exprs(s, from);
	for (struct derived_probe *d = from; d; d = d->next) {
		struct scope sc = { .in_probe = true, .src = d->probe->src, .probe = d };
		struct derived_probe *same = NULL;

		for (struct derived_probe *e = s->derived; e != d; e = e->next)
			if (e->body == d->body && e->cond == d->cond) {
				same = e;
				break;
			}
		last = d;
		if (same) {
			d->handler = same->handler;
			d->locals = same->locals;
			continue;
		}
		sc.locals = &d->locals;
		resolve_node(s, &sc, d->body);
		resolve_node(s, &sc, d->cond);
		d->handler = nhandlers++;
	}
	return last;
}

static void collect_globals(struct session *s)
{
	struct global **tail = &s->globals;

	for (struct file *f = all_files(s); f; f = f->next)
		for (struct global *g = f->globals; g; g = g->next)
			if (g->used) {
				*tail = g;
				tail = &g->next_used;
			}
}

static void collect_embeds(struct session *s)
{
	struct embed **tail = &s->embeds;

	for (struct embed *e = s->user_file->embeds; e; e = e->next) {
		if (!s->guru)
			error_at(e->loc, "embedded C code needs guru mode (-g)");
		*tail = arena_alloc(sizeof(**tail));
		**tail = *e;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	for (int i = 0; i < nused_tapsets; i++)
		for (struct embed *e = used_tapsets[i]->embeds; e; e = e->next) {
			*tail = arena_alloc(sizeof(**tail));
			**tail = *e;
			(*tail)->next = NULL;
			tail = &(*tail)->next;
		}
}

static void check_duplicate_globals(struct session *s)
{
	for (struct global *g = s->user_file->globals; g; g = g->next)
		for (struct global *h = g->next; h; h = h->next)
			if (!strcmp(g->sym->name, h->sym->name)) {
				error_at(h->sym->loc, "duplicate global '%s'", h->sym->name);
				note_at(g->sym->loc, "first declared here");
			}
}

/* ---- overloads no call reaches ---- */

static void reach_function(struct function *fn);

static void reach_node(struct node *n, void *unused)
{
	for (; n; n = n->next) {
		if (n->kind == N_CALL)
			for (struct function *fn = n->fn; fn; fn = fn->can_next ? fn->overload : NULL)
				reach_function(fn);
		visit_children(n, reach_node, unused);
	}
}

static void reach_function(struct function *fn)
{
	if (fn->reached)
		return;
	fn->reached = true;
	reach_node(fn->body, NULL);
}

/* An overload after one that never says 'next' is type-checked but not built or listed. */
static void drop_unreached(struct session *s)
{
	struct function **tail = &s->functions;

	for (struct derived_probe *d = s->derived; d; d = d->next) {
		reach_node(d->body, NULL);
		reach_node(d->cond, NULL);
	}
	while (*tail) {
		if ((*tail)->reached)
			tail = &(*tail)->next_used;
		else
			*tail = (*tail)->next_used;
	}
}

int elaborate(struct session *s)
{
	struct derived_probe *last = NULL;
	int tapsets_done = 0;

	cur = s;
	derived_tail = &s->derived;
	alias_depth = 0;
	nhandlers = 0;
	nused_tapsets = 0;
	{
		int nfiles = 0;

		for (struct file *f = s->tapset_files; f; f = f->next)
			nfiles++;
		used_tapsets = arena_alloc(sizeof(*used_tapsets) * (size_t)(nfiles + 1));
	}
	check_duplicate_globals(s);
	/* a global no probe or function names is dropped, as stap elides it */
	for (struct probe *p = s->user_file->probes; p; p = p->next)
		if (!p->is_alias)
			derive_probe(s, p);
	if (diag_errors)
		return -1;
	if (!s->derived) {
		if (!s->list_pattern)
			errorf("no probes found in the script");
		return -1;
	}
	/* resolving may pull in tapset files whose own probes then join the script */
	for (;;) {
		struct derived_probe *from = last ? last->next : s->derived;

		if (from)
			last = resolve_probe_bodies(s, from);
		/* lifted @entry() expressions add probes, and tapsets add theirs */
		if (tapsets_done == nused_tapsets && !(last && last->next))
			break;
		for (; tapsets_done < nused_tapsets; tapsets_done++)
			for (struct probe *p = used_tapsets[tapsets_done]->probes; p; p = p->next)
				if (!p->is_alias)
					derive_probe(s, p);
	}
	collect_globals(s);
	collect_embeds(s);
	if (diag_errors || infer_types(s))
		return -1;
	/* -L lists an alias's variables whether the probe reads them or not */
	if (!s->list_pattern)
		elide(s);
	drop_unreached(s);
	if (!s->list_pattern)
		elide_globals(s);
	return 0;
}
