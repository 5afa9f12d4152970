#!/usr/bin/env bash
# The README's commands, run as a reader would run them: every fenced
# block tagged `sh`, in order, in one shell, in an empty directory, with
# the binary under test on PATH as `wickfs`.
#
# The marks (docs/testing.md says the same for writers):
#   ```sh        run. A line starting with "$ " is a command (a trailing
#                "\" continues it on the next line); the lines after it,
#                up to the next command, are what it prints, stdout and
#                stderr together, compared exactly ("..." alone on a line
#                stands for any lines). No lines shown: the output is not
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
work=$TEST_TMP/readme
mkdir -p "$work/ws" "$work/bin" "$work/cmds"
ln -sf "$WICKFS" "$work/bin/wickfs"

# ---- parse ----
n=0 in_block=0 lang="" block_line=0 prev="" cur=0
notrun_reason=""
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
			'') fail "readme.block$cur" "a fenced block without a language tag (sh runs; console, yaml ... need <!-- not run: REASON -->)" ;;
			*)
				if [ -n "$notrun_reason" ]; then
					skip "readme.block$cur" "$notrun_reason ($lang block, not run)"
				else
					fail "readme.block$cur" "a $lang block without <!-- not run: REASON --> on the line before"
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
		cont=0
		[[ $line == *\\ ]] && cont=1
	elif [ $n -gt 0 ] && [ -f "$f.out" ]; then
		printf '%s\n' "$line" >>"$f.out"
	else
		fail "readme.line$cur" "output shown before any command in the sh block of line $block_line"
	fi
done <"$readme"
[ $in_block = 0 ] || fail readme.fences "the block opened at line $block_line is not closed"
if [ $n -lt 10 ]; then
	fail readme.commands "only $n commands found in sh blocks"
fi
# The quick start is CI's own run.
if grep -q '^    sh scripts/demo.sh' "$readme" && grep -q '^    make test' "$readme"; then
	skip readme.quick_start "sh scripts/demo.sh and make test: CI runs them on a fresh root itself (.ci/run)"
else
	fail readme.quick_start "the two quick-start commands are not under ## Quick start as indented lines"
fi

# ---- run: one shell for all, so state carries from block to block ----
cat >"$work/runner.sh" <<'EOF'
. "$TESTS/lib.sh"
# A pattern that matches the shown lines literally, "..." any lines.
__pattern() {
	local l p=""
	while IFS= read -r l; do
		if [ "$l" = ... ]; then
			p+='*'
		else
			p+=$(printf '%s' "$l" | sed 's/[^A-Za-z0-9 ]/\\&/g')$'\n'
		fi
	done <"$1"
	printf '%s' "$p"
}
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
	__name="readme.line$__line"
	if [ "$__rc" != "$__want" ]; then
		fail "$__name" "exit $__rc (want $__want): \$ $__cmd; printed $(show "$__got")"
	elif [ -s "$__f.out" ]; then
		__pat=$(__pattern "$__f.out"; printf x)
		__pat=${__pat%x}
		# shellcheck disable=SC2053
		if [[ $__got == $__pat ]]; then
			pass "$__name"
		else
			fail "$__name" "\$ $__cmd: printed $(show "$__got"), the README shows $(show "$(cat "$__f.out")")"
		fi
	else
		pass "$__name"
	fi
done
__left=$(jobs -p)
[ -n "$__left" ] && kill $__left 2>/dev/null
wait
exit 0
EOF
(
	unset DAEMON_CONNECT DAEMON_SOCKET DAEMON_LISTEN DAEMON_TOKEN DAEMON_TOKEN_FILE \
		WICKFS_OUTPUT WICKFS_ROOT WICKFS_READONLY WICKFS_READONLY_EXEC
	export PATH="$work/bin:$PATH" TESTS="$top/tests" WS="$work/ws" \
		CMDS="$work/cmds" COUNT=$n WICKFS TEST_TMP
	with_timeout 60 bash "$work/runner.sh"
)
rc=$?
if [ $rc != 0 ]; then
	i=$(cat "$work/cmds/current" 2>/dev/null)
	fail readme.run "the commands stopped (status $rc) at \$ $(cat "$work/cmds/$i.cmd" 2>/dev/null)"
fi

# ---- links ----
bad=""
for doc in "$readme" "$top"/docs/*.md; do
	dir=$(dirname "$doc")
	while IFS= read -r target; do
		target=${target%%#*}
		[ -z "$target" ] && continue
		[ -e "$dir/$target" ] || bad="$bad ${doc#"$top"/}->$target"
	done < <(grep -o '](\([^)]*\))' "$doc" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:')
done
if [ -z "$bad" ]; then
	pass readme.links
else
	fail readme.links "links to missing files:$bad"
fi
