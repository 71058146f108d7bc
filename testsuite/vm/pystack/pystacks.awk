# pystacks.awk - judge the Python stacks a pystack test printed.
#
# A line "=== LABEL" starts a stack; the print_pybacktrace() lines after it
# are its frames, each turned into one token:
#    "  FUNC (PATH:LINE)"   ->  FUNC@BASENAME:LINE
#    "<...>"                ->  MARKER
# Any other line ends the stack. A stack's tokens, joined by single spaces
# with one trailing space, must match the extended regex RE as a whole.
#
#   awk -v re='^f@x.py:3 <module>@x.py:9 $' [-v min=95] [-v least=N] \
#       -f pystacks.awk OUT
#
# Prints "LABEL: N stacks, M complete (P%)" per label, the overall ratio
# and the first stack that did not match; fails unless at least MIN percent
# (default 100) of the stacks matched and there were at least LEAST
# (default 1).
function flush() {
	if (label == "")
		return
	total[label]++
	all++
	if (frames ~ re) {
		good[label]++
		ok++
	} else if (bad == "") {
		bad = label ": " frames
	}
	label = ""
}

/^=== / {
	flush()
	label = substr($0, 5)
	frames = ""
	next
}

label != "" && /^  [^ ]+ \(.*:[0-9?]+\)$/ {
	line = substr($0, 3)
	name = substr(line, 1, index(line, " (") - 1)
	where = substr(line, length(name) + 3, length(line) - length(name) - 3)
	sub(/.*\//, "", where)
	frames = frames name "@" where " "
	next
}

label != "" && /^<.*>$/ {
	frames = frames "MARKER "
	next
}

{ flush() }

END {
	flush()
	if (min == "")
		min = 100
	if (least == "")
		least = 1
	for (l in total)
		printf "%s: %d stacks, %d complete (%.1f%%)\n", l, total[l], good[l],
		       100 * good[l] / total[l]
	pct = all ? 100 * ok / all : 0
	printf "all: %d stacks, %d complete (%.2f%%)\n", all, ok, pct
	if (bad != "")
		print "first incomplete: " bad
	if (all < least) {
		printf "%d stacks, want at least %d\n", all, least
		exit 1
	}
	exit pct >= min ? 0 : 1
}
