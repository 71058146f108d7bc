/*
 * vm.h - run a command inside a throwaway QEMU guest (`utap --vm`).
 *
 * The guest boots the installed distro kernel directly, sees the host's root
 * file system read-only over 9p (every host path is the same path in the
 * guest) with a throwaway writable layer on top, runs one command and powers
 * off. The command's stdout, stderr and exit status come back exactly.
 */
#ifndef UTAP_VM_H
#define UTAP_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct vm_share {
	const char *host_dir;
	const char *guest_dir;
	bool writable;		/* else mounted read-only */
};

struct vm_config {
	const char *krel;	/* guest kernel release; NULL = vm_default_krel() */
	unsigned mem_mb;	/* 0 = default (1024) */
	unsigned cpus;		/* 0 = default (2) */
	unsigned timeout_s;	/* whole run, boot included; 0 = no timeout */
	const char *accel;	/* "auto" (default when NULL), "tcg", "kvm" */
	int verbose;		/* >0: progress on stderr; guest kernel log on failure */
	const char *init_path;	/* the vminit binary; NULL = look beside the utap binary */
	const char *console;	/* the guest's console goes here; NULL = the job dir */
	struct vm_share shares[8];
	int nshares;
};

/*
 * Boot a guest, run argv there with the host's cwd and environment, relay the
 * command's stdout and stderr live and apart to fds 1 and 2, return 0 and put
 * its exit status in *status (0..255; 128+N if killed by signal N). SIGINT and
 * SIGTERM are forwarded to the command's process group; a second one stops
 * the guest. On infrastructure failure return -1 after printing one
 * "utap: ..." error naming the cause and the fix.
 */
int vm_run(const struct vm_config *cfg, char *const argv[], int *status);

/* The kernel release --vm boots: the newest /boot/vmlinuz-KREL with /lib/modules/KREL/build. */
int vm_default_krel(char *buf, size_t len);

/* `utap --vm-check`: print what the guest would use and why it would fail; 0 if OK. */
int vm_check(const struct vm_config *cfg, FILE *out);

/*
 * `utap --vm-exec [--vm-mem MB] [--vm-cpus N] [--vm-timeout S] [--vm-accel A]
 * [--vm-share HOST[:GUEST]] [-v] [--] CMD ARGS...`: returns the process exit
 * code (the command's status, or 125 when the guest itself failed).
 */
int vm_exec_main(int argc, char **argv);

#endif /* UTAP_VM_H */
