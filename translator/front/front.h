/*
 * front.h - pass 1: tokens, the preprocessor, the AST and the parser, with
 * the helpers every later pass uses on the tree (new symbols, copies of
 * subtrees, printing it back).
 *
 * One header for the whole tree, as in chibicc: later passes fill in the
 * fields marked for them (types, resolved symbols, emitter scratch).
 */
#ifndef UTAP_FRONT_H
#define UTAP_FRONT_H

#include "base/base.h"

#define UTAP_MAX_KEYS 9

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
	struct macro *library;	/* the tapsets' .stpm macros, seen by every file */
};
struct token *preprocess(struct token *tok, const struct pp_env *env);
struct macro *preprocess_macros(struct token *tok, const struct pp_env *env);

/* Types */
enum type {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
};
/* "long", "string", "statistics" or "unknown", as -p2 and messages print a type */
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
	N_BUCKET,	/* @hist_log(x)[i] and i in @hist_log(x): lhs the N_HIST, rhs i */
	N_TARGET,	/* $var, $var->f, $$parms ... */
	N_DEFINED,	/* @defined(expr) */
	N_ENTRY,	/* @entry(expr) */
	N_CAST,		/* @cast(expr, "type"[, "module"]) */
	N_ARGC,		/* $# / @# */
	N_PROBEWRITE,	/* @probewrite(x): name is x (or $x); 1 or 0 once an alias expands */
	/* statements */
	N_BLOCK,
	N_EXPR_STMT,
	N_IF,
	N_WHILE,
	N_FOR,
	N_FOREACH,	/* lhs: the array (N_VAR), a slice (N_INDEX) or buckets (N_HIST) */
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
struct provider;

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
	const char *fe_sort_agg;	/* in s @sum+: the aggregate a statistics array sorts by */
	struct node *fe_limit;

	/* print family */
	int print_flags;	/* PF_* below */
	struct fmt_spec *fmt;	/* parsed format (printf/sprintf) */

	/* try/catch */
	struct symbol *catch_var;

	int pretty;		/* $x$ 1, $x$$ 2: pretty-printed as a string (N_TARGET, N_CAST) */
	int temp;		/* emitter scratch */
	void *pdata;		/* a provider's data for a resolved target variable */
	const struct provider *owner;	/* pass 2: its resolver, when not the probe's family */
	/* pass 2: a typed value's pointee ("struct foo") and module, for autocast */
	const char *ctype, *cmodule;
};

enum print_flags {
	PF_FORMAT = 1,	/* printf/sprintf: first argument is a format */
	PF_TO_STRING = 2,	/* sprint*: returns a string */
	PF_NEWLINE = 4,	/* *ln */
	PF_DELIM = 8,	/* printd: first argument is a delimiter */
};

/* A parsed printf conversion (printf_format.c) */
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
	const char *ctype, *cmodule;	/* a local assigned a typed value: autocast's @cast */
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
	/* what its returns are typed as, for autocast: f()->member (elaborate.c) */
	const char *ctype, *cmodule;
	bool ctype_mixed;	/* returns of different types: none */
	bool pure;		/* embedded C marked /+ pure +/ */
	bool guru;		/* embedded C marked /+ guru +/: callable with -g only */
	int priority;		/* function f():N; 0 in the script, 1 in tapsets by default */
	bool can_next;		/* its body has a next (or STAP_NEXT): it may fall through */
	struct function *overload;	/* the next overload 'next' falls to (elaborate.c) */
	bool reached;		/* a call runs it (not only a later overload's check) */
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
	struct node *epilogue;	/* probe a = p { body }, { epilogue } */
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


/* ast.c: helpers every pass uses on the tree */
struct symbol *new_symbol(const char *name, enum sym_kind kind, struct loc loc);
/* A deep copy of a subtree (its statement list included); resolved fields are copied as they are. */
struct node *clone_node(const struct node *n);
void ast_walk(struct node *n, void (*visit)(struct node *, void *), void *ctx);
/* A component's literal argument: a string (else NULL), or a number (else false). */
const char *pp_component_arg_str(const struct pp_component *c);
bool pp_component_arg_num(const struct pp_component *c, int64_t *out);
/* fn on each subtree under n (operands, branches, bodies, arguments, a foreach's limit),
 * each a list; not on n->next */
void visit_children(struct node *n, void (*fn)(struct node *, void *), void *arg);

/* dump.c: the tree as script text, for -p1, -p2 and messages */
void dump_file(FILE *out, const struct file *f);
void dump_expr(struct strbuf *sb, const struct node *e);
void dump_probe_point(struct strbuf *sb, const struct probe_point *pp);
void dump_probe_point_written(struct strbuf *sb, const struct probe_point *pp);
/* "NAME = POINT, POINT" for an alias ("+=" for an epilogue), "POINT, POINT" for a probe */
void dump_probe_head(struct strbuf *sb, const struct probe *p);
/* The probe point as pp() prints it, in the arena. */
const char *pp_string(const struct probe_point *pp);
/* name:type (inferred: every type, "unknown" for none; else as written) */
void dump_typed(struct strbuf *sb, const char *name, enum type t, bool inferred);
void dump_function_head(struct strbuf *sb, const struct function *fn, bool inferred);
/* "  # locals" and one line per local (not parameters) */
void dump_locals(struct strbuf *sb, const struct symbol *l);

#endif /* UTAP_FRONT_H */
