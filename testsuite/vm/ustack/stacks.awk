# stacks.awk - judge the stacks a ustack test printed.
#
# A line "=== LABEL" starts a stack; the print_ubacktrace() lines after it
# are its frames:
#    " 0xADDR : SYM+OFF/SIZE [MOD]"  ->  SYM@MODBASE
#    " 0xADDR [MOD+OFF/SIZE]"         ->  ?@MODBASE
#    " 0xADDR"                        ->  ?
# (a trailing " (inexact)" makes the token end in "~"). Any other line ends
# the stack. Each stack's tokens, joined by single spaces with one trailing
# space, must match the extended regex RE as a whole.
#
#   awk -v re='^c@chain b@chain ... $' [-v min=99] [-v want=N | -v least=N] \
#       [-v only=LABEL] -f stacks.awk OUT
#
# Prints one line per label: "LABEL: N stacks, M complete (P%)" and the
# first stack that did not match; fails unless at least MIN percent (default
# 100) of all stacks matched and there were exactly WANT stacks (or at least
# LEAST, default 1).
# With ONLY, stacks with other labels are ignored; with SKIP, stacks with that
# label are.
function flush() {
	if (label == "" || (only != "" && label != only) || (skip != "" && label == skip)) {
		label = ""
		return
	}
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

label != "" && /^ 0x[0-9a-f]+/ {
	line = $0
	tok = "?"
	inexact = sub(/ \(inexact\)$/, "", line)
	if (match(line, /^ 0x[0-9a-f]+ : /)) {
		rest = substr(line, RLENGTH + 1)
		mod = ""
		if (match(rest, / \[.*\]$/)) {
			mod = substr(rest, RSTART + 2, RLENGTH - 3)
			rest = substr(rest, 1, RSTART - 1)
		}
		if (match(rest, /\+0x[0-9a-f]+(\/0x[0-9a-f]+)?$/))
			rest = substr(rest, 1, RSTART - 1)
		tok = rest
	} else if (match(line, / \[.*\]$/)) {
		mod = substr(line, RSTART + 2, RLENGTH - 3)
		sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, "", mod)
	} else {
		mod = ""
	}
	sub(/.*\//, "", mod)
	if (mod != "")
		tok = tok "@" mod
	if (inexact)
		tok = tok "~"
	frames = frames tok " "
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
	if (all < least || (want != "" && all != want)) {
		printf "%d stacks, want %s\n", all, want != "" ? want : "at least " least
		exit 1
	}
	exit pct >= min ? 0 : 1
}
