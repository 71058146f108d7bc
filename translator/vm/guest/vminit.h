/*
 * vminit.h - the /init of utap's throwaway guest.
 *
 * It runs as PID 1 in the initramfs: loads the kernel modules the guest
 * needs, opens the virtio-serial ports, mounts the host's root file system
 * (read-only 9p, with a throwaway writable layer on top), switches into it,
 * runs the job's command and relays its output, then powers the guest off.
 */
#ifndef UTAP_VMINIT_H
#define UTAP_VMINIT_H

#include <stddef.h>
#include <stdbool.h>

#define VMINIT_MAX_SHARES 8

struct job {
	char *cwd;
	char **argv;		/* NULL-terminated */
	char **envp;		/* NULL-terminated */
	int nargs, nenv;
	struct {
		char *tag;
		char *dir;
		bool writable;
	} shares[VMINIT_MAX_SHARES];
	int nshares;
};

struct ports {
	int out, err, ctl;	/* -1 until found */
};

/* vminit_ctl.c */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void power_off(void) __attribute__((noreturn));
void ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern struct ports ports;

/* vminit_setup.c */
void mount_early(void);
void load_modules(void);
void open_ports(void);
void mount_host_root(void);
void switch_root(void);
void mount_system(void);
void mount_shares(const struct job *job);
void bring_up_loopback(void);

/* vminit_job.c */
int parse_job(char *buf, size_t len, struct job *job);
bool cmdline_has(const char *word);
const char *cmdline_value(const char *key);

/* vminit_run.c */
void run_job(const struct job *job);
void ctl_wait_bye(int timeout_ms);

#endif /* UTAP_VMINIT_H */
