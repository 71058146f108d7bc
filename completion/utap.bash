# bash completion for utap: options, their values, and probe points after
# -l/-L (resolved by `utap -l`, so wildcards, libraries and tracepoints of
# the target kernel are what utap itself sees).
#
# Installed as PREFIX/share/bash-completion/completions/utap; to try it
# from the source tree: source completion/utap.bash

_utap_options="-e -p -v -k -g -w -m -r -o -c -x -D -I -d -s -S -l -L -V -h
--ldd --all-modules --suppress-handler-errors --vm --vm-mem --vm-cpus --vm-timeout --vm-accel
--vm-check --vm-exec --vm-kernel --vm-share --vm-console --run --version --help"

# The first components of the probe point families.
_utap_families=(begin 'begin(' end 'end(' error never 'timer.s(' 'timer.ms(' 'timer.us('
	'timer.ns(' 'timer.hz(' 'timer.jiffies(' timer.profile perf.sw. perf.hw. 'perf.type('
	'kernel.function("' 'kernel.statement(' 'kernel.trace("' 'kprobe.function("'
	'kprobe.module("' 'kprobe.statement(' 'module("' syscall. 'process(' 'process("'
	process.)

# Probe points that start with $1, from `utap -l`.
_utap_points()
{
	local full=$1 pat vm=
	local i

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--vm) vm=--vm ;;
		esac
	done
	case $full in
	*'("'*)
		# inside a string argument: match the rest of it, then close it
		if [[ $full == *'")'* && ${full##*'")'} != *'("'* ]]; then
			pat="$full*"
		else
			pat="$full*\")"
		fi
		;;
	*'('*)
		pat="$full*"
		;;
	*)
		# no argument yet: the families, and the tapsets' syscall aliases
		printf '%s\n' "${_utap_families[@]}"
		[[ $full == s* ]] && _utap_syscalls
		return
		;;
	esac
	# a function listed with its source line ("f@file.c:12") completes to "f"
	"${COMP_WORDS[0]}" $vm -l "$pat" 2>/dev/null | sed 's/@[^"]*")/")/' | sort -u
}

# syscall.NAME aliases of the installed tapsets
_utap_syscalls()
{
	local exe dir
	exe=$(command -v "${COMP_WORDS[0]}" 2>/dev/null) || return
	exe=$(readlink -f "$exe")
	for dir in "${exe%/*}/../share/utap/tapsets" "${exe%/*}/../tapsets"; do
		[[ -d $dir ]] || continue
		sed -n 's/^probe \(syscall\.[a-z0-9_]*\) *=.*/\1\n\1.return/p' "$dir"/*.stp 2>/dev/null
		return
	done
}

_utap()
{
	local cur prev line full keep c
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# -l/-L: the probe point is one shell word but bash splits it at ( " :
	line=${COMP_LINE:0:COMP_POINT}
	full=${line##*[[:space:]]}
	if [[ $line =~ (^|[[:space:]])-[lL][[:space:]]+[^[:space:]]*$ ]]; then
		keep=${full%"$cur"}
		full=${full#\'}
		keep=${keep#\'}
		while IFS= read -r c; do
			[[ $c == "$full"* ]] && COMPREPLY+=("${c#"$keep"}")
		done < <(_utap_points "$full")
		# no space after a partial point: the user goes on typing it
		compopt -o nospace 2>/dev/null || :
		return 0
	fi

	case $prev in
	-p)
		COMPREPLY=($(compgen -W "1 2 3 4 5" -- "$cur"))
		return ;;
	-r)
		COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur")
			   $(compgen -d -- "$cur"))
		return ;;
	--vm-accel)
		COMPREPLY=($(compgen -W "auto tcg kvm" -- "$cur"))
		return ;;
	--vm-kernel)
		COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur"))
		return ;;
	-o | -d | --vm-console)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-I | --vm-share)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--run)
		COMPREPLY=($(compgen -f -X '!*.ko' -- "$cur") $(compgen -d -- "$cur"))
		return ;;
	-c)
		COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
		return ;;
	-e | -m | -x | -D | -s | -S | --vm-mem | --vm-cpus | --vm-timeout)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$_utap_options" -- "$cur"))
		return
	fi
	# the script: .stp files and directories
	COMPREPLY=($(compgen -f -X '!*.stp' -- "$cur") $(compgen -d -- "$cur"))
}

complete -F _utap utap
