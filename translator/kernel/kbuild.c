/*
 * kbuild.c - pass 4: the generated C to a kernel module, with kbuild.
 *
 * Kernel interfaces that change between versions are detected the way
 * autoconf does it: each runtime/autoconf/NAME.c is compiled against the
 * target kernel's headers and defines UTAP_HAVE_NAME when it compiles. The
 * results are cached per kernel build tree, so only the first build against
 * a kernel pays for them.
 */
#include "kernel/kbuild.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads UTS_RELEASE from a build tree, to know which kernel it is for. */
static const char *build_tree_release(const char *kbuild)
{
	char *text = read_file(arena_printf("%s/include/config/kernel.release", kbuild), NULL);

	if (text) {
		text[strcspn(text, "\n")] = 0;
		return text;
	}
	return NULL;
}

void kernel_select(struct session *s)
{
	const char *k = s->kernel;
	struct utsname u;

	if (!k) {
		uname(&u);
		k = arena_strdup(u.release);
	}
	if (strchr(k, '/')) {
		s->kbuild = k;
		s->krel = build_tree_release(k);
	} else {
		s->krel = k;
		s->kbuild = arena_printf("/lib/modules/%s/build", k);
	}
}

static bool is_debian_release(const char *krel)
{
	static const char *const flavours[] = { "-amd64", "-cloud-amd64", "-rt-amd64", "-686",
						"-686-pae", "-arm64" };
	size_t n = strlen(krel);

	for (size_t i = 0; i < ARRAY_LEN(flavours); i++)
		if (n > strlen(flavours[i]) && !strcmp(krel + n - strlen(flavours[i]), flavours[i]))
			return true;
	return false;
}

int kernel_check(struct session *s, const char *alternative)
{
	const char *krel = s->krel ? s->krel : "?";

	if (is_file(arena_printf("%s/Makefile", s->kbuild))) {
		if (!s->krel)
			s->krel = "unknown";
		return 0;
	}
	if (s->krel && !is_debian_release(s->krel) && alternative)
		errorf("kernel build tree '%s' not found: kernel %s is not a Debian kernel, so no "
		       "Debian package has its headers; %s", s->kbuild, krel, alternative);
	else
		errorf("kernel build tree '%s' not found: install the headers for kernel %s "
		       "(Debian: apt-get install linux-headers-%s, or linux-headers-amd64 for "
		       "the current default kernel)%s%s", s->kbuild, krel,
		       s->krel ? s->krel : "<release>", alternative ? "; or " : "",
		       alternative ? alternative : "");
	return -1;
}

struct feature {
	const char *name;	/* file name without .c */
	const char *text;
};

static int list_features(const char *dir, struct feature *out, int max, uint64_t *hash)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name);

		if (len < 3 || strcmp(de->d_name + len - 2, ".c"))
			continue;
		out[n].name = arena_strndup(de->d_name, len - 2);
		out[n].text = read_file(arena_printf("%s/%s", dir, de->d_name), NULL);
		if (!out[n].text)
			continue;
		*hash = hash_bytes(out[n].name, len, *hash);
		*hash = hash_bytes(out[n].text, strlen(out[n].text), *hash);
		n++;
	}
	closedir(d);
	return n;
}

static const char *feature_macro(const char *name)
{
	char *m = arena_printf("UTAP_HAVE_%s", name);

	for (char *p = m; *p; p++)
		*p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	return m;
}

/* Compiles every feature test in one kbuild run (-k: failures are answers). */
static int run_feature_tests(struct session *s, struct feature *f, int n, const char *out)
{
	char *dir = make_tmpdir();
	struct strbuf kb = { 0 }, hdr = { 0 };
	char **argv;
	int argc = 0, rc;

	if (!dir)
		return -1;
	sb_puts(&kb, "obj-m :=");
	argv = arena_alloc(sizeof(char *) * (n + 12));
	argv[argc++] = "make";
	argv[argc++] = "-C";
	argv[argc++] = (char *)s->kbuild;
	argv[argc++] = arena_printf("M=%s", dir);
	argv[argc++] = "-k";
	argv[argc++] = "-j2";
	for (int i = 0; i < n; i++) {
		write_file(arena_printf("%s/%s.c", dir, f[i].name), f[i].text, strlen(f[i].text));
		sb_printf(&kb, " %s.o", f[i].name);
		argv[argc++] = arena_printf("%s.o", f[i].name);
	}
	argv[argc] = NULL;
	sb_putc(&kb, '\n');
	write_file(arena_printf("%s/Kbuild", dir), kb.buf, kb.len);
	run_command(argv, arena_printf("%s/log", dir), true);
	sb_printf(&hdr, "/* kernel feature tests for %s */\n", s->kbuild);
	for (int i = 0; i < n; i++)
		if (is_file(arena_printf("%s/%s.o", dir, f[i].name)))
			sb_printf(&hdr, "#define %s 1\n", feature_macro(f[i].name));
	/* write then rename: concurrent builds never see a half-written file */
	{
		const char *tmp = arena_printf("%s.%d.tmp", out, (int)getpid());

		rc = write_file(tmp, hdr.buf, hdr.len);
		if (rc == 0)
			rc = rename(tmp, out);
	}
	sb_free(&kb);
	sb_free(&hdr);
	if (!s->keep_tmp)
		remove_tree(dir);
	return rc;
}

static const char *autoconf_header(struct session *s)
{
	struct feature f[128];
	uint64_t h = hash_bytes(s->kbuild, strlen(s->kbuild), 0);
	const char *dir = arena_printf("%s/runtime/autoconf", s->datadir);
	int n = list_features(dir, f, 128, &h);
	struct stat st;
	const char *out;

	/* the build tree's generated config changes when the headers are reinstalled */
	if (stat(arena_printf("%s/include/generated/autoconf.h", s->kbuild), &st) == 0) {
		h = hash_bytes(&st.st_mtime, sizeof(st.st_mtime), h);
		h = hash_bytes(&st.st_size, sizeof(st.st_size), h);
	}
	out = arena_printf("%s/%s-%016llx.h", utap_cache_dir("autoconf"), s->krel,
			   (unsigned long long)h);
	if (is_file(out))
		return out;
	if (s->verbose)
		fprintf(stderr, "Probing kernel features of %s (once per kernel)\n", s->kbuild);
	if (run_feature_tests(s, f, n, out))
		return NULL;
	return out;
}

static void show_build_errors(const char *log)
{
	char *text = read_file(log, NULL);
	int shown = 0;

	if (!text)
		return;
	for (char *line = strtok(text, "\n"); line && shown < 40; line = strtok(NULL, "\n")) {
		if (strstr(line, "error") || strstr(line, "Error") || strstr(line, "ERROR")) {
			fprintf(stderr, "%s\n", line);
			shown++;
		}
	}
}

/*
 * Every kbuild run spends about a second re-probing compiler options before
 * it compiles anything. After one full kbuild run for a kernel, its exact
 * commands (compile with objtool, modpost, the .mod.c compile, the link) are
 * kept as a recipe, with the build directory and module name as
 * placeholders; later builds run the recipe directly and fall back to
 * kbuild if it fails.
 */
static const char *const recipe_steps[] = { "%s.o", "Module.symvers", "%s.mod.o", "%s.ko" };

static const char *recipe_path(const struct session *s)
{
	uint64_t h = hash_bytes(s->kbuild, strlen(s->kbuild), 0);
	struct stat st;

	h = hash_bytes(s->datadir, strlen(s->datadir), h);
	/* the Kbuild file's flags are part of the commands */
	h = hash_bytes(getenv("UTAP_WERROR") ? "W" : "-", 1, h);
	if (stat(arena_printf("%s/include/generated/autoconf.h", s->kbuild), &st) == 0) {
		h = hash_bytes(&st.st_mtime, sizeof(st.st_mtime), h);
		h = hash_bytes(&st.st_size, sizeof(st.st_size), h);
	}
	return arena_printf("%s/%s-%016llx.sh", utap_cache_dir("recipe"), s->krel,
			    (unsigned long long)h);
}

/* Replaces every occurrence of from by to. */
static char *replace_all(const char *text, const char *from, const char *to)
{
	struct strbuf sb = { 0 };
	size_t n = strlen(from);
	const char *p;
	char *r;

	while ((p = strstr(text, from))) {
		sb_putn(&sb, text, (size_t)(p - text));
		sb_puts(&sb, to);
		text = p + n;
	}
	sb_puts(&sb, text);
	r = arena_strdup(sb.buf);
	sb_free(&sb);
	return r;
}

static void save_recipe(struct session *s)
{
	struct strbuf sb = { 0 };
	const char *out = recipe_path(s);
	const char *tmp = arena_printf("%s.%d.tmp", out, (int)getpid());

	for (size_t i = 0; i < ARRAY_LEN(recipe_steps); i++) {
		const char *target = arena_printf(recipe_steps[i], s->modname);
		char *text = read_file(arena_printf("%s/.%s.cmd", s->tmpdir, target), NULL);
		char *cmd, *nl;

		if (!text || !(cmd = strstr(text, " := "))) {
			sb_free(&sb);
			return;
		}
		cmd += 4;
		nl = strchr(cmd, '\n');
		if (nl)
			*nl = 0;
		/* make's $$ is the shell's $ */
		cmd = replace_all(cmd, "$$", "$");
		cmd = replace_all(cmd, s->tmpdir, "@DIR@");
		cmd = replace_all(cmd, s->modname, "@MOD@");
		sb_printf(&sb, "%s\n", cmd);
	}
	if (write_file(tmp, sb.buf, sb.len) == 0)
		rename(tmp, out);
	sb_free(&sb);
}

/* utap_build.h: whether the core comes from the cached object (runtime/core/kcore.h) */
static void write_build_mode(struct session *s, bool split)
{
	const char *text = split ? "#define UTAP_CORE_EXTERN 1\n" : "/* one unit */\n";

	write_file(arena_printf("%s/utap_build.h", s->tmpdir), text, strlen(text));
}

/* The -D settings, as the generated C and the core object both start. */
void kbuild_put_config(struct strbuf *out, const struct session *s)
{
	for (int i = 0; i < s->ndefines; i++) {
		const char *d = s->defines[i], *eq = strchr(d, '=');

		if (eq)
			sb_printf(out, "#define %.*s %s\n", (int)(eq - d), d, eq + 1);
		else
			sb_printf(out, "#define %s 1\n", d);
	}
}

/*
 * The kernel half of the runtime's core (runtime/core/kcore.h) is the same
 * for every script built with the same -D settings, and compiling it is most
 * of a small script's build. It is compiled once per kernel, recipe and
 * configuration into an object kept in the cache; a recipe build then
 * compiles only the script's unit (UTAP_CORE_EXTERN, set in utap_build.h)
 * and links the two, as kbuild links a module made of several objects.
 */
static uint64_t hash_runtime_core(const struct session *s, uint64_t h)
{
	const char *dir = arena_printf("%s/runtime/core", s->datadir);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len;
		char *text = name[0] == '.' ? NULL :
			     read_file(arena_printf("%s/%s", dir, name), &len);

		if (text) {
			h = hash_bytes(name, strlen(name), h);
			h = hash_bytes(text, len, h);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return h;
}

static const char *core_object_path(const struct session *s, const char *compile,
				    const char *config)
{
	char *ac = read_file(arena_printf("%s/utap_autoconf.h", s->tmpdir), NULL);
	uint64_t h = hash_bytes(UTAP_VERSION, strlen(UTAP_VERSION), 0);

	h = hash_bytes(compile, strlen(compile), h);
	h = hash_bytes(config, strlen(config), h);
	if (ac)
		h = hash_bytes(ac, strlen(ac), h);
	h = hash_runtime_core(s, h);
	return arena_printf("%s/%s-%016llx.a", utap_cache_dir("core"), s->krel,
			    (unsigned long long)h);
}

/* The module link's command as a partial link: no build id, no linker script. */
static const char *partial_link(const char *link)
{
	const char *end = strstr(link, " -o ");
	char *words = end ? arena_strndup(link, (size_t)(end - link)) : NULL;
	struct strbuf sb = { 0 };
	char *r;
	bool skip = false;

	if (!words)
		return NULL;
	for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) {
		if (skip || !strncmp(w, "--build-id", 10) || !strcmp(w, "-T")) {
			skip = !skip && !strcmp(w, "-T");
			continue;
		}
		sb_printf(&sb, "%s%s", sb.len ? " " : "", w);
	}
	r = arena_strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

/*
 * A compile command of the recipe taken apart: the compiler, its flags
 * without the -include files (kept as #include lines), the dependency file,
 * the input and output, and with the module's names fixed to "utap", so that
 * one precompiled header serves every module (utap_modname.h puts the names
 * back after it); and what follows the compile (objtool).
 */
struct compile {
	const char *cc, *flags, *includes, *after;
};

static bool compile_parse(const char *line, struct compile *c)
{
	const char *src = strstr(line, "@DIR@/@MOD@.c");
	const char *semi = src ? strchr(src, ';') : NULL;
	char *words = arena_strndup(line, semi ? (size_t)(semi - line) : strlen(line));
	struct strbuf flags = { 0 }, inc = { 0 };
	char *w;

	if (!src)
		return false;
	c->after = semi ? arena_strdup(semi) : "";
	c->cc = NULL;
	for (w = strtok(words, " "); w; w = strtok(NULL, " ")) {
		if (!c->cc) {
			c->cc = w;
		} else if (!strcmp(w, "-include") || !strcmp(w, "-o")) {
			const char *arg = strtok(NULL, " ");

			if (arg && w[1] == 'i')
				sb_printf(&inc, "#include \"%s\"\n", arg);
		} else if (strcmp(w, "-c") && strncmp(w, "-Wp,-MMD,", 9) &&
			   strcmp(w, "@DIR@/@MOD@.c")) {
			sb_printf(&flags, " %s", w);
		}
	}
	c->flags = replace_all(replace_all(flags.buf ? flags.buf : "", "'\"@MOD@\"'", "'\"utap\"'"),
			       "kmod_@MOD@", "kmod_utap");
	c->includes = arena_strdup(inc.buf ? inc.buf : "");
	sb_free(&flags);
	sb_free(&inc);
	return c->cc && *c->includes;
}

static const char *compile_cmd(const struct compile *c, const char *pre, const char *in,
			       const char *out, bool after)
{
	return arena_printf("%s %s%s -c -o %s %s%s", c->cc, pre, c->flags, out, in,
			    after ? replace_all(c->after, "@DIR@/@MOD@.o", out) : "");
}

/* The parts of the core's archive (runtime/core/runtime.h's UTAP_CORE_PART_*). */
static const char *const core_parts[] = { "base", "format", "stats", "map", "globals" };

/* Compile every part in the background; the archive is made after the script's compile. */
static void core_parts_compile(struct session *s, struct strbuf *sh, const struct compile *c,
			       const char *pre, const char *config)
{
	for (size_t i = 0; i < ARRAY_LEN(core_parts); i++) {
		char *up = arena_strdup(core_parts[i]);
		const char *src, *in = arena_printf("@DIR@/utap_core_%s.c", core_parts[i]);

		for (char *q = up; *q; q++)
			*q = (char)(*q - 'a' + 'A');
		src = arena_printf("/* utap's core for %s: %s */\n#define UTAP_CORE_OBJECT 1\n"
				   "#define UTAP_CORE_PART_%s 1\n%s#include \"core/runtime.h\"\n",
				   s->krel, core_parts[i], up, config);
		write_file(arena_printf("%s/utap_core_%s.c", s->tmpdir, core_parts[i]), src,
			   strlen(src));
		sb_printf(sh, "( %s ) & core%zu=$!\n", compile_cmd(c, pre, in,
			  arena_printf("@DIR@/utap_core_%s.o", core_parts[i]), true), i);
	}
}

/*
 * The kernel headers precompiled for the recipe's flags (one per kernel and
 * recipe, in the cache): the header's path, which every compile includes
 * first; gcc reads its .gch beside it when there is one and the header
 * itself when not, so a missing or stale one only costs time. *build is the
 * command that makes the .gch, or NULL when it exists.
 */
static const char *pch_header(const struct session *s, const struct compile *c,
			      const char **build)
{
	const char *text = arena_printf("/* the kernel headers of utap's modules, precompiled "
					"(translator/kernel/kbuild.c) */\n%s#include \"core/kheaders.h\"\n",
					c->includes);
	char *kh = read_file(arena_printf("%s/runtime/core/kheaders.h", s->datadir), NULL);
	const char *recipe = recipe_path(s);	/* it names the kernel's config */
	uint64_t h = hash_bytes(text, strlen(text), 0);
	const char *path, *gch, *tmp;

	h = hash_bytes(c->flags, strlen(c->flags), h);
	h = hash_bytes(c->cc, strlen(c->cc), h);
	h = hash_bytes(recipe, strlen(recipe), h);
	if (kh)
		h = hash_bytes(kh, strlen(kh), h);
	path = arena_printf("%s/%s-%016llx.h", utap_cache_dir("pch"), s->krel,
			    (unsigned long long)h);
	gch = arena_printf("%s.gch", path);
	*build = NULL;
	if (!is_file(path)) {
		tmp = arena_printf("%s.%d.tmp", path, (int)getpid());
		if (write_file(tmp, text, strlen(text)) || rename(tmp, path))
			return NULL;
	}
	if (!is_file(gch)) {
		tmp = arena_printf("%s.%d.tmp", gch, (int)getpid());
		*build = arena_printf("%s%s -x c-header -c -o '%s' '%s' && mv '%s' '%s'", c->cc,
				      c->flags, tmp, path, tmp, gch);
	}
	return path;
}

/* utap_modname.h: the module's own names, over the "utap" its compile is given */
static void write_modname(const struct session *s)
{
	const char *m = s->modname;
	const char *text = arena_printf("#undef KBUILD_BASENAME\n#undef KBUILD_MODNAME\n"
					"#undef __KBUILD_MODNAME\n#define KBUILD_BASENAME \"%s\"\n"
					"#define KBUILD_MODNAME \"%s\"\n"
					"#define __KBUILD_MODNAME kmod_%s\n", m, m, m);

	write_file(arena_printf("%s/utap_modname.h", s->tmpdir), text, strlen(text));
}

/*
 * A script unit of more handlers than this (`probe syscall.*`: over 300) is
 * compiled at -O1: gcc's optimizer is most of its build, -O1 takes 40% less
 * (13 s of CPU against 21 s for syscall.*), and its handlers are calls into
 * the runtime core, which its cached object keeps at the kernel's -O2.
 */
#define LARGE_UNIT_HANDLERS 100

/*
 * Rewrites a recipe (compile, modpost, .mod.c compile, link) to compile the
 * script alone, with the precompiled kernel headers, and link it with the
 * cached core object; what is not cached yet (the core object, the
 * precompiled headers) is made beside the script's compile. Returns the
 * recipe as it was if it does not have the four steps.
 */
static char *core_object_recipe(struct session *s, char *recipe, bool *split)
{
	char *lines[ARRAY_LEN(recipe_steps)];
	char *text = arena_strdup(recipe), *p = text, *r;
	struct strbuf config = { 0 }, sh = { 0 };
	const char *obj, *ld, *pch, *pch_build, *pre, *pre_mod;
	struct compile c, script;
	bool have_obj;

	*split = false;
	if (getenv("UTAP_ONE_UNIT"))	/* the build before the cached core, for comparing */
		return recipe;
	for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
		lines[i] = p;
		p = p ? strchr(p, '\n') : NULL;
		if (!p)
			return recipe;
		*p++ = 0;
	}
	ld = partial_link(lines[3]);
	if (!ld || !compile_parse(lines[0], &c) || !(pch = pch_header(s, &c, &pch_build)))
		return recipe;
	kbuild_put_config(&config, s);
	obj = core_object_path(s, lines[0], config.buf ? config.buf : "");
	script = c;
	if (s->nhandlers > LARGE_UNIT_HANDLERS)
		script.flags = arena_printf("%s -O1", c.flags);
	have_obj = is_file(obj);
	pre = arena_printf("-include '%s'", pch);
	pre_mod = arena_printf("%s -include @DIR@/utap_modname.h", pre);
	write_modname(s);
	if (pch_build)
		sb_printf(&sh, "( %s ) >/dev/null 2>&1 &\n", pch_build);
	if (!have_obj)
		core_parts_compile(s, &sh, &c, pre, config.buf ? config.buf : "");
	sb_printf(&sh, "( %s ) || { wait; exit 1; }\n",
		  compile_cmd(&script, pre_mod, "@DIR@/@MOD@.c", "@DIR@/@MOD@.script.o", true));
	if (!have_obj) {
		const char *tmp = arena_printf("%s.%d.tmp", obj, (int)getpid());

		/* the core is kept only once it is whole */
		for (size_t i = 0; i < ARRAY_LEN(core_parts); i++)
			sb_printf(&sh, "wait $core%zu\n", i);
		sb_printf(&sh, "rm -f '%s'\nar rcs '%s'", tmp, tmp);
		for (size_t i = 0; i < ARRAY_LEN(core_parts); i++)
			sb_printf(&sh, " @DIR@/utap_core_%s.o", core_parts[i]);
		sb_printf(&sh, " && mv '%s' '%s'\n", tmp, obj);
	}
	/* ld takes from the archive the parts the script's unit calls */
	sb_printf(&sh, "%s -o @DIR@/@MOD@.o @DIR@/@MOD@.script.o '%s'\n", ld, obj);
	sb_printf(&sh, "%s\n%s\n%s\nwait\n", lines[1],
		  compile_cmd(&c, pre_mod, "@DIR@/@MOD@.mod.c", "@DIR@/@MOD@.mod.o", false),
		  lines[3]);
	write_build_mode(s, true);
	*split = true;
	r = arena_strdup(sh.buf);
	sb_free(&sh);
	sb_free(&config);
	return r;
}

static int run_recipe(struct session *s, const char *log, bool *split)
{
	char *recipe = read_file(recipe_path(s), NULL);
	struct strbuf sh = { 0 };
	char *argv[4];
	int rc;

	if (!recipe)
		return -1;
	recipe = core_object_recipe(s, recipe, split);
	recipe = replace_all(recipe, "@DIR@", s->tmpdir);
	recipe = replace_all(recipe, "@MOD@", s->modname);
	{
		const char *order = arena_printf("%s/%s.ko\n", s->tmpdir, s->modname);
		const char *mod = arena_printf("%s/%s.o\n", s->tmpdir, s->modname);

		/* modpost reads the object's .cmd file for symbol CRCs; ours exports none */
		const char *cmd = arena_printf("cmd_%s/%s.o := utap recipe\n", s->tmpdir, s->modname);

		write_file(arena_printf("%s/modules.order", s->tmpdir), order, strlen(order));
		write_file(arena_printf("%s/%s.mod", s->tmpdir, s->modname), mod, strlen(mod));
		write_file(arena_printf("%s/.%s.o.cmd", s->tmpdir, s->modname), cmd, strlen(cmd));
	}
	sb_printf(&sh, "cd '%s' && set -e\n%s", s->kbuild, recipe);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = sh.buf;
	argv[3] = NULL;
	rc = run_command(argv, log, true);
	sb_free(&sh);
	return rc;
}

static int run_kbuild(struct session *s, const char *log)
{
	char *argv[6];

	argv[0] = "make";
	argv[1] = "-C";
	argv[2] = (char *)s->kbuild;
	argv[3] = arena_printf("M=%s", s->tmpdir);
	argv[4] = "modules";
	argv[5] = NULL;
	return run_command(argv, log, true);
}

int compile_module(struct session *s)
{
	const char *ac = autoconf_header(s);
	struct strbuf kb = { 0 };
	const char *log = arena_printf("%s/build.log", s->tmpdir);
	bool split = false;
	int rc;

	if (!ac) {
		errorf("cannot run the kernel feature tests against '%s'", s->kbuild);
		return -1;
	}
	if (!is_dir(arena_printf("%s/runtime/core", s->datadir))) {
		errorf("runtime not found in '%s/runtime'", s->datadir);
		return -1;
	}
	{
		char *text = read_file(ac, NULL);

		write_file(arena_printf("%s/utap_autoconf.h", s->tmpdir), text, strlen(text));
	}
	sb_printf(&kb, "obj-m := %s.o\n", s->modname);
	sb_printf(&kb, "ccflags-y := -I%s/runtime -I%s/runtime/core -I%s\n", s->datadir,
		  s->datadir, s->tmpdir);
	/* generated code declares in blocks and leaves some labels unused */
	sb_printf(&kb, "ccflags-y += -Wno-declaration-after-statement -Wno-unused-label "
		  "-Wno-unused-variable -Wno-unused-function\n");
	/* line tables are enough for an oops in generated code; full variable
	 * locations cost a fifth of the compile time */
	sb_puts(&kb, "ccflags-y += -g1\n");
	/* the testsuite builds every module with -Werror to catch emitter slips */
	if (getenv("UTAP_WERROR"))
		sb_puts(&kb, "ccflags-y += -Werror\n");
	write_file(arena_printf("%s/Kbuild", s->tmpdir), kb.buf, kb.len);
	sb_free(&kb);
	s->ko_path = arena_printf("%s/%s.ko", s->tmpdir, s->modname);
	write_build_mode(s, false);
	if (run_recipe(s, log, &split) == 0 && is_file(s->ko_path))
		return 0;
	write_build_mode(s, false);
	rc = run_kbuild(s, log);
	if (rc != 0 || !is_file(s->ko_path)) {
		show_build_errors(log);
		errorf("pass 4: compiling the module failed%s", s->keep_tmp ?
		       arena_printf(" (build log: %s)", log) :
		       " (rerun with -k to keep the generated C and the build log)");
		return -1;
	}
	/* the testsuite wants to know when only the one-unit build works */
	if (split && getenv("UTAP_WERROR")) {
		errorf("pass 4: the build with the cached core failed where kbuild's one-unit "
		       "build succeeded (is a declaration missing from runtime/core/kcore.h?)%s",
		       s->keep_tmp ? arena_printf("; build log: %s", log) : "");
		return -1;
	}
	save_recipe(s);
	return 0;
}
