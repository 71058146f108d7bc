#!/bin/bash
# testsuite/host/layers.sh [UTAP] - the translator's layers, checked from its
# sources and objects (docs/ARCHITECTURE.md, "Layers"). Prints "ok layers/NAME"
# or "FAIL layers/NAME: why" lines; exits non-zero if any check failed.
#
# A file of translator/ belongs to the layer its first folder names (a file
# at the top level to "main"). It may include headers of its own layer and
# of the layers before it in LAYERS, never of a later one, and its object
# may call only functions (and use only data) of those layers.

set -u
# lowest first; docs/ARCHITECTURE.md says the same in its "Layers" section
LAYERS="base elf front sema kernel codegen probes runner vm main"

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRCDIR" || exit 2
failed=0

ok() { echo "ok layers/$1"; }
fail() {
	echo "FAIL layers/$1: $2"
	failed=$((failed + 1))
}

rank() {
	local i=0 l
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

# translator/X/... -> X; translator/file.c -> main
layer_of() {
	local rest=${1#translator/}
	case $rest in */*) echo "${rest%%/*}" ;; *) echo main ;; esac
}

SOURCES=$(find translator -name '*.[ch]' | sort)

# Every folder is a layer of the list.
check_folders() {
	local bad="" f l
	for f in $SOURCES; do
		l=$(layer_of "$f")
		[ "$(rank "$l")" -ge 0 ] || bad="$bad $f"
	done
	[ -z "$bad" ] && ok folders_are_layers || fail folders_are_layers "not in a layer of LAYERS:$bad"
}

# At most 10 .c files at the top level: the rest lives in its layer's folder.
check_top_level() {
	local n
	n=$(find translator -maxdepth 1 -name '*.c' | wc -l)
	[ "$n" -le 10 ] && ok top_level_files || fail top_level_files "$n .c files in translator/, at most 10"
}

# The include graph "FILE TARGET" of translator/, resolved as the compiler
# does: the including file's folder first, then -Itranslator and -Iruntime
# (runtime/ is the module's code: any layer may use its pure-core headers).
# A name that both search folders hold, or none, is an error of its own.
EDGES=$(mktemp)
trap 'rm -f "$EDGES"' EXIT
resolve_includes() {
	local f inc dir t rt unresolved="" ambiguous=""
	for f in $SOURCES; do
		dir=$(dirname "$f")
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			if [ -e "$dir/$inc" ]; then
				t=$(realpath --relative-to=. "$dir/$inc")
			elif [ -e "translator/$inc" ]; then
				t=translator/$inc
				[ -e "runtime/$inc" ] && ambiguous="$ambiguous $f:$inc"
			elif [ -e "runtime/$inc" ]; then
				continue
			else
				unresolved="$unresolved $f:$inc"
				continue
			fi
			case $t in translator/*) echo "$f $t" ;; esac
		done
	done > "$EDGES"
	[ -z "$unresolved" ] && ok includes_resolve ||
		fail includes_resolve "names no file of translator/ or runtime/:$unresolved"
	[ -z "$ambiguous" ] && ok includes_unambiguous ||
		fail includes_unambiguous "both translator/ and runtime/ hold:$ambiguous"
}

# No file includes a header of a later layer.
check_includes_down() {
	local f t bad=""
	while read -r f t; do
		[ "$(rank "$(layer_of "$t")")" -gt "$(rank "$(layer_of "$f")")" ] &&
			bad="$bad $f->$t ($(layer_of "$f") includes $(layer_of "$t"))"
	done < "$EDGES"
	[ -z "$bad" ] && ok includes_go_down || fail includes_go_down "$bad"
}

# No include cycle between files (header guards would hide one).
check_include_cycles() {
	local cyc
	cyc=$(awk '
		{ n[$1] = n[$1] " " $2 }
		function visit(v, path,   k, a, i) {
			if (state[v] == 1) { found = found " " path; return }
			if (state[v] == 2) return
			state[v] = 1
			k = split(n[v], a, " ")
			for (i = 1; i <= k; i++)
				visit(a[i], path "->" a[i])
			state[v] = 2
		}
		END { for (v in n) visit(v, v); print found }' "$EDGES")
	[ -z "${cyc// /}" ] && ok no_include_cycles || fail no_include_cycles "$cyc"
}

# The objects of translator/ (build/obj/) call and use only their own layer
# and those before it: a declaration copied into a lower file would compile.
check_calls_down() {
	local f o missing="" defs uses bad
	defs=$(mktemp)
	uses=$(mktemp)
	for f in $SOURCES; do
		case $f in *.c) ;; *) continue ;; esac
		o=build/obj/${f%.c}.o
		[ -e "$o" ] || { missing="$missing $o"; continue; }
		nm -g --defined-only "$o" | awk -v f="$f" '$2 ~ /[TDBRCG]/ { print $3, f }'
	done | sort -k1,1 > "$defs"
	for f in $SOURCES; do
		case $f in *.c) ;; *) continue ;; esac
		o=build/obj/${f%.c}.o
		[ -e "$o" ] && nm -u "$o" | awk -v f="$f" '{ print $2, f }'
	done | sort -k1,1 > "$uses"
	if [ -n "$missing" ]; then
		fail calls_go_down "not built (run make first):$missing"
		rm -f "$defs" "$uses"
		return
	fi
	bad=$(join "$uses" "$defs" | awk -v layers="$LAYERS" '
		function layer(p,   r) {
			r = substr(p, length("translator/") + 1)
			return index(r, "/") ? substr(r, 1, index(r, "/") - 1) : "main"
		}
		BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rk[l[i]] = i }
		rk[layer($3)] > rk[layer($2)] { printf " %s->%s:%s", $2, $3, $1 }')
	rm -f "$defs" "$uses"
	[ -z "$bad" ] && ok calls_go_down || fail calls_go_down "$bad"
}

# docs/ARCHITECTURE.md names the same layers in the same order.
check_doc_order() {
	local doc
	doc=$(sed -n 's/^Layers, lowest first: *//p' docs/ARCHITECTURE.md | tr -d '`.' | tr -s ' ,' ' ')
	[ "$doc" = "$LAYERS" ] && ok doc_order ||
		fail doc_order "docs/ARCHITECTURE.md says '$doc', this script '$LAYERS'"
}

# Runtime code enters a module one way: a utap-needs: word (codegen/needs.c);
# a tapset never #includes a runtime file itself.
check_tapset_includes() {
	local bad
	bad=$(grep -n '#include "' tapsets/*.stp | tr '\n' ' ')
	[ -z "$bad" ] && ok tapsets_use_needs || fail tapsets_use_needs "$bad"
}

check_folders
check_top_level
resolve_includes
check_includes_down
check_include_cycles
check_calls_down
check_doc_order
check_tapset_includes
[ $failed -eq 0 ]
