/*
 * command.c - the -c command: how it is split, checked and started.
 *
 * target() must be the program the user named, not a shell in front of it.
 * One simple command (quotes, $VAR, ~ and globs, NAME=VALUE before it,
 * redirections) is expanded with wordexp() without command substitution
 * and exec'd directly, as stap does; utap sets the variables and opens the
 * files itself. A command that needs a shell ($(...), lists, pipes) runs
 * under /bin/sh with its last command exec'd by the shell itself, so the
 * shell's pid becomes the program's:
 *
 *   cd DIR && ./prog > out   sh -c 'cd DIR && exec ./prog > out'
 *   P; a | b | ./prog        sh -c 'exec 9<&0; P; { { a | b; } <&9 >&8 ... &
 *                                   exec ./prog <&7 ...; }'
 *
 * For a pipeline the earlier stages run in the background writing to a pipe
 * utap passes in as fds 7 (read) and 8 (write). Forms utap does not rewrite
 * (compound commands, subshells, here-documents, a trailing &) run as they
 * are: there target() is the shell.
 */
#include "base/command.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#define CMD_MAX_STAGES 64
#define CMD_MAX_PARTS 256

/* A word, an assignment or a redirection of the last stage. */
struct cmd_part {
	enum { PART_WORD, PART_ASSIGN, PART_REDIR } kind;
	size_t at, len;		/* the word; a redirection's target word */
	int fd;			/* PART_REDIR: the descriptor, -1 for the default */
	char op[3];		/* PART_REDIR: "<", ">", ">>", ">|", "<>", ">&", "<&" */
};

/* What a scan of the command line found at its top level. */
struct cmd_scan {
	const char *s;
	size_t n;		/* length, a trailing comment and separators cut */
	bool shell;		/* needs /bin/sh: a list, a pipe, $(...) */
	bool verbatim;		/* a form utap does not rewrite */
	size_t list_end;	/* just after the last list separator */
	size_t stage[CMD_MAX_STAGES + 1]; /* last pipeline: stage starts (+ end) */
	size_t word[CMD_MAX_STAGES];	/* each stage's command word, or SIZE_MAX */
	size_t word_len[CMD_MAX_STAGES];
	int nstages;
	struct cmd_part part[CMD_MAX_PARTS];	/* the last stage's */
	int nparts;
	int pending_fd;		/* digits just before a redirection */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_operator(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' ||
	       c == ')' || c == '\n';
}

static size_t skip_part(const char *s, size_t i, size_t n);

/* From just after an opening delimiter to just after its match; SIZE_MAX if none. */
static size_t skip_until(const char *s, size_t i, size_t n, char open, char close)
{
	int depth = 1;

	while (i < n) {
		char c = s[i];

		if (c == close && --depth == 0)
			return i + 1;
		if (c == open && open != close)
			depth++;
		if (c == '\'' || c == '"' || c == '\\' || c == '`' || c == '$') {
			i = skip_part(s, i, n);
			if (i == SIZE_MAX)
				return i;
			continue;
		}
		i++;
	}
	return SIZE_MAX;
}

/* Skips one quoted or expanded part of a word starting at s[i]. */
static size_t skip_part(const char *s, size_t i, size_t n)
{
	const char *q;

	switch (s[i]) {
	case '\\':
		return i + 2 <= n ? i + 2 : SIZE_MAX;
	case '\'':
		q = memchr(s + i + 1, '\'', n - i - 1);
		return q ? (size_t)(q - s) + 1 : SIZE_MAX;
	case '"':
		for (i++; i < n && s[i] != '"';) {
			if (s[i] == '\\' || s[i] == '`' || s[i] == '$')
				i = skip_part(s, i, n);
			else
				i++;
			if (i == SIZE_MAX)
				return i;
		}
		return i < n ? i + 1 : SIZE_MAX;
	case '`':
		return skip_until(s, i + 1, n, '`', '`');
	case '$':
		if (i + 1 < n && s[i + 1] == '(')
			return skip_until(s, i + 2, n, '(', ')');
		if (i + 1 < n && s[i + 1] == '{')
			return skip_until(s, i + 2, n, '{', '}');
		return i + 1;
	default:
		return i + 1;
	}
}

static bool is_reserved(const char *w, size_t n)
{
	static const char *const words[] = {
		"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while",
		"until", "for", "in", "{", "}", "!", "function", "select", "time", "[[",
	};

	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], w, n))
			return true;
	return false;
}

static bool is_assignment(const char *w, size_t n)
{
	size_t i = 0;

	if (!n || !(w[0] == '_' || (w[0] >= 'A' && w[0] <= 'Z') || (w[0] >= 'a' && w[0] <= 'z')))
		return false;
	while (i < n && (w[i] == '_' || (w[i] >= 'A' && w[i] <= 'Z') ||
			 (w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9')))
		i++;
	return i < n && w[i] == '=';
}

/* A redirection operator at s[i] (<, >, >>, >&, >|, <&, <>); its length, 0 for <<. */
static size_t redirection_len(const char *s, size_t i, size_t n)
{
	if (s[i] == '<' && i + 1 < n && s[i + 1] == '<')
		return 0;
	if (i + 1 < n && (s[i + 1] == '>' || s[i + 1] == '&' || s[i + 1] == '|' ||
			  (s[i] == '<' && s[i + 1] == '>')))
		return 2;
	return 1;
}

static void new_stage(struct cmd_scan *sc, size_t at)
{
	if (sc->nstages == CMD_MAX_STAGES) {
		sc->verbatim = true;
		return;
	}
	sc->stage[sc->nstages] = at;
	sc->word[sc->nstages] = SIZE_MAX;
	sc->nstages++;
	sc->nparts = 0;
}

static struct cmd_part *new_part(struct cmd_scan *sc, int kind, size_t at, size_t len)
{
	struct cmd_part *p;

	if (sc->nparts == CMD_MAX_PARTS) {
		sc->shell = true;	/* too long to run without a shell */
		return NULL;
	}
	p = &sc->part[sc->nparts++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->at = at;
	p->len = len;
	p->fd = -1;
	return p;
}

/* A list separator ends the pipeline so far: the last one starts after it. */
static void new_list(struct cmd_scan *sc, size_t at)
{
	sc->shell = true;
	sc->list_end = at;
	sc->nstages = 0;
	new_stage(sc, at);
}

/* What a word at the top level is, from where it stands. */
static void classify_word(struct cmd_scan *sc, size_t start, size_t end, bool *at_start,
			  bool *target)
{
	const char *s = sc->s;
	struct cmd_part *p;

	if (*target) {
		*target = false;	/* the file of a redirection */
		if (sc->nparts && sc->part[sc->nparts - 1].kind == PART_REDIR) {
			sc->part[sc->nparts - 1].at = start;
			sc->part[sc->nparts - 1].len = end - start;
		}
	} else if (end < sc->n && (s[end] == '<' || s[end] == '>') &&
		   strspn(s + start, "0123456789") == end - start) {
		sc->pending_fd = atoi(s + start);	/* 2>file: the descriptor */
	} else if (*at_start && is_reserved(s + start, end - start)) {
		sc->verbatim = true;
	} else if (*at_start && is_assignment(s + start, end - start)) {
		new_part(sc, PART_ASSIGN, start, end - start);
	} else {
		if (*at_start) {
			sc->word[sc->nstages - 1] = start;
			sc->word_len[sc->nstages - 1] = end - start;
			*at_start = false;
		}
		p = new_part(sc, PART_WORD, start, end - start);
		(void)p;
	}
}

/* One word at s[i]; returns its end. */
static size_t scan_word(struct cmd_scan *sc, size_t i, bool *at_start, bool *target)
{
	size_t start = i;
	const char *s = sc->s;

	while (i < sc->n && !is_blank(s[i]) && !is_operator(s[i])) {
		if (s[i] == '`' || (s[i] == '$' && i + 1 < sc->n && s[i + 1] == '('))
			sc->shell = true;	/* command substitution */
		i = skip_part(s, i, sc->n);
		if (i == SIZE_MAX)
			return i;
	}
	classify_word(sc, start, i, at_start, target);
	return i;
}

/* A redirection operator at s[i]; returns its end. */
static size_t scan_redirection(struct cmd_scan *sc, size_t i, bool *target)
{
	size_t len = redirection_len(sc->s, i, sc->n);
	struct cmd_part *p;

	if (!len) {
		sc->verbatim = true;	/* a here-document */
		return i + 2;
	}
	p = new_part(sc, PART_REDIR, i + len, 0);
	if (p) {
		memcpy(p->op, sc->s + i, len);
		p->fd = sc->pending_fd;
	}
	sc->pending_fd = -1;
	*target = true;
	return i + len;
}

/* Scans the top level of a command; -1 on unbalanced quotes or brackets. */
static int scan_command(struct cmd_scan *sc, const char *s)
{
	bool at_start = true, target = false;
	size_t i = 0;

	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->n = strlen(s);
	sc->pending_fd = -1;
	new_stage(sc, 0);
	while (i < sc->n) {
		char c = s[i];

		if (is_blank(c)) {
			i++;
		} else if (c == '#' && (i == 0 || is_blank(s[i - 1]) || is_operator(s[i - 1]))) {
			sc->n = i;	/* a comment runs to the end of the line */
		} else if (c == ';' || c == '\n' || (c == '&' && s[i + 1] == '&') ||
			   (c == '|' && s[i + 1] == '|')) {
			if (c == ';' && s[i + 1] == ';')
				sc->verbatim = true;
			i += c == ';' || c == '\n' ? 1 : 2;
			new_list(sc, i);
			at_start = true;
		} else if (c == '&') {
			i++;
			new_list(sc, i);
			at_start = true;
		} else if (c == '|') {
			sc->shell = true;
			new_stage(sc, ++i);
			at_start = true;
		} else if (c == '(' || c == ')') {
			sc->verbatim = true;
			i++;
		} else if (c == '<' || c == '>') {
			i = scan_redirection(sc, i, &target);
		} else {
			i = scan_word(sc, i, &at_start, &target);
			if (i == SIZE_MAX)
				return -1;
		}
	}
	sc->stage[sc->nstages] = sc->n;
	return 0;
}

/* Drops trailing blanks and separators ("prog;"), and notes a trailing '&'. */
static const char *trim_command(const char *text, bool *background)
{
	size_t n = strlen(text);

	while (n && (is_blank(text[n - 1]) || text[n - 1] == '\n' || text[n - 1] == ';'))
		n--;
	*background = n && text[n - 1] == '&' && (n < 2 || text[n - 2] != '&');
	return arena_strndup(text, n);
}

/* The shell line that execs the last stage (see the top of this file). */
static const char *exec_line(const struct cmd_scan *sc)
{
	const char *s = sc->s;
	int last = sc->nstages - 1;
	size_t w = sc->word[last];
	const char *tail = arena_strndup(s + w, sc->n - w);
	const char *head = arena_strndup(s + sc->stage[last], w - sc->stage[last]);
	const char *list = arena_strndup(s, sc->list_end);

	if (sc->nstages == 1)
		return arena_printf("%s%sexec %s", list, head, tail);
	return arena_printf("exec 9<&0; %s{ { %s; } <&9 >&8 7<&- 8>&- 9<&- & exec 8>&- 9<&-; "
			    "%sexec %s <&7 7<&-; }", list,
			    arena_strndup(s + sc->stage[0], sc->stage[last] - 1 - sc->stage[0]),
			    head, tail);
}

/* The program word as the shell will see it; NULL if it cannot be told. */
static const char *expand_program(const char *word)
{
	wordexp_t we;
	const char *prog = NULL;

	if (wordexp(word, &we, WRDE_NOCMD))
		return NULL;
	if (we.we_wordc >= 1)
		prog = arena_strdup(we.we_wordv[0]);
	wordfree(&we);
	return prog;
}

/* wordexp() of one word: 0 with its fields appended to *v, 1 for the shell, -1 error. */
static int expand_word(const struct command *c, const char *word, struct strbuf *v, int *n)
{
	wordexp_t we;
	int rc = wordexp(word, &we, WRDE_NOCMD);

	if (rc == WRDE_BADCHAR || rc == WRDE_CMDSUB)
		return 1;	/* the scan missed it: let the shell have it */
	if (rc) {
		errorf("-c '%s': %s", c->text, rc == WRDE_SYNTAX ? "a quote or ${...} is not "
		       "closed" : "cannot expand the command");
		return -1;
	}
	for (size_t i = 0; i < we.we_wordc; i++) {
		char *w = arena_strdup(we.we_wordv[i]);

		sb_putn(v, (const char *)&w, sizeof(w));
		(*n)++;
	}
	wordfree(&we);
	return 0;
}

/* The fields of a word joined by blanks (an assignment's value, a file name). */
static int expand_joined(const struct command *c, const char *word, const char **out,
			 int *nfields)
{
	struct strbuf v = { 0 }, joined = { 0 };
	int n = 0, rc = expand_word(c, word, &v, &n);

	for (int i = 0; !rc && i < n; i++)
		sb_printf(&joined, "%s%s", i ? " " : "", ((char **)v.buf)[i]);
	*out = arena_strdup(joined.buf ? joined.buf : "");
	*nfields = n;
	sb_free(&v);
	sb_free(&joined);
	return rc;
}

static int add_redirection(struct command *c, const struct cmd_part *p, const char *file,
			   int nfields)
{
	struct cmd_redir *r = &c->redirs[c->nredirs++];

	if (nfields != 1) {
		errorf("-c '%s': the redirection %s names %s", c->text, p->op,
		       nfields ? "more than one file" : "no file");
		return -1;
	}
	memcpy(r->op, p->op, sizeof(r->op));
	r->fd = p->fd >= 0 ? p->fd : p->op[0] == '<' ? 0 : 1;
	r->file = file;
	return 0;
}

/*
 * The last stage run without a shell: its words expanded into argv, its
 * assignments into the environment, its redirections done by utap. 1 if
 * the shell has to do it after all.
 */
static int split_words(struct command *c, const struct cmd_scan *sc)
{
	struct strbuf argv = { 0 }, env = { 0 };
	int nargs = 0, nenv = 0, rc = 0;

	c->redirs = arena_alloc(sizeof(*c->redirs) * (size_t)(sc->nparts + 1));
	for (int i = 0; !rc && i < sc->nparts; i++) {
		const struct cmd_part *p = &sc->part[i];
		const char *word = arena_strndup(sc->s + p->at, p->len), *val;
		int nf;

		if (p->kind == PART_WORD) {
			rc = expand_word(c, word, &argv, &nargs);
		} else if (p->kind == PART_ASSIGN) {
			size_t eq = strcspn(word, "=");

			rc = expand_joined(c, word + eq + 1, &val, &nf);
			if (!rc) {
				char *a = arena_printf("%.*s=%s", (int)eq, word, val);

				sb_putn(&env, (const char *)&a, sizeof(a));
				nenv++;
			}
		} else {
			rc = expand_joined(c, word, &val, &nf);
			if (!rc)
				rc = add_redirection(c, p, val, nf);
		}
	}
	if (!rc && !nargs) {
		errorf("-c '%s': the command expands to nothing", c->text);
		rc = -1;
	}
	if (!rc) {
		c->argv = arena_alloc(sizeof(char *) * (size_t)(nargs + 1));
		memcpy(c->argv, argv.buf, sizeof(char *) * (size_t)nargs);
		c->env = arena_alloc(sizeof(char *) * (size_t)(nenv + 1));
		if (nenv)
			memcpy(c->env, env.buf, sizeof(char *) * (size_t)nenv);
		c->program = c->argv[0];
	}
	sb_free(&argv);
	sb_free(&env);
	return rc;
}

int command_parse(const char *text, struct command *c)
{
	struct cmd_scan sc;
	bool background;
	int rc;

	memset(c, 0, sizeof(*c));
	c->text = trim_command(text, &background);
	if (scan_command(&sc, c->text)) {
		errorf("-c '%s': a quote, $( or ${ is not closed", text);
		return -1;
	}
	if (!sc.shell && !sc.verbatim && !background && sc.word[0] != SIZE_MAX) {
		rc = split_words(c, &sc);
		if (rc <= 0)
			return rc;
		c->argv = NULL;	/* $(...) after all: the shell runs it */
		c->nredirs = 0;
	}
	if (sc.verbatim || background || sc.word[sc.nstages - 1] == SIZE_MAX) {
		c->shell = c->text;
		c->target_is_shell = true;
		return 0;
	}
	c->shell = exec_line(&sc);
	c->pipe = sc.nstages > 1;
	c->after_list = sc.list_end > 0;
	c->program = expand_program(arena_strndup(sc.s + sc.word[sc.nstages - 1],
						  sc.word_len[sc.nstages - 1]));
	return 0;
}

/* PATH lookup as execvp does it; NULL if nothing executable is found. */
const char *command_path(const struct command *c)
{
	const char *path = getenv("PATH");
	const char *p;

	if (!c->program || !c->program[0])
		return NULL;
	if (strchr(c->program, '/'))
		return c->program;
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ;) {
		size_t n = strcspn(p, ":");
		const char *cand = n ? arena_printf("%.*s/%s", (int)n, p, c->program) :
				   c->program;
		struct stat st;

		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
			return cand;
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

static bool command_pipe_fds(void)
{
	int p[2], r, w;

	if (pipe(p))
		return false;
	/* the shell line expects the read end as fd 7 and the write end as fd 8 */
	r = fcntl(p[0], F_DUPFD, 10);
	w = fcntl(p[1], F_DUPFD, 10);
	close(p[0]);
	close(p[1]);
	if (r < 0 || w < 0 || dup2(r, 7) < 0 || dup2(w, 8) < 0)
		return false;
	close(r);
	close(w);
	return true;
}

static int redirect(const struct cmd_redir *r)
{
	int flags, fd;

	if (!strcmp(r->op, ">&") || !strcmp(r->op, "<&")) {
		if (!strcmp(r->file, "-"))
			return close(r->fd) && errno != EBADF ? -1 : 0;
		return dup2(atoi(r->file), r->fd) < 0 ? -1 : 0;
	}
	flags = !strcmp(r->op, "<") ? O_RDONLY :
		!strcmp(r->op, "<>") ? O_RDWR | O_CREAT :
		!strcmp(r->op, ">>") ? O_WRONLY | O_CREAT | O_APPEND :
		O_WRONLY | O_CREAT | O_TRUNC;
	fd = open(r->file, flags, 0666);
	if (fd < 0)
		return -1;
	if (fd != r->fd) {
		if (dup2(fd, r->fd) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

int command_exec(const struct command *c, int *failed_redir)
{
	*failed_redir = -1;
	if (c->argv) {
		for (int i = 0; c->env[i]; i++)
			putenv(c->env[i]);
		for (int i = 0; i < c->nredirs; i++) {
			if (redirect(&c->redirs[i])) {
				*failed_redir = i;
				return errno;
			}
		}
		execvp(c->argv[0], c->argv);
		return errno;
	}
	if (c->pipe && !command_pipe_fds())
		return errno;
	execl("/bin/sh", "sh", "-c", c->shell, (char *)NULL);
	return errno;
}

/* ---- can the program start? (checked before any probe runs) ---- */

static const char *check_interp(const char *interp)
{
	struct stat st;

	if (stat(interp, &st))
		return arena_printf("its interpreter '%s' does not exist (ENOENT)", interp);
	if (!S_ISREG(st.st_mode) || access(interp, X_OK))
		return arena_printf("its interpreter '%s' is not an executable file (EACCES)",
				    interp);
	return NULL;
}

/* Why the kernel would refuse an ELF file, or NULL. */
static const char *check_elf(int fd, const unsigned char *hdr, size_t len, off_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (len < EI_NIDENT || hdr[EI_CLASS] != ELFCLASS64)
		return hdr[EI_CLASS] == ELFCLASS32 ? NULL :	/* 32-bit: the kernel decides */
		       "it is not a valid ELF file: truncated header (ENOEXEC)";
	if (len < sizeof(eh))
		return "it is not a valid ELF file: truncated header (ENOEXEC)";
	memcpy(&eh, hdr, sizeof(eh));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return "it is an ELF file but not an executable (an object file?) (ENOEXEC)";
	if (eh.e_machine != EM_X86_64)
		return arena_printf("it is an ELF executable for another machine (e_machine %u) "
				    "(ENOEXEC)", eh.e_machine);
	if (eh.e_phentsize != sizeof(ph) || !eh.e_phnum ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(ph) > (uint64_t)size)
		return "it is a corrupt ELF file: its program headers are missing or cut off "
		       "(ENOEXEC)";
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return "its program headers cannot be read (EIO)";
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > (uint64_t)size)
			return arena_printf("it is a corrupt ELF file: segment %u ends at byte %llu, "
					    "past the file's end at %lld (truncated?) (ENOEXEC)",
					    i, (unsigned long long)(ph.p_offset + ph.p_filesz),
					    (long long)size);
		if (ph.p_type == PT_INTERP) {
			char interp[4096];

			if (!ph.p_filesz || ph.p_filesz >= sizeof(interp) ||
			    ph.p_offset + ph.p_filesz > (uint64_t)size ||
			    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) !=
			    (ssize_t)ph.p_filesz || interp[ph.p_filesz - 1])
				return "it is a corrupt ELF file: a bad interpreter path (ENOEXEC)";
			if (check_interp(interp))
				return check_interp(interp);
		}
	}
	return NULL;
}

/* Why "#!INTERP" would not start, or NULL. */
static const char *check_script(const unsigned char *hdr, size_t len)
{
	size_t i = 2, j;

	while (i < len && is_blank((char)hdr[i]))
		i++;
	for (j = i; j < len && hdr[j] != '\n' && !is_blank((char)hdr[j]); j++)
		;
	if (j == len || j == i)
		return j == i ? "its #! line names no interpreter (ENOEXEC)" :
		       "its #! line is too long (ENOEXEC)";
	return check_interp(arena_strndup((const char *)hdr + i, j - i));
}

static const char *check_file(const char *path)
{
	unsigned char hdr[256];
	const char *why = NULL;
	struct stat st;
	ssize_t len;
	int fd;

	if (stat(path, &st))
		return errno == ENOENT ? "no such file (ENOENT)" :
		       arena_printf("%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return "it is a directory (EACCES)";
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return "it is not executable: no execute permission (EACCES); chmod +x it";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return arena_printf("it cannot be read: %s", strerror(errno));
	len = pread(fd, hdr, sizeof(hdr), 0);
	if (len < 0)
		why = arena_printf("it cannot be read: %s", strerror(errno));
	else if (len >= 4 && !memcmp(hdr, ELFMAG, SELFMAG))
		why = check_elf(fd, hdr, (size_t)len, st.st_size);
	else if (len >= 2 && hdr[0] == '#' && hdr[1] == '!')
		why = check_script(hdr, (size_t)len);
	else if (len == 0)
		why = "it is empty (ENOEXEC)";
	/* anything else runs as a shell script, as execvp does */
	close(fd);
	return why;
}

int command_check(const struct command *c)
{
	const char *path, *why;

	if (!c->program || c->after_list)
		return 0;	/* the shell finds it (a cd or PATH=... may come first) */
	for (int i = 0; i < c->nredirs; i++) {
		const struct cmd_redir *r = &c->redirs[i];

		if (!strcmp(r->op, "<") && access(r->file, R_OK)) {
			errorf("cannot run the -c command: its input '%s' cannot be read: %s",
			       r->file, strerror(errno));
			return -1;
		}
	}
	path = command_path(c);
	if (!path) {
		errorf("cannot run the -c command: '%s' is not found in $PATH (ENOENT)",
		       c->program);
		return -1;
	}
	why = check_file(path);
	if (why) {
		errorf("cannot run the -c command: '%s': %s", path, why);
		return -1;
	}
	return 0;
}
