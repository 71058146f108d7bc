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
