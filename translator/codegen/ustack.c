/*
 * ustack.c - pass 3 for user backtraces and symbols: which ELF files the
 * module carries tables for, and the tables themselves.
 *
 * A script that uses ubacktrace() and friends (tapset functions that need
 * the runtime parts ustack, usym or uline, codegen/needs.c) gets, for every module of
 * interest, the unwind table (elf/uwbuild), the symbol table and, when
 * line functions are used, the line table (elf/symtab) — built here, at
 * translate time, and linked into the module with .incbin, so the source
 * stays small. The modules of interest are stap's: every -d PATH, the
 * DT_NEEDED closure with --ldd, the -c/-x target, and every binary a
 * process() probe names. Files mapped later get tables from the runner.
 */
#include "emit.h"
#include "base/command.h"
#include "elf/pysyms.h"
#include "elf/symtab.h"
#include "elf/uwbuild.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct umodule {
	const char *path;	/* canonical */
	bool explicit_d;	/* named with -d: a file utap cannot read is an error */
	const char *uw_file, *sym_file, *line_file;
	size_t uw_len, sym_len, line_len;
	bool python;		/* a CPython binary: py holds its symbols */
	uint64_t py[UTAP_PY_NSYMS];
};

static struct umodule umods[256];
static int numods;

static bool add_module(const char *path, bool explicit_d)
{
	char real[PATH_MAX];

	if (!realpath(path, real)) {
		if (explicit_d)
			errorf("-d %s: %s", path, strerror(errno));
		return false;
	}
	for (int i = 0; i < numods; i++)
		if (!strcmp(umods[i].path, real)) {
			umods[i].explicit_d |= explicit_d;
			return true;
		}
	if (numods == (int)ARRAY_LEN(umods)) {
		errorf("too many modules for unwind and symbol tables (the limit is %d)",
		       (int)ARRAY_LEN(umods));
		return false;
	}
	umods[numods].explicit_d = explicit_d;
	umods[numods++].path = arena_strdup(real);
	return true;
}

/* The executable a -c command starts: its first word, looked up in PATH. */
/* The binaries process("...") probes name: their canonical pp carries the path. */
static void add_probed_binaries(struct session *s)
{
	for (struct derived_probe *d = s->derived; d; d = d->next) {
		const char *p = d->pp;
		const char *q;

		if (strncmp(p, "process(\"", 9))
			continue;
		p += 9;
		q = strchr(p, '"');
		if (q && p[0] == '/')
			add_module(arena_strndup(p, (size_t)(q - p)), false);
	}
}

/*
 * The dynamic loader an executable names (PT_INTERP): it is mapped by
 * execve, not by mmap, and runs in every process (start-up, lazy binding).
 */
static void add_interp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	size_t n = 0;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			char interp[PATH_MAX];

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP ||
			    !ph.p_filesz || ph.p_filesz >= sizeof(interp))
				continue;
			if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz &&
			    interp[ph.p_filesz - 1] == 0)
				add_module(interp, false);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

/*
 * --ldd: the shared libraries the program loads at start, as its dynamic
 * loader resolves them (ld.so --list, the same mode ldd uses; nothing of
 * the program itself runs).
 */
static void add_ldd(struct session *s, const char *path)
{
	const char *ldso = "/lib64/ld-linux-x86-64.so.2";
	char *out_path = arena_printf("%s/ldd.txt", s->tmpdir);
	char *argv[] = { (char *)ldso, "--list", (char *)path, NULL };
	char *text;

	if (run_command(argv, out_path, false) != 0) {
		warnf("--ldd skipped for %s: its loader could not list its libraries", path);
		return;
	}
	text = read_file(out_path, NULL);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *arrow = strstr(line, "=> ");
		char *p = arrow ? arrow + 3 : line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue;
		p[strcspn(p, " (")] = 0;
		add_module(p, false);
	}
}

static int build_tables(struct session *s, struct umodule *m, int idx, unsigned needs)
{
	char err[256];

	if (needs & PART_UNWIND) {
		struct uw_blob uw = { 0 };
		struct uw_build_stats st = { 0 };

		if (uw_build_file(m->path, NULL, &uw, &st, err, sizeof(err))) {
			/* a file only met on the way (a -c target, a probed binary) costs frames */
			if (m->explicit_d) {
				errorf("cannot build the unwind table of %s", err);
				return -1;
			}
			warnf("no unwind table for %s", err);
			return 1;
		}
		m->uw_file = arena_printf("%s/umod%d.uwt", s->tmpdir, idx);
		m->uw_len = uw.len;
		if (write_file(m->uw_file, uw.data, uw.len))
			return -1;
		if (s->verbose > 1)
			fprintf(stderr, "Unwind table for %s: %u rows, %zu bytes (raw .eh_frame and "
				".eh_frame_hdr: %zu)\n", m->path, st.rows, st.bytes, st.eh_frame_bytes);
		uw_blob_free(&uw);
	}
	{
		struct utap_blob sym = { 0 };

		/* backtraces name code only; the data symbols are for usymdata() and kin */
		unsigned flags = needs & PART_UDATA ? 0 : UTAP_SYMTAB_CODE_ONLY;

		if (utap_symtab_build_path_flags(m->path, NULL, flags, &sym)) {
			if (m->explicit_d) {
				errorf("cannot build the symbol table of %s", m->path);
				return -1;
			}
			warnf("no symbol table for %s", m->path);
			return 1;
		}
		m->sym_file = arena_printf("%s/umod%d.sym", s->tmpdir, idx);
		m->sym_len = sym.size;
		if (s->verbose > 1)
			fprintf(stderr, "Symbol table for %s: %zu bytes\n", m->path, sym.size);
		if (write_file(m->sym_file, sym.data, sym.size))
			return -1;
		utap_blob_free(&sym);
	}
	if (needs & PART_ULINES) {
		struct utap_debuginfo di = { 0 };
		struct utap_blob lines = { 0 };

		if (utap_debuginfo_open(&di, m->path, NULL, UTAP_DI_ALL) == 0 &&
		    utap_linetab_build(&di, m->path, &lines) == 0) {
			m->line_file = arena_printf("%s/umod%d.lin", s->tmpdir, idx);
			m->line_len = lines.size;
			if (write_file(m->line_file, lines.data, lines.size))
				return -1;
		}
		utap_blob_free(&lines);
		utap_debuginfo_close(&di);
	}
	return 0;
}

/*
 * pybacktrace(): the CPython binaries among the modules, with the symbols
 * the module relocates. One mapped later (a libpython the program links
 * or dlopens) gets them from the runner with its tables.
 */
static void emit_python(struct emitter *em)
{
	for (int i = 0; i < numods; i++) {
		struct umodule *m = &umods[i];

		m->python = elf_py_syms(m->path, m->py);
		if (!m->python)
			continue;
		sb_printf(&em->top, "static const u64 utap_umod_py_%d[%d] = {", i, UTAP_PY_NSYMS);
		for (int k = 0; k < UTAP_PY_NSYMS; k++)
			sb_printf(&em->top, "%s0x%llx", k ? ", " : " ", (unsigned long long)m->py[k]);
		sb_puts(&em->top, " };\n");
	}
}

static void emit_blob(struct emitter *em, const char *name, const char *file)
{
	sb_printf(&em->top, "asm(\".pushsection .rodata\\n.balign 8\\n%s:\\n.incbin \\\"%s\\\"\\n"
		  ".popsection\");\n", name, file);
	sb_printf(&em->top, "extern const unsigned char %s[] __asm__(\"%s\");\n", name, name);
}

int emit_ustack_tables(struct emitter *em)
{
	struct session *s = em->s;
	unsigned needs = em->parts & (PART_UNWIND | PART_USYMS | PART_ULINES | PART_UDATA);
	bool one_tree = s->command || s->target_pid;

	if (!needs)
		return 0;
	numods = 0;
	for (int i = 0; i < s->ndmodules; i++)
		if (strcmp(s->dmodules[i], "kernel"))
			add_module(s->dmodules[i], true);
	if (s->command) {
		const char *prog = command_path(s->command);

		if (prog)
			add_module(prog, false);
	}
	if (s->target_pid && !s->vm)	/* with --vm the PID is the guest's */
		add_module(arena_printf("/proc/%ld/exe", s->target_pid), false);
	add_probed_binaries(s);
	for (int i = 0, n = numods; i < n; i++)
		add_interp(umods[i].path);
	if (s->ldd)
		for (int i = 0, n = numods; i < n; i++)
			add_ldd(s, umods[i].path);
	if (diag_errors)
		return -1;
	for (int i = 0, kept = 0, n = numods; i < n; i++) {
		int rc = build_tables(s, &umods[i], i, needs);

		if (rc < 0)
			return -1;
		if (rc == 0)	/* else left out: its frames end the walk, counted */
			umods[kept++] = umods[i];
		numods = kept;
	}
	if (em->parts & PART_PYTHON)
		emit_python(em);
	for (int i = 0; i < numods; i++) {
		struct umodule *m = &umods[i];

		if (m->uw_file)
			emit_blob(em, arena_printf("utap_umod_uw_%d", i), m->uw_file);
		emit_blob(em, arena_printf("utap_umod_sym_%d", i), m->sym_file);
		if (m->line_file)
			emit_blob(em, arena_printf("utap_umod_line_%d", i), m->line_file);
	}
	sb_printf(&em->top, "static const struct utap_umod_desc utap_umod_descs[%d] = {\n",
		  numods ? numods : 1);
	for (int i = 0; i < numods; i++) {
		struct umodule *m = &umods[i];

		sb_printf(&em->top, "\t{ .path = %s, .uw = %s, .uw_len = %zu, .sym = utap_umod_sym_%d, "
			  ".sym_len = %zu, .line = %s, .line_len = %zu, .py = %s },\n",
			  c_string_literal(m->path, strlen(m->path)),
			  m->uw_file ? arena_printf("utap_umod_uw_%d", i) : "NULL", m->uw_len, i,
			  m->sym_len, m->line_file ? arena_printf("utap_umod_line_%d", i) : "NULL",
			  m->line_len, m->python ? arena_printf("utap_umod_py_%d", i) : "NULL");
	}
	sb_puts(&em->top, "};\n");
	sb_printf(&em->top, "static const struct utap_umod_desc *utap_gen_umods(int *n)\n{\n"
		  "\t*n = %d;\n\treturn utap_umod_descs;\n}\n", numods);
	/*
	 * Mappings remembered for symbolizing later, and files with tables:
	 * one process tree maps a few dozen files; a system-wide script sees
	 * many processes.
	 */
	sb_printf(&em->config, "#ifndef UTAP_SEEN_MAPS\n#define UTAP_SEEN_MAPS %d\n#endif\n",
		  one_tree ? 32 : 256);
	/* files with tables: these, and those the runner adds (a target's dlopens) */
	sb_printf(&em->config, "#ifndef UTAP_MAX_UMODS\n#define UTAP_MAX_UMODS %d\n#endif\n",
		  numods + (one_tree ? 128 : 512));
	/* files without tables named in a warning each; the rest are counted */
	sb_printf(&em->config, "#ifndef UTAP_MISSING_SLOTS\n#define UTAP_MISSING_SLOTS %d\n#endif\n",
		  one_tree ? 32 : 64);
	sb_puts(&em->init, "\trc = utap_umods_init();\n\tif (rc)\n\t\treturn rc;\n"
		"\trc = utap_tables_init();\n\tif (rc)\n\t\treturn rc;\n");
	sb_puts(&em->exit, "\tutap_umods_exit();\n");
	/* files mapped later: hold the target's tasks until the runner has built their tables */
	sb_puts(&em->reg, "\t{\n\t\tint rc = utap_hold_start();\n\n\t\tif (rc)\n\t\t\treturn rc;\n\t}\n");
	sb_puts(&em->unreg, "\tutap_hold_stop();\n\tutap_ustack_report();\n");
	return 0;
}
