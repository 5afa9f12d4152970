#!/usr/bin/env bash
# proc: the daemon's process ops (issue 24's first part): exec with
# "stream", start, list, output, attach, input, signal, wait, kill, and
# the client's exec --stream, start, ps, logs, kill.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/proc
mkdir -p "$d"
cd "$d" || exit 1

trap kill_pids EXIT

# start_daemon NAME ARGS...: a daemon on $d/NAME.sock (daemon_start); sets DPID.
start_daemon() {
	local name=$1
	shift
	daemon_start "$d/$name.log" --listen off --socket "$d/$name.sock" "$@"
}

if ! start_daemon main; then
	fail proc.start "did not start: $(show "$(cat "$d/main.log")")"
	exit 0
fi
# shellcheck disable=SC2153 # DPID is set by lib.sh's daemon_start
MAIN=$DPID
SOCK=$d/main.sock
cl() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" "$@"; }
raw() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" --raw "$@"; }
# Each line of stdin sent on one connection, every answer line printed
# (a stream's events too) until the daemon has answered them all.
raw_in() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" --raw; }
# The value of "KEY":N in a line.
num() { [[ $2 =~ \"$1\":(-?[0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }

# ---- the reference's form and exec without "stream" are unchanged ----
check proc.cmd_form '{"id":"a","stdout":"hi\n","stderr":"","exit_code":0}' \
	"$(raw '{"id":"a","cmd":"echo hi"}')"
check proc.exec_op_unstreamed '{"id":"b","ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' \
	"$(raw '{"id":"b","op":"exec","args":["echo hi"]}')"
check proc.exec_timeout_keeps_output '{"id":"c","ok":true,"data":{"stdout":"partial\n","stderr":"","exit_code":124,"timed_out":true}}' \
	"$(raw '{"id":"c","op":"exec","args":["--timeout","1","echo partial; sleep 5"]}')"
# an idle timeout: silence on both streams this long ends the command;
# output that keeps coming keeps it alive (each gap well under the limit)
check proc.idle_timeout_exec '{"id":"i1","ok":true,"data":{"stdout":"a\nb\nc\n","stderr":"","exit_code":124,"timed_out":true}}' \
	"$(raw '{"id":"i1","op":"exec","idle_timeout":2,"args":["echo a; sleep 0.3; echo b; sleep 0.3; echo c; sleep 30; echo never"]}')"
out=$(printf '%s\n' '{"id":"i2","op":"exec","stream":true,"idle_timeout":1,"args":["echo x; sleep 30"]}' | raw_in)
check_match proc.idle_timeout_stream '*{"id":"i2","event":"exit","handle":*,"exit_code":124,*"timed_out":true,"idle":true,*' "$out"
check proc.idle_timeout_bad '{"id":"i3","ok":false,"error":"field \"idle_timeout\" must be a number of seconds (0 to 1000000)"}' \
	"$(raw '{"id":"i3","op":"exec","idle_timeout":"x","args":["true"]}')"
check proc.unknown_op_still '{"id":"d","ok":false,"error":"unknown op: nosuch"}' \
	"$(raw '{"id":"d","op":"nosuch"}')"

# ---- streaming ----
out=$(printf '%s\n' '{"id":"s","op":"exec","stream":true,"args":["echo one; echo two >&2; exit 3"]}' | raw_in)
first=$(head -n1 <<<"$out")
last=$(tail -n1 <<<"$out")
check_match proc.stream_start_first '{"id":"s","event":"start","handle":[0-9]*,"pid":[0-9]*}' "$first"
check_match proc.stream_exit_last '{"id":"s","event":"exit","handle":*,"exit_code":3,"signal":0,"timed_out":false,"stdout_bytes":4,"stderr_bytes":4}' "$last"
check_match proc.stream_stdout_event "*"$'\n''{"id":"s","event":"stdout","offset":0,"data":"one\\n"}'$'\n'"*" "$out"
check_match proc.stream_stderr_event "*"$'\n''{"id":"s","event":"stderr","offset":0,"data":"two\\n"}'$'\n'"*" "$out"
check proc.stream_event_count 4 "$(wc -l <<<"$out")"
out=$(printf '%s\n' '{"id":"b","op":"exec","stream":true,"args":["printf \"\\377\\000x\""]}' | raw_in)
check_match proc.stream_binary_base64 "*"$'\n''{"id":"b","event":"stdout","offset":0,"encoding":"base64","data":"/wB4"}'$'\n'"*" "$out"
out=$(printf '%s\n' '{"id":"t","op":"exec","stream":true,"timeout":1,"args":["echo seen; sleep 30"]}' | raw_in)
check_match proc.stream_timeout_keeps_output '*{"id":"t","event":"stdout","offset":0,"data":"seen\\n"}'$'\n''{"id":"t","event":"exit",*"exit_code":124,"signal":*,"timed_out":true,*' "$out"
# Requests after a stream on its connection are taken up at its exit,
# and see it settled: gone once its client saw the end.
out=$(printf '%s\n' '{"id":"1","op":"exec","stream":true,"tag":"p","args":["echo x"]}' \
	'{"id":"2","op":"kill","tag":"p"}' | raw_in)
check_match proc.after_stream_settled '*"event":"exit",*'$'\n''{"id":"2","ok":false,"error":"no such process*' "$out"
out=$(printf '%s\n' '{"id":"1","op":"start","tag":"q","args":["sleep 0.3"]}' '{"id":"2","op":"wait","tag":"q"}' \
	'{"id":"3","op":"kill","tag":"q"}' '{"id":"4","op":"list"}' | raw_in)
check_match proc.after_wait_kill '*{"id":"3","ok":true,*'$'\n''{"id":"4","ok":true,*' "$out"
check_true proc.after_wait_kill_gone "$(show "$out")" test "${out/\"tag\":\"q\"/}" != "$out" -a "$(sed -n 4p <<<"$out" | grep -c '"tag":"q"')" = 0
# A character cut between two reads is sent whole, in the next event.
out=$(printf '%s\n' '{"id":"u","op":"exec","stream":true,"args":["s=$(printf \"\\303\\251\"); i=0; while [ $i -lt 15 ]; do s=$s$s; i=$((i+1)); done; printf \"x%s\\303\" \"$s\""]}' | raw_in)
check_true proc.stream_utf8_split "$(grep -c '"event":"stdout"' <<<"$out") events" test "$(grep -c '"event":"stdout"' <<<"$out")" -ge 3
check proc.stream_utf8_whole 1 "$(grep -c encoding <<<"$out")"
check_match proc.stream_utf8_last_byte '*"encoding":"base64","data":"ww=="}'$'\n''{"id":"u","event":"exit",*"stdout_bytes":65538,*' "$out"
# a streamed exec that ran to the end with its client is not kept
check_match proc.stream_not_kept '*"processes":[]*' "$(raw '{"id":"l","op":"list"}')"

cl exec --stream 'echo one; echo two >&2; printf "\377\000x"; exit 3' >"$d/so" 2>"$d/se"
rc=$?
check proc.client_stream_status 3 "$rc"
check proc.client_stream_stdout "$(printf 'one\n\377\000x' | od -An -c)" "$(od -An -c <"$d/so")"
check proc.client_stream_stderr two "$(cat "$d/se")"
cl exec --stream 'kill -9 $$' >/dev/null 2>&1
check proc.client_stream_signal 137 "$?"

# A slow reader: the command is held by a full pipe, not buffered. The
# client's stdout is a pipe nobody reads while RSS is sampled.
# PROC_SLOW_BYTES sets the output's size (200 MB here; 1 GB, by hand:
# PROC_SLOW_BYTES=1000000000 tests/run t_proc).
slow=${PROC_SLOW_BYTES:-200000000}
# VmHWM: the most the daemon's RSS has been since it started.
rss() { awk '/^VmHWM/ {print $2}' "/proc/$MAIN/status"; }
mkfifo "$d/slow"
slow_t=$((30 + slow / 10000000)) # seconds: 50 for 200 MB
with_timeout "$slow_t" "$WICKFS" client --connect "unix:$SOCK" --timeout "$slow_t" exec --stream \
	"yes | head -c $slow" >"$d/slow" &
SPID=$!
exec 8<"$d/slow"
max=0
for i in $(seq 20); do
	r=$(rss)
	[ "${r:-0}" -gt "$max" ] && max=$r
	sleep 0.1
done
held=$(raw '{"id":"l","op":"list"}')
held=$(num stdout_bytes "$held")
check_true proc.slow_reader_paused "read $held of $slow bytes while the reader was stopped" \
	test "${held:-$slow}" -lt 50000000
tail_line=$(tail -c 2 <&8 | od -An -c | tr -d ' ')
exec 8<&-
wait "$SPID"
check proc.slow_reader_all_delivered '0 y\n' "$? $tail_line"
r=$(rss)
[ "${r:-0}" -gt "$max" ] && max=$r
if [ "${WICKFS_SANITIZED:-0}" = 1 ]; then
	skip proc.slow_reader_rss "the sanitizer's quarantine keeps freed memory resident"
else
	check_true proc.slow_reader_rss "the daemon's RSS reached ${max} kB" test "${max:-999999}" -lt 65536
fi

# ---- background processes ----
a=$(raw '{"id":"1","op":"start","tag":"cat","args":["cat"]}' \
	'{"id":"2","op":"input","tag":"cat","stdin":"hello\n"}' \
	'{"id":"3","op":"input","tag":"cat","stdin":"world\n","eof":true}' \
	'{"id":"4","op":"wait","tag":"cat","timeout":10}' \
	'{"id":"5","op":"output","tag":"cat"}' \
	'{"id":"6","op":"output","tag":"cat","offset":6}')
check_match proc.start_answer '{"id":"1","ok":true,"data":{"handle":*,"running":true,"tag":"cat","command":"cat",*' "$(sed -n 1p <<<"$a")"
check_match proc.input_written '*"written":6}}' "$(sed -n 2p <<<"$a")"
check_match proc.input_eof_exit '*"running":false,*"exit_code":0,*"stdout_bytes":12,*' "$(sed -n 4p <<<"$a")"
check_match proc.output_all '*"stdout":"hello\\nworld\\n","stdout_offset":0,*' "$(sed -n 5p <<<"$a")"
check_match proc.output_offset '*"stdout":"world\\n","stdout_offset":6,*' "$(sed -n 6p <<<"$a")"

# The ring keeps the first 8 KiB and the last 56 KiB, and says where
# what it answers begins.
a=$(raw '{"id":"1","op":"start","tag":"big","args":["yes | head -c 500000"]}' \
	'{"id":"2","op":"wait","tag":"big","timeout":10}' \
	'{"id":"3","op":"output","tag":"big","offset":10000}' \
	'{"id":"4","op":"output","tag":"big","offset":499990}' \
	'{"id":"5","op":"output","tag":"big","offset":8190}')
check_match proc.ring_skips_dropped '*"stdout_offset":442656,*' "$(sed -n 3p <<<"$a")"
check_match proc.ring_tail '*"stdout":"y\\ny\\ny\\ny\\ny\\n","stdout_offset":499990,*' "$(sed -n 4p <<<"$a")"
check_match proc.ring_head_end '*"stdout":"y\\n","stdout_offset":8190,*' "$(sed -n 5p <<<"$a")"

a=$(raw '{"id":"1","op":"start","tag":"sh","args":["sh"]}' \
	'{"id":"2","op":"input","tag":"sh","stdin":"echo $((6*7))\nexit 5\n"}' \
	'{"id":"3","op":"wait","tag":"sh","timeout":10}' \
	'{"id":"4","op":"output","tag":"sh"}' \
	'{"id":"5","op":"input","tag":"sh","stdin":"x"}' \
	'{"id":"6","op":"kill","tag":"sh"}' \
	'{"id":"7","op":"output","tag":"sh"}')
check_match proc.input_sh '*"exit_code":5,*' "$(sed -n 3p <<<"$a")"
check_match proc.input_sh_output '*"stdout":"42\\n",*' "$(sed -n 4p <<<"$a")"
check_match proc.input_after_exit '*"ok":false,"error":"input: the process'"'"'s stdin is closed*' "$(sed -n 5p <<<"$a")"
check_match proc.kill_exited_removes '*"ok":false,"error":"no such process*' "$(sed -n 7p <<<"$a")"

a=$(raw '{"id":"1","op":"start","tag":"trap","args":["trap \"echo got; exit 7\" INT; echo ready; while :; do sleep 0.1; done"]}' \
	'{"id":"2","op":"wait","tag":"trap","timeout":1}' \
	'{"id":"3","op":"signal","tag":"trap","signal":"NOPE"}' \
	'{"id":"4","op":"signal","tag":"trap","signal":"INT"}' \
	'{"id":"5","op":"wait","tag":"trap","timeout":10}' \
	'{"id":"6","op":"output","tag":"trap"}')
check_match proc.wait_timeout_running '*"running":true,*' "$(sed -n 2p <<<"$a")"
check_match proc.signal_bad '*"ok":false,"error":"signal: give one of*' "$(sed -n 3p <<<"$a")"
check_match proc.signal_trapped '*"running":false,*"exit_code":7,*' "$(sed -n 5p <<<"$a")"
check_match proc.signal_output '*"stdout":"ready\\ngot\\n",*' "$(sed -n 6p <<<"$a")"

# A dropped connection: the streamed exec goes on, reachable by its handle.
mkfifo "$d/drop"
"$WICKFS" client --connect "unix:$SOCK" exec --stream 'echo first; sleep 2; echo second' >"$d/drop" &
DROP=$!
exec 9<"$d/drop"
IFS= read -r l1 <&9
kill "$DROP"
exec 9<&-
wait "$DROP" 2>/dev/null
check proc.drop_first_output first "$l1"
a=$(raw '{"id":"1","op":"list"}')
h=$(grep -o '"handle":[0-9]*,"pid":[0-9]*,"running":true,"command":"echo first; sleep 2; echo second"' <<<"$a")
h=$(num handle "$h")
check_true proc.drop_survives "$(show "$a")" test -n "$h"
a=$(printf '{"id":"2","op":"attach","handle":%s,"offset":6}\n' "$h" | raw_in)
check_match proc.attach_from_offset '{"id":"2","event":"stdout","offset":6,"data":"second\\n"}'$'\n''{"id":"2","event":"exit",*"exit_code":0,*' "$a"
a=$(printf '{"id":"3","op":"attach","handle":%s}\n' "$h" | raw_in)
check_match proc.attach_whole '{"id":"3","event":"stdout","offset":0,"data":"first\\nsecond\\n"}'$'\n''{"id":"3","event":"exit",*' "$a"
check_match proc.output_kept '*"stdout":"first\\nsecond\\n",*' "$(raw "{\"id\":\"4\",\"op\":\"output\",\"handle\":$h}")"


# ---- 200 at once ----
for i in $(seq 200); do printf '{"id":"s%d","op":"start","tag":"n%d","args":["sleep 60"]}\n' "$i" "$i"; done >"$d/starts"
raw_in <"$d/starts" >"$d/started"
check proc.start_200 200 "$(grep -c '"ok":true' "$d/started")"
check_match proc.list_200 '*"running":200,*' "$(raw '{"id":"l","op":"list"}')"
for i in $(seq 200); do printf '{"id":"k%d","op":"kill","tag":"n%d"}\n' "$i" "$i"; done >"$d/kills"
raw_in <"$d/kills" >"$d/killed"
check proc.kill_200 200 "$(grep -c '"ok":true' "$d/killed")"
for i in $(seq 100); do
	l=$(raw '{"id":"l","op":"list"}')
	[[ $l == *'"running":0,'* ]] && break
	sleep 0.1
done
check_match proc.killed_all_gone '*"running":0,*' "$l"
check_true proc.killed_all_forgotten "$(show "$l")" test "${l/\"tag\":\"n/}" = "$l"

# ---- the client ----
a=$(cl start --tag c 'echo from-start')
check_match proc.client_start '{"ok":true,"data":{"handle":*"tag":"c",*' "$a"
check proc.client_logs_f from-start "$(cl logs -f c)"
check proc.client_logs from-start "$(cl logs c)"
check_match proc.client_ps '{"ok":true,"data":{"running":0,*"tag":"c",*' "$(cl ps)"
check_match proc.client_kill '{"ok":true,*' "$(cl kill c)"
check_match proc.client_kill_gone '*no such process*' "$(cl kill c)"

# ---- limits, read-only ----
if start_daemon lim --max-background 2; then
	SOCK=$d/lim.sock
	a=$(raw '{"id":"1","op":"start","args":["sleep 30"]}' '{"id":"2","op":"start","args":["sleep 30"]}' \
		'{"id":"3","op":"start","args":["sleep 30"]}' '{"id":"4","op":"exec","stream":true,"args":["true"]}')
	check_match proc.limit_start '*"error":"start: 2 processes are running, the daemon'"'"'s limit (--max-background 2)"*' "$(sed -n 3p <<<"$a")"
	check_match proc.limit_exec '*"error":"exec: 2 processes are running*' "$(sed -n 4p <<<"$a")"
	kill "$DPID"
	wait "$DPID"
	check proc.limit_daemon_stops 0 "$?"
else
	fail proc.limit "did not start: $(show "$(cat "$d/lim.log")")"
fi
# The rings are in the memory budget: past its bulk share (3/4 of 1 MiB
# here) a ring keeps its first 8 KiB, and says where the rest resumes;
# big answers then find no room either.
if start_daemon mem --max-memory 1048576; then
	SOCK=$d/mem.sock
	for i in $(seq 20); do
		printf '{"id":"s%d","op":"start","tag":"m%d","args":["yes | head -c 100000"]}\n' "$i" "$i"
		printf '{"id":"w%d","op":"wait","tag":"m%d","timeout":20}\n' "$i" "$i"
	done >"$d/mem.in"
	for i in $(seq 20); do printf '{"id":"o%d","op":"output","tag":"m%d","offset":8192}\n' "$i" "$i"; done >>"$d/mem.in"
	raw_in <"$d/mem.in" >"$d/mem.out"
	check proc.budget_started_and_waited 40 "$(grep -c '^{"id":"[sw][0-9]*","ok":true' "$d/mem.out")"
	# an output answer the budget has no room for is refused, naming it
	check proc.budget_outputs_answered 20 "$(grep -c -e '^{"id":"o[0-9]*","ok":true' \
		-e '^{"id":"o[0-9]*","ok":false,"error":"the answer ([0-9]* bytes) is dropped: the daemon.s memory budget' "$d/mem.out")"
	n=$(grep -c '"stdout":"","stdout_offset":100000,' "$d/mem.out")
	check_true proc.budget_rings_cut "$n of 20 rings kept only their head" test "$n" -ge 5
	check_true proc.budget_rings_kept "$n of 20 rings kept only their head" test "$n" -le 15
	kill "$DPID"
else
	fail proc.budget "did not start: $(show "$(cat "$d/mem.log")")"
fi
if WICKFS_READONLY=1 start_daemon ro --root "$d"; then
	SOCK=$d/ro.sock
	a=$(raw '{"id":"1","op":"start","args":["true"]}' '{"id":"2","op":"exec","stream":true,"args":["true"]}' '{"id":"3","op":"list"}')
	check_match proc.readonly_start '{"id":"1","ok":false,"error":"exec: refused*' "$(sed -n 1p <<<"$a")"
	check_match proc.readonly_stream '{"id":"2","ok":false,"error":"exec: refused*' "$(sed -n 2p <<<"$a")"
	check_match proc.readonly_list '{"id":"3","ok":true,*' "$(sed -n 3p <<<"$a")"
	kill "$DPID"
else
	fail proc.readonly "did not start: $(show "$(cat "$d/ro.log")")"
fi
if WICKFS_READONLY=1 WICKFS_READONLY_EXEC=1 start_daemon rox --root "$d"; then
	SOCK=$d/rox.sock
	a=$(raw '{"id":"1","op":"start","args":["pwd"]}' '{"id":"2","op":"wait","handle":1}' '{"id":"3","op":"output","handle":1}' \
		'{"id":"4","op":"start","workdir":"/","args":["pwd"]}')
	check_match proc.readonly_exec_allowed '{"id":"1","ok":true,*' "$(sed -n 1p <<<"$a")"
	check_match proc.confined_cwd "*\"stdout\":\"$d\\\\n\"*" "$(sed -n 3p <<<"$a")"
	check_match proc.confined_workdir '{"id":"4","ok":false,"error":"workdir /: outside the workspace root*' "$(sed -n 4p <<<"$a")"
	kill "$DPID"
else
	fail proc.readonly_exec "did not start: $(show "$(cat "$d/rox.log")")"
fi

# As a container's first process the daemon reaps orphans, but never a
# process of its own, whose status it keeps.
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip proc.pid1_keeps_status "needs root and unshare"
elif unshare --pid --fork --kill-child --mount-proc true 2>/dev/null; then
	unshare --pid --fork --kill-child --mount-proc "$WICKFS" daemon --listen off --socket "$d/p1.sock" 2>"$d/p1.log" &
	P1=$!
	PIDS+=("$P1")
	for i in $(seq 100); do grep -q "ready: pid 1," "$d/p1.log" 2>/dev/null && break; sleep 0.05; done
	SOCK=$d/p1.sock
	a=$(raw '{"id":"1","op":"start","args":["sleep 1.2; exit 4"]}' '{"id":"2","op":"wait","handle":1,"timeout":10}')
	check_match proc.pid1_keeps_status '*"running":false,*"exit_code":4,*' "$(sed -n 2p <<<"$a")"
	kill "$P1"
else
	skip proc.pid1_keeps_status "unshare --pid refused here"
fi

# "detach": a process the daemon leaves running when it stops, its
# output appended to a log beneath the root (else /dev/null); the log's
# path is confined; no terminal, no stream
mkdir -p "$d/dw"
if start_daemon det --root "$d/dw"; then
	DET=$DPID
	SOCK=$d/det.sock
	a=$(raw '{"id":"1","op":"start","detach":true,"log":"run.log","args":["echo started; sleep 0.3; echo later; sleep 60"]}' \
		'{"id":"2","op":"start","args":["sleep 77.6"]}' \
		'{"id":"3","op":"start","detach":true,"log":"../out.log","args":["true"]}' \
		'{"id":"4","op":"start","detach":true,"pty":true,"args":["true"]}' \
		'{"id":"5","op":"start","detach":true,"args":["echo gone"]}')
	dpid=$(num pid "$(sed -n 1p <<<"$a")")
	npid=$(num pid "$(sed -n 2p <<<"$a")")
	PIDS+=("-$dpid")
	check_match proc.detach.answer '{"id":"1","ok":true,"data":{"handle":1,*,"detached":true,"log":"run.log",*' "$(sed -n 1p <<<"$a")"
	check_match proc.detach.log_confined '{"id":"3","ok":false,"error":"start: log ../out.log: outside the workspace root *' "$(sed -n 3p <<<"$a")"
	check proc.detach.no_pty '{"id":"4","ok":false,"error":"start: a detached process has no terminal and is not streamed"}' "$(sed -n 4p <<<"$a")"
	check_match proc.detach.no_log '*"detached":true,"log":"/dev/null",*' "$(sed -n 5p <<<"$a")"
	check_match proc.detach.client '{"ok":true,"data":{*"tag":"ct","command":"echo from client","detached":true,"log":"c.log",*' \
		"$(cl start --tag ct --log c.log echo from client)"
	kill "$DET"
	wait "$DET"
	check proc.detach.daemon_stops 0 "$?"
	for i in $(seq 50); do kill -0 "$npid" 2>/dev/null || break; sleep 0.1; done
	check_true proc.detach.others_die "pid $npid still there" test ! -d "/proc/$npid"
	for i in $(seq 100); do grep -q later "$d/dw/run.log" 2>/dev/null && break; sleep 0.1; done
	check_true proc.detach.outlives_daemon "pid $dpid gone" test -d "/proc/$dpid"
	check proc.detach.log $'started\nlater' "$(cat "$d/dw/run.log")"
	check proc.detach.client_log 'from client' "$(cat "$d/dw/c.log")"
	check proc.detach.log_mode 644 "$(stat -c %a "$d/dw/run.log")"
	kill -9 -- "-$dpid" 2>/dev/null
else
	fail proc.detach "did not start: $(show "$(cat "$d/det.log")")"
fi

# The daemon takes its processes with it.
SOCK=$d/main.sock
a=$(raw '{"id":"1","op":"start","args":["sleep 77.5"]}')
pid=$(num pid "$a")
kill "$MAIN"
wait "$MAIN"
check proc.daemon_stops 0 "$?"
for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check_true proc.dies_with_daemon "pid $pid still there" test ! -d "/proc/$pid"
