/*
 * sdt_notes.h - SystemTap SDT markers (<sys/sdt.h>) of a user-space binary: the
 * NT_STAPSDT notes in .note.stapsdt, each naming a provider, a marker, the
 * marker's address, its semaphore and an argument description in
 * assembler syntax ("-4@%edi 8@-8(%rbp) 8@$42").
 */
#ifndef UTAP_SDT_H
#define UTAP_SDT_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/process_bin.h"

enum sdt_arg_kind {
	SDT_REG,		/* the value of a register */
	SDT_MEM,		/* the value in memory at disp(base, index, scale) */
	SDT_IMM,		/* a constant */
};

/* Register numbers are indexes into sdt_reg_names (the pt_regs field names). */
struct sdt_arg {
	enum sdt_arg_kind kind;
	int size;		/* 1, 2, 4 or 8 bytes */
	bool is_signed;
	int reg;		/* SDT_REG: the register; SDT_MEM: the base or -1 */
	int reg_width;		/* SDT_REG: bytes the named register holds (%eax: 4) */
	int reg_shift;		/* SDT_REG: 8 for %ah..%dh */
	int index;		/* SDT_MEM: index register or -1 */
	int scale;		/* SDT_MEM: 1, 2, 4, 8 */
	int64_t disp;		/* SDT_MEM: displacement; SDT_IMM: the value */
	bool rip_relative;	/* SDT_MEM: symbol(%rip): disp is a link-time address */
};

struct sdt_note {
	const char *provider;
	const char *name;
	uint64_t pc;		/* link-time address of the marker (prelink-adjusted) */
	uint64_t semaphore;	/* link-time address of the semaphore, 0: none */
	const char *args;	/* the argument description as written */
	struct sdt_arg *argv;
	int nargs;
	const char *error;	/* why the arguments could not be parsed, or NULL */
};

/* pt_regs field names of the registers sdt_arg.reg indexes. */
extern const char *const sdt_reg_names[];

/* Reads b's notes into b->notes once; returns how many there are. */
size_t sdt_load(struct ubinary *b);

/*
 * Parses one argument ("-4@%edi") into *out with the binary's symbols for
 * "sym(%rip)" operands; NULL, or why not.
 */
const char *sdt_parse_arg(const struct ubinary *b, const char *text, struct sdt_arg *out);

#endif /* UTAP_SDT_H */
