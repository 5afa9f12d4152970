#!/usr/bin/env bash
# No answer breaks the host's connection: the Go DaemonClient reads lines
# with a 10 MiB bufio.Scanner, so no response line may reach 10,485,760
# bytes, newline and JSON escaping included. Command output is cut to fit
# (flagged); an applet answer that cannot fit is an error that says how
# to ask for less. Over the Unix socket and TCP, and on the command line.
. "$(dirname "$0")/lib.sh"

LIMIT=10485760
w=$TEST_TMP/cap
mkdir -p "$w"
cd "$w" || exit 1
head -c 12000000 /dev/zero | tr '\0' a >big12
head -c 4000000 /dev/zero | tr '\0' b >ok4
# 60,000 matches of 200 bytes each: a 13 MB grep answer with no cap.
awk 'BEGIN { s = sprintf("%0199d", 0); for (i = 0; i < 60000; i++) print "m" s }' >many

SOCK=$w/d.sock
PORT=
for attempt in 1 2 3 4 5; do
	PORT=$((20000 + RANDOM % 40000))
	daemon_start "$w/d.log" --listen "127.0.0.1:$PORT" --socket "$SOCK" && break
	kill -9 "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	PORT=
done
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
if [ -z "$PORT" ]; then
	fail linecap.start "daemon did not start: $(show "$(cat "$w/d.log")")"
	exit 0
fi

# send TRANSPORT NAME LINE: the response line into $w/NAME.out
send() {
	local addr=unix:$SOCK
	[ "$1" = tcp ] && addr=tcp:127.0.0.1:$PORT
	with_timeout 60 "$WICKFS" client --connect "$addr" --raw "$3" >"$w/$2.out"
}
# fits NAME: one line, under the limit, a whole JSON object
fits() {
	local f=$w/$1.out size lines
	size=$(stat -c %s "$f")
	lines=$(wc -l <"$f")
	if [ "$lines" = 1 ] && [ "$size" -lt "$LIMIT" ] && [ "$(head -c 1 "$f")" = "{" ] &&
		[ "$(tail -c 2 "$f")" = "}" ]; then
		pass "$1.fits"
	else
		fail "$1.fits" "$lines lines, $size bytes (limit $LIMIT)"
	fi
}
has() { check_true "$1.$2" "no $(show "$3") in the answer" grep -qF -- "$3" "$w/$1.out"; }

for t in unix tcp; do
	n=linecap.$t
	# A spawned command's streams: text, NUL bytes, control bytes.
	send $t "$n.text" '{"id":"1","cmd":"head -c 11000000 /dev/zero | tr \"\\0\" a"}'
	fits "$n.text"
	has "$n.text" flag '"stdout_truncated":true'
	send $t "$n.nul" '{"id":"2","cmd":"head -c 3000000 /dev/zero"}'
	fits "$n.nul"
	has "$n.nul" flag '"stdout_truncated":true'
	send $t "$n.ctl" '{"id":"3","cmd":"head -c 3000000 /dev/zero | tr \"\\0\" \"\\1\"; head -c 3000000 /dev/zero >&2"}'
	fits "$n.ctl"
	has "$n.ctl" flags '"stdout_truncated":true,"stderr_truncated":true'
	# exec in process: its envelope is the legacy stdout, escaped twice.
	send $t "$n.exec_fast" '{"id":"4","cmd":"wickfs exec '"'"'head -c 3000000 /dev/zero'"'"'"}'
	fits "$n.exec_fast"
	has "$n.exec_fast" flag '\"stdout_truncated\":true}}\n","stderr":"","exit_code":0}'
	send $t "$n.exec_op" '{"id":"5","op":"exec","args":["head -c 3000000 /dev/zero"]}'
	fits "$n.exec_op"
	has "$n.exec_op" flag '"stdout_truncated":true}}'
	# An applet answer that cannot fit: an error naming size and paging.
	send $t "$n.read_big" "{\"id\":\"6\",\"cmd\":\"wickfs read big12\",\"workdir\":$(jstr "$w")}"
	fits "$n.read_big"
	has "$n.read_big" size '12000022 bytes'
	has "$n.read_big" paging 'read --bytes --offset N --limit N'
	send $t "$n.read_big_op" "{\"id\":\"7\",\"op\":\"read\",\"args\":[$(jstr "$w/big12")]}"
	fits "$n.read_big_op"
	has "$n.read_big_op" error '"ok":false,"error":"read: the answer is 12000022 bytes'
	send $t "$n.grep_big" "{\"id\":\"8\",\"op\":\"grep\",\"args\":[\"--max\",\"0\",\"m0\",$(jstr "$w/many")]}"
	fits "$n.grep_big"
	has "$n.grep_big" paging 'grep --max N'
	# What fits is answered whole.
	send $t "$n.read_ok" "{\"id\":\"9\",\"op\":\"read\",\"args\":[$(jstr "$w/ok4")]}"
	fits "$n.read_ok"
	check "$n.read_ok.whole" 4000031 "$(stat -c %s "$w/$n.read_ok.out")"
done

# The command line: exec's envelope fits a line too; read has no line
# limit there (docker exec carries any size), so it answers whole.
"$WICKFS" exec 'head -c 3000000 /dev/zero' >"$w/linecap.cli.exec.out"
fits linecap.cli.exec
has linecap.cli.exec flag '"stdout_truncated":true}}'
"$WICKFS" exec 'head -c 11000000 /dev/zero | tr "\0" "\t"; head -c 100 /dev/zero | tr "\0" e >&2' >"$w/linecap.cli.tabs.out"
fits linecap.cli.tabs
has linecap.cli.tabs stderr_whole "\"stderr\":\"$(head -c 100 /dev/zero | tr '\0' e)\""
"$WICKFS" read big12 >"$w/linecap.cli.read.out"
check linecap.cli.read_whole 12000022 "$(stat -c %s "$w/linecap.cli.read.out")"
