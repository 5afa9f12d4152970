#!/usr/bin/env bash
# pty: processes on a terminal (issue 24): start and exec with "pty",
# input as typed keys (^C, ^D), resize with SIGWINCH, TERM, a REPL and a
# curses program driven through the daemon, and the errors.
. "$(dirname "$0")/lib.sh"
helper=$(cd "$(dirname "$0")/helpers" && pwd)/ptydrv.py

d=$TEST_TMP/pty
mkdir -p "$d"
cd "$d" || exit 1
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT

if [ ! -e /dev/ptmx ] || ! command -v python3 >/dev/null; then
	skip pty.all "no /dev/ptmx or no python3 here"
	exit 0
fi
# A daemon with no TERM of its own, as in most containers.
if ! DAEMON_WRAP="env -u TERM" daemon_start "$d/main.log" --listen off --socket "$d/main.sock"; then
	fail pty.start "the daemon did not start: $(show "$(cat "$d/main.log")")"
	exit 0
fi
MAIN=$DPID
# One scenario of the driver; its lines become checks. A driver that
# dies or says nothing is a failure of the scenario, never a silence.
drv() {
	local out name rest rc
	out=$(with_timeout 60 python3 "$helper" "$d/main.sock" "$1" 2>"$d/$1.err")
	rc=$?
	while read -r name rest; do
		[ -n "$name" ] || continue
		if [ "$rest" = ok ]; then pass "$name"; else fail "$name" "${rest#FAIL: }"; fi
	done <<<"$out"
	if [ "$rc" != 0 ] || [ -z "$out" ]; then
		fail "pty.$1" "the driver exited $rc: $(show "$(tail -n 5 "$d/$1.err")")"
	fi
}
raw() { with_timeout 30 "$WICKFS" client --connect "unix:$d/main.sock" --raw "$@"; }
fds() { ls "/proc/$MAIN/fd" | wc -l; }

before=$(fds)
# ---- a streamed exec on a terminal: one stream, stdin/out/err a tty ----
out=$(printf '%s\n' '{"id":"t","op":"exec","stream":true,"pty":{"rows":33,"cols":101},"args":["tty; stty size; test -t 0 && test -t 1 && test -t 2 && echo all-tty; echo to-stderr >&2"]}' |
	with_timeout 30 "$WICKFS" client --connect "unix:$d/main.sock" --raw)
# the terminal's output as one string: it comes in as many events as the
# kernel's reads cut it into
tty_out=$(printf '%s\n' "$out" | sed -n 's/^{"id":"t","event":"stdout","offset":[0-9]*,"data":"\(.*\)"}$/\1/p' | tr -d '\n')
check_match pty.exec_tty '/dev/pts/*' "$tty_out"
check_match pty.exec_size '*33 101\\r\\n*' "$tty_out"
check_match pty.exec_all_tty '*all-tty\\r\\n*' "$tty_out"
check_match pty.exec_stderr_on_terminal '*to-stderr\\r\\n' "$tty_out"
check_match pty.exec_no_stderr_stream '*"stderr_bytes":0}' "$out"
check pty.exec_no_stderr_event 0 "$(grep -c '"event":"stderr"' <<<"$out")"

drv term_default
drv term_env
drv repl
if python3 -c 'import curses' 2>/dev/null; then
	drv curses
else
	skip pty.curses "python3 has no curses module here"
fi
drv ctrl_c
drv client

# attach with a pipe for stdin: its bytes are the input, its end ^D
with_timeout 30 "$WICKFS" client --connect "unix:$d/main.sock" start --tag cat --pty cat >/dev/null
out=$(printf 'piped line\n' | with_timeout 30 "$WICKFS" client --connect "unix:$d/main.sock" attach cat)
check pty.client_attach_pipe_status 0 "$?"
check_match pty.client_attach_pipe '*piped line*piped line*' "$out"

# ---- errors ----
check pty.stdin_refused '{"id":"e1","ok":false,"error":"pty: a terminal'"'"'s input comes through the \"input\" op, not \"stdin\""}' \
	"$(raw '{"id":"e1","op":"start","pty":true,"stdin":"x","args":["true"]}')"
check pty.bad_size '{"id":"e2","ok":false,"error":"pty: give true or {\"rows\":R,\"cols\":C}, each 1 to 9999"}' \
	"$(raw '{"id":"e2","op":"start","pty":{"rows":0},"args":["true"]}')"
raw '{"id":"n","op":"start","tag":"plain","args":["sleep 30"]}' >/dev/null
check pty.resize_needs_pty '{"id":"e3","ok":false,"error":"resize: the process has no terminal (start it with \"pty\")"}' \
	"$(raw '{"id":"e3","op":"resize","tag":"plain","rows":5,"cols":5}')"
raw '{"id":"k","op":"kill","tag":"plain"}' >/dev/null
raw '{"id":"p","op":"start","tag":"small","pty":true,"args":["sleep 30"]}' >/dev/null
check pty.resize_bad_size '{"id":"e4","ok":false,"error":"resize: give \"rows\" and \"cols\", each 1 to 9999"}' \
	"$(raw '{"id":"e4","op":"resize","tag":"small","rows":5}')"
raw '{"id":"k2","op":"kill","tag":"small"}' >/dev/null
raw '{"id":"w","op":"wait","tag":"small","timeout":10}' >/dev/null

# every terminal closed again once its process is gone
for _ in $(seq 100); do
	[ "$(fds)" -le "$before" ] && break
	sleep 0.05
done
check pty.no_fd_left "$before" "$(fds)"
daemon_stop "$MAIN"
