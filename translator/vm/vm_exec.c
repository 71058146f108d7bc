/*
 * vm_exec.c - `utap --vm-exec [options] [--] CMD ARGS...`: run any command in
 * the throwaway guest. The testsuite and the demo use it to batch many
 * commands into one boot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

#define EXIT_VM_FAILED 125	/* the guest failed, not the command (as docker run does) */
#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fputs("usage: utap --vm-exec [--vm-mem MB] [--vm-cpus N] [--vm-timeout S]\n"
	      "                      [--vm-accel auto|tcg|kvm] [--vm-kernel KREL]\n"
	      "                      [--vm-console FILE]\n"
	      "                      [--vm-share HOST_DIR[:GUEST_DIR]]... [-v] [--] CMD ARGS...\n"
	      "Runs CMD in a throwaway QEMU guest that sees the host's files read-only\n"
	      "(writes go to a throwaway layer); --vm-share dirs are writable.\n"
	      "--vm-console FILE keeps the guest kernel's console there, however the run ends.\n"
	      "Exits with CMD's status, or 125 if the guest itself failed.\n", f);
}

static int parse_unsigned(const char *opt, const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v > 1000000) {
		fprintf(stderr, "utap: %s needs a number, not '%s'\n", opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

static int add_share(struct vm_config *cfg, char *spec)
{
	char *colon = strchr(spec, ':');

	if (cfg->nshares == 8) {
		fputs("utap: at most 8 --vm-share directories\n", stderr);
		return -1;
	}
	if (colon)
		*colon = '\0';
	cfg->shares[cfg->nshares].host_dir = spec;
	cfg->shares[cfg->nshares].guest_dir = colon ? colon + 1 : spec;
	cfg->shares[cfg->nshares].writable = true;
	if (spec[0] != '/' && !colon) {
		fputs("utap: --vm-share HOST_DIR without :GUEST_DIR needs an absolute path\n", stderr);
		return -1;
	}
	cfg->nshares++;
	return 0;
}

/* The value of option NAME at argv[*i] ("--name V" or "--name=V"); NULL if not this option. */
static const char *option_value(char **argv, int argc, int *i, const char *name, bool *matched)
{
	size_t n = strlen(name);

	*matched = false;
	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=') {
		*matched = true;
		return argv[*i] + n + 1;
	}
	if (argv[*i][n] != '\0')
		return NULL;
	*matched = true;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* 1 if argv[*i] was one of the value options, 0 if not, -1 on a bad value. */
static int value_option(struct vm_config *cfg, char **argv, int argc, int *i)
{
	static const char *const names[] = { "--vm-mem", "--vm-cpus", "--vm-timeout",
					     "--vm-accel", "--vm-kernel", "--vm-console", "--vm-share" };
	const char *v = NULL;
	bool matched = false;
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]) && !matched; k++)
		v = option_value(argv, argc, i, names[k], &matched);
	if (!matched)
		return 0;
	switch (k - 1) {
	case 0: return parse_unsigned(names[0], v, &cfg->mem_mb) < 0 ? -1 : 1;
	case 1: return parse_unsigned(names[1], v, &cfg->cpus) < 0 ? -1 : 1;
	case 2: return parse_unsigned(names[2], v, &cfg->timeout_s) < 0 ? -1 : 1;
	case 3:
		cfg->accel = v;
		if (v && (!strcmp(v, "auto") || !strcmp(v, "tcg") || !strcmp(v, "kvm")))
			return 1;
		fprintf(stderr, "utap: --vm-accel is auto, tcg or kvm, not '%s'\n", v ? v : "");
		return -1;
	case 4:
		cfg->krel = v;
		return v ? 1 : -1;
	case 5:
		cfg->console = v;
		return v ? 1 : -1;
	default:
		return v && add_share(cfg, (char *)v) == 0 ? 1 : -1;
	}
}

/* Parse options up to the command; returns the index of CMD, or -1. */
static int parse_options(struct vm_config *cfg, int argc, char **argv, int first)
{
	int i, rc;

	for (i = first; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
		if (argv[i][0] != '-')
			return i;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (argv[i][1] == 'v' && strspn(argv[i] + 1, "v") == strlen(argv[i] + 1)) {
			cfg->verbose += strlen(argv[i] + 1);
			continue;
		}
		rc = value_option(cfg, argv, argc, &i);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			fprintf(stderr, "utap: --vm-exec: unknown option %s\n", argv[i]);
			return -1;
		}
	}
	return i;
}

int vm_exec_main(int argc, char **argv)
{
	struct vm_config cfg;
	int first = 1, cmd, status = 0;

	memset(&cfg, 0, sizeof(cfg));
	/* called with utap's own argv ("utap --vm-exec ...") or from "--vm-exec" on */
	if (argc > 1 && strcmp(argv[1], "--vm-exec") == 0)
		first = 2;
	cmd = parse_options(&cfg, argc, argv, first);
	if (cmd < 0)
		return EXIT_USAGE;
	if (cmd >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (vm_run(&cfg, argv + cmd, &status) < 0)
		return EXIT_VM_FAILED;
	return status;
}
