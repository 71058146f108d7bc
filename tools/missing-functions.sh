#!/bin/sh
# missing-functions.sh - which of stap 4.8's tapset functions utap lacks.
#
#   tools/missing-functions.sh [-r KREL] [-d DUMPFILE]
#
# stap's functions are the union of
#   - what `stap --dump-functions -r KREL` lists (every public function its
#     tapsets define for this kernel, with its signature; takes about 90 s,
#     so the list is kept in DUMPFILE, default ~/.cache/utap/stap-functions-KREL,
#     and reused while it exists), and
#   - the function::NAME(3stap) man pages of systemtap-doc (a few name
#     functions stap keeps only under --compatible; their SYNOPSIS gives
#     the signature).
# Each is called once in utap's pass 2 (-g, so guru-only ones resolve) with
# arguments of its parameters' types; "unresolved function" means utap does
# not have it. Prints one line per missing function ("missing NAME:SIG
# [man|dump]", overloads once each) and the counts of distinct names last.
# Then the private decoders of stap's aux_syscalls.stp (_signal_name,
# _mmap_flags, ...: not in the dump, but scripts call them) that no utap
# tapset defines by name: "missing-aux NAME" lines and their count.
# Never loads anything.
set -u
KREL=6.1.0-57-amd64
DUMP=
while getopts r:d: o; do
	case $o in
	r) KREL=$OPTARG ;;
	d) DUMP=$OPTARG ;;
	*) echo "usage: $0 [-r KREL] [-d DUMPFILE]" >&2; exit 2 ;;
	esac
done
UTAP=${UTAP:-$(dirname "$0")/../build/utap}
TAPSETS=${TAPSETS:-$(dirname "$0")/../tapsets}
AUX=${AUX:-/usr/share/systemtap/tapset/linux/aux_syscalls.stp}
MANDIR=${MANDIR:-/usr/share/man/man3}
[ -n "$DUMP" ] || DUMP=${XDG_CACHE_HOME:-$HOME/.cache}/utap/stap-functions-$KREL
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -s "$DUMP" ]; then
	mkdir -p "$(dirname "$DUMP")"
	stap --dump-functions -r "$KREL" > "$DUMP.tmp" 2>/dev/null && mv "$DUMP.tmp" "$DUMP" ||
		{ echo "stap --dump-functions failed" >&2; exit 1; }
fi

# NAME:TYPE (a:T, b:T) lines, one per function: the dump's first
sed 's| */\*.*||' "$DUMP" > "$tmp/sigs"
for m in "$MANDIR"/function::*.3stap*; do
	n=${m##*/function::}
	n=${n%%.3stap*}
	grep -q "^$n:" "$tmp/sigs" && continue
	# the man page's SYNOPSIS line, e.g. "    cpuid:long()"; a few pages
	# (function::-, MKDEF, sa_handler) are strays without one
	zcat -f "$m" | awk '/^\.SH "SYNOPSIS"/ { s = 1; next } s && /^ / { sub(/^ +/, ""); print; exit }' |
		sed 's/(/ (/; s/^/@man /' >> "$tmp/sigs"
done

: > "$tmp/all"
: > "$tmp/missing"
while read -r line; do
	src=dump
	case $line in "@man "*) src=man; line=${line#@man } ;; esac
	name=${line%%:*}
	echo "$name $src" >> "$tmp/all"
	params=$(printf '%s\n' "$line" | sed -n 's/^[^(]*(\(.*\)).*/\1/p')
	args=$(printf '%s\n' "$params" | tr ',' '\n' | awk -F: '
		/^ *$/ { next }
		{ a = a sep ($2 ~ /string/ ? "\"s\"" : "1"); sep = ", " }
		END { print a }')
	if "$UTAP" -g -r "$KREL" -p2 -e "probe begin { $name($args) }" > /dev/null 2> "$tmp/err" ||
			! grep -q "unresolved function '$name'" "$tmp/err"; then
		continue
	fi
	grep -q "^$name " "$tmp/missing" || echo "missing $line [$src]"
	echo "$name $src" >> "$tmp/missing"
done < "$tmp/sigs"
count() { sort -u "$1" | awk -v s="${2:-}" '!s || $2 == s' | wc -l; }
echo "$(count "$tmp/missing") of $(count "$tmp/all") stap functions missing" \
	"($(count "$tmp/missing" man) of the $(count "$tmp/all" man) only in man pages, stap's --compatible ones)"

names() { sed -n 's/^function[ \t]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$@" | sort -u; }
names "$AUX" > "$tmp/aux"
names "$TAPSETS"/*.stp > "$tmp/ours"
# of those utap lacks, the ones stap's pass 2 resolves for this kernel
# (many are for other architectures or kernels): called with as many
# longs as the definition has parameters
naux=0
for f in $(comm -23 "$tmp/aux" "$tmp/ours"); do
	n=$(grep -m1 "^function[ \t]*$f[ \t:(]" "$AUX" | sed 's/[^(]*(\([^)]*\)).*/\1/' |
		awk -F, '/^ *$/ { print 0; next } { print NF }')
	args=$(awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%s1", i ? ", " : "" }')
	if ! stap -r "$KREL" -p2 -e "probe begin { $f($args) }" > /dev/null 2> "$tmp/err" &&
			grep -q "unresolved function" "$tmp/err"; then
		continue
	fi
	echo "missing-aux $f"
	naux=$((naux + 1))
done
echo "$naux of the aux_syscalls decoders stap resolves here missing ($(wc -l < "$tmp/aux") in its file)"
