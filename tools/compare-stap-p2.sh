#!/bin/sh
# compare-stap-p2.sh - for each script, what stap 4.8's pass 2 and utap's make
# of it: the probe points each resolves to and the variables each keeps.
#
#   tools/compare-stap-p2.sh [-r KREL] FILE.stp|FILE.test ...
#
# A .test file's script section is used. Each script gets one line:
#   same        the same points and locals
#   differs     then the two views, each sorted, after "stap:" and "utap:"
#   stap-fails  stap's pass 2 fails here (its first error follows)
#   utap-fails  utap's fails (its first error follows)
# and the last line counts them. Needs Debian's systemtap; it never loads
# anything. Points are compared without stap's @FILE:LINE and its '?'/'!',
# and without internal locals (__*) and stap's init probe.
set -u
KREL=$(uname -r)
if [ "${1:-}" = "-r" ]; then KREL=$2; shift 2; fi
UTAP=${UTAP:-$(dirname "$0")/../build/utap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differs=0 sfail=0 ufail=0

# the "# probes" section as sorted "point local,local,..." lines
view() {
	sed -n '/^# probes$/,$p' "$1" | awk '
		/^# probes$/ { next }
		/^  # locals$/ { next }
		/^    / { next }
		/^  / { sub(/^  /, ""); sub(/:.*/, ""); if ($0 !~ /^__/) loc[n, ++nl[n]] = $0; next }
		{ p = $1; sub(/\?$|!$/, "", p); gsub(/@[^"]*"/, "\"", p); if (p ~ /^begin\(-9223372036854775808\)$/) p = "";
		  n++; pt[n] = p }
		END {
			for (i = 1; i <= n; i++) {
				if (pt[i] == "")
					continue
				# the locals in name order
				for (j = 1; j <= nl[i]; j++)
					for (k = j + 1; k <= nl[i]; k++)
						if (loc[i, k] < loc[i, j]) { t = loc[i, j]; loc[i, j] = loc[i, k]; loc[i, k] = t }
				l = ""
				for (j = 1; j <= nl[i]; j++)
					l = l "," loc[i, j]
				print pt[i], substr(l, 2)
			}
		}' | sort -u
}

for f in "$@"; do
	case $f in
	*.test) awk '/^--- script$/ { s = 1; next } /^--- / { s = 0 } s' "$f" > "$tmp/s.stp" ;;
	*) cp "$f" "$tmp/s.stp" ;;
	esac
	if ! stap -r "$KREL" -p2 "$tmp/s.stp" > "$tmp/stap.out" 2> "$tmp/stap.err"; then
		echo "stap-fails $f: $(grep -m1 -E 'error|ERROR' "$tmp/stap.err")"
		sfail=$((sfail + 1))
		continue
	fi
	if ! "$UTAP" -r "$KREL" -p2 "$tmp/s.stp" > "$tmp/utap.out" 2> "$tmp/utap.err"; then
		echo "utap-fails $f: $(grep -m1 error "$tmp/utap.err")"
		ufail=$((ufail + 1))
		continue
	fi
	view "$tmp/stap.out" > "$tmp/stap.v"
	view "$tmp/utap.out" > "$tmp/utap.v"
	if cmp -s "$tmp/stap.v" "$tmp/utap.v"; then
		echo "same $f"
		same=$((same + 1))
	else
		echo "differs $f"
		sed 's/^/  stap: /' "$tmp/stap.v"
		sed 's/^/  utap: /' "$tmp/utap.v"
		differs=$((differs + 1))
	fi
done
echo "$same same, $differs differ, $sfail stap cannot resolve, $ufail utap cannot"
