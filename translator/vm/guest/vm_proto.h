/*
 * vm_proto.h - what the host side of --vm (translator/vm/) and the guest's
 * /init (translator/vm/guest/) agree on.
 *
 * The job travels in a private directory on the host that the guest reads
 * through the read-only 9p root share; only that directory's path is on the
 * kernel command line. The job file is a sequence of records, each one tag
 * byte followed by a NUL-terminated string, so arguments and environment
 * values may hold any byte but NUL (which they cannot hold anyway).
 *
 * Three virtio-serial ports connect guest and host: the command's stdout,
 * its stderr (both raw bytes) and a line-based control channel:
 *
 *   guest -> host  "ready\n"                 the command is about to start
 *                  "exit STATUS OUT ERR\n"   it ended; OUT/ERR bytes were sent
 *                  "err MESSAGE\n"           guest setup failed
 *   host -> guest  "sig N\n"                 send signal N to its process group
 *                  "close 1\n", "close 2\n"  the host reader of that stream is
 *                                            gone; stop reading the pipe so
 *                                            the writer gets SIGPIPE
 *                  "bye\n"                   all output arrived; power off
 */
#ifndef UTAP_VM_PROTO_H
#define UTAP_VM_PROTO_H

#define VM_PORT_STDOUT	"utap.stdout"
#define VM_PORT_STDERR	"utap.stderr"
#define VM_PORT_CTL	"utap.ctl"

#define VM_ROOT_TAG	"utaproot"	/* 9p tag of the host's / */
#define VM_SHARE_TAG	"utapsh"	/* writable shares: utapsh0, utapsh1, ... */

#define VM_JOB_PARAM	"utapjob"	/* kernel parameter: the job directory */
#define VM_PROBE_PARAM	"utapprobe"	/* kernel parameter: power off at once */
#define VM_NO_OVERLAY_PARAM "utapnooverlay"	/* test the fallback without overlayfs */
#define VM_NO_OVERLAY_ENV "UTAP_VM_NO_OVERLAY"	/* host: set to 1 to pass it */
#define VM_JOB_FILE	"job"

#define VM_MODULE_LIST	"/utap-modules"	/* initramfs: module paths, load order */

/* job record tags */
#define VM_JOB_CWD	'c'
#define VM_JOB_ARG	'a'
#define VM_JOB_ENV	'e'
#define VM_JOB_SHARE	'w'	/* "TAG=GUEST_DIR", mounted read-write */
#define VM_JOB_SHARE_RO	'r'	/* "TAG=GUEST_DIR", mounted read-only */

#endif /* UTAP_VM_PROTO_H */
