/*
 * utap.h - declarations shared by the translator's passes.
 *
 * One header, as in chibicc: tokens, AST, symbols, the session and the
 * entry points of every pass. Everything is arena-allocated and lives until
 * the process exits, so no pass frees what another produced.
 */
#ifndef UTAP_H
#define UTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UTAP_VERSION "0.1"
#define UTAP_MAX_KEYS 9
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* arena.c */
void *arena_alloc(size_t size);
char *arena_strdup(const char *s);
char *arena_strndup(const char *s, size_t n);
char *arena_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_reset(void);

/* strbuf.c: growable text, used by the emitter and the runner */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_free(struct strbuf *sb);

/* Source text and locations */
struct source {
	const char *name;	/* "<input>" for -e, else the path */
	const char *text;
	size_t len;
	bool is_tapset;
};

struct loc {
	const struct source *src;
	int line, col;		/* 1-based */
	size_t off;
};

/* diag.c: file:line:col: error: message, the source line and a caret */
extern int diag_errors;
extern int diag_warnings;
extern bool diag_suppress_warnings;
extern bool diag_silent;
void error_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warn_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(struct loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* lexer.c */
enum token_kind {
	TK_IDENT,	/* identifiers and keywords */
	TK_NUM,
	TK_STR,
	TK_PUNCT,
	TK_EMBEDDED,	/* %{ ... %} */
	TK_TARGET,	/* $name, $$vars, $1 */
	TK_AT,		/* @name, @1 */
	TK_PP,		/* preprocessor: %( %? %: %) */
	TK_EOF,
};

struct token {
	enum token_kind kind;
	struct token *next;
	const char *text;	/* spelling as written (for punct/ident/target/at) */
	size_t len;
	int64_t num;		/* TK_NUM */
	const char *str;	/* TK_STR: unescaped value; TK_EMBEDDED: the C code */
	size_t str_len;
	struct loc loc;
	bool space_before;	/* whitespace or comment before this token */
	bool line_start;
	unsigned short expansion;	/* macro expansions that produced it (0: written) */
};

struct token *tokenize(const struct source *src);
bool tok_is(const struct token *t, const char *s);
const char *tok_describe(const struct token *t);	/* "identifier 'x'" */
struct source *source_from_file(const char *path, bool is_tapset);
struct source *source_from_string(const char *name, const char *text);

/* preproc.c: %( %? %: %) conditionals, @define macros, $1/@1 arguments */
struct pp_env {
	const char *kernel_vr;	/* e.g. "6.1.0-57-amd64" */
	const char *kernel_v;	/* e.g. "6.1.0" */
	const char *arch;	/* "x86_64" */
	const char *kconfig_path; /* the target kernel's .config */
	char **args;		/* script arguments: $1.. / @1.. */
	int nargs;
	bool guru;
};
struct token *preprocess(struct token *tok, const struct pp_env *env);

/* Types */
enum type {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
};
const char *type_name(enum type t);

/* AST */
enum node_kind {
	/* expressions */
	N_NUM,
	N_STR,
	N_VAR,		/* local or global scalar, or array name in `in`/foreach */
	N_INDEX,	/* arr[k1, k2] */
	N_CALL,		/* user/tapset function call */
	N_PRINT,	/* printf/sprintf/print/println/printd/printdln/sprint... */
	N_BINARY,	/* + - * / % << >> & | ^ */
	N_LOGICAL,	/* && || */
	N_COMPARE,	/* < > <= >= == != */
	N_REGEX,	/* =~ !~ */
	N_CONCAT,	/* . */
	N_UNARY,	/* - + ! ~ */
	N_PREINC,	/* ++x, --x (op gives which) */
	N_POSTINC,	/* x++, x-- */
	N_ASSIGN,	/* = += -= ... .= */
	N_AGG_ADD,	/* x <<< v */
	N_TERNARY,
	N_IN,		/* k in arr, [k1,k2] in arr */
	N_STATOP,	/* @count(x) @sum @min @max @avg @variance */
	N_HIST,		/* @hist_linear(x, lo, hi, step), @hist_log(x) */
	N_TARGET,	/* $var, $var->f, $$parms ... */
	N_DEFINED,	/* @defined(expr) */
	N_ENTRY,	/* @entry(expr) */
	N_CAST,		/* @cast(expr, "type"[, "module"]) */
	N_ARGC,		/* $# / @# */
	/* statements */
	N_BLOCK,
	N_EXPR_STMT,
	N_IF,
	N_WHILE,
	N_FOR,
	N_FOREACH,
	N_BREAK,
	N_CONTINUE,
	N_NEXT,
	N_RETURN,
	N_DELETE,
	N_TRY,
	N_EMBED,	/* %{ %} as a statement (guru) */
	N_NULL,
};

struct symbol;
struct function;

struct node {
	enum node_kind kind;
	struct loc loc;
	const char *op;		/* operator spelling */
	const char *near;	/* "operator '/'" etc. for run-time error messages */
	enum type type;
	int chain;		/* binary operators nested in lhs/rhs (parse.c's limit) */
	struct node *next;	/* next statement, argument or key */

	struct node *lhs, *rhs;
	struct node *cond, *then, *els;	/* if, ternary, while, for */
	struct node *init, *inc;	/* for */
	struct node *body;	/* block contents, loop body, try body */
	struct node *catch_body;
	struct node *args;	/* call/print arguments, index keys, hist params */
	int nargs;

	const char *name;	/* identifier, function name, target variable text */
	int64_t num;
	const char *str;
	size_t str_len;

	struct symbol *sym;	/* resolved variable */
	struct function *fn;	/* resolved function */

	/* foreach */
	struct symbol *fe_keys[UTAP_MAX_KEYS];
	int fe_nkeys;
	struct symbol *fe_value;	/* v = [..] in arr */
	int fe_sort_col;	/* 0 none, -1 value, 1..n key column */
	int fe_sort_dir;	/* +1 ascending, -1 descending */
	struct node *fe_limit;

	/* print family */
	int print_flags;	/* PF_* below */
	struct fmt_spec *fmt;	/* parsed format (printf/sprintf) */

	/* try/catch */
	struct symbol *catch_var;

	int temp;		/* emitter scratch */
	void *pdata;		/* a provider's data for a resolved target variable */
};

enum print_flags {
	PF_FORMAT = 1,	/* printf/sprintf: first argument is a format */
	PF_TO_STRING = 2,	/* sprint*: returns a string */
	PF_NEWLINE = 4,	/* *ln */
	PF_DELIM = 8,	/* printd: first argument is a delimiter */
};

/* A parsed printf conversion (format.c) */
enum fmt_conv {
	FC_LITERAL,
	FC_SIGNED,	/* %d %i */
	FC_UNSIGNED,	/* %u */
	FC_OCTAL,
	FC_HEX,
	FC_HEX_UPPER,
	FC_POINTER,	/* %p */
	FC_STRING,	/* %s */
	FC_CHAR,	/* %c */
	FC_MEMORY,	/* %m */
	FC_MEMORY_HEX,	/* %M */
	FC_BINARY,	/* %b (with width 1/2/4/8) */
	FC_PERCENT,
};

struct fmt_piece {
	enum fmt_conv conv;
	const char *lit;	/* FC_LITERAL text */
	size_t lit_len;
	int flags;		/* FMT_F_* */
	int width;		/* -1 none, -2 '*' */
	int prec;		/* -1 none, -2 '*' */
	struct fmt_piece *next;
};

struct fmt_spec {
	struct fmt_piece *pieces;
	int nargs;		/* arguments it consumes, counting '*' */
};

enum { FMT_F_LEFT = 1, FMT_F_PLUS = 2, FMT_F_SPACE = 4, FMT_F_ALT = 8, FMT_F_ZERO = 16 };

struct fmt_spec *parse_format(const char *fmt, size_t len, struct loc loc);

/* Variables */
enum sym_kind { SYM_LOCAL, SYM_PARAM, SYM_GLOBAL };

struct symbol {
	const char *name;
	enum sym_kind kind;
	enum type type;		/* value type (TY_STATS for aggregates) */
	int arity;		/* -1 unknown, 0 scalar, n keys */
	enum type keytypes[UTAP_MAX_KEYS];
	struct loc loc;		/* declaration or first use */
	struct symbol *next;
	bool read, written;
	bool is_private;
	struct global *global;	/* SYM_GLOBAL */
	int index;		/* position among the owner's locals/params or globals */
};

/* The histogram (and @variance bit shift) a statistics global is read with. */
struct hist_info {
	int type;		/* 0 none, 1 log, 2 linear */
	int64_t start, stop, interval;
	int bit_shift;
	struct loc loc;
};

struct global {
	struct symbol *sym;
	struct hist_info hist;
	struct node *init;	/* literal initializer */
	long size;		/* global a[SIZE] */
	bool wrap;		/* global a% */
	bool used;
	const struct source *src;
	struct global *next;		/* in its file */
	struct global *next_used;	/* in session->globals */
};

struct function {
	const char *name;
	struct loc loc;
	enum type ret;		/* declared or inferred */
	struct symbol *params;
	int nparams;
	struct symbol *locals;	/* params first */
	struct node *body;	/* NULL for embedded C */
	const char *embedded;	/* %{ %} body */
	bool is_private;
	bool pure;		/* embedded C marked /+ pure +/ */
	bool used;
	bool emitted_decl;
	int ntemps_str;
	const struct source *src;
	struct function *next;		/* in its file */
	struct function *next_used;	/* in session->functions */
	unsigned char *access;		/* per global: none, read, write (emit_data.c) */
	bool reads_walked;
	const char *cname;
};

/* Probe points: kernel.function("f").return? */
struct pp_component {
	const char *name;	/* may contain '*' */
	struct node *arg;	/* literal argument or NULL */
	struct pp_component *next;
};

struct probe_point {
	struct pp_component *comps;
	bool optional;		/* ? */
	bool sufficient;	/* ! */
	struct node *cond;	/* probe X if (cond) */
	struct loc loc;
	struct probe_point *next;
};

struct probe {
	struct probe_point *points;
	struct node *body;
	struct symbol *locals;
	struct loc loc;
	const struct source *src;
	bool is_alias;
	bool is_epilogue;	/* += */
	struct probe_point *alias_names; /* for aliases: the names being defined */
	struct probe *next;
	int ntemps_str;
};

struct embed {
	const char *code;
	struct loc loc;
	struct embed *next;
};

struct file {
	const struct source *src;
	struct probe *probes;	/* includes aliases */
	struct function *functions;
	struct global *globals;
	struct embed *embeds;
	struct file *next;
};

/* parse.c */
struct file *parse_file(const struct source *src, struct token *tok);

/* The session: options and what the passes produce. */
struct derived_probe;
struct provider;

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

	/* pass 2 */
	struct probe *probes_used;	/* user probes after alias expansion */
	struct derived_probe *derived;	/* resolved, in order */
	int nderived;
	struct function *functions;	/* used functions, callee before caller */
	struct global *globals;		/* used globals */
	struct embed *embeds;		/* used top-level embedded C */
	unsigned needs;		/* NEED_* runtime features */
	int nglobals;
};

enum needs {
	NEED_TARGET = 1u << 0,
	NEED_EXIT = 1u << 1,
	NEED_MAPS = 1u << 2,
	NEED_STATS = 1u << 3,
	NEED_REGEX = 1u << 4,
	NEED_TRY = 1u << 5,
	NEED_UNWIND = 1u << 6,
	NEED_ITRACE = 1u << 7,
	NEED_USYMS = 1u << 8,
	NEED_ULINES = 1u << 9,
};

extern struct session *S;

/* elaborate.c (pass 2) */
struct file *parse_source(struct session *s, const struct source *src);
int load_tapsets(struct session *s);
int elaborate(struct session *s);
struct node *clone_node(const struct node *n);
struct symbol *new_symbol(const char *name, enum sym_kind kind, struct loc loc);

/* types.c */
int infer_types(struct session *s);

/* dump.c: -p1 / -p2 listings */
void dump_file(FILE *out, const struct file *f);
void dump_session(FILE *out, const struct session *s);
void dump_expr(struct strbuf *sb, const struct node *e);
void dump_probe_point(struct strbuf *sb, const struct probe_point *pp);

/* emit.c (pass 3) */
int translate(struct session *s);

/* listing.c: -l / -L */
int list_probe_points(struct session *s);

/* build.c (pass 4) */
int compile_module(struct session *s);
void kernel_select(struct session *s);	/* -r, or the running kernel */
int kernel_check(struct session *s, const char *alternative); /* its build tree exists */

/* run.c (pass 5) */
int run_module(struct session *s, const char *ko_path);

/* command.c: the -c command */
struct cmd_redir {
	int fd;			/* redirected descriptor */
	char op[3];		/* <, >, >>, >|, <>, >&, <& */
	const char *file;	/* expanded target (a number or - for >& and <&) */
};

struct command {
	const char *text;	/* as given, trailing separators cut */
	char **argv;		/* one simple command: exec'd directly, */
	char **env;		/* with these NAME=VALUE set */
	struct cmd_redir *redirs;	/* and these done first, in order */
	int nredirs;
	const char *shell;	/* else the line for /bin/sh -c */
	bool pipe;		/* the line uses a pipe on fds 7 and 8 */
	bool after_list;	/* other commands run before the program */
	bool target_is_shell;	/* a form not rewritten: target() is the shell */
	const char *program;	/* what target() becomes, as named; NULL if unknown */
};

int command_parse(const char *text, struct command *c);
const char *command_path(const struct command *c);	/* PATH lookup, or NULL */
int command_check(const struct command *c);		/* the program can start */
/* In the child: execs the command; on failure returns errno, *failed_redir its redirection */
int command_exec(const struct command *c, int *failed_redir);

/* util.c */
char *read_file(const char *path, size_t *len);
int write_file(const char *path, const char *data, size_t len);
int run_command(char *const argv[], const char *log_path, bool quiet);
uint64_t now_ns(void);
char *make_tmpdir(void);
void remove_tree(const char *path);
uint64_t hash_bytes(const void *data, size_t len, uint64_t seed);
const char *utap_cache_dir(const char *sub);

#endif /* UTAP_H */
