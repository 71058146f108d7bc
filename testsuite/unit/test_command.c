/*
 * test_command - the -c command as a stap user writes it (command.c).
 *
 * Each command is really started the way pass 5 starts it (fork, then
 * command_exec in the child): the program must run with the child's pid,
 * which is what target() is, whatever quoting, redirection, list or pipe
 * the user wrote. The programs print their own pid from /proc/self/stat.
 */
#include "unit.h"
#include "base/command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_command.XXXXXX";

struct ran {
	pid_t pid;		/* the forked child: target() */
	int status;
	char out[4096];		/* its stdout */
};

/* Starts CMD as pass 5 does, with INPUT on its stdin; false if it cannot be parsed. */
static bool run(const char *cmd, const char *input, struct ran *r)
{
	struct command c;
	int out[2], in[2];
	ssize_t n, len = 0;

	memset(r, 0, sizeof(*r));
	if (command_parse(cmd, &c))
		return false;
	if (pipe(out) || pipe(in))
		return false;
	r->pid = fork();
	if (r->pid == 0) {
		signal(SIGPIPE, SIG_DFL);	/* as a program started by utap has it */
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		{
			int redir;

			command_exec(&c, &redir);
		}
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (input && write(in[1], input, strlen(input)) < 0)
		return false;
	close(in[1]);
	while ((n = read(out[0], r->out + len, sizeof(r->out) - 1 - (size_t)len)) > 0)
		len += n;
	r->out[len] = 0;
	close(out[0]);
	waitpid(r->pid, &r->status, 0);
	return true;
}

/* The pid in the first /proc/self/stat line of TEXT, or -1. */
static long stat_pid(const char *text)
{
	const char *p = strstr(text, " (");

	while (p && p > text && p[-1] != '\n' && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p ? strtol(p, NULL, 10) : -1;
}

static void check_target(const char *cmd)
{
	struct ran r;

	if (!run(cmd, NULL, &r)) {
		unit_check(0, __FILE__, __LINE__, "'%s' was not accepted", cmd);
		return;
	}
	unit_check(stat_pid(r.out) == r.pid, __FILE__, __LINE__,
		   "'%s': the program ran as pid %ld, target() is %d (output \"%.80s\")", cmd,
		   stat_pid(r.out), (int)r.pid, r.out);
	unit_check(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, __FILE__, __LINE__,
		   "'%s' exited with status %#x", cmd, r.status);
}

TEST(plain_words_run_directly)
{
	struct command c;

	CHECK(command_parse("/bin/cat /proc/self/stat", &c) == 0);
	CHECK(c.argv && !c.shell);
	CHECK_STR(c.program, "/bin/cat");
	check_target("/bin/cat /proc/self/stat");
	check_target("cat /proc/self/stat");
}

TEST(quoted_words_run_directly)
{
	struct command c;

	CHECK(command_parse("'/bin/cat' \"/proc/self/stat\"", &c) == 0);
	CHECK(c.argv && !c.shell);
	CHECK_STR(c.argv[0], "/bin/cat");
	CHECK_STR(c.argv[1], "/proc/self/stat");
	CHECK(c.argv[2] == NULL);
	check_target("'/bin/cat' /proc/self/stat");
	check_target("/bin/cat '/proc/self/stat'");
}

TEST(variables_tilde_and_globs_expand)
{
	struct command c;

	setenv("UTAP_T_FILE", "/proc/self/stat", 1);
	setenv("HOME", "/root", 1);
	CHECK(command_parse("/bin/echo ~ $UTAP_T_FILE \"a  b\" /proc/self/sta?", &c) == 0);
	CHECK(c.argv && !c.shell);
	CHECK_STR(c.argv[1], "/root");
	CHECK_STR(c.argv[2], "/proc/self/stat");
	CHECK_STR(c.argv[3], "a  b");
	CHECK_STR(c.argv[4], "/proc/self/stat");
	check_target("/bin/cat $UTAP_T_FILE");
}

TEST(redirections_exec_the_program)
{
	char *path = NULL, buf[4096] = "";
	struct ran r;
	int fd;
	ssize_t n;

	if (asprintf(&path, "%s/out", tmpdir) < 0)
		return;
	check_target("cat /proc/self/stat 2>/dev/null");
	check_target("2>/dev/null cat /proc/self/stat");
	check_target("cat < /proc/self/stat 2>&1");	/* the shell's own stat: still the same pid */
	CHECK(run(arena_printf("cat /proc/self/stat > %s", path), NULL, &r));
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (n > 0)
		buf[n] = 0;
	if (fd >= 0)
		close(fd);
	CHECK(stat_pid(buf) == r.pid);
	CHECK_STR(r.out, "");
	free(path);
}

TEST(redirections_and_assignments_need_no_shell)
{
	struct command c;

	/* the program is the first image the target runs: no /bin/sh before it */
	CHECK(command_parse("UTAP_T=1 cat /proc/self/stat > out 2>&1 < /dev/null", &c) == 0);
	CHECK(c.argv && !c.shell);
	CHECK_STR(c.argv[0], "cat");
	CHECK(c.argv[2] == NULL);
	CHECK_STR(c.env[0], "UTAP_T=1");
	CHECK_INT(c.nredirs, 3);
	CHECK_INT(c.redirs[0].fd, 1);
	CHECK_STR(c.redirs[0].file, "out");
	CHECK_INT(c.redirs[1].fd, 2);
	CHECK_STR(c.redirs[1].op, ">&");
	CHECK_STR(c.redirs[1].file, "1");
	CHECK_INT(c.redirs[2].fd, 0);
	CHECK_STR(c.redirs[2].op, "<");
}

TEST(a_redirection_that_fails_is_named)
{
	struct command c;
	int redir = -2, err;

	diag_silent = 1;
	CHECK(command_parse("cat < /nonexistent/input", &c) == 0);
	CHECK(command_check(&c) != 0);
	CHECK(command_parse("cat /proc/self/stat > /nonexistent/dir/out", &c) == 0);
	err = command_exec(&c, &redir);	/* fails before it execs */
	CHECK_INT(err, ENOENT);
	CHECK_INT(redir, 0);
	CHECK(command_parse("cat > a b > c", &c) == 0);	/* fine: two words, one file each */
	CHECK(command_parse("cat > $UTAP_T_NOTHING", &c) != 0);
	diag_silent = 0;
}

TEST(assignments_reach_the_program)
{
	struct ran r;

	check_target("UTAP_T=1 cat /proc/self/stat");
	CHECK(run("UTAP_T=hello printenv UTAP_T", NULL, &r));
	CHECK_STR(r.out, "hello\n");
}

TEST(lists_exec_their_last_command)
{
	struct command c;

	check_target("true && cat /proc/self/stat");
	check_target("false || cat /proc/self/stat");
	check_target("echo first >/dev/null; cat /proc/self/stat");
	check_target("cd /proc && cat self/stat");
	check_target("cat /proc/self/stat;");
	CHECK(command_parse("cd /tmp && ./prog > out 2>&1", &c) == 0);
	CHECK_STR(c.program, "./prog");
	CHECK(c.after_list);
	CHECK(!c.target_is_shell);
}

TEST(pipelines_exec_their_last_stage)
{
	struct ran r;
	struct command c;

	check_target("echo x | cat /proc/self/stat");
	check_target("echo a; echo b | cat - /proc/self/stat");
	CHECK(run("echo hello | tr a-z A-Z | rev", NULL, &r));
	CHECK_STR(r.out, "OLLEH\n");
	/* the first stage still reads utap's standard input */
	CHECK(run("cat | tr a-z A-Z", "abc\n", &r));
	CHECK_STR(r.out, "ABC\n");
	CHECK(command_parse("grep -v x file | ./prog --flag", &c) == 0);
	CHECK_STR(c.program, "./prog");
	CHECK(c.pipe);
}

TEST(command_substitution_goes_to_the_shell)
{
	struct command c;

	CHECK(command_parse("cat $(echo /proc/self/stat)", &c) == 0);
	CHECK(c.shell && !c.argv);
	check_target("cat $(echo /proc/self/stat)");
	check_target("cat `echo /proc/self/stat`");
	check_target("cat \"$(echo /proc/self/stat)\" # a comment");
}

TEST(compound_commands_run_as_they_are)
{
	struct command c;
	struct ran r;

	CHECK(command_parse("if true; then cat /proc/self/stat; fi", &c) == 0);
	CHECK(c.target_is_shell);
	CHECK(c.program == NULL);
	CHECK(command_parse("(cat /proc/self/stat)", &c) == 0);
	CHECK(c.target_is_shell);
	CHECK(command_parse("sleep 1 &", &c) == 0);
	CHECK(c.target_is_shell);
	CHECK(run("for w in a b; do echo $w; done", NULL, &r));
	CHECK_STR(r.out, "a\nb\n");
}

TEST(bad_quotes_are_errors)
{
	struct command c;

	diag_silent = 1;
	CHECK(command_parse("'/bin/cat /proc/self/stat", &c) != 0);
	CHECK(command_parse("echo \"abc", &c) != 0);
	CHECK(command_parse("echo $(true", &c) != 0);
	diag_silent = 0;
}

/* ---- command_check: the reasons a program cannot start ---- */

static const char *file_in_tmp(const char *name, const void *data, size_t len, mode_t mode)
{
	char *path = arena_printf("%s/%s", tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		return path;
	close(fd);
	chmod(path, mode);
	return path;
}

static int check_cmd(const char *cmd)
{
	struct command c;

	if (command_parse(cmd, &c))
		return -2;
	return command_check(&c);
}

static void copy_head(const char *name, size_t len)
{
	char *buf = malloc(len);
	int fd = open("/bin/true", O_RDONLY);

	if (fd >= 0 && read(fd, buf, len) == (ssize_t)len)
		file_in_tmp(name, buf, len, 0755);
	if (fd >= 0)
		close(fd);
	free(buf);
}

TEST(programs_that_start)
{
	CHECK_INT(check_cmd("/bin/true"), 0);
	CHECK_INT(check_cmd("true"), 0);
	CHECK_INT(check_cmd("'/bin/true' --help"), 0);
	CHECK_INT(check_cmd("cd /nonexistent && ./x"), 0);	/* the shell's to tell */
	file_in_tmp("script.sh", "#!/bin/sh\nexit 0\n", 17, 0755);
	CHECK_INT(check_cmd(arena_printf("%s/script.sh", tmpdir)), 0);
}

TEST(programs_that_cannot_start)
{
	diag_silent = 1;
	CHECK_INT(check_cmd("/nonexistent/prog"), -1);
	CHECK_INT(check_cmd("utap-no-such-program-anywhere arg"), -1);
	CHECK_INT(check_cmd("/nonexistent/prog > /dev/null"), -1);
	CHECK_INT(check_cmd(tmpdir), -1);	/* a directory */
	file_in_tmp("noexec", "#!/bin/sh\n", 10, 0644);
	CHECK_INT(check_cmd(arena_printf("%s/noexec", tmpdir)), -1);
	file_in_tmp("badinterp", "#!/nonexistent/interp\n", 22, 0755);
	CHECK_INT(check_cmd(arena_printf("%s/badinterp", tmpdir)), -1);
	copy_head("truncated", 4096);	/* an ELF whose segments are cut off */
	CHECK_INT(check_cmd(arena_printf("%s/truncated", tmpdir)), -1);
	copy_head("headeronly", 40);
	CHECK_INT(check_cmd(arena_printf("%s/headeronly", tmpdir)), -1);
	file_in_tmp("empty", "", 0, 0755);
	CHECK_INT(check_cmd(arena_printf("%s/empty", tmpdir)), -1);
	diag_silent = 0;
}

int main(void)
{
	unit_prog = "test_command";
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(tmpdir))
		return 2;
	RUN(plain_words_run_directly);
	RUN(quoted_words_run_directly);
	RUN(variables_tilde_and_globs_expand);
	RUN(redirections_exec_the_program);
	RUN(redirections_and_assignments_need_no_shell);
	RUN(a_redirection_that_fails_is_named);
	RUN(assignments_reach_the_program);
	RUN(lists_exec_their_last_command);
	RUN(pipelines_exec_their_last_stage);
	RUN(command_substitution_goes_to_the_shell);
	RUN(compound_commands_run_as_they_are);
	RUN(bad_quotes_are_errors);
	RUN(programs_that_start);
	RUN(programs_that_cannot_start);
	remove_tree(tmpdir);
	return unit_done();
}
