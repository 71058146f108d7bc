/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwbuild.h - turn an ELF file's CFI into a utap unwind table.
 *
 * Every row of every FDE in .eh_frame (and in .debug_frame, from the file
 * or its separate debuginfo; whichever covers more text wins) is evaluated
 * with libdw and classified into the closed rule set of
 * runtime/unwind/uwtab_format.h. CFI that the set cannot express becomes
 * a UWT_NONE range and is counted, never guessed. The result is a blob the
 * runtime validates and uses as is.
 */
#ifndef UTAP_ELF_UWBUILD_H
#define UTAP_ELF_UWBUILD_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct uw_blob {
	void *data;		/* malloc'ed, 8-byte aligned */
	size_t len;
};

struct uw_build_stats {
	unsigned int fdes;		/* FDEs evaluated (chosen source) */
	unsigned int bad_fdes;		/* FDEs libdw or the decoder rejected */
	unsigned int cfi_rows;		/* CFI rows seen (chosen source) */
	unsigned int unsupported_rows;	/* rows turned into UWT_NONE */
	unsigned int partial_rows;	/* rows where a saved register became unknown */
	unsigned int plt_synth;		/* PLT sections given rows from their headers */
	unsigned int sigreturn_synth;	/* CFI-less signal trampolines found by code */
	unsigned int entry_synth;	/* a CFI-less e_entry made the end of the stack */
	unsigned int rows;		/* table rows after merging */
	unsigned int rules;		/* distinct rules */
	uint64_t text_bytes;		/* bytes of executable sections */
	uint64_t covered_bytes;		/* of those, covered by a usable rule */
	uint64_t unsupported_bytes;	/* bytes of CFI turned into UWT_NONE */
	size_t bytes;			/* blob size */
	size_t eh_frame_bytes;		/* .eh_frame + .eh_frame_hdr of the file */
	const char *source;		/* "eh_frame", "debug_frame" or "none" */
};

struct uw_build_opts {
	unsigned int block_shift;	/* 0: default (UWB_DEFAULT_BLOCK_SHIFT) */
	int no_separate;		/* do not look for separate debuginfo */
	const char *debug_root;		/* NULL: /usr/lib/debug */
};

#define UWB_DEFAULT_BLOCK_SHIFT 8

/*
 * Build the table of the ELF file at PATH. 0 on success; -1 with a message
 * in ERR (N bytes) when the file is unreadable, not x86-64 ELF, or its CFI
 * is unusable. A file without any CFI yields a valid empty table.
 */
int uw_build_file(const char *path, const struct uw_build_opts *opts,
		  struct uw_blob *out, struct uw_build_stats *st,
		  char *err, size_t n);

/*
 * The same for an opened ELF (in memory for fuzzing or vDSO images).
 * DEBUG, if not NULL, is its separate debuginfo, searched for .debug_frame.
 */
int uw_build_elf(Elf *elf, Elf *debug, const struct uw_build_opts *opts,
		 struct uw_blob *out, struct uw_build_stats *st,
		 char *err, size_t n);

void uw_blob_free(struct uw_blob *blob);

#endif /* UTAP_ELF_UWBUILD_H */
