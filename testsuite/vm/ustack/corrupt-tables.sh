#!/bin/sh
# corrupt-tables.sh - writes malformed table messages to /proc/$MODNAME/tables
# (run by corrupt-tables.test inside the module's session). Each must be
# refused. Message: 8 little-endian u32 (magic "batu", seq, flags, path_len,
# uw_len, sym_len, line_len, pad), then the path and the blobs, 8-aligned.
T=/proc/$MODNAME/tables
F=$(mktemp)
u32() { printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))"; }
msg() { # uw_len sym_len claimed, then that many random bytes follow
	{ printf 'batu'; u32 0; u32 0; u32 8; u32 $1; u32 $2; u32 0; u32 0
	  printf '/bin/sh\000'; head -c $(($3)) /dev/urandom; } > $F
}
send() {
	if dd if=$F of=$T bs=1M 2>/dev/null; then echo "$1: accepted"; else echo "$1: refused"; fi
}
head -c 4096 /dev/urandom > $F; send random
msg 4096 0 64; send oversized
msg 256 0 256; send "bad unwind table"
msg 0 256 256; send "bad symbol table"
rm -f $F
