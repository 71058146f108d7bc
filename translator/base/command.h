/*
 * command.h - the -c command: how it is split, where its program is, whether
 * it can start, and starting it. Pass 2 (bare process probes) and pass 3
 * (its tables) read the program; pass 5 execs the command.
 */
#ifndef UTAP_COMMAND_H
#define UTAP_COMMAND_H

#include "base/base.h"

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

#endif /* UTAP_COMMAND_H */
