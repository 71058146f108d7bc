/*
 * sema.h - pass 2: the session every later pass reads (options and what
 * the passes produced), alias expansion, name resolution, types, listings.
 * Probe families plug in through provider.h.
 */
#ifndef UTAP_SEMA_H
#define UTAP_SEMA_H

#include "front/front.h"

/* The session: options and what the passes produce. */
struct derived_probe;
struct probe_family;

struct session {
	/* options */
	const char *script_path;	/* file, or NULL with -e */
	const char *script_text;	/* -e */
	int last_pass;		/* -p */
	int verbose;
	bool keep_tmp;		/* -k */
	bool guru;		/* -g */
	bool vm;		/* --vm */
	bool suppress_warnings;	/* -w */
	const char *module_name;	/* -m */
	const char *kernel;	/* -r KREL or build dir */
	const char *output;	/* -o FILE */
	long output_size_mb;	/* -S SIZE[,N]: switch files past SIZE megabytes */
	long output_max_files;	/* ... keeping the last N (0: all) */
	const char *cmd;	/* -c */
	struct command *command;	/* -c, split */
	long target_pid;	/* -x */
	long buffer_mb;		/* -s */
	const char **defines;	/* -D NAME=VALUE */
	int ndefines;
	const char **incdirs;	/* -I DIR */
	int nincdirs;
	char **args;		/* script arguments */
	int nargs;
	unsigned vm_mem, vm_cpus, vm_timeout;
	const char *vm_accel;
	const char *run_module;	/* --run MODULE.ko */
	const char **dmodules;	/* -d PATH */
	int ndmodules;
	bool ldd;		/* --ldd */
	const char *list_pattern;	/* -l / -L */
	bool list_vars;

	/* the probe families (probes/providers.c), given by main.c */
	const struct probe_family *families;
	/* resolves @cast(p, "type", "kernel") in any probe, from the kernel's BTF */
	const struct provider *kernel_cast;
	const struct provider *kernel_var;	/* @var("name") outside process probes */
	const struct provider *user_cast;	/* @cast(p, "t", "/bin" or "<h>") outside them */
	const struct provider *perf_counter;	/* @perf("NAME"): a perf .counter probe's value */
	/*
	 * Runs argv in a throwaway guest booted with the target kernel, the
	 * directory share writable there at the same path: 0 with the exit
	 * status in *status, or -1 after an error. Given by main.c (vm/), for
	 * what only the target kernel can tell (kernel/ksyms.c); NULL: none.
	 */
	int (*guest_run)(const struct session *s, const char *share, char *const argv[],
			 int *status);
	/*
	 * The trace formats the runner writes from a whole run, in turn from 0
	 * (NULL past the last): pass 3 names them to the module, which checks
	 * itrace_output() against them. Given by main.c (runner/trace/).
	 */
	const char *(*runner_format)(unsigned int i);

	/* derived facts */
	const char *datadir;	/* has runtime/ and tapsets/ */
	const char *libexecdir;	/* has utap-vminit */
	const char *self_exe;
	const char *krel;	/* resolved kernel release */
	const char *kbuild;	/* resolved kernel build dir */
	const char *tmpdir;
	const char *c_path;	/* pass 3 output */
	const char *ko_path;	/* pass 4 output */
	const char *modname;

	/* pass 1 */
	struct file *user_file;
	struct file *tapset_files;
	struct macro *tapset_macros;	/* of the .stpm files, before any .stp is read */
	/* elide_alias.c: the variables @probewrite() asks about, found once */
	const char **probewritten;
	int nprobewritten, capprobewritten;
	bool probewritten_known;

	/* pass 2 */
	struct probe *probes_used;	/* user probes after alias expansion */
	struct derived_probe *derived;	/* resolved, in order */
	int nderived;
	struct function *functions;	/* used functions, callee before caller */
	struct global *globals;		/* used globals */
	struct embed *embeds;		/* used top-level embedded C */
	int nglobals;

	/* pass 3 */
	int nhandlers;		/* C functions of probe handlers (emit_share.c) */
};

/* elaborate.c */
struct file *parse_source(struct session *s, const struct source *src);
int load_tapsets(struct session *s);
/* the tapsets' .stpm macros, which every script and tapset sees; -1 after an error */
int load_tapset_macros(struct session *s);
int elaborate(struct session *s);

/* elide_alias.c: drops an alias body's assignments nothing reads and that have no side effect */
void elide_unread_alias_vars(struct session *s, struct node *alias_body, struct node *rest,
			     struct node *cond);

/* types.c */
int infer_types(struct session *s);

/* elide.c: what stap's pass 2 drops as side-effect free, after types */
void elide(struct session *s);
/* then the globals nothing names any more (after unreached functions are dropped) */
void elide_globals(struct session *s);

/* listing.c: -p2, and -l / -L */
void dump_session(FILE *out, const struct session *s);
int list_probe_points(struct session *s);

#endif /* UTAP_SEMA_H */
