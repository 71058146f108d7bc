/*
 * fmt_ptrace.c - build/fmt-ptrace: single-step a program with ptrace and
 * write its trace in one of utap's formats, through the same runner-side
 * code the module's trace goes through (translator/runner/trace/tout.c).
 *
 *   fmt-ptrace [-f FORMAT] [-o OUT] [--func NAME] [--aslr] [-v] -- PROG [ARGS...]
 *
 * FORMAT is qtrace, lackey, drcov, callgrind, lcov or count (the default:
 * print the counts only). With --func only the instructions from NAME's
 * entry to its return are traced (every call; NAME is a symbol of PROG),
 * else everything from the first instruction after exec to the exit.
 * Address randomisation is off for PROG unless --aslr, so that runs can
 * be compared address for address.
 *
 * It is the host-side reference for the trace formats: the same program,
 * stepped by the kernel's ptrace instead of utap's stepping engine, gives
 * records (ip, bytes, length, branch kind, data address, successor) of the
 * same shape, so tests can compare the formats with valgrind and qemu on
 * the host and, later, with the module's output in the guest. Single-
 * threaded programs only (no PTRACE_O_TRACECLONE).
 */
#include "formats/stream.h"
#include "runner/trace/tout.h"
#include "arch/x86_64/insn.h"
#include "elf/debuginfo.h"
#include "elf/symtab.h"
#include "unwind/sym.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct known {
	uint64_t start, end;
};

static struct tout *T;
static pid_t pid;
static struct known *known;
static size_t nknown;
static uint64_t nsteps, nbranches, ntaken;
static bool verbose;
static int exit_status = -1;	/* wait status once the tracee is gone */

static void die(const char *what)
{
	fprintf(stderr, "fmt-ptrace: %s: %s\n", what, strerror(errno));
	if (pid > 0)
		kill(pid, SIGKILL);
	exit(2);
}

/* Load bias of the mapping of PATH at START from file OFFSET, from its program headers. */
static bool elf_bias(const char *path, uint64_t start, uint64_t offset, uint64_t *bias,
		     struct utap_build_id *id)
{
	struct utap_elf e;
	size_t n;
	bool ok = false;

	id->len = 0;
	if (utap_elf_open(&e, path))
		return false;
	utap_elf_build_id(e.elf, id);
	if (!elf_getphdrnum(e.elf, &n)) {
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if ((ph.p_offset & ~0xfffull) != offset)
				continue;
			*bias = start - (ph.p_vaddr & ~0xfffull);
			ok = true;
		}
	}
	utap_elf_close(&e);
	return ok;
}

/* New executable file mappings of the tracee become map records. */
static void read_maps(void)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		die("reading /proc/PID/maps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[4096] = "";
		uint8_t rec[sizeof(struct utap_trace_map) + 4096 + 8];
		struct utap_trace_map m = { .kind = UTAP_TRACE_MAP };
		struct utap_build_id id;
		uint64_t bias;
		size_t len, i;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   file) < 4 || perms[2] != 'x' || file[0] != '/')
			continue;
		for (i = 0; i < nknown; i++)
			if (known[i].start == start && known[i].end == end)
				break;
		if (i < nknown)
			continue;
		known = realloc(known, (nknown + 1) * sizeof(*known));
		if (!known)
			die("memory");
		known[nknown++] = (struct known){ start, end };
		if (!elf_bias(file, start, off, &bias, &id))
			bias = start - off;
		len = strlen(file);
		m.size = (uint16_t)((sizeof(m) + len + 7) & ~(size_t)7);
		m.pid = (uint32_t)pid;
		m.start = start;
		m.end = end;
		m.offset = off;
		m.load_bias = bias;
		m.build_id_len = id.len <= 20 ? (uint8_t)id.len : 0;
		memcpy(m.build_id, id.bytes, m.build_id_len);
		m.path_len = (uint16_t)len;
		memset(rec, 0, sizeof(rec));
		memcpy(rec, &m, sizeof(m));
		memcpy(rec + sizeof(m), file, len);
		if (verbose)
			fprintf(stderr, "map %llx-%llx off %llx bias %" PRIx64 " %s\n", start, end, off,
				bias, file);
		tout_feed(T, rec, m.size);
	}
	fclose(f);
}

static bool mapped(uint64_t ip)
{
	for (size_t i = 0; i < nknown; i++)
		if (known[i].start <= ip && ip < known[i].end)
			return true;
	return false;
}

static void thread_rec(bool on)
{
	struct utap_trace_thread r = {
		.kind = UTAP_TRACE_THREAD, .size = sizeof(r), .tid = (uint32_t)pid,
		.pid = (uint32_t)pid, .on = on,
	};

	tout_feed(T, &r, sizeof(r));
}

static void get_regs(struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, pid, NULL, r))
		die("PTRACE_GETREGS");
}

/* Up to 16 bytes at IP (fewer at the end of a readable area). */
static size_t read_code(uint64_t ip, uint8_t *buf)
{
	struct iovec local = { buf, 16 }, remote = { (void *)(uintptr_t)ip, 16 };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n > 0)
		return (size_t)n;
	for (size_t i = 0; i < 16; i += 8) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)(ip + i), NULL);
		if (errno)
			return i;
		memcpy(buf + i, &w, 8);
	}
	return 16;
}

/* The step at the current IP, not yet knowing its successor. */
static void describe(const struct user_regs_struct *r, struct utap_trace_step *s)
{
	struct x86_insn_info xi;
	uint64_t gpr[16] = {
		r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};
	size_t avail;
	int len;

	memset(s, 0, sizeof(*s));
	s->kind = UTAP_TRACE_STEP;
	s->size = sizeof(*s);
	s->tid = (uint32_t)pid;
	s->ip = r->rip;
	avail = read_code(s->ip, s->bytes);
	len = x86_insn_decode(s->bytes, avail, &xi);
	if (len <= 0) {
		s->flags = UTAP_STEP_DECODE_FAIL;
		return;
	}
	s->len = (uint8_t)len;
	memset(s->bytes + len, 0, sizeof(s->bytes) - (size_t)len);
	switch (xi.flow) {
	case X86_FLOW_JCC:
		s->flags |= UTAP_STEP_BRANCH | UTAP_STEP_COND;
		break;
	case X86_FLOW_JMP:
		s->flags |= UTAP_STEP_BRANCH;
		break;
	case X86_FLOW_JMP_IND:
		s->flags |= UTAP_STEP_BRANCH | UTAP_STEP_INDIRECT;
		break;
	case X86_FLOW_CALL:
		s->flags |= UTAP_STEP_BRANCH | UTAP_STEP_CALL;
		break;
	case X86_FLOW_CALL_IND:
		s->flags |= UTAP_STEP_BRANCH | UTAP_STEP_CALL | UTAP_STEP_INDIRECT;
		break;
	case X86_FLOW_RET:
		s->flags |= UTAP_STEP_BRANCH | UTAP_STEP_RET;
		break;
	default:
		break;
	}
	if (xi.rep)
		s->flags |= UTAP_STEP_REP;
	if (x86_insn_mem_ea(&xi, s->ip, gpr, r->fs_base, r->gs_base, &s->ea))
		s->flags |= UTAP_STEP_HAS_EA;
}

/*
 * Step until the tracee exits or (STOP_SP != 0) returns to STOP_IP with
 * that stack pointer. Returns false when it exited.
 */
static bool step_until(uint64_t stop_ip, uint64_t stop_sp)
{
	struct user_regs_struct r;
	struct utap_trace_step s;
	int st, sig = 0;

	get_regs(&r);
	for (;;) {
		if (!mapped(r.rip))
			read_maps();
		describe(&r, &s);
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig))
			die("PTRACE_SINGLESTEP");
		sig = 0;
		if (waitpid(pid, &st, 0) < 0)
			die("waitpid");
		nsteps++;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			exit_status = st;
			if (s.flags & UTAP_STEP_BRANCH)
				nbranches++;
			tout_feed(T, &s, sizeof(s));
			return false;
		}
		if (WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st);	/* delivered with the next step */
		get_regs(&r);
		s.next_ip = r.rip;
		if (s.flags & UTAP_STEP_BRANCH) {
			nbranches++;
			if (s.len && s.next_ip != s.ip + s.len) {
				s.flags |= UTAP_STEP_TAKEN;
				ntaken++;
			}
		} else if (s.len && s.next_ip != s.ip + s.len && !(s.flags & UTAP_STEP_REP)) {
			s.flags |= UTAP_STEP_EXCEPTION;	/* a signal handler, or the like */
		}
		tout_feed(T, &s, sizeof(s));
		if (stop_sp && r.rip == stop_ip && r.rsp == stop_sp)
			return true;
	}
}

/* File-relative address of symbol NAME in the executable of the tracee, run-time address in *at. */
static bool find_func(const char *name, uint64_t *at)
{
	char exe[64], path[4096], line[4096];
	struct utap_blob blob = { 0 };
	struct utap_symtab t;
	ssize_t n;
	FILE *f;
	bool found = false;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	n = readlink(exe, path, sizeof(path) - 1);
	if (n <= 0)
		die("readlink /proc/PID/exe");
	path[n] = 0;
	if (utap_symtab_build_path(path, NULL, &blob) || utap_symtab_init(&t, blob.data, blob.size))
		return false;
	snprintf(exe, sizeof(exe), "/proc/%d/maps", (int)pid);
	f = fopen(exe, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long start, off;
		char file[4096] = "";
		uint64_t bias;

		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %4095[^\n]", &start, &off, file) < 3 ||
		    strcmp(file, path) || utap_symtab_load_bias(&t, start, off, &bias))
			continue;
		for (uint32_t i = 0; i < t.nsyms; i++) {
			char sym[UTAP_SYM_NAME_MAX];
			uint64_t a;

			utap_symtab_entry(&t, i, &a, sym, sizeof(sym));
			if (!strcmp(sym, name)) {
				*at = a + bias;
				found = true;
				break;
			}
		}
	}
	if (f)
		fclose(f);
	utap_blob_free(&blob);
	return found;
}

static void poke_byte(uint64_t addr, uint8_t b, uint8_t *old)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)addr, NULL);
	if (errno)
		die("PTRACE_PEEKTEXT");
	if (old)
		*old = (uint8_t)w;
	w = (w & ~0xffL) | b;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)addr, (void *)w))
		die("PTRACE_POKETEXT");
}

/* Trace every call of the function at ENTRY; false when the tracee is gone. */
static void trace_calls(uint64_t entry)
{
	uint8_t orig;
	int st;

	poke_byte(entry, 0xcc, &orig);
	for (;;) {
		struct user_regs_struct r;
		uint64_t ret;
		long w;

		if (ptrace(PTRACE_CONT, pid, NULL, NULL))
			die("PTRACE_CONT");
		if (waitpid(pid, &st, 0) < 0)
			die("waitpid");
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			exit_status = st;
			return;
		}
		if (WSTOPSIG(st) != SIGTRAP)
			continue;	/* (signals are dropped: the test programs have none) */
		get_regs(&r);
		if (r.rip != entry + 1)
			continue;
		poke_byte(entry, orig, NULL);
		r.rip = entry;
		if (ptrace(PTRACE_SETREGS, pid, NULL, &r))
			die("PTRACE_SETREGS");
		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, pid, (void *)(uintptr_t)r.rsp, NULL);
		if (errno)
			die("PTRACE_PEEKDATA");
		ret = (uint64_t)w;
		thread_rec(true);
		if (!step_until(ret, r.rsp + 8))
			return;
		thread_rec(false);
		poke_byte(entry, 0xcc, NULL);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: fmt-ptrace [-f qtrace|lackey|drcov|callgrind|lcov|count] [-o OUT] "
		"[--func NAME] [--aslr] [-v] -- PROG [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *format = "count", *out = NULL, *func = NULL;
	bool aslr = false;
	struct tout_opts o = { .fd = 1, .qt_isa = UTAP_QT_ISA_HOST, .creator = "utap-fmt-ptrace" };
	struct tout_stats st;
	struct timespec t0, t1;
	char err[512];
	int i, status;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--func") && i + 1 < argc)
			func = argv[++i];
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--aslr"))
			aslr = true;
		else
			usage();
	}
	if (i + 1 >= argc)
		usage();
	o.format = strcmp(format, "count") ? format : "drcov";
	if (!tout_format_known(o.format, strlen(o.format)))
		usage();
	o.path = strcmp(format, "count") ? out : "/dev/null";
	o.cmd = argv[i + 1];
	T = tout_open(&o, err, sizeof(err));
	if (!T) {
		fprintf(stderr, "fmt-ptrace: %s\n", err);
		return 2;
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		if (!aslr)	/* the same addresses every run, as under gdb */
			personality(ADDR_NO_RANDOMIZE);
		execvp(argv[i + 1], argv + i + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		die("the program did not start");
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	read_maps();
	if (func) {
		uint64_t entry;

		if (!find_func(func, &entry)) {
			fprintf(stderr, "fmt-ptrace: no function '%s' in %s\n", func, argv[i + 1]);
			kill(pid, SIGKILL);
			return 2;
		}
		trace_calls(entry);
	} else {
		thread_rec(true);
		step_until(0, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (exit_status == -1)
		waitpid(pid, &exit_status, 0);
	status = exit_status;
	if (tout_close(T, &st, err, sizeof(err))) {
		fprintf(stderr, "fmt-ptrace: %s\n", err);
		return 2;
	}
	fprintf(stderr, "steps %" PRIu64 " branches %" PRIu64 " taken %" PRIu64 " bbs %" PRIu64
		" seconds %.3f\n", nsteps, nbranches, ntaken, st.bbs,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
