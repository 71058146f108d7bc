/*
 * test_fmt_lib.h - helpers of the trace format tests: a scratch directory,
 * a tiny program assembled there (known addresses, lines and symbols), trace
 * payloads built by hand, files and commands.
 */
#ifndef UTAP_TEST_FMT_LIB_H
#define UTAP_TEST_FMT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "itrace/trace_record.h"

/* A fresh directory under /tmp (removed by fmt_cleanup). */
const char *fmt_tmpdir(void);
void fmt_cleanup(void);

/*
 * Assemble and link the test program in DIR with testsuite/vm/formats/
 * fmtprog.sh (non-PIE, no build-id, text at 0x401000, source lines from
 * DIR/fmt.c, which is written too). Returns its path, or NULL if the
 * assembler or linker failed. Its run is testsuite/vm/formats/fmtrun.h.
 *
 *   401000 loop:   xor %eax,%eax            fmt.c:3
 *   401002         add %rdi,%rax            fmt.c:4
 *   401005         dec %rdi                 fmt.c:5
 *   401008         jne 401002               fmt.c:5
 *   40100a         ret                      fmt.c:6
 *   40100b _start: mov $3,%edi              fmt.c:9
 *   401010         call loop                fmt.c:9
 *   401015         test %rax,%rax           fmt.c:10
 *   401018         je 40101d                fmt.c:10
 *   40101a         mov %rax,%rdi            fmt.c:11
 *   40101d         mov $60,%eax             fmt.c:12
 *   401022         syscall                  fmt.c:12
 */
const char *fmt_build_prog(const char *dir);

/* growable payload of trace records */
struct pbuf {
	uint8_t *p;
	size_t n, cap;
};

void pb_map(struct pbuf *b, uint32_t pid, uint64_t start, uint64_t end, uint64_t offset,
	    uint64_t bias, const char *path);
void pb_thread(struct pbuf *b, uint32_t tid, uint32_t pid, bool on);
void pb_lost(struct pbuf *b, uint32_t tid, uint64_t count);
/* one step; HEX is the instruction's bytes */
void pb_step(struct pbuf *b, uint32_t tid, uint64_t ip, const char *hex, uint16_t flags,
	     uint64_t next_ip);
/* step I of the test program's run (fmtrun.h); its address */
uint64_t pb_run_step(struct pbuf *b, unsigned int i, uint32_t tid, bool next_ips);
void pb_free(struct pbuf *b);

/*
 * The test program's run from _start to its exit syscall (18 steps) on
 * thread TID: a map record, thread on, the steps, thread off. With
 * NEXT_IPS the steps carry their successors, else they leave them 0.
 */
void fmt_prog_trace(struct pbuf *b, const char *bin, uint32_t tid, bool next_ips);

/*
 * Read the qtrace bytes DATA as qtrace-tools do (qtools_read.h): true if
 * there are N records, record I at IPS[I], the last one's successor LAST
 * (if LAST is not 0), and a single header; else says what differs on
 * stderr.
 */
bool qtools_expect(const void *data, size_t len, const uint64_t *ips, size_t n, uint64_t last);

/* helpers */
size_t unhex(const char *s, uint8_t *out);
char *slurp(const char *path, size_t *len);
/* TEXT with every "@KEY@" of the pairs replaced (NULL-terminated list of key, value). */
char *subst(const char *text, ...);
/* Run a shell command; its stdout+stderr in *out (malloc'ed); the exit status. */
int run_cmd(const char *cmd, char **out);
/* The file of DIR/NAME (malloc'ed path). */
char *path_in(const char *dir, const char *name);

#endif /* UTAP_TEST_FMT_LIB_H */

/* Self cost (Ir) per instruction of one object in a callgrind file. */
struct cg_cost {
	uint64_t addr;
	uint64_t ir;
};

/*
 * Parse callgrind TEXT (name compression, relative subpositions, calls=,
 * jump=, jcnd= as callgrind itself writes them) and sum the self cost of
 * every instruction of object OBJ. Returns the entries sorted by address
 * (malloc'ed, *n of them) and the file's total self cost in *total; NULL
 * on a line it cannot read.
 */
struct cg_cost *cg_parse(const char *text, const char *obj, size_t *n, uint64_t *total);
