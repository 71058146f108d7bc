/*
 * it_ptrace_count.c - the instruction-tracing tests' independent counter:
 * runs a program under ptrace, stops at a breakpoint on START (default:
 * FUNC), then single-steps with PTRACE_SINGLESTEP until FUNC has returned,
 * counting the instructions executed inside FUNC and those among them after
 * which execution did not continue at the next instruction (taken
 * branches; lengths from Capstone). Every call of START is counted.
 *
 * usage: it_ptrace_count [-t] [-f] [-s START] FUNC -- PROG [ARG...]
 * prints: ptrace FUNC: calls C insns N taken T
 *         exit STATUS (or: signal SIG)
 * -t adds "ptrace time NS": the time spent stepping through FUNC; -f (fast)
 * counts instructions only, without reading them (no taken-branch count),
 * as the cheapest stepping loop a ptrace tracer can run.
 */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

struct sym {
	uint64_t value, size;
};

/* The symbol's link-time value and size, and the first PT_LOAD's address. */
static int elf_symbol(const char *path, const char *name, struct sym *out, uint64_t *load0,
		      int *pie)
{
	struct stat sb;
	const uint8_t *f;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int fd = open(path, O_RDONLY), found = -1;

	if (fd < 0 || fstat(fd, &sb))
		die(path);
	f = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f == MAP_FAILED)
		die("mmap");
	eh = (const Elf64_Ehdr *)f;
	*pie = eh->e_type == ET_DYN;
	*load0 = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(f + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD) {
			*load0 = ph->p_vaddr - ph->p_offset;
			break;
		}
	}
	sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum && found < 0; i++) {
		const Elf64_Sym *syms = (const Elf64_Sym *)(f + sh[i].sh_offset);
		const char *str;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		str = (const char *)(f + sh[sh[i].sh_link].sh_offset);
		for (size_t j = 0; j < sh[i].sh_size / sizeof(Elf64_Sym); j++)
			if (!strcmp(str + syms[j].st_name, name)) {
				out->value = syms[j].st_value;
				out->size = syms[j].st_size;
				found = 0;
				break;
			}
	}
	munmap((void *)f, sb.st_size);
	close(fd);
	return found;
}

/* Where the process mapped the file's offset 0. */
static uint64_t map_base(pid_t pid, const char *path)
{
	char maps[64], line[PATH_MAX + 128], real[PATH_MAX];
	uint64_t base = 0;
	FILE *f;

	if (!realpath(path, real))
		die(path);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		die(maps);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, off;
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (sscanf(line, "%lx-%*x %*s %lx", &lo, &off) == 2 && off == 0 && !strcmp(p, real)) {
			base = lo;
			break;
		}
	}
	fclose(f);
	return base;
}

static long peek(pid_t pid, uint64_t addr)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		die("PTRACE_PEEKTEXT");
	return v;
}

static void set_break(pid_t pid, uint64_t addr, long *orig)
{
	*orig = peek(pid, addr);
	if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)((*orig & ~0xffL) | 0xcc)))
		die("PTRACE_POKETEXT");
}

static struct user_regs_struct regs(pid_t pid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
		die("PTRACE_GETREGS");
	return r;
}

/* Length of the instruction at addr, by Capstone. */
static unsigned int insn_len(csh cs, pid_t pid, uint64_t addr)
{
	long w[2] = { peek(pid, addr), peek(pid, addr + 8) };
	cs_insn *insn;
	unsigned int len = 0;

	if (cs_disasm(cs, (const uint8_t *)w, sizeof(w), addr, 1, &insn) == 1) {
		len = insn->size;
		cs_free(insn, 1);
	}
	return len;
}

int main(int argc, char **argv)
{
	const char *start = NULL, *func;
	struct sym fs, ss;
	uint64_t load0, base, f_lo, f_hi, s_addr;
	long calls = 0, insns = 0, taken = 0, orig;
	long long t0, ns = 0;
	int status, pie, i = 1, timing = 0, fast = 0;
	pid_t pid;
	csh cs;

	for (; argc > i && argv[i][0] == '-' && argv[i][1] && !argv[i][2] && argv[i][1] != 's'; i++) {
		if (argv[i][1] == 't')
			timing = 1;
		else if (argv[i][1] == 'f')
			fast = 1;
		else
			break;
	}
	if (argc > i + 2 && !strcmp(argv[i], "-s")) {
		start = argv[i + 1];
		i += 2;
	}
	if (argc < i + 3 || strcmp(argv[i + 1], "--")) {
		fprintf(stderr, "usage: it_ptrace_count [-t] [-f] [-s START] FUNC -- PROG [ARG...]\n");
		return 2;
	}
	func = argv[i];
	if (!start)
		start = func;
	if (elf_symbol(argv[i + 2], func, &fs, &load0, &pie) ||
	    elf_symbol(argv[i + 2], start, &ss, &load0, &pie)) {
		fprintf(stderr, "it_ptrace_count: no symbol %s or %s in %s\n", func, start,
			argv[i + 2]);
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 2;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[i + 2], argv + i + 2);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		die("exec stop");
	base = pie ? map_base(pid, argv[i + 2]) - load0 : 0;
	f_lo = base + fs.value;
	f_hi = f_lo + fs.size;
	s_addr = base + ss.value;
	set_break(pid, s_addr, &orig);
	for (;;) {
		struct user_regs_struct r;
		int sig = 0;
		bool inside = false;
		uint64_t entry_sp = 0;

		if (ptrace(PTRACE_CONT, pid, NULL, NULL))
			die("PTRACE_CONT");
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFSTOPPED(status))
			break;
		r = regs(pid);
		if (WSTOPSIG(status) != SIGTRAP || r.rip != s_addr + 1) {
			/* not our breakpoint: pass the signal on */
			if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(status)))
				die("PTRACE_CONT");
			continue;
		}
		if (ptrace(PTRACE_POKETEXT, pid, (void *)s_addr, (void *)orig))
			die("PTRACE_POKETEXT");
		r.rip = s_addr;
		if (ptrace(PTRACE_SETREGS, pid, NULL, &r))
			die("PTRACE_SETREGS");
		calls++;
		t0 = now_ns();
		/* step until FUNC was entered and has returned; count what ran in between */
		for (;;) {
			uint64_t pre = r.rip;
			unsigned int len = 0;
			siginfo_t si;

			if (!inside && pre >= f_lo && pre < f_hi) {
				inside = true;
				entry_sp = r.rsp;
			}
			if (inside && r.rsp > entry_sp)
				break;
			if (inside)
				len = fast ? 1 : insn_len(cs, pid, pre);
			if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig))
				die("PTRACE_SINGLESTEP");
			if (waitpid(pid, &status, 0) < 0)
				die("waitpid");
			if (!WIFSTOPPED(status))
				goto done;
			sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
			r = regs(pid);
			if (sig)
				continue;	/* a signal for the program: deliver it next */
			/* entering a handler is reported by a SIGTRAP of its own, not a step */
			if (!fast && !ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) && si.si_code == SIGTRAP)
				continue;
			if (inside && len) {
				insns++;
				if (!fast && r.rip != pre + len)
					taken++;
			}
		}
		ns += now_ns() - t0;
		set_break(pid, s_addr, &orig);
	}
done:
	printf("ptrace %s: calls %ld insns %ld taken %ld\n", func, calls, insns, taken);
	if (timing)
		printf("ptrace time %lld\n", ns);
	if (WIFEXITED(status))
		printf("exit %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("signal %d\n", WTERMSIG(status));
	cs_close(&cs);
	return 0;
}
