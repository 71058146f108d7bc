#!/bin/sh
# pprof-folded.sh traces PROFILE | pytraces PROFILE | folded FILE: one
# "frame;frame COUNT" line per distinct stack, outermost frame first, sorted,
# equal stacks added up.
#   traces: what `go tool pprof -traces PROFILE` prints, turned around
#   pytraces: the same from `-traces -lines`, each Python frame (a file
#           ending in .py, or <frozen MODULE>) as pyfolded() names it,
#           "FUNC (FILE:LINE)", the others by their function's name alone
#   folded: a folded-stacks file with the "_[k]" of kernel frames taken off,
#           since pprof names kernel functions plainly
set -e
case $1 in
traces)
	go tool pprof -traces "$2" 2>/dev/null | awk '
		function flush() { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s] += cnt } n = 0 }
		/^-----------\+/ { flush(); next }
		/^ +[0-9]+ +[^ ]/ && !started_block { }
		/^ +[0-9]+   / { flush(); cnt = $1; f[++n] = $2; next }
		/^             [^ ]/ && n { f[++n] = $1; next }
		END { flush(); for (s in c) print s, c[s] }' | sort
	;;
pytraces)
	go tool pprof -traces -lines "$2" 2>/dev/null | awk '
		function flush() { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s] += cnt } n = 0 }
		function frame(k,   w, i) {
			for (i = k + 1; i <= NF; i++) w = w (i > k + 1 ? " " : "") $i
			return w ~ /(\.py|^<.*>):[0-9]+$/ ? $k " (" w ")" : $k
		}
		/^-----------\+/ { flush(); next }
		/^ +[0-9]+   / { flush(); cnt = $1; f[++n] = frame(2); next }
		/^             [^ ]/ && n { f[++n] = frame(1); next }
		END { flush(); for (s in c) print s, c[s] }' | sort
	;;
folded)
	sed 's/_\[k\]\([; ]\)/\1/g' "$2" | awk '{ n = $NF; $NF = ""; sub(/ $/, ""); c[$0] += n }
		END { for (s in c) print s, c[s] }' | sort
	;;
*)
	echo "usage: pprof-folded.sh traces PROFILE | pytraces PROFILE | folded FILE" >&2
	exit 2
	;;
esac
