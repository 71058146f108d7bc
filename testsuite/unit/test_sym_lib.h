/*
 * test_sym_lib.h - helpers for the symbol/line table tests: run binutils
 * as independent oracles (readelf, addr2line) and compute what the tables
 * must contain from their text output.
 */
#ifndef UTAP_TEST_SYM_LIB_H
#define UTAP_TEST_SYM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/symtab.h"
#include "unwind/sym.h"

/* stdout of a shell command (malloc'ed), or NULL if it failed. */
char *run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A symbol as readelf -sW lists it. */
struct ref_sym {
	uint64_t addr;
	char type[16];
	char bind[16];
	char ndx[16];
	char name[512];
};

struct ref_table {
	struct ref_sym *v;
	size_t n;
	size_t first_global;	/* count of leading LOCAL entries */
};

/* Entries of symbol table SECTION (".symtab" or ".dynsym") of FILE; dynsym names lose "@VER". */
bool ref_table_read(const char *file, const char *section, struct ref_table *t);
void ref_table_free(struct ref_table *t);

/* Expected (address, name) pairs, sorted, one per address. */
struct ref_expect {
	struct utap_sym_in *v;
	size_t n;
	char **owned;		/* names made here (PLT stubs), freed with it */
	size_t nowned;
};

/*
 * What the builder must produce for FILE (segments and sections from
 * FILE, symbols from TABS in libdwfl order): tables given as pairs of
 * (table, its section file); pass the second table as NULL when there is one.
 */
bool ref_expect_build(const char *file, const struct ref_table *main_tab, const char *main_file,
		      const struct ref_table *aux_tab, const char *aux_file, struct ref_expect *e);
void ref_expect_free(struct ref_expect *e);

/*
 * Differences between a built table and the expectation: their number, and
 * the first one described in WHY.
 */
int symtab_mismatches(const struct utap_symtab *t, const struct ref_expect *e, char *why,
		      size_t whysize);

/* A blob built from PATH (debug root ROOT) and its validated view. */
struct built_symtab {
	struct utap_blob blob;
	struct utap_symtab tab;
	int err;
};

void built_symtab_open(struct built_symtab *b, const char *path, const char *root);
void built_symtab_close(struct built_symtab *b);

/* The line table of PATH (debug root ROOT), printed module path MODPATH. */
struct built_linetab {
	struct utap_blob blob;
	struct utap_linetab tab;
	int err;
};

void built_linetab_open(struct built_linetab *b, const char *path, const char *root,
			const char *modpath);
void built_linetab_close(struct built_linetab *b);

/* A scratch directory for extracted sections; removed by scratch_cleanup(). */
const char *scratch_dir(void);
void scratch_cleanup(void);

#endif /* UTAP_TEST_SYM_LIB_H */
