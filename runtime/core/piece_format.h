/*
 * piece_format.h - how one value of a printed target string ($$parms,
 * pretty-printed $x$ and $x$$) is shown: the translator plans the pieces
 * (translator/probes/uvars.h), runtime/probes/umemory.c prints them (pure).
 */
#ifndef UTAP_PIECE_FORMAT_H
#define UTAP_PIECE_FORMAT_H

enum piece_fmt {
	PIECE_TEXT,		/* no value: the text alone */
	PIECE_HEX,		/* 0x%llx: $$parms' values, pointers */
	PIECE_DEC,		/* %lld */
	PIECE_UDEC,		/* %llu */
	PIECE_CHAR,		/* 'c', escaped as stap escapes a char */
	PIECE_STRING,		/* the quoted user string a char pointer points to, else 0x%llx */
	PIECE_CHARS,		/* the quoted bytes of a char array, up to len or a NUL */
};

/*
 * Or'ed into a format: the value comes from kernel memory (BTF), so a
 * string it points to may be the kernel's; without it, strings are always
 * read as user memory.
 */
#define PIECE_FROM_KERNEL 0x10

#endif /* UTAP_PIECE_FORMAT_H */
