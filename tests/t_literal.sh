#!/usr/bin/env bash
# Agent input is literal in the reference's form: given exactly the
# arguments the Go host sends (`grep PATTERN PATH`, `glob PATTERN PATH`,
# `read|ls|write|edit PATH`, `exec COMMAND`), nothing is an option. Each
# case runs on the command line and through the daemon's cmd form (the
# in-process fast path), and a few through the native op form.
. "$(dirname "$0")/lib.sh"

w=$TEST_TMP/lit
bin=$TEST_TMP/litbin
mkdir -p "$w/g" "$bin"
cd "$w" || exit 1
printf -- '-i line\n-F line\n-- line\n-c line\n-l line\n--help line\n--max line\n-A line\nplain\n' >f
: >g/--max
: >g/--type
: >g/other
# Programs whose names look like exec's options: running them proves the
# command was taken literally.
for n in --help --timeout --cwd --; do
	printf '#!/bin/sh\necho "ran %s $#"\n' "$n" >"$bin/$n"
	chmod +x "$bin/$n"
done
export PATH="$bin:$PATH"

# The answer for pattern $2 first found on line $1; "--" also occurs in
# the "--help" and "--max" lines.
match() {
	local more=
	[ "$2" = -- ] && more=',{"file":"f","line":6,"text":"--help line"},{"file":"f","line":7,"text":"--max line"}'
	printf '{"ok":true,"data":{"matches":[{"file":"f","line":%s,"text":"%s line"}%s],"truncated":false}}' "$1" "$2" "$more"
}

# ---- grep: the pattern and the path are literal ----
n=0
for p in -i -F -- -c -l --help --max -A; do
	n=$((n + 1))
	expect "literal.grep.$p" 0 "$(match $n "$p")" grep "$p" f
done
expect literal.grep.dot_path 0 "$(match 1 -i)" grep -i .
# Beyond the reference's form, options apply.
expect literal.grep.option_i 0 '{"ok":true,"data":{"matches":[{"file":"f","line":9,"text":"plain"}],"truncated":false}}' grep -i PLAIN f
expect literal.grep.option_c 0 '{"ok":true,"data":{"counts":[{"file":"f","count":1}],"truncated":false}}' grep -c plain f
expect literal.grep.dashdash_ends 0 "$(match 1 -i)" grep -F -- -i f
wf grep --help
check_match literal.grep.help_alone "usage: wickfs grep *" "$OUT"
wf help grep
check_match literal.help_applet "usage: wickfs grep *" "$OUT"
wf help read
check_match literal.help_read "usage: wickfs read *" "$OUT"
expect_error literal.read.dash_help "read --help: no such file or directory" read --help
expect_error literal.ls.dash_help "ls --help: no such file or directory" ls --help

# ---- glob: the pattern is literal ----
expect literal.glob.--max 0 '{"ok":true,"data":{"files":["g/--max"],"truncated":false}}' glob --max g
expect literal.glob.--type 0 '{"ok":true,"data":{"files":["g/--type"],"truncated":false}}' glob --type g
expect literal.glob.option_max 0 '{"ok":true,"data":{"files":["g/--max"],"truncated":true}}' glob --max 1 '*' g

# ---- exec: the command is literal ----
ran() { printf '{"ok":true,"data":{"stdout":"ran %s 0\\n","stderr":"","exit_code":0}}' "$1"; }
for c in --help --timeout --cwd --; do
	expect "literal.exec.$c" 0 "$(ran "$c")" exec "$c"
done
expect literal.exec.option_timeout 0 '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' exec --timeout 5 echo hi
expect literal.exec.dashdash 0 "$(ran --help)" exec -- --help
wf exec --help x
check_match literal.exec.help_beyond "usage: wickfs exec *" "$OUT"

# ---- the same through the daemon ----
SOCK=$w/d.sock
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
daemon_start "$w/d.log" --listen off --socket "$SOCK"
cl() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" --workdir "$w" "$@"; }
raw() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" --raw "$@"; }

same() {
	local name=$1 want=$2
	shift 2
	check "$name" "$want" "$(cl "$@")"
}
n=0
for p in -i -F -- -c -l --help --max -A; do
	n=$((n + 1))
	same "literal.daemon.grep.$p" "$(match $n "$p")" grep "$p" f
done
same literal.daemon.grep.option_i '{"ok":true,"data":{"matches":[{"file":"f","line":9,"text":"plain"}],"truncated":false}}' grep -i PLAIN f
same literal.daemon.glob.--max '{"ok":true,"data":{"files":["g/--max"],"truncated":false}}' glob --max g
same literal.daemon.glob.--type '{"ok":true,"data":{"files":["g/--type"],"truncated":false}}' glob --type g
for c in --help --timeout --cwd --; do
	same "literal.daemon.exec.$c" "$(ran "$c")" exec "$c"
done
same literal.daemon.exec.option_timeout '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' exec --timeout 5 echo hi
# The legacy line as the Go host sends it, quoting and all.
check literal.daemon.cmd_line "{\"id\":\"a\",\"stdout\":$(jstr "$(match 1 -i)"$'\n'),\"stderr\":\"\",\"exit_code\":0}" \
	"$(raw "{\"id\":\"a\",\"cmd\":\"wickfs grep '-i' 'f'\",\"workdir\":$(jstr "$w")}")"
check literal.daemon.cmd_exec_help "{\"id\":\"b\",\"stdout\":$(jstr "$(ran --help)"$'\n'),\"stderr\":\"\",\"exit_code\":0}" \
	"$(raw "{\"id\":\"b\",\"cmd\":\"wickfs exec '--help'\",\"workdir\":$(jstr "$w")}")"
check literal.daemon.op_grep "{\"id\":\"c\",\"ok\":true,\"data\":{\"matches\":[{\"file\":$(jstr "$w/f"),\"line\":2,\"text\":\"-F line\"}],\"truncated\":false}}" \
	"$(raw "{\"id\":\"c\",\"op\":\"grep\",\"args\":[\"-F\",$(jstr "$w/f")]}")"
check literal.daemon.op_exec "{\"id\":\"d\",\"ok\":true,\"data\":{\"stdout\":\"ran --cwd 0\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(raw "{\"id\":\"d\",\"op\":\"exec\",\"args\":[\"--cwd\"]}")"
