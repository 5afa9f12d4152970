#!/usr/bin/env bash
# The README's commands (and docs/protocol.md's), run as a reader would
# run them: every fenced block tagged `sh`, in order, in one shell, in an
# empty directory, with the binary under test on PATH as `wickfs`.
#
# The marks (docs/testing.md says the same for writers):
#   ```sh        run. A line starting with "$ " is a command (a trailing
#                "\" continues it on the next line); the lines after it,
#                up to the next command, are what it prints, stdout and
#                stderr together, compared exactly ("..." alone on a line
#                stands for any lines, inside a line for any text: a
#                scratch path). No lines shown: the output is not
#                compared. The command must exit 0, or N when its line
#                ends with the comment "# exit N".
#   ```console, ```yaml, ...   not run; the line just before the block
#                must be <!-- not run: REASON -->, and each such block is
#                reported as a skip with its reason (Docker, network, a
#                release build).
#   ```json, ```text           data, not commands.
#   indented blocks            not commands: the quick start (CI runs it
#                itself, .ci/run) and listings.
# Also: every relative link in the README and docs/*.md names a file
# that exists.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
readme=$top/README.md
mkdir -p "$TEST_TMP/bin"
ln -sf "$WICKFS" "$TEST_TMP/bin/wickfs"

# The runner: one shell for all of a file's commands, so state (files,
# variables, a daemon in the background) carries from block to block.
# Its own names start with __, out of the commands' way.
cat >"$TEST_TMP/runner.sh" <<'RUNNER'
. "$TESTS/lib.sh"
# A pattern that matches the shown lines literally; "..." alone on a
# line stands for any lines, within a line for any text.
__pattern() {
	local l p="" e
	while IFS= read -r l; do
		if [ "$l" = ... ]; then
			p+='*'
		else
			e=$(printf '%s' "$l" | sed 's/[^A-Za-z0-9 ]/\\&/g')
			p+=${e//'\.\.\.'/*}$'\n'
		fi
	done <"$1"
	printf '%s' "$p"
}
# A daemon a command left running goes with the runner, even on a timeout.
__stop() {
	local left
	left=$(jobs -p)
	# shellcheck disable=SC2086
	[ -n "$left" ] && kill $left 2>/dev/null
}
trap '__stop; exit 1' TERM
cd "$WS" || exit 1
for ((__i = 1; __i <= COUNT; __i++)); do
	__f=$CMDS/$__i
	read -r __line __want <"$__f.meta"
	__cmd=$(cat "$__f.cmd")
	printf '%s\n' "$__i" >"$CMDS/current"
	eval "$__cmd" >"$CMDS/got" 2>&1 </dev/null
	__rc=$?
	__got=$(cat "$CMDS/got"; printf x)
	__got=${__got%x}
	__name="$PREFIX.line$__line"
	if [ "$__rc" != "$__want" ]; then
		fail "$__name" "exit $__rc (want $__want): \$ $__cmd; printed $(show "$__got")"
	elif [ -s "$__f.out" ]; then
		__pat=$(__pattern "$__f.out"; printf x)
		__pat=${__pat%x}
		# shellcheck disable=SC2053
		if [[ $__got == $__pat ]]; then
			pass "$__name"
		else
			fail "$__name" "\$ $__cmd: printed $(show "$__got"), $DOC shows $(show "$(cat "$__f.out")")"
		fi
	else
		pass "$__name"
	fi
done
__stop
wait
exit 0
RUNNER

# run_doc FILE PREFIX MIN: report FILE's fenced blocks, run its sh blocks
# in a scratch directory of their own; fewer than MIN commands fails.
run_doc() {
	local doc=$1 prefix=$2 min=$3 work=$TEST_TMP/$2
	local n=0 in_block=0 lang="" block_line=0 prev="" cur=0 cont=0
	local notrun_reason="" line f rc i
	mkdir -p "$work/ws" "$work/cmds" || return
	while IFS= read -r line || [ -n "$line" ]; do
		cur=$((cur + 1))
		if [ $in_block = 0 ]; then
			if [[ $line =~ ^\`\`\`([A-Za-z0-9_-]*)$ ]]; then
				in_block=1
				lang=${BASH_REMATCH[1]}
				block_line=$cur
				notrun_reason=""
				[[ $prev =~ ^\<!--\ not\ run:\ (.*)\ --\>$ ]] && notrun_reason=${BASH_REMATCH[1]}
				cont=0
				case $lang in
				sh | json | text) ;;
				'') fail "$prefix.block$cur" "a fenced block without a language tag (sh runs; console, yaml ... need <!-- not run: REASON -->)" ;;
				*)
					if [ -n "$notrun_reason" ]; then
						skip "$prefix.block$cur" "$notrun_reason ($lang block, not run)"
					else
						fail "$prefix.block$cur" "a $lang block without <!-- not run: REASON --> on the line before"
					fi
					;;
				esac
			fi
			[ -n "$line" ] && prev=$line
			continue
		fi
		if [ "$line" = '```' ]; then
			in_block=0
			prev=$line
			continue
		fi
		[ "$lang" = sh ] || continue
		f=$work/cmds/$n
		if [ $cont = 1 ]; then
			printf '\n%s' "$line" >>"$f.cmd"
			[[ $line == *\\ ]] || cont=0
		elif [[ $line == '$ '* ]]; then
			n=$((n + 1))
			f=$work/cmds/$n
			printf '%s' "${line#\$ }" >"$f.cmd"
			: >"$f.out"
			rc=0
			[[ $line =~ \#\ exit\ ([0-9]+)$ ]] && rc=${BASH_REMATCH[1]}
			printf '%s %s\n' "$cur" "$rc" >"$f.meta"
			[[ $line == *\\ ]] && cont=1
		elif [ $n -gt 0 ] && [ -f "$f.out" ]; then
			printf '%s\n' "$line" >>"$f.out"
		else
			fail "$prefix.line$cur" "output shown before any command in the sh block of line $block_line"
		fi
	done <"$doc"
	[ $in_block = 0 ] || fail "$prefix.fences" "the block opened at line $block_line is not closed"
	[ $n -ge "$min" ] || fail "$prefix.commands" "only $n commands found in sh blocks, expected $min or more"
	(
		unset DAEMON_CONNECT DAEMON_SOCKET DAEMON_LISTEN DAEMON_TOKEN DAEMON_TOKEN_FILE \
			WICKFS_OUTPUT WICKFS_ROOT WICKFS_READONLY WICKFS_READONLY_EXEC
		export PATH="$TEST_TMP/bin:$PATH" TESTS="$top/tests" WS="$work/ws" \
			CMDS="$work/cmds" COUNT=$n PREFIX=$prefix DOC=${doc#"$top"/} WICKFS TEST_TMP
		with_timeout 60 bash "$TEST_TMP/runner.sh"
	)
	rc=$?
	if [ $rc != 0 ]; then
		i=$(cat "$work/cmds/current" 2>/dev/null)
		fail "$prefix.run" "the commands stopped (status $rc) at \$ $(cat "$work/cmds/$i.cmd" 2>/dev/null)"
	fi
}

# The quick start is CI's own run.
if grep -q '^    sh scripts/demo.sh' "$readme" && grep -q '^    make test' "$readme"; then
	skip readme.quick_start "sh scripts/demo.sh and make test: CI runs them on a fresh root itself (.ci/run)"
else
	fail readme.quick_start "the two quick-start commands are not under ## Quick start as indented lines"
fi
run_doc "$readme" readme 20
run_doc "$top/docs/protocol.md" protocol 4

# ---- links ----
# The anchors a Markdown file's headings make, one a line: lower case,
# punctuation dropped, spaces as hyphens.
anchors() {
	sed -n 's/^#\{1,6\} \(.*\)$/\1/p' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
bad=""
for doc in "$readme" "$top"/docs/*.md; do
	dir=$(dirname "$doc")
	while IFS= read -r link; do
		target=${link%%#*}
		frag=""
		[[ $link == *#* ]] && frag=${link#*#}
		[ -z "$target" ] && target=$(basename "$doc")
		if [ ! -e "$dir/$target" ]; then
			bad="$bad ${doc#"$top"/}->$link"
		elif [ -n "$frag" ] && ! anchors "$dir/$target" | grep -qxF -- "$frag"; then
			bad="$bad ${doc#"$top"/}->$link(no such heading)"
		fi
	done < <(grep -o '](\([^)]*\))' "$doc" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:')
done
if [ -z "$bad" ]; then
	pass readme.links
else
	fail readme.links "links to missing files or headings:$bad"
fi
