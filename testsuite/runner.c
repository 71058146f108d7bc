/*
 * runner.c - the test suite driver behind `make check`.
 *
 *   build/testrunner --utap build/utap [--unit "BINS"] [--fuzz "BINS"]
 *                    [--fuzz-seconds N] [--vm-dir testsuite/vm] [--only PATTERN]
 *
 * Unit test programs print "ok NAME" / "FAIL NAME: why" lines. Guest tests
 * are .test files (format in testsuite/README.md): every test's module is
 * built on the host while ONE guest boot runs them all in order (a generated
 * shell script that waits for each module), writing each test's stdout,
 * stderr and status into a shared directory that is compared here as each
 * test ends. A guest that stops answering (a test
 * not done after 5 minutes, or its own timeout plus a minute) is killed, the
 * test it was running fails, and the rest run in a fresh boot.
 * The last line is "N passed, M failed, K skipped".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passed, failed, skipped;
static int hang_seconds = 300;	/* a guest silent this long is killed */
static const char *utap = "build/utap";
static const char *srcdir;	/* absolute repository root */
static const char *workdir;	/* absolute; build/vmtests unless --work DIR */
static int verbose;

/* ---- small helpers ---- */

static char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p) {
		perror("strdup");
		exit(2);
	}
	return p;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		exit(2);
	va_end(ap);
	return p;
}

static char *slurp(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

static int spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		printf("ok %s\n", name);
	} else {
		failed++;
		printf("FAIL %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
	fflush(stdout);
}

/* Runs a shell command, capturing its stdout (and stderr if merge) into *out. */
static int run_capture(const char *cmd, char **out, bool merge)
{
	/* the whole command's stderr, not just its last part's */
	char *full = merge ? xasprintf("( %s ) 2>&1", cmd) : xasprintf("%s", cmd);
	FILE *p = popen(full, "r");
	size_t len = 0, cap = 0, n;
	char *buf = NULL;
	int st;

	free(full);
	if (!p)
		return -1;
	do {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, p);
		len += n;
	} while (n > 0);
	st = pclose(p);
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = 0;
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *shell_quote(const char *s)
{
	size_t n = strlen(s);
	char *q = malloc(4 * n + 3), *p = q;

	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = 0;
	return q;
}

/* ---- unit tests and fuzzers ---- */

static void run_unit(const char *bin)
{
	char *out = NULL, *cmd = xasprintf("%s", bin);
	int rc = run_capture(cmd, &out, false);
	int oks = 0, fails = 0;
	const char *name = strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;

	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ok ", 3)) {
			oks++;
			passed++;
			if (verbose)
				printf("%s\n", line);
		} else if (!strncmp(line, "FAIL ", 5)) {
			fails++;
			failed++;
			printf("%s\n", line);
		}
	}
	if (rc != 0 && fails == 0)
		result(false, xasprintf("unit/%s", name), "exited with status %d after %d tests",
		       rc, oks);
	else if (!verbose)
		printf("ok unit/%s (%d tests)\n", name, oks);
	free(out);
	free(cmd);
}

/* A test script that prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why" lines itself. */
static void run_script(const char *script)
{
	/* each script bounds its own guests; this bounds the script */
	char *out = NULL, *cmd = xasprintf("timeout -s KILL 1800 %s %s/%s", script, srcdir, utap);
	int rc = run_capture(cmd, &out, false), n = 0;

	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ok ", 3)) {
			passed++;
			n++;
			printf("%s\n", line);
		} else if (!strncmp(line, "FAIL ", 5)) {
			failed++;
			n++;
			printf("%s\n", line);
		} else if (!strncmp(line, "skip ", 5)) {
			skipped++;
			n++;
			printf("%s\n", line);
		}
	}
	if (rc == 128 + SIGKILL)
		result(false, script, "did not finish within 1800 s");
	else if (rc != 0 && !n)
		result(false, script, "exited with status %d and reported nothing", rc);
	free(out);
	free(cmd);
}

struct fuzz_job {
	const char *bin;
	char *outfile;
	pid_t pid;
};

/* Starts one fuzzer in the background, its output to a file (a pipe could fill while another is read). */
static void start_fuzzer(struct fuzz_job *j, int seconds, int index)
{
	const char *name = strrchr(j->bin, '/') ? strrchr(j->bin, '/') + 1 : j->bin;
	char *corpus = xasprintf("%s/testsuite/fuzz/corpus/%s", srcdir, name);
	struct stat st;
	char *cmd;

	/* -timeout: one input that runs away fails in a minute, not libFuzzer's 20 */
	cmd = xasprintf("%s -max_total_time=%d -timeout=60 -rss_limit_mb=2048 -print_final_stats=0",
			j->bin, seconds);
	/* the committed corpus is read, never written: new inputs stay in memory */
	if (stat(corpus, &st) == 0) {
		free(cmd);
		cmd = xasprintf("d=$(mktemp -d) && cp -r %s/. $d/ && %s -max_total_time=%d "
				"-timeout=60 -rss_limit_mb=2048 $d; rc=$?; rm -rf $d; exit $rc", corpus,
				j->bin, seconds);
	}
	j->outfile = xasprintf("%s/build/fuzz/.run-%d.out", srcdir, index);
	j->pid = fork();
	if (j->pid == 0) {
		execl("/bin/sh", "sh", "-c", xasprintf("( %s ) > %s 2>&1", cmd, j->outfile),
		      (char *)NULL);
		_exit(127);
	}
	free(cmd);
	free(corpus);
}

static void finish_fuzzer(struct fuzz_job *j, int seconds)
{
	const char *name = strrchr(j->bin, '/') ? strrchr(j->bin, '/') + 1 : j->bin;
	int st = 0, rc;
	char *out;

	if (j->pid < 0 || waitpid(j->pid, &st, 0) != j->pid)
		st = 127 << 8;
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	out = slurp(j->outfile, NULL);
	if (!out)
		out = xstrdup("(no output)");
	if (rc != 0) {
		char *crash = strstr(out, "ERROR:");

		result(false, xasprintf("fuzz/%s", name), "fuzzer failed (status %d): %.300s", rc,
		       crash ? crash : out);
	} else {
		result(true, xasprintf("fuzz/%s (%d s)", name, seconds), "");
	}
	unlink(j->outfile);
	free(out);
}

/* The fuzzers, `jobs` at a time (each is one process on one core), reported in their order. */
static void run_fuzzers(const char *list, int seconds, int jobs)
{
	struct fuzz_job j[64] = { 0 };
	char *fz = xstrdup(list);
	int n = 0;

	for (char *save = NULL, *b = strtok_r(fz, " ", &save); b && n < 64;
	     b = strtok_r(NULL, " ", &save))
		j[n++].bin = b;
	for (int i = 0; i < n; i++) {
		for (int k = i; k < n && k < i + jobs; k++)
			if (!j[k].outfile)
				start_fuzzer(&j[k], seconds, k);
		finish_fuzzer(&j[i], seconds);
	}
}

/* ---- guest test files ---- */

struct test {
	char *name;		/* path relative to the vm dir, without .test */
	char *file;
	char *args;		/* utap options (build and run) */
	char *run_args;		/* extra options for pass 5 only */
	char *script_args;	/* arguments after the script: $1, @1 */
	int exit_code;
	int last_pass;		/* 5 = run in the guest */
	int timeout;
	char *script;
	char *script_file;	/* the script is this file (e.g. an example) */
	char *stdout_exact, *stderr_exact;
	char *stdout_re, *stderr_re;
	char *guest_cmd;	/* replaces "utap --run" in the guest */
	char *check;		/* shell run in the guest after the test */
	char *host_check;	/* shell run on the host after the guest */
	bool has_stdout, has_stderr;
	bool kernel_backtrace;	/* the script prints one to the kernel log (dump_stack()) */
	char *dir;		/* work directory */
	char *modname;
	bool pending;		/* its pass 1-4 may still be running */
	bool built;
	bool started;		/* a guest boot began running it */
	bool hung;		/* the guest stopped answering while it ran */
	bool done;		/* the guest finished it */
	bool judged;		/* its result is printed */
	bool skip;
	char *skip_why;
	struct test *next;
};

static char *section_append(char *old, const char *line)
{
	char *n = xasprintf("%s%s\n", old ? old : "", line);

	free(old);
	return n;
}

static char *expand_vars(const char *s, const struct test *t)
{
	/* $PROGS, $SRCDIR, $BUILD, $UTAP, $WORK in headers and scripts */
	const char *vars[][2] = {
		{ "$PROGS", xasprintf("%s/build/progs", srcdir) },
		{ "$SRCDIR", srcdir },
		{ "$BUILD", xasprintf("%s/build", srcdir) },
		{ "$UTAP", xasprintf("%s/%s", srcdir, utap) },
		{ "$WORK", t->dir ? t->dir : "" },
	};
	char *out = xstrdup(s);

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		char *p;

		while ((p = strstr(out, vars[i][0]))) {
			char *n = xasprintf("%.*s%s%s", (int)(p - out), out, vars[i][1],
					    p + strlen(vars[i][0]));

			free(out);
			out = n;
		}
	}
	return out;
}

static struct test *parse_test(const char *path, const char *name)
{
	char *text = slurp(path, NULL), *save = NULL;
	struct test *t = calloc(1, sizeof(*t));
	char **section = NULL;
	bool *flag = NULL;

	t->name = xstrdup(name);
	t->file = xstrdup(path);
	t->args = xstrdup("");
	t->run_args = xstrdup("");
	t->script_args = xstrdup("");
	t->last_pass = 5;
	t->timeout = 60;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "--- ", 4)) {
			const char *s = line + 4;

			flag = NULL;
			if (!strcmp(s, "script"))
				section = &t->script;
			else if (!strcmp(s, "stdout"))
				section = &t->stdout_exact, flag = &t->has_stdout;
			else if (!strcmp(s, "stderr"))
				section = &t->stderr_exact, flag = &t->has_stderr;
			else if (!strcmp(s, "stdout-re"))
				section = &t->stdout_re;
			else if (!strcmp(s, "stderr-re"))
				section = &t->stderr_re;
			else if (!strcmp(s, "guest-cmd"))
				section = &t->guest_cmd;
			else if (!strcmp(s, "check"))
				section = &t->check;
			else if (!strcmp(s, "host-check"))
				section = &t->host_check;
			else {
				fprintf(stderr, "%s: unknown section '%s'\n", path, s);
				section = NULL;
			}
			if (flag)
				*flag = true;
			if (section && !*section)
				*section = xstrdup("");
			continue;
		}
		if (section) {
			*section = section_append(*section, line);
			continue;
		}
		if (line[0] == '#' || !line[0])
			continue;
		if (!strncmp(line, "args:", 5)) {
			free(t->args);
			t->args = xstrdup(line + 5);
		} else if (!strncmp(line, "run-args:", 9)) {
			free(t->run_args);
			t->run_args = xstrdup(line + 9);
		} else if (!strncmp(line, "script-args:", 12)) {
			free(t->script_args);
			t->script_args = xstrdup(line + 12);
		} else if (!strncmp(line, "exit:", 5)) {
			t->exit_code = atoi(line + 5);
		} else if (!strncmp(line, "pass:", 5)) {
			t->last_pass = atoi(line + 5);
		} else if (!strncmp(line, "script-file:", 12)) {
			t->script_file = xstrdup(line + 12 + strspn(line + 12, " "));
		} else if (!strncmp(line, "kernel-backtrace: expected", 26)) {
			t->kernel_backtrace = true;
		} else if (!strncmp(line, "timeout:", 8)) {
			t->timeout = atoi(line + 8);
		} else if (!strncmp(line, "skip-unless:", 12)) {
			char *out = NULL;

			if (run_capture(expand_vars(line + 12, t), &out, true) != 0) {
				t->skip = true;
				t->skip_why = xasprintf("skipped: '%s' failed", line + 12);
			}
			free(out);
		} else {
			fprintf(stderr, "%s: unknown header line '%s'\n", path, line);
		}
	}
	/* strtok_r drops empty lines inside sections; keep the form exact by rereading */
	free(text);
	return t;
}

/* Re-reads sections keeping empty lines (strtok collapses them). */
static void reread_sections(struct test *t)
{
	char *text = slurp(t->file, NULL), *p = text, *cur_name = NULL;
	char **section = NULL;

	while (p && *p) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);

		if (!strncmp(line, "--- ", 4)) {
			free(cur_name);
			cur_name = xstrdup(line + 4);
			section = !strcmp(cur_name, "script") ? &t->script :
				  !strcmp(cur_name, "stdout") ? &t->stdout_exact :
				  !strcmp(cur_name, "stderr") ? &t->stderr_exact :
				  !strcmp(cur_name, "stdout-re") ? &t->stdout_re :
				  !strcmp(cur_name, "stderr-re") ? &t->stderr_re :
				  !strcmp(cur_name, "guest-cmd") ? &t->guest_cmd :
				  !strcmp(cur_name, "check") ? &t->check :
				  !strcmp(cur_name, "host-check") ? &t->host_check : NULL;
			if (section) {
				free(*section);
				*section = xstrdup("");
			}
		} else if (section) {
			*section = section_append(*section, line);
		}
		free(line);
		p = nl ? nl + 1 : NULL;
	}
	free(cur_name);
	free(text);
}

/* ONLY is one or more globs separated by blanks. */
static bool matches_any(const char *only, const char *name)
{
	char *pats = xstrdup(only), *save = NULL;
	bool hit = false;

	for (char *p = strtok_r(pats, " \t", &save); p && !hit; p = strtok_r(NULL, " \t", &save))
		hit = fnmatch(p, name, 0) == 0;
	free(pats);
	return hit;
}

static void collect_tests(const char *dir, const char *rel, const char *only, struct test ***tail)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, sizeof(char *) * (n + 1));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(char *), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		char *r = rel[0] ? xasprintf("%s/%s", rel, names[i]) : xstrdup(names[i]);
		struct stat st;
		size_t len = strlen(names[i]);

		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			collect_tests(path, r, only, tail);
		} else if (len > 5 && !strcmp(names[i] + len - 5, ".test")) {
			r[strlen(r) - 5] = 0;
			if (!only || matches_any(only, r)) {
				struct test *t = parse_test(path, r);

				reread_sections(t);
				**tail = t;
				*tail = &t->next;
			}
		}
		free(path);
	}
}

static char *mangle(const char *name)
{
	char *m = xasprintf("t_%s", name);

	for (char *p = m; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			*p = '_';
	if (strlen(m) > 50)
		m[50] = 0;
	return m;
}

/* Pass 1-4 on the host, in the test's own directory. */
static void build_test(struct test *t, bool record)
{
	char *cmd, *out = NULL, *args = expand_vars(t->args, t);
	char *file = t->script_file ? expand_vars(t->script_file, t) : NULL;
	char *text = file ? slurp(file, NULL) : NULL;
	char *script = file ? (text ? text : xstrdup("")) : expand_vars(t->script ? t->script : "", t);
	char *script_args = expand_vars(t->script_args, t);
	int pass = t->last_pass < 5 ? t->last_pass : 4;
	int rc;

	spit(xasprintf("%s/script.stp", t->dir), script);
	/*
	 * --vm: build for the guest's kernel. host.rc appears whole, last: the
	 * guest, already running earlier tests, waits for it.
	 */
	cmd = xasprintf("cd %s && %s/%s --vm -p%d -m %s %s script.stp %s > host.stdout "
			"2> host.stderr; echo $? > host.rc.tmp && mv host.rc.tmp host.rc", t->dir,
			srcdir, utap, pass, t->modname, args, script_args);
	rc = run_capture(cmd, &out, true);
	(void)rc;
	(void)record;
	free(out);
	free(cmd);
	free(args);
	free(script);
	free(script_args);
	free(file);
}

static bool regex_lines_match(const char *text, const char *patterns, char **why)
{
	const char *pos = text;
	char *pats = xstrdup(patterns), *save = NULL;

	/* each pattern line must match a line, in order */
	for (char *pat = strtok_r(pats, "\n", &save); pat; pat = strtok_r(NULL, "\n", &save)) {
		regex_t re;
		bool found = false;

		if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB)) {
			*why = xasprintf("bad regex '%s'", pat);
			free(pats);
			return false;
		}
		while (*pos) {
			const char *nl = strchr(pos, '\n');
			char *line = strndup(pos, nl ? (size_t)(nl - pos) : strlen(pos));
			bool m = regexec(&re, line, 0, NULL, 0) == 0;

			free(line);
			pos = nl ? nl + 1 : pos + strlen(pos);
			if (m) {
				found = true;
				break;
			}
		}
		regfree(&re);
		if (!found) {
			*why = xasprintf("no line matches /%s/", pat);
			free(pats);
			return false;
		}
	}
	free(pats);
	return true;
}

static char *first_difference(const char *got, const char *want)
{
	int line = 1;
	const char *g = got, *w = want;

	while (*g && *w && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	{
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		const char *gl = g, *wl = w;

		while (gl > got && gl[-1] != '\n')
			gl--;
		while (wl > want && wl[-1] != '\n')
			wl--;
		return xasprintf("line %d: got \"%.*s\", want \"%.*s\"", line,
				 (int)((ge ? ge : g + strlen(g)) - gl), gl,
				 (int)((we ? we : w + strlen(w)) - wl), wl);
	}
}

static bool check_output(const char *what, const char *got, const char *exact, bool has_exact,
			 const char *res, char **why)
{
	if (has_exact && strcmp(got, exact)) {
		*why = xasprintf("%s differs: %s", what, first_difference(got, exact));
		return false;
	}
	if (res && !regex_lines_match(got, res, why)) {
		char *w = xasprintf("%s: %s; it was: %.400s", what, *why, got);

		*why = w;
		return false;
	}
	return true;
}

/* How long a host check may run: its test's timeout and the boot of a guest or two. */
static int host_check_limit(const struct test *t)
{
	return t->timeout + 240;
}

static void judge(struct test *t, const char *prefix)
{
	char *name = xasprintf("vm/%s", t->name);
	char *out = slurp(xasprintf("%s/%s.stdout", t->dir, prefix), NULL);
	char *err = slurp(xasprintf("%s/%s.stderr", t->dir, prefix), NULL);
	char *rcs = slurp(xasprintf("%s/%s.rc", t->dir, prefix), NULL);
	char *why = NULL;
	int rc = rcs ? atoi(rcs) : -1;

	if (!out || !err || !rcs) {
		result(false, name, "no result: the test did not run (guest failed or timed out?)");
		return;
	}
	if (rc != t->exit_code) {
		result(false, name, "exit status %d, want %d; stderr: %.600s", rc, t->exit_code, err);
		return;
	}
	if (!check_output("stdout", out, t->stdout_exact, t->has_stdout, t->stdout_re, &why) ||
	    !check_output("stderr", err, t->stderr_exact, t->has_stderr, t->stderr_re, &why)) {
		result(false, name, "%s", why);
		return;
	}
	if (t->check) {
		char *c = slurp(xasprintf("%s/check.out", t->dir), NULL);
		char *crc = slurp(xasprintf("%s/check.rc", t->dir), NULL);

		if (!crc || atoi(crc) != 0) {
			result(false, name, "guest check failed: %.600s", c ? c : "(no output)");
			return;
		}
	}
	if (t->host_check) {
		char *hout = NULL, *cmd = expand_vars(t->host_check, t);
		/* every line is an assertion: the first false one fails the check */
		char *full = xasprintf("cd %s && (set -e\n%s\n)", t->dir, cmd);
		/* a check that boots guests of its own is bounded like the guest's tests are */
		int limit = host_check_limit(t), rc;

		rc = run_capture(xasprintf("timeout -s KILL %d sh -c %s", limit, shell_quote(full)),
				 &hout, true);
		if (rc == 128 + SIGKILL) {
			/* the last lines say which step stopped */
			size_t n = hout ? strlen(hout) : 0;

			result(false, name, "host check did not finish within %d s: %s", limit,
			       hout ? hout + (n > 600 ? n - 600 : 0) : "");
			return;
		}
		if (rc != 0) {
			result(false, name, "host check failed: %.600s", hout);
			return;
		}
	}
	if (strstr(err, "AddressSanitizer")) {
		result(false, name, "sanitizer report: %.600s", err);
		return;
	}
	{
		char *dmesg = slurp(xasprintf("%s/dmesg.txt", t->dir), NULL);

		if (dmesg && (strstr(dmesg, "WARNING:") || strstr(dmesg, "BUG:") ||
			      strstr(dmesg, "Oops") ||
			      (!t->kernel_backtrace && strstr(dmesg, "Call Trace")))) {
			result(false, name, "kernel log shows a problem: %.800s", dmesg);
			return;
		}
	}
	result(true, name, "");
}

/* The guest tests one boot runs: the built (or still building) ones no earlier boot started. */
static bool runs_in_guest(const struct test *t)
{
	return (t->built || t->pending) && t->last_pass == 5 && !t->started;
}

static void write_guest_script(struct test *list, const char *path, const char *progress)
{
	FILE *f = fopen(path, "w");

	fprintf(f, "#!/bin/sh\n# generated by testrunner: every guest test in one boot\n");
	/* a process costs a quarter second under TCG: the per-test glue uses builtins */
	fprintf(f, "loaded() { while read -r m rest; do [ \"$m\" = \"$1\" ] && return 0; done "
		"< /proc/modules; return 1; }\n");
	fprintf(f, "dmesg -c > /dev/null 2>&1\n");
	for (struct test *t = list; t; t = t->next) {
		char *run_args = expand_vars(t->run_args, t);
		char *args = expand_vars(t->args, t);
		char *cmd;

		if (!runs_in_guest(t))
			continue;
		fprintf(f, "\n# %s\ncd %s || exit 1\n", t->name, t->dir);
		/*
		 * Its module may still be building on the host; a failed build is
		 * judged there. What the kernel logs while the guest waits idle (RCU
		 * stalls of a vCPU the loaded host starved) is kept apart, not held
		 * against the test; only a wait pays for the dmesg.
		 */
		fprintf(f, "if [ ! -e host.rc ]; then until [ -e host.rc ]; do sleep 1; done; "
			"dmesg -c > waited.dmesg 2>&1; fi; read -r hrc rest < host.rc\n");
		fprintf(f, "if [ \"$hrc\" = 0 ]; then\n");
		fprintf(f, "echo 'start %s' >> %s; read -r t0 rest < /proc/uptime\n", t->modname,
			progress);
		fprintf(f, "export MOD=%s/%s.ko MODNAME=%s UTAP=%s/%s PROGS=%s/build/progs WORK=%s\n",
			t->dir, t->modname, t->modname, srcdir, utap, srcdir, t->dir);
		fprintf(f, "echo \"utap-test: %s\" > /dev/kmsg 2>/dev/null\n", t->name);
		if (t->guest_cmd) {
			char *g = expand_vars(t->guest_cmd, t);

			cmd = xasprintf("timeout -s KILL %d sh -c %s", t->timeout, shell_quote(g));
		} else {
			/* pass 5 takes the run options of the original command line */
			cmd = xasprintf("timeout -s KILL %d $UTAP --run $MOD %s %s", t->timeout,
					args, run_args);
		}
		/*
		 * Output goes to the guest's tmpfs first and is copied to the
		 * share after: a write to 9p that a signal interrupts can be
		 * performed and then retried, duplicating records, and 9p is
		 * slow enough to hold up a flood's drain.
		 */
		fprintf(f, "%s > /tmp/guest.stdout 2> /tmp/guest.stderr < /dev/null; "
			"echo $? > guest.rc\n", cmd);
		fprintf(f, "cp /tmp/guest.stdout /tmp/guest.stderr .\n");
		if (t->check)
			fprintf(f, "(set -e\n%s\n) > check.out 2>&1; echo $? > check.rc\n", t->check);
		fprintf(f, "loaded $MODNAME && echo \"module $MODNAME still loaded\" >> guest.stderr && "
			"rmmod $MODNAME\n");
		fprintf(f, "dmesg -c > dmesg.txt 2>&1\n");
		fprintf(f, "read -r t1 rest < /proc/uptime; echo $((${t1%%.*} - ${t0%%.*})) > guest.secs\n");
		fprintf(f, "echo 'done %s' >> %s\n", t->modname, progress);
		fprintf(f, "fi\n");
	}
	/* each test's status is in its directory; the script itself succeeds */
	fprintf(f, "exit 0\n");
	fclose(f);
	chmod(path, 0755);
}

/* How long a test may run without the guest finishing it: 5 minutes, or its timeout and a minute. */
static int hang_limit(const struct test *t)
{
	/* the margin covers the test's cleanup after its own timeout killed it */
	int own = t->timeout + (hang_seconds / 5 < 60 ? hang_seconds / 5 : 60);

	return own > hang_seconds ? own : hang_seconds;
}

/* How long a boot may take to start its first test: a loaded host boots a TCG guest slowly. */
static int boot_limit(void)
{
	return hang_seconds > 300 ? hang_seconds : 300;
}

static struct test *find_test(struct test *list, const char *modname)
{
	for (struct test *t = list; t; t = t->next)
		if (t->modname && !strcmp(t->modname, modname))
			return t;
	return NULL;
}

/* Each test is judged as soon as the guest is done with it, so a run cut short shows how far it got. */
static void judge_done(struct test *list)
{
	for (struct test *t = list; t; t = t->next)
		if (t->done && !t->judged && !t->hung) {
			t->judged = true;
			judge(t, "guest");
			fflush(stdout);
		}
}

/* The pass 1-4 builds: a child of the runner, so the guest runs the first tests while later ones build. */
static pid_t builder = -1;
static time_t builds_t0;

static void start_builds(struct test *list, int jobs)
{
	int running = 0;

	builds_t0 = time(NULL);
	builder = fork();
	if (builder != 0)
		return;
	/* the guest's tests come first: builds take the CPU it leaves */
	if (setpriority(PRIO_PROCESS, 0, 10) < 0) {
		/* still correct, only slower */
	}
	for (struct test *t = list; t; t = t->next) {
		if (!t->pending)
			continue;
		if (running == jobs) {
			wait(NULL);
			running--;
		}
		if (fork() == 0) {
			build_test(t, true);
			_exit(0);
		}
		running++;
	}
	while (running-- > 0)
		wait(NULL);
	_exit(0);
}

/* True while the builds run; says how long they took once they are done. */
static bool builds_running(void)
{
	if (builder > 0 && waitpid(builder, NULL, WNOHANG) == builder) {
		builder = -1;
		/* where a run's time goes, for whoever keeps it short */
		printf("# built the test modules in %ld s\n", (long)(time(NULL) - builds_t0));
		fflush(stdout);
	}
	return builder > 0;
}

/* Each test whose build ended: a host-only one is judged, a guest one is ready or failed. Returns how many. */
static int collect_builds(struct test *list)
{
	int n = 0;

	for (struct test *t = list; t; t = t->next) {
		char *rcs;
		int rc;

		if (!t->pending || access(xasprintf("%s/host.rc", t->dir), F_OK) != 0)
			continue;
		t->pending = false;
		n++;
		rcs = slurp(xasprintf("%s/host.rc", t->dir), NULL);
		rc = rcs ? atoi(rcs) : -1;
		if (t->last_pass < 5) {
			judge(t, "host");
		} else if (rc != 0) {
			char *err = slurp(xasprintf("%s/host.stderr", t->dir), NULL);

			result(false, xasprintf("vm/%s", t->name), "pass 1-4 failed (%d): %.800s", rc,
			       err ? err : "");
		} else {
			t->built = true;
		}
		fflush(stdout);
	}
	return n;
}

/* The test a boot is running: the last one started and not done. */
static struct test *current_test(struct test *list, const char *progress)
{
	char *text = slurp(progress, NULL), *save = NULL;
	struct test *cur = NULL;

	if (!text)
		return NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct test *t = find_test(list, l + strcspn(l, " ") + 1);

		if (!t)
			continue;
		t->started = true;
		t->done |= !strncmp(l, "done ", 5);
		cur = !strncmp(l, "start ", 6) ? t : NULL;
	}
	free(text);
	return cur;
}

static void kill_guest(pid_t pid)
{
	kill(-pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The last LINES lines of a file, each as a "# " comment: what a hung guest's console said. */
static void print_tail(const char *path, int lines)
{
	size_t len = 0;
	char *text = slurp(path, &len), *p;
	int n = 0;

	if (!text || !len) {
		printf("#   (the guest's console, %s, is empty)\n", path);
		free(text);
		return;
	}
	p = text + len;
	if (p[-1] == '\n')
		p--;
	while (p > text && n < lines)
		n += *--p == '\n';
	p += *p == '\n';
	for (char *l = p; l < text + len;) {
		char *e = memchr(l, '\n', text + len - l);
		size_t k = e ? (size_t)(e - l) : (size_t)(text + len - l);

		printf("#   ");
		for (size_t i = 0; i < k; i++)
			if (l[i] != '\r')	/* the serial console ends lines with CR LF */
				putchar(isprint((unsigned char)l[i]) ? l[i] : ' ');
		putchar('\n');
		l += k + 1;
	}
	free(text);
}

/*
 * One guest boot runs every test not yet started. Returns true if it hung
 * and was killed while tests remain, so that another boot runs the rest.
 */
static bool run_one_boot(struct test *list, const char *guest, int boot)
{
	char *progress = xasprintf("%s/guest.progress", workdir);
	char *log = xasprintf("%s/guest-boot%d.log", workdir, boot);
	char *console = xasprintf("%s/guest-boot%d.console", workdir, boot);
	int n = 0, st = 0, budget = 60;
	struct test *cur = NULL, *last_cur = NULL;
	time_t since = time(NULL);
	off_t last_size = -1;
	pid_t pid;

	for (struct test *t = list; t; t = t->next)
		if (runs_in_guest(t)) {
			n++;
			budget += t->timeout + 60;	/* the boot's own limit, past every test's */
		}
	if (!n)
		return false;
	unlink(progress);
	write_guest_script(list, guest, progress);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);	/* its own group: a hung guest is killed with its qemu */
		dup2(fd, 1);
		dup2(fd, 2);
		execl(xasprintf("%s/%s", srcdir, utap), "utap", "--vm-exec", "--vm-timeout",
		      xasprintf("%d", budget), "--vm-console", console, "--vm-share", workdir,
		      "--", "/bin/sh", guest,
		      (char *)NULL);
		_exit(127);
	}
	for (;;) {
		struct stat sb;

		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		sleep(1);
		/* progress: a test started or ended */
		if (stat(progress, &sb) == 0 && sb.st_size != last_size) {
			last_size = sb.st_size;
			since = time(NULL);
		}
		cur = current_test(list, progress);
		{
			/* judging (a host check may boot guests) is not the guest's silence */
			time_t j0 = time(NULL);

			judge_done(list);
			collect_builds(list);
			since += time(NULL) - j0;
		}
		/* the guest may be waiting for a module still building */
		if (builds_running())
			since = time(NULL);
		if (cur != last_cur) {
			last_cur = cur;
			since = time(NULL);
		}
		if (time(NULL) - since > (cur ? hang_limit(cur) : last_size <= 0 ? boot_limit() :
					  hang_seconds)) {
			kill_guest(pid);
			current_test(list, progress);
			if (cur)
				cur->hung = true;
			printf("# guest boot %d stopped answering%s%s; killed it; the end of its "
			       "console:\n", boot, cur ? " during vm/" : "", cur ? cur->name : "");
			print_tail(console, 40);
			fflush(stdout);
			/* a hang outside any test would only hang again */
			return cur != NULL;
		}
	}
	current_test(list, progress);
	judge_done(list);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char *out = slurp(log, NULL);

		printf("# guest run ended with status %d: %.2000s\n", st, out ? out : "");
	} else if (verbose) {
		char *out = slurp(log, NULL);

		printf("%s", out ? out : "");
	}
	return false;
}

/* The guest tests that took longest, for whoever keeps the run short. */
static void print_slowest(struct test *list, int k)
{
	struct test *top[16] = { 0 };
	int secs[16] = { 0 }, n = k < 16 ? k : 16;

	for (struct test *t = list; t; t = t->next) {
		char *txt = t->built ? slurp(xasprintf("%s/guest.secs", t->dir), NULL) : NULL;
		int v = txt ? atoi(txt) : -1, i;

		free(txt);
		for (i = n; i > 0 && (!top[i - 1] || secs[i - 1] < v); i--)
			if (i < n) {
				top[i] = top[i - 1];
				secs[i] = secs[i - 1];
			}
		if (i < n && v >= 0) {
			top[i] = t;
			secs[i] = v;
		}
	}
	printf("# slowest guest tests:");
	for (int i = 0; i < n && top[i]; i++)
		printf(" %s %ds%s", top[i]->name, secs[i], i + 1 < n && top[i + 1] ? "," : "");
	printf("\n");
}

static void run_vm_tests(const char *vmdir, const char *only, int jobs)
{
	struct test *list = NULL, **tail = &list;
	int nguest = 0;
	char *guest = xasprintf("%s/guest.sh", workdir);
	time_t t0;

	collect_tests(vmdir, "", only, &tail);
	mkdir(workdir, 0755);
	for (struct test *t = list; t; t = t->next) {
		t->modname = mangle(t->name);
		t->dir = xasprintf("%s/%s", workdir, t->modname);
	}
	/* a fresh directory per test: checks that glob must not see an earlier run's files */
	for (struct test *t = list; t; t = t->next) {
		char *out = NULL;

		if (t->skip) {
			printf("skip vm/%s: %s\n", t->name, t->skip_why);
			skipped++;
			continue;
		}
		run_capture(xasprintf("rm -rf '%s'", t->dir), &out, true);
		free(out);
		mkdir(t->dir, 0755);
		t->pending = true;
	}
	fflush(stdout);
	start_builds(list, jobs);
	t0 = time(NULL);
	for (int boot = 1; run_one_boot(list, guest, boot); boot++)
		;
	/* no guest test (or the guest ended early): the rest of the builds still count */
	while (builds_running()) {
		collect_builds(list);
		sleep(1);
	}
	collect_builds(list);
	for (struct test *t = list; t; t = t->next)
		nguest += t->built;
	if (!nguest)
		return;
	printf("# ran %d guest tests in %ld s\n", nguest, (long)(time(NULL) - t0));
	print_slowest(list, 8);
	fflush(stdout);
	for (struct test *t = list; t; t = t->next) {
		if (t->hung)
			result(false, xasprintf("vm/%s", t->name), "the guest stopped answering "
			       "during this test and was killed after %d s; the tests after it ran "
			       "in a fresh boot", hang_limit(t));
		else if (t->built && !t->judged)
			judge(t, "guest");
	}
}

int main(int argc, char **argv)
{
	const char *unit = NULL, *fuzz = NULL, *vmdir = NULL, *only = NULL, *scripts = NULL;
	const char *work = NULL;	/* two runs at once in one tree need two of these */
	int fuzz_seconds = 10;
	char cwd[4096];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--utap") && i + 1 < argc)
			utap = argv[++i];
		else if (!strcmp(argv[i], "--unit") && i + 1 < argc)
			unit = argv[++i];
		else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc)
			fuzz = argv[++i];
		else if (!strcmp(argv[i], "--fuzz-seconds") && i + 1 < argc)
			fuzz_seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--vm-dir") && i + 1 < argc)
			vmdir = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--scripts") && i + 1 < argc)
			scripts = argv[++i];
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work = argv[++i];
		else if (!strcmp(argv[i], "--hang-seconds") && i + 1 < argc)
			hang_seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else {
			fprintf(stderr, "usage: testrunner --utap PATH [--unit BINS] [--fuzz BINS] "
				"[--fuzz-seconds N] [--vm-dir DIR] [--only GLOB] [--scripts \"S...\"] "
				"[--work DIR] [--hang-seconds N] [-v]\n");
			return 2;
		}
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return 2;
	srcdir = xstrdup(cwd);
	workdir = !work ? xasprintf("%s/build/vmtests", srcdir) :
		  work[0] == '/' ? xstrdup(work) : xasprintf("%s/%s", srcdir, work);
	/* every module the tests build must compile without a warning */
	setenv("UTAP_WERROR", "1", 0);
	/*
	 * Results must not depend on the machine: every guest is TCG (where the
	 * tests were written; nested KVM can pass the probe and then crawl), no
	 * tool reaches for the network, and no test waits on the caller's stdin.
	 */
	setenv("UTAP_VM_ACCEL", "tcg", 0);
	unsetenv("DEBUGINFOD_URLS");
	if (!freopen("/dev/null", "r", stdin))
		return 2;
	if (unit) {
		char *u = xstrdup(unit);

		for (char *save = NULL, *b = strtok_r(u, " ", &save); b;
		     b = strtok_r(NULL, " ", &save))
			run_unit(b);
	}
	if (fuzz && fuzz_seconds > 0)
		run_fuzzers(fuzz, fuzz_seconds, 2);
	if (vmdir)
		run_vm_tests(vmdir, only, 2);
	if (scripts) {
		char *sc = xstrdup(scripts);

		for (char *save = NULL, *b = strtok_r(sc, " ", &save); b;
		     b = strtok_r(NULL, " ", &save))
			run_script(b);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
