#!/usr/bin/env bash
# The daemon's lanes (lib/daemon/lane.c): threads that serve a connection
# whole while it sends small file operations, and give it back to the loop
# at the first line they cannot answer alone. Every answer is compared with
# a daemon without lanes (--lanes 0), and the log says who answered.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/lanes
mkdir -p "$d/w/sub"
cd "$d" || exit 1
trap 'kill_pids' EXIT

printf 'hello\n' >"$d/w/f.txt"
printf 'in sub\n' >"$d/w/sub/g.txt"
head -c 1000000 /dev/zero | tr '\0' 'q' >"$d/w/big.txt"

# start NAME ARGS...: a daemon on a fresh port and socket; PORT_<NAME>,
# PID_<NAME>, its log $d/NAME.log.
start() {
	local name=$1 p
	shift
	for _ in 1 2 3 4 5; do
		p=$((20000 + RANDOM % 40000))
		daemon_start "$d/$name.log" --listen "127.0.0.1:$p" --socket "$d/$name.sock" "$@" && break
		kill "$DPID" 2>/dev/null
		p=
	done
	eval "PORT_$name=\$p PID_$name=\$DPID"
	[ -n "$p" ]
}
if ! start lanes -v --lanes 2 || ! start loop -v --lanes 0; then
	fail lanes.start "$(show "$(cat "$d"/*.log)")"
	exit 0
fi
check_match lanes.ready_says "*ready: pid *, 2 lanes" "$(grep ready: "$d/lanes.log")"
check_match lanes.ready_says_none "*ready: pid *, 0 lanes" "$(grep ready: "$d/loop.log")"

# both LINE...: the answers of both daemons, one line at a time on one
# connection (each waits for its answer: the connection is idle between).
both() {
	local a b
	a=$(daemon_send "unix:$d/lanes.sock" "$@")
	b=$(daemon_send "unix:$d/loop.sock" "$@")
	[ "$a" = "$b" ] || printf 'lanes and loop differ:\n%s\n---\n%s\n' "$a" "$b"
	printf '%s' "$a"
}
r() { printf '{"id":"%s","cmd":"wickfs read %s"}' "$1" "'$2'"; }
n() { printf '{"id":"%s","op":"read","args":[%s]%s}' "$1" "$(jstr "$2")" "${3:+,$3}"; }

# hello ID: the answer to `r ID f.txt`.
hello() {
	printf '{"id":"%s","stdout":"{\\"ok\\":true,\\"data\\":\\"hello\\\\n\\"}\\n","stderr":"","exit_code":0}' "$1"
}
# Reads, a command between them, a relative path with a workdir, an
# applet's error, a session: each in order, the same as the loop's.
out=$(both "$(r a1 "$d/w/f.txt")" "$(r a2 "$d/w/f.txt")" \
	'{"id":"c1","cmd":"echo cmd"}' "$(r a3 "$d/w/f.txt")" \
	"$(n a4 g.txt "\"workdir\":$(jstr "$d/w/sub")")" "$(n a5 "$d/w/none.txt")" \
	"$(n a6 "$d/w/f.txt" '"session":"t1"')" "$(r a7 "$d/w/f.txt")")
check lanes.sequence "$(hello a1)
$(hello a2)
{\"id\":\"c1\",\"stdout\":\"cmd\\n\",\"stderr\":\"\",\"exit_code\":0}
$(hello a3)
{\"id\":\"a4\",\"ok\":true,\"data\":\"in sub\\n\"}
{\"id\":\"a5\",\"ok\":false,\"error\":\"read $d/w/none.txt: no such file or directory\"}
{\"id\":\"a6\",\"ok\":true,\"data\":\"hello\\n\"}
$(hello a7)" "$out"
check lanes.none_without_lanes "" "$(grep '(lane)' "$d/loop.log")"
# Who answered: a new connection's first line is the loop's, and so is
# the first read after a line a lane gave back (the command, the
# session); the connection goes to a lane after it, idle. Each line in
# one write, its answer read before the next.
exec 7<>/dev/tcp/127.0.0.1/"$PORT_lanes"
for l in "$(r l1 "$d/w/f.txt")" "$(r l2 "$d/w/f.txt")" '{"id":"l3","cmd":"echo cmd"}' \
	"$(r l4 "$d/w/f.txt")" "$(n l5 "$d/w/none.txt")" "$(n l6 "$d/w/f.txt" '"session":"t1"')" \
	"$(r l7 "$d/w/f.txt")" "$(n l8 g.txt "\"workdir\":$(jstr "$d/w/sub")")"; do
	printf '%s\n' "$l" >&7
	IFS= read -r -t 10 a <&7
done
exec 7>&-
check lanes.last_answer '{"id":"l8","ok":true,"data":"in sub\n"}' "$a"
lane_ids=$(sed -n 's/.*id=\(l[0-9]*\) answered in [0-9]* ms (lane)$/\1/p' "$d/lanes.log" | tr '\n' ' ')
check lanes.answered_by_lane "l2 l5 l8 " "$lane_ids"
check_match lanes.session_by_loop '*id=l6 answered in * ms' "$(grep 'id=l6 ' "$d/lanes.log")"

# Many connections at once, each mixing reads (lanes) and commands (the
# loop): the connections go back and forth, every answer in its place.
lines=()
for i in $(seq 12); do
	lines+=("$(r "r$i" "$d/w/f.txt")")
	[ $((i % 3)) = 0 ] && lines+=("{\"id\":\"c$i\",\"cmd\":\"echo $i\"}")
	[ $((i % 4)) = 0 ] && lines+=("$(n "b$i" "$d/w/big.txt")")
done
want=$(daemon_send "unix:$d/loop.sock" "${lines[@]}")
pids=()
for k in $(seq 6); do
	daemon_send "unix:$d/lanes.sock" "${lines[@]}" >"$d/mix.$k" &
	pids+=($!)
done
wait "${pids[@]}"
for k in $(seq 6); do
	check "lanes.mixed_connections.$k" "$want" "$(cat "$d/mix.$k")"
done
# Pipelined: all lines in one write, read back after.
check lanes.pipelined "$want" "$(printf '%s\n' "${lines[@]}" | daemon_send "unix:$d/lanes.sock")"

# A line in two parts on a connection a lane holds: given back, finished
# on the loop.
exec 7<>/dev/tcp/127.0.0.1/"$PORT_lanes"
printf '%s\n' "$(r p1 "$d/w/f.txt")" >&7
IFS= read -r -t 10 a <&7
printf '%s\n' "$(r p2 "$d/w/f.txt")" >&7
IFS= read -r -t 10 b <&7
half=$(r p3 "$d/w/f.txt")
printf '%s' "${half:0:20}" >&7
sleep 0.2
printf '%s\n' "${half:20}" >&7
IFS= read -r -t 10 c <&7
check lanes.split_line "$(hello p1)|$(hello p2)|$(hello p3)" "$a|$b|$c"
# An answer bigger than the socket takes at once: the rest is sent by
# the loop, whole.
printf '%s\n' "$(n p4 "$d/w/big.txt")" >&7
sleep 0.3
IFS= read -r -t 10 e <&7
check lanes.big_answer_whole "{\"id\":\"p4\",\"ok\":true,\"data\":$(jstr "$(cat "$d/w/big.txt")")}" "$e"
printf '%s\n' "$(r p5 "$d/w/f.txt")" >&7
IFS= read -r -t 10 e <&7
check lanes.after_big_answer "$(hello p5)" "$e"
exec 7>&-

# Closed while a lane holds it: the loop closes it, and the daemon's
# descriptors come back to where they were.
fds0=$(fds_settled "$PID_lanes")
for k in $(seq 5); do
	exec 7<>/dev/tcp/127.0.0.1/"$PORT_lanes"
	printf '%s\n%s\n' "$(r q1 "$d/w/f.txt")" "$(r q2 "$d/w/f.txt")" >&7
	IFS= read -r -t 10 a <&7
	exec 7>&-
done
for _ in $(seq 50); do
	[ "$(ls /proc/"$PID_lanes"/fd | wc -l)" = "$fds0" ] && break
	sleep 0.05
done
check lanes.closed_in_lane_fds "$fds0" "$(ls /proc/"$PID_lanes"/fd | wc -l)"
check lanes.served_after_close "$(hello z1)" "$(daemon_send "unix:$d/lanes.sock" "$(r z1 "$d/w/f.txt")")"

# The loop's limits hold for a connection a lane held: a line left
# unfinished is timed out, an answer left unread is timed out.
start short --lanes 2 --line-timeout 1 --write-timeout 1
exec 7<>/dev/tcp/127.0.0.1/"$PORT_short"
printf '%s\n%s\n' "$(r t1 "$d/w/f.txt")" "$(r t2 "$d/w/f.txt")" >&7
IFS= read -r -t 10 a <&7
IFS= read -r -t 10 a <&7
printf '{"id":"t3","cmd"' >&7
IFS= read -r -t 10 a <&7
check lanes.line_timeout '{"id":"","stdout":"","stderr":"","exit_code":1,"error":"request line unfinished after 1 s (the daemon'"'"'s --line-timeout): connection closed"}' "$a"
exec 7>&-
exec 7<>/dev/tcp/127.0.0.1/"$PORT_short"
printf '%s\n' "$(r t4 "$d/w/f.txt")" >&7
IFS= read -r -t 10 a <&7
# more than the socket's buffers hold: the lane sends what they take
for k in 1 2 3 4 5 6 7 8 9 10; do n "t5$k" "$d/w/big.txt"; echo; done >&7
for _ in $(seq 60); do
	grep -q 'unread for 1 s' "$d/short.log" && break
	sleep 0.05
done
check_match lanes.write_timeout "*an answer of * bytes unread for 1 s (the daemon's --write-timeout): connection closed*" "$(cat "$d/short.log")"
exec 7>&-
# An answer over the memory budget: the loop's error, as without lanes.
head -c 900000 /dev/zero | tr '\0' 'q' >"$d/w/huge.txt"
start tiny --lanes 2 --max-memory 1048576
start tiny0 --lanes 0 --max-memory 1048576
out=$(daemon_send "unix:$d/tiny.sock" "$(r u1 "$d/w/f.txt")" "$(n u2 "$d/w/huge.txt")")
check lanes.over_budget "$(daemon_send "unix:$d/tiny0.sock" "$(r u1 "$d/w/f.txt")" "$(n u2 "$d/w/huge.txt")")" "$out"
check_match lanes.over_budget_named '*memory budget*' "$out"

# A line over --max-line on a connection a lane holds: the loop's error,
# as without lanes.
start limit --lanes 2 --max-line 1000
start limit0 --lanes 0 --max-line 1000
pad=$(printf '%1200s' '')
long="{\"id\":\"m2\",\"cmd\":\"wickfs read '$d/w/f.txt'\"$pad}"
out=$(daemon_send "unix:$d/limit.sock" "$(r m1 "$d/w/f.txt")" "$long" "$(r m3 "$d/w/f.txt")")
check lanes.max_line "$(daemon_send "unix:$d/limit0.sock" "$(r m1 "$d/w/f.txt")" "$long" "$(r m3 "$d/w/f.txt")")" "$out"
check_match lanes.max_line_named '*request line exceeds the limit of 1000 bytes*' "$out"

# Settings: DAEMON_LANES, the range.
DAEMON_LANES=1 daemon_start "$d/env.log" --listen off --socket "$d/env.sock"
check_match lanes.env "*, 1 lanes" "$(grep ready: "$d/env.log")"
out=$("$WICKFS" daemon --lanes 65 --listen off --socket "$d/x.sock" 2>&1)
check lanes.range '{"ok":false,"error":"daemon: --lanes takes 0 to 64, got 65"} 1' "$out $?"

# Stopped while a lane holds an idle connection: the loop takes it back,
# closes it and exits 0.
exec 7<>/dev/tcp/127.0.0.1/"$PORT_lanes"
printf '%s\n%s\n' "$(r s1 "$d/w/f.txt")" "$(r s2 "$d/w/f.txt")" >&7
IFS= read -r -t 10 a <&7
IFS= read -r -t 10 a <&7
kill -TERM "$PID_lanes"
with_timeout 20 tail --pid="$PID_lanes" -f /dev/null
wait "$PID_lanes"
check lanes.stop_exit_0 0 "$?"
check lanes.stop_socket_removed "" "$(ls "$d/lanes.sock" 2>/dev/null)"
IFS= read -r -t 5 a <&7
check lanes.stop_closed "1" "$([ -z "$a" ] && echo 1)"
exec 7>&-
