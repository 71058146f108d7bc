/*
 * main.c - utap's command line and the five passes, as stap numbers them:
 * 1 parse, 2 elaborate, 3 translate to C, 4 compile the module, 5 run it.
 */
#include "base/command.h"
#include "codegen/emit.h"
#include "kernel/kbuild.h"
#include "runner/run.h"
#include "runner/trace/tout.h"
#include "probes/providers.h"
#include "sema/sema.h"
#include "vm/vm.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *cleanup_dir;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: utap [OPTIONS] FILE [ARGUMENTS]\n"
		"       utap [OPTIONS] -e SCRIPT [ARGUMENTS]\n"
		"       utap --run MODULE.ko [-c CMD] [-x PID] [-o FILE]\n"
		"       utap --vm-exec [VM OPTIONS] -- COMMAND...\n"
		"\n"
		"A SystemTap-compatible tracer: translates a stap script to a kernel module,\n"
		"loads it, and prints what the probes report.\n"
		"\n"
		"Options:\n"
		"  -e SCRIPT     run the script given on the command line\n"
		"  -p NUM        stop after pass NUM (1 parse, 2 elaborate, 3 translate,\n"
		"                4 compile, 5 run)\n"
		"  -v            verbose: pass timings (repeat for more)\n"
		"  -k            keep the temporary directory and print its path\n"
		"  -g            guru mode: allow embedded C in the script\n"
		"  -w            suppress warnings\n"
		"  -m NAME       name the module NAME\n"
		"  -r KREL|DIR   build for kernel release KREL or kernel build tree DIR\n"
		"  -o FILE       write the script's output to FILE\n"
		"  -c CMD        start CMD when the probes are armed; target() is its pid;\n"
		"                the run ends when it exits\n"
		"  -x PID        set target() to PID\n"
		"  -D NAME=VAL   define a C macro for the module (e.g. MAXACTION=10000)\n"
		"  -I DIR        look for tapsets in DIR too\n"
		"  -d PATH       carry unwind and symbol tables for the ELF file PATH\n"
		"  --ldd         also for the shared libraries of every such file\n"
		"  --suppress-handler-errors\n"
		"                a failing probe handler ends quietly; errors are counted only\n"
		"  -s MB         transport buffer size per CPU, in megabytes (default 4)\n"
		"  -S MB[,N]     with -o: switch to FILE.1, FILE.2 ... when FILE.0 would pass MB\n"
		"                megabytes, keeping the last N files\n"
		"  -l PATTERN    list the probe points PATTERN matches\n"
		"  -L PATTERN    the same, with their target variables\n"
		"  --vm          run pass 5 in a throwaway QEMU guest (no module is loaded\n"
		"                on this machine)\n"
		"  --vm-mem MB, --vm-cpus N, --vm-timeout SEC, --vm-accel auto|tcg|kvm\n"
		"                guest settings for --vm\n"
		"  --vm-check    report what --vm would use and why it would fail\n"
		"  --run MODULE  load and run an already built module (like staprun)\n"
		"  -V, --version print the version\n"
		"  -h, --help    print this help\n");
}

static void cleanup(void)
{
	if (cleanup_dir)
		remove_tree(cleanup_dir);
}

static const char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return "utap";
	buf[n] = 0;
	return arena_strdup(buf);
}

static bool exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* The build tree (build/utap next to runtime/) or an installed PREFIX/bin/utap. */
static void find_dirs(struct session *s)
{
	char *exe = arena_strdup(s->self_exe);
	const char *bindir = arena_strdup(dirname(exe));
	const char *top = arena_printf("%s/..", bindir);

	if (exists(arena_printf("%s/runtime/core/runtime.h", top))) {
		s->datadir = top;
		s->libexecdir = bindir;
	} else {
		s->datadir = arena_printf("%s/../share/utap", bindir);
		s->libexecdir = arena_printf("%s/../lib/utap", bindir);
	}
}

static const char *valid_modname(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 55)
		return "must be 1 to 55 characters long";
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
	      name[0] == '_'))
		return "must start with a letter or '_'";
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return "may only contain letters, digits and '_'";
	return NULL;
}

enum {
	OPT_VM = 1000, OPT_VM_MEM, OPT_VM_CPUS, OPT_VM_TIMEOUT, OPT_VM_ACCEL, OPT_VM_CHECK,
	OPT_RUN, OPT_LDD, OPT_ALL_MODULES, OPT_SUPPRESS_HANDLER_ERRORS,
};

static long parse_number(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		fatal("invalid value '%s' for %s (expected a number from %ld to %ld)", arg, opt,
		      min, max);
	return v;
}

/* -S SIZE[,N]: SIZE megabytes a file, N files at most. */
static void parse_size_limit(struct session *s, const char *arg)
{
	char *size = arena_strdup(arg);
	char *comma = strchr(size, ',');

	if (comma)
		*comma = 0;
	s->output_size_mb = parse_number("-S", size, 1, 4095);
	s->output_max_files = comma ? parse_number("-S", comma + 1, 1, 1000000) : 0;
}

static const char **push(const char **list, int *n, const char *v)
{
	list = realloc(list, sizeof(*list) * (*n + 1));
	if (!list)
		fatal("out of memory");
	list[(*n)++] = v;
	return list;
}

static bool vm_check_only;

static void parse_options(struct session *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vm", no_argument, NULL, OPT_VM },
		{ "vm-mem", required_argument, NULL, OPT_VM_MEM },
		{ "vm-cpus", required_argument, NULL, OPT_VM_CPUS },
		{ "vm-timeout", required_argument, NULL, OPT_VM_TIMEOUT },
		{ "vm-accel", required_argument, NULL, OPT_VM_ACCEL },
		{ "vm-check", no_argument, NULL, OPT_VM_CHECK },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
		{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "hVvp:e:o:m:r:kgwc:x:D:I:s:S:l:L:d:", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("utap %s, a SystemTap-compatible tracer (stap language 4.8)\n",
			       UTAP_VERSION);
			exit(0);
		case 'v':
			s->verbose++;
			break;
		case 'p':
			s->last_pass = (int)parse_number("-p", optarg, 1, 5);
			break;
		case 'e':
			if (s->script_text)
				fatal("only one -e script may be given");
			s->script_text = optarg;
			break;
		case 'o':
			s->output = optarg;
			break;
		case 'm': {
			const char *why = valid_modname(optarg);

			if (why)
				fatal("invalid module name '%s': it %s", optarg, why);
			s->module_name = optarg;
			break;
		}
		case 'r':
			s->kernel = optarg;
			break;
		case 'k':
			s->keep_tmp = true;
			break;
		case 'g':
			s->guru = true;
			break;
		case 'w':
			s->suppress_warnings = true;
			break;
		case 'c':
			s->cmd = optarg;
			break;
		case 'x':
			s->target_pid = parse_number("-x", optarg, 1, INT_MAX);
			break;
		case 'D':
			s->defines = push(s->defines, &s->ndefines, optarg);
			break;
		case 'I':
			s->incdirs = push(s->incdirs, &s->nincdirs, optarg);
			break;
		case 's':
			s->buffer_mb = parse_number("-s", optarg, 1, 4095);
			break;
		case 'S':
			parse_size_limit(s, optarg);
			break;
		case 'l':
		case 'L':
			s->list_pattern = optarg;
			s->list_vars = c == 'L';
			break;
		case OPT_VM:
			s->vm = true;
			break;
		case OPT_VM_MEM:
			s->vm_mem = (unsigned)parse_number("--vm-mem", optarg, 128, 65536);
			break;
		case OPT_VM_CPUS:
			s->vm_cpus = (unsigned)parse_number("--vm-cpus", optarg, 1, 64);
			break;
		case OPT_VM_TIMEOUT:
			s->vm_timeout = (unsigned)parse_number("--vm-timeout", optarg, 1, 86400);
			break;
		case OPT_VM_ACCEL:
			s->vm_accel = optarg;
			break;
		case OPT_VM_CHECK:
			vm_check_only = true;
			break;
		case OPT_RUN:
			s->run_module = optarg;
			break;
		case 'd':
			if (!*optarg)
				fatal("-d needs a path or a module name");
			s->dmodules = push(s->dmodules, &s->ndmodules, optarg);
			break;
		case OPT_LDD:
			s->ldd = true;
			break;
		case OPT_SUPPRESS_HANDLER_ERRORS:
			/* the module's build decides: runtime/core/context.c */
			s->defines = push(s->defines, &s->ndefines, "UTAP_SUPPRESS_HANDLER_ERRORS");
			break;
		case OPT_ALL_MODULES:
			/* kernel symbols come from the running kernel: nothing to add */
			break;
		default:
			fprintf(stderr, "Try 'utap --help' for more information.\n");
			exit(1);
		}
	}
	if (!s->script_text && !s->run_module && !vm_check_only && !s->list_pattern) {
		if (optind >= argc) {
			fprintf(stderr, "utap: error: no script given (a FILE, '-' for standard "
				"input, or -e SCRIPT)\n");
			fprintf(stderr, "Try 'utap --help' for more information.\n");
			exit(1);
		}
		s->script_path = argv[optind++];
	}
	s->args = argv + optind;
	s->nargs = argc - optind;
	if (s->cmd && s->target_pid)
		fatal("-c and -x cannot be used together");
	if (s->output_size_mb && !s->output)
		fatal("-S needs -o FILE");
	/* -p4 builds a module for `utap --run MOD -x PID` inside the guest */
	if (s->vm && s->target_pid && s->last_pass == 5)
		fatal("-x cannot be used with --vm: the guest has its own processes (build "
		      "with -p4 and run the module in the guest with --run MOD.ko -x PID)");
	if (s->cmd) {
		s->command = arena_alloc(sizeof(*s->command));
		if (command_parse(s->cmd, s->command))
			exit(1);
	}
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 +
	       ru.ru_stime.tv_usec / 1e3;
}

static uint64_t pass_start_ns;
static double pass_start_cpu;

static void pass_begin(void)
{
	pass_start_ns = now_ns();
	pass_start_cpu = cpu_ms();
}

static void pass_end(struct session *s, const char *what)
{
	if (!s->verbose)
		return;
	fprintf(stderr, "%s in %.0fcpu/%.0freal ms.\n", what, cpu_ms() - pass_start_cpu,
		(now_ns() - pass_start_ns) / 1e6);
}

static struct source *script_source(struct session *s)
{
	struct source *src;

	if (s->script_text)
		return source_from_string("<input>", s->script_text);
	if (!strcmp(s->script_path, "-")) {
		char *text = read_file("/dev/stdin", NULL);

		if (!text)
			fatal("cannot read the script from standard input");
		return source_from_string("<stdin>", text);
	}
	src = source_from_file(s->script_path, false);
	if (!src)
		fatal("cannot read script '%s': %s", s->script_path, strerror(errno));
	return src;
}

static int count_tapsets(const struct session *s)
{
	int n = 0;

	for (const struct file *f = s->tapset_files; f; f = f->next)
		n++;
	return n;
}

static int pass1(struct session *s)
{
	struct source *src = script_source(s);

	pass_begin();
	if (strlen(src->text) != src->len) {
		errorf("the script contains a NUL byte: is it a binary file?");
		return -1;
	}
	if (load_tapset_macros(s))
		return -1;
	s->user_file = parse_source(s, src);
	if (diag_errors)
		return -1;
	if (s->last_pass == 1) {
		dump_file(stdout, s->user_file);
		return 0;
	}
	if (load_tapsets(s))
		return -1;
	if (s->verbose)
		pass_end(s, arena_printf("Pass 1: parsed user script and %d library scripts",
					 count_tapsets(s)));
	return 0;
}

static int pass2(struct session *s)
{
	int nfn = 0, nglob = 0, nemb = 0;

	pass_begin();
	if (elaborate(s))
		return -1;
	for (struct function *f = s->functions; f; f = f->next_used)
		nfn++;
	for (struct global *g = s->globals; g; g = g->next_used)
		nglob++;
	for (struct embed *e = s->embeds; e; e = e->next)
		nemb++;
	pass_end(s, arena_printf("Pass 2: analyzed script: %d probe%s, %d function%s, %d embed%s, "
				 "%d global%s", s->nderived, s->nderived == 1 ? "" : "s", nfn,
				 nfn == 1 ? "" : "s", nemb, nemb == 1 ? "" : "s", nglob,
				 nglob == 1 ? "" : "s"));
	if (s->last_pass == 2)
		dump_session(stdout, s);
	return 0;
}

static void choose_modname(struct session *s)
{
	const char *text = s->script_text ? s->script_text : s->script_path;
	uint64_t h = hash_bytes(text, strlen(text), 0);

	if (s->module_name)
		s->modname = s->module_name;
	else
		s->modname = arena_printf("utap_%012llx_%d",
					  (unsigned long long)(h & 0xffffffffffffull), (int)getpid());
}

static int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	char *tmp;

	if (!data)
		return -1;
	tmp = arena_printf("%s.tmp%d", to, (int)getpid());
	if (write_file(tmp, data, len) || rename(tmp, to)) {
		unlink(tmp);
		return -1;
	}
	chmod(to, 0644);
	return 0;
}

/* -p4: the module outlives the temporary directory, as stap's cache copy does */
static int keep_module(struct session *s)
{
	const char *dest = arena_printf("%s.ko", s->modname);

	if (copy_file(s->ko_path, dest)) {
		errorf("cannot write '%s': %s", dest, strerror(errno));
		return -1;
	}
	printf("%s\n", dest);
	return 0;
}

/* The session's guest_run: a short job in a guest of the target kernel (kernel/ksyms.c). */
static int guest_run(const struct session *s, const char *share, char *const argv[], int *status)
{
	struct vm_config cfg = {
		.krel = s->krel,
		.timeout_s = 300,
		.verbose = s->verbose > 1 ? s->verbose - 1 : 0,
		.init_path = arena_printf("%s/utap-vminit", s->libexecdir),
	};

	cfg.shares[0] = (struct vm_share){ .host_dir = share, .guest_dir = share, .writable = true };
	cfg.nshares = 1;
	return vm_run(&cfg, argv, status);
}

static int run_in_vm(struct session *s)
{
	struct vm_config cfg = {
		.krel = s->krel,
		.mem_mb = s->vm_mem,
		.cpus = s->vm_cpus,
		.timeout_s = s->vm_timeout,
		.accel = s->vm_accel,
		.verbose = s->verbose,
		.init_path = arena_printf("%s/utap-vminit", s->libexecdir),
	};
	const char *argv[32];
	int argc = 0, status = 0;
	char *vbuf;

	argv[argc++] = s->self_exe;
	argv[argc++] = "--run";
	argv[argc++] = s->ko_path;
	if (s->verbose) {
		vbuf = arena_alloc((size_t)s->verbose + 2);
		vbuf[0] = '-';
		memset(vbuf + 1, 'v', (size_t)s->verbose);
		argv[argc++] = vbuf;
	}
	if (s->cmd) {
		argv[argc++] = "-c";
		argv[argc++] = s->cmd;
	}
	if (s->buffer_mb) {
		argv[argc++] = "-s";
		argv[argc++] = arena_printf("%ld", s->buffer_mb);
	}
	if (s->output_size_mb) {
		argv[argc++] = "-S";
		argv[argc++] = s->output_max_files ?
			       arena_printf("%ld,%ld", s->output_size_mb, s->output_max_files) :
			       arena_printf("%ld", s->output_size_mb);
	}
	if (s->output) {
		char *abs = realpath(".", NULL);
		const char *path = s->output[0] == '/' ? s->output :
				   arena_printf("%s/%s", abs, s->output);
		char *dir = arena_strdup(path);

		free(abs);
		argv[argc++] = "-o";
		argv[argc++] = path;
		cfg.shares[0] = (struct vm_share){ .host_dir = arena_strdup(dirname(dir)),
						   .writable = true };
		cfg.shares[0].guest_dir = cfg.shares[0].host_dir;
		cfg.nshares = 1;
	}
	argv[argc] = NULL;
	if (vm_run(&cfg, (char *const *)argv, &status))
		return 1;
	return status;
}

static int pass5(struct session *s)
{
	int rc;

	if (s->verbose)
		fprintf(stderr, "Pass 5: starting run%s.\n", s->vm ? " in a throwaway VM" : "");
	pass_begin();
	rc = s->vm ? run_in_vm(s) : run_module(s, s->ko_path);
	pass_end(s, rc ? "Pass 5: run failed" : "Pass 5: run completed");
	return rc;
}

static const char *slow_build_note;

static void say_slow_build(int sig)
{
	(void)sig;
	if (write(2, slow_build_note, strlen(slow_build_note)) < 0)
		return;
}

/*
 * kbuild takes seconds; a person at a terminal who asked for no -v output
 * is told once, after the first second, that it is compiling and not stuck.
 */
static void note_slow_build(struct session *s, bool start)
{
	if (s->verbose || !isatty(2))
		return;
	if (start) {
		slow_build_note = arena_printf("utap: compiling the module for %s...\n", s->krel);
		signal(SIGALRM, say_slow_build);
		alarm(1);
	} else {
		alarm(0);
		signal(SIGALRM, SIG_DFL);
	}
}

/* For the running kernel without headers: the way that works anyway. */
static const char *vm_alternative(const struct session *s)
{
	char krel[256];

	if (s->kernel)
		return NULL;
	if (vm_default_krel(krel, sizeof(krel)))
		return "run the script in a throwaway virtual machine with Debian's kernel: "
		       "install linux-image-amd64 and linux-headers-amd64 (make deps does), then "
		       "add --vm";
	return arena_printf("run the script in a throwaway virtual machine with the installed "
			    "Debian kernel %s: add --vm (utap --vm SCRIPT ...)", krel);
}

static int run_passes(struct session *s)
{
	int rc;

	if (pass1(s) || s->last_pass == 1)
		return diag_errors ? 1 : 0;
	if (pass2(s) || s->last_pass == 2)
		return diag_errors ? 1 : 0;
	s->tmpdir = make_tmpdir();
	if (!s->tmpdir)
		fatal("cannot create a temporary directory: %s", strerror(errno));
	if (s->keep_tmp)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmpdir);
	else
		cleanup_dir = s->tmpdir;
	choose_modname(s);
	pass_begin();
	if (translate(s))
		return 1;
	pass_end(s, arena_printf("Pass 3: translated to C into \"%s\"", s->c_path));
	if (s->last_pass == 3) {
		char *c = read_file(s->c_path, NULL);

		fputs(c, stdout);
		return 0;
	}
	if (kernel_check(s, vm_alternative(s)))
		return 1;
	pass_begin();
	note_slow_build(s, true);
	rc = compile_module(s);
	note_slow_build(s, false);
	if (rc)
		return 1;
	pass_end(s, arena_printf("Pass 4: compiled C into \"%s.ko\"", s->modname));
	if (s->last_pass == 4)
		return keep_module(s) ? 1 : 0;
	return pass5(s);
}

int main(int argc, char **argv)
{
	struct session *s;

	if (argc > 1 && !strcmp(argv[1], "--vm-exec"))
		return vm_exec_main(argc - 1, argv + 1);
	s = arena_alloc(sizeof(*s));
	s->last_pass = 5;
	s->families = probe_families;
	s->kernel_cast = &provider_kernel_cast;
	s->kernel_var = &provider_kernel_var;
	s->user_cast = &provider_user_cast;
	s->perf_counter = &provider_perf_counter;
	s->guest_run = guest_run;
	s->runner_format = tout_writer_name;
	s->self_exe = self_exe();
	find_dirs(s);
	parse_options(s, argc, argv);
	diag_suppress_warnings = s->suppress_warnings;
	atexit(cleanup);
	/* a command that cannot start stops here: nothing is built, no probe runs */
	if (s->command && (s->run_module || (s->last_pass == 5 && !s->list_pattern)) &&
	    command_check(s->command))
		return 1;
	if (s->run_module)
		return run_module(s, s->run_module);
	if (vm_check_only) {
		struct vm_config cfg = { .krel = s->kernel, .verbose = s->verbose,
					 .init_path = arena_printf("%s/utap-vminit",
								   s->libexecdir) };

		return vm_check(&cfg, stdout) ? 1 : 0;
	}
	/* --vm builds for the guest's kernel (also with -p4: prepare a module for it) */
	if (s->vm && !s->kernel) {
		char krel[256];

		if (vm_default_krel(krel, sizeof(krel)))
			fatal("--vm: no guest kernel found: install linux-image-amd64 and "
			      "linux-headers-amd64 (make deps)");
		s->kernel = arena_strdup(krel);
	}
	/* the preprocessor (kernel_v, CONFIG_*) needs the target kernel before pass 4 */
	kernel_select(s);
	if (s->list_pattern)
		return list_probe_points(s);
	return run_passes(s);
}
