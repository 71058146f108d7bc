/*
 * vm_internal.h - the parts of `utap --vm` shared between its files.
 *
 *   vm.c            vm_run(), the options of --vm-exec, --vm-check
 *   vm_host.c       locating qemu, the kernel, the guest init, the cache
 *   vm_initramfs.c  module load order and the newc cpio the guest boots from
 *   vm_kernel.c     the kernel unpacked once for a faster (PVH) boot
 *   vm_qemu.c       qemu's command line, starting it, the KVM probe
 *   vm_relay.c      relaying output, status and signals while the guest runs
 */
#ifndef UTAP_VM_INTERNAL_H
#define UTAP_VM_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/base.h"
#include "vm.h"

#define VM_DEFAULT_MEM_MB	1024
#define VM_DEFAULT_CPUS		2
#define VM_MAX_MODULES		64

/* Everything a run needs to find on the host. */
struct vm_host {
	char krel[256];
	char kernel[PATH_MAX];		/* /boot/vmlinuz-KREL */
	char moddir[PATH_MAX];		/* /lib/modules/KREL */
	char qemu[PATH_MAX];
	char qemu_version[128];
	char init[PATH_MAX];		/* the vminit binary */
	char cache[PATH_MAX];		/* "" when there is no usable cache dir */
	char problem[1024];		/* the first thing missing, with its fix */
};

/* vm_host.c */
void vm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vm_note(const struct vm_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double vm_now(void);
int vm_find_host(const struct vm_config *cfg, struct vm_host *h);
int vm_write_atomic(const char *path, const void *data, size_t len);
void vm_prune_cache(const char *dir, const char *prefix, const char *keep);
int vm_cache_lock(const struct vm_host *h);
void vm_cache_unlock(int fd);

/* vm_initramfs.c */
struct vm_modules {
	char *path[VM_MAX_MODULES];	/* relative to /lib/modules/KREL, load order */
	int n;
};
int vm_module_order(const char *dep, const char *builtin, const char *const *wanted,
		    int nwanted, struct vm_modules *out, char *why, size_t whylen);
void vm_modules_free(struct vm_modules *m);
void cpio_add(FILE *f, const char *name, unsigned mode, const void *data, size_t size);
void cpio_add_node(FILE *f, const char *name, unsigned mode, unsigned major, unsigned minor);
void cpio_finish(FILE *f);
int vm_initramfs(const struct vm_config *cfg, const struct vm_host *h, const char *jobdir,
		 char *path, size_t len);

/* vm_kernel.c */
void vm_boot_kernel(const struct vm_config *cfg, const struct vm_host *h, char *path,
		    size_t len);
bool vm_elf_has_pvh(const unsigned char *elf, size_t len);

/* vm_qemu.c */
struct vm_qemu {
	const struct vm_config *cfg;
	const struct vm_host *h;
	const char *kernel;		/* what to boot: h->kernel or its unpacked ELF */
	const char *initrd;
	const char *append;		/* extra kernel parameters */
	const char *jobdir;		/* console.log and qemu.log go here */
	bool kvm;
	int out_fd, err_fd, ctl_fd;	/* qemu's ends of the port sockets; -1: no ports */
};
pid_t vm_qemu_start(const struct vm_qemu *q);
const char *vm_choose_accel(const struct vm_config *cfg, const struct vm_host *h,
			    const char *kernel, const char *initrd, const char *jobdir, char *why,
			    size_t whylen);

/* vm_relay.c */
enum vm_outcome {
	VM_EXITED,		/* the command ended; status is valid */
	VM_GUEST_ERROR,		/* the guest's init reported a setup error */
	VM_GUEST_DIED,		/* qemu ended before the command did */
	VM_TIMED_OUT,
	VM_INTERRUPTED,		/* a second SIGINT/SIGTERM */
};
struct vm_result {
	enum vm_outcome outcome;
	int status;
	int qemu_status;	/* wait status of qemu, when it ended by itself */
	double ready_at;	/* seconds from start to "ready", 0 if never */
	double exited_at;
	unsigned long long lost_out, lost_err;	/* announced bytes that never arrived */
	char guest_error[512];
};
void vm_relay(const struct vm_config *cfg, const char *job_file, pid_t qemu, int out_sock,
	      int err_sock, int ctl_sock, double deadline, struct vm_result *r);

/* vm.c */
struct vm_boot {
	char kernel[PATH_MAX * 2];	/* what qemu boots */
	char initrd[PATH_MAX * 2];
	const char *accel;		/* "tcg", "kvm"; NULL if unusable */
	char why[512];			/* why that accelerator (or why none) */
};
int vm_prepare_boot(const struct vm_config *cfg, const struct vm_host *h, const char *jobdir,
		    struct vm_boot *b);
/* the job file the guest's init reads */
int vm_write_job(FILE *f, char *const argv[], const char *cwd, char *const envp[],
		 const struct vm_config *cfg);

#endif /* UTAP_VM_INTERNAL_H */
