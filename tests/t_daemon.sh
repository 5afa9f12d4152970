#!/usr/bin/env bash
# daemon: PROTOCOL.md sections 3 and 4, driven with `wickfs client`.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)

d=$TEST_TMP/daemon
mkdir -p "$d"
cd "$d" || exit 1

trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

# start_daemon NAME ARGS...: daemon_start with its log in $d/NAME.log
# (DLOG).
start_daemon() {
	DLOG=$d/$1.log
	shift
	daemon_start "$DLOG" "$@"
}


SOCK=$d/d.sock
for attempt in 1 2 3 4 5; do
	PORT=$((20000 + RANDOM % 40000))
	start_daemon main --listen "127.0.0.1:$PORT" --socket "$SOCK" && break
	kill "$DPID" 2>/dev/null
	PORT=
done
if [ -z "$PORT" ]; then
	fail daemon.start "did not start: $(show "$(cat "$DLOG")")"
	exit 0
fi
MAIN=$DPID
pass daemon.start

cl() { daemon_client "unix:$SOCK" "$@"; }
raw() { daemon_send "unix:$SOCK" "$@"; }

check_match daemon.warns_without_token "*warning: no DAEMON_TOKEN and no DAEMON_ALLOW_FROM: anyone who can reach tcp 127.0.0.1:$PORT can run commands*" "$(cat "$DLOG")"
check daemon.socket_mode 600 "$(stat -c %a "$SOCK")"

# ---- section 3: the reference protocol ----
check daemon.ping '{"id":"r1","stdout":"ok\n","stderr":"","exit_code":0}' \
	"$(raw '{"id":"r1","cmd":"echo ok","workdir":"/","timeout":5}')"
check daemon.tcp '{"id":"r2","stdout":"ok\n","stderr":"","exit_code":0}' \
	"$(daemon_send "tcp:127.0.0.1:$PORT" '{"id":"r2","cmd":"echo ok"}')"
check_match daemon.invalid_json '{"id":"","stdout":"","stderr":"","exit_code":0,"error":"invalid JSON: *"}' \
	"$(raw '{"id":"x","cmd":')"
check_match daemon.not_an_object '{"id":"","stdout":"","stderr":"","exit_code":0,"error":"invalid JSON: *"}' \
	"$(raw '["echo"]')"
check daemon.empty_command '{"id":"e","stdout":"","stderr":"","exit_code":1,"error":"empty command"}' \
	"$(raw '{"id":"e","cmd":""}')"
check daemon.missing_command '{"id":"m","stdout":"","stderr":"","exit_code":1,"error":"empty command"}' \
	"$(raw '{"id":"m"}')"
check daemon.bad_workdir "{\"id\":\"w\",\"stdout\":\"\",\"stderr\":\"\",\"exit_code\":1,\"error\":\"chdir $d/nope: no such file or directory\"}" \
	"$(raw "{\"id\":\"w\",\"cmd\":\"pwd\",\"workdir\":$(jstr "$d/nope")}")"
check daemon.bad_workdir_fast_path "{\"id\":\"w\",\"stdout\":\"\",\"stderr\":\"\",\"exit_code\":1,\"error\":\"chdir $d/nope: no such file or directory\"}" \
	"$(raw "{\"id\":\"w\",\"cmd\":\"wickfs ls 'x'\",\"workdir\":$(jstr "$d/nope")}")"
check daemon.keys_case_insensitive '{"id":"k","stdout":"hi\n","stderr":"","exit_code":0}' \
	"$(raw '{"ID":"k","Cmd":"echo hi"}')"
check daemon.exit_code '{"id":"x","stdout":"","stderr":"e\n","exit_code":3}' \
	"$(raw '{"id":"x","cmd":"echo e >&2; exit 3"}')"
check daemon.stdin '{"id":"s","stdout":"abc","stderr":"","exit_code":0}' \
	"$(raw '{"id":"s","cmd":"cat","stdin":"abc"}')"
check daemon.workdir "{\"id\":\"w\",\"stdout\":\"$d\\n\",\"stderr\":\"\",\"exit_code\":0}" \
	"$(raw "{\"id\":\"w\",\"cmd\":\"pwd\",\"workdir\":$(jstr "$d")}")"
check daemon.env_extension '{"id":"v","stdout":"1 2\n","stderr":"","exit_code":0}' \
	"$(raw '{"id":"v","cmd":"echo $A $B","env":{"A":"1","B":"2"}}')"
check daemon.signal '{"id":"k","stdout":"","stderr":"","exit_code":-1}' \
	"$(raw '{"id":"k","cmd":"kill -9 $$"}')"

# Blank lines are skipped; lines are answered in order on a connection,
# a slow command first.
printf '\n  \n{"id":"a","cmd":"sleep 0.3; echo a"}\n\n{"id":"b","cmd":"echo b"}\n{"id":"c","cmd":"wickfs ls %s"}\n' "'$d/none'" >"$d/lines"
out=$(daemon_send "unix:$SOCK" <"$d/lines")
check daemon.ordered_and_blank_lines '{"id":"a","stdout":"a\n","stderr":"","exit_code":0}
{"id":"b","stdout":"b\n","stderr":"","exit_code":0}
{"id":"c","stdout":"{\"ok\":false,\"error\":\"ls '"$d"'/none: no such file or directory\"}\n","stderr":"","exit_code":1}' "$out"
# A last line without its newline is still answered.
printf '{"id":"n","cmd":"echo n"}' >"$d/lines"
check daemon.last_line_without_newline '{"id":"n","stdout":"n\n","stderr":"","exit_code":0}' \
	"$(daemon_send "unix:$SOCK" <"$d/lines")"

# Timeout: the whole group is killed, nothing left (the answer itself,
# exit 124 and the error, says the timer fired: 30 s was not waited for).
marker="sleep 30.$$3"
out=$(raw "{\"id\":\"t\",\"cmd\":\"echo before; $marker & $marker\",\"timeout\":1}")
check daemon.timeout '{"id":"t","stdout":"before\n","stderr":"","exit_code":124,"error":"command timed out after 1s"}' "$out"
wait_procs_gone "$marker"
check daemon.timeout_no_process_left "" "$(procs_matching "$marker")"

# Pipelined commands that time out each get their own timer.
printf '{"id":"1","cmd":"sleep 5","timeout":1}\n{"id":"2","cmd":"sleep 5","timeout":1}\n' >"$d/lines"
check daemon.pipelined_timeouts '{"id":"1","stdout":"","stderr":"","exit_code":124,"error":"command timed out after 1s"}
{"id":"2","stdout":"","stderr":"","exit_code":124,"error":"command timed out after 1s"}' \
	"$(daemon_send "unix:$SOCK" <"$d/lines")"

# ---- the fast path: the same bytes as the spawned command ----
printf 'hello\n' >"$d/f.txt"
printf 'alpha\nbeta\n' >"$d/g.txt"
mkdir -p "$d/tree/sub"
printf 'x = 1\n' >"$d/tree/a.py"
printf 'y = 2\n' >"$d/tree/sub/b.py"

# same NAME STDIN ARGS...: client (fast path) against the CLI.
same() {
	local name=$1 in=$2 cli_out cli_rc dm_out dm_rc
	shift 2
	cli_out=$(printf '%s' "$in" | "$WICKFS" "$@"; echo "rc=$?")
	dm_out=$(printf '%s' "$in" | cl -i "$@"; echo "rc=$?")
	check "daemon.fast_path.$name" "$cli_out" "$dm_out"
}
same ls "" ls "$d/tree"
same ls_missing "" ls "$d/none"
same read "" read "$d/f.txt"
same read_quote "" read "$d/it's"
printf 'q\n' >"$d/it's"
same read_quote2 "" read "$d/it's"
same write "new content" write "$d/w.txt"
printf 'one two\n' >"$d/e.txt"
cli_e=$("$WICKFS" edit "$d/e.txt" <<<'{"old_text":"one","new_text":"1"}')
printf 'one two\n' >"$d/e.txt"
dm_e=$(cl -i edit "$d/e.txt" <<<'{"old_text":"one","new_text":"1"}')
check daemon.fast_path.edit "$cli_e" "$dm_e"
check daemon.fast_path.edit_file "1 two" "$(cat "$d/e.txt")"
same grep "" grep 'x|y' "$d/tree"
same glob "" glob '*.py' "$d/tree"
same exec "" exec 'echo out; echo err >&2; exit 2'
same usage "" read

# The fast path against the spawned command itself (double quotes force sh).
for a in "ls '$d/tree'" "read '$d/f.txt'" "grep 'alpha' '$d'" "glob '*.txt' '$d'" "exec 'echo hi'"; do
	fast=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "wickfs $a")}")
	spawned=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "\"$WICKFS\" $a")}")
	check "daemon.fast_equals_spawned.${a%% *}" "$spawned" "$fast"
done

# The names the CLI takes, the fast path takes: wickfs-APPLET (the links
# --install makes), as a path or not, and `wickfs wickfs-APPLET`. In
# process: no wickfs-ls is in PATH here, so a shell would say "not found".
for a in "ls '$d/tree'" "read '$d/f.txt'" "grep 'alpha' '$d'"; do
	want=$(raw "{\"id\":\"a\",\"cmd\":$(jstr "wickfs $a")}")
	check_match "daemon.fast_path_alias.${a%% *}.ok" '*"stdout":"{?"ok?":true,*' "$want"
	for c in "link wickfs-$a" "path /nowhere/bin/wickfs-$a" "word wickfs wickfs-$a"; do
		check "daemon.fast_path_alias.${a%% *}.${c%% *}" "$want" \
			"$(raw "{\"id\":\"a\",\"cmd\":$(jstr "${c#* }")}")"
	done
done
# A bare applet name is the system's command, never ours.
check daemon.bare_name_is_the_shells '{"id":"b","stdout":"a.py\nsub\n","stderr":"","exit_code":0}' \
	"$(raw "{\"id\":\"b\",\"cmd\":$(jstr "ls '$d/tree'")}")"
if [ "${WICKFS_EMULATED:-0}" != 1 ]; then
	# ... and the same bytes as those links run by a shell.
	"$WICKFS" --install -s "$d/links" >/dev/null
	for a in "ls '$d/tree'" "read '$d/f.txt'" "write '$d/wl.txt'"; do
		fast=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "$d/links/wickfs-$a"),\"stdin\":\"x\"}")
		spawned=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "\"$d/links/wickfs-${a%% *}\" ${a#* }"),\"stdin\":\"x\"}")
		check "daemon.fast_alias_equals_spawned.${a%% *}" "$spawned" "$fast"
	done
fi

# Relative paths resolve against the workdir, in process too.
check daemon.fast_path_workdir '{"id":"r","stdout":"{\"ok\":true,\"data\":\"hello\\n\"}\n","stderr":"","exit_code":0}' \
	"$(raw "{\"id\":\"r\",\"cmd\":\"wickfs read 'f.txt'\",\"workdir\":$(jstr "$d")}")"
check daemon.fast_path_workdir_grep "$(cd "$d" && "$WICKFS" grep y tree)" \
	"$(cl --workdir "$d" grep y tree)"

# ---- section 4: native form ----
check daemon.native_read '{"id":"n","ok":true,"data":"hello\n"}' \
	"$(raw "{\"id\":\"n\",\"op\":\"read\",\"args\":[$(jstr "$d/f.txt")]}")"
check daemon.native_error "{\"id\":\"n\",\"ok\":false,\"error\":\"read $d/none: no such file or directory\"}" \
	"$(raw "{\"id\":\"n\",\"op\":\"read\",\"args\":[$(jstr "$d/none")]}")"
check daemon.native_unknown '{"id":"n","ok":false,"error":"unknown op: daemon"}' \
	"$(raw '{"id":"n","op":"daemon","args":[]}')"
check daemon.native_write '{"id":"n","ok":true,"data":{"path":"'"$d"'/nw.txt","bytes_written":3}}' \
	"$(raw "{\"id\":\"n\",\"op\":\"write\",\"args\":[$(jstr "$d/nw.txt")],\"stdin\":\"abc\"}")"
check daemon.native_exec '{"id":"n","ok":true,"data":{"stdout":"x\n","stderr":"","exit_code":0}}' \
	"$(raw '{"id":"n","op":"exec","args":["echo","x"]}')"
check daemon.native_ls '{"id":"n","ok":true,"data":[{"name":"b.py","type":"file","size":6}]}' \
	"$(raw "{\"id\":\"n\",\"op\":\"ls\",\"args\":[$(jstr "$d/tree/sub")]}")"
check daemon.native_ls_error "{\"id\":\"n\",\"ok\":false,\"error\":\"ls $d/none: no such file or directory\"}" \
	"$(raw "{\"id\":\"n\",\"op\":\"ls\",\"args\":[$(jstr "$d/none")]}")"
check daemon.native_grep "{\"id\":\"n\",\"ok\":true,\"data\":{\"matches\":[{\"file\":\"$d/tree/a.py\",\"line\":1,\"text\":\"x = 1\"},{\"file\":\"$d/tree/sub/b.py\",\"line\":1,\"text\":\"y = 2\"}],\"truncated\":false}}" \
	"$(raw "{\"id\":\"n\",\"op\":\"grep\",\"args\":[\"x|y\",$(jstr "$d/tree")]}")"
check daemon.native_glob "{\"id\":\"n\",\"ok\":true,\"data\":{\"files\":[\"$d/tree/a.py\",\"$d/tree/sub/b.py\"],\"truncated\":false}}" \
	"$(raw "{\"id\":\"n\",\"op\":\"glob\",\"args\":[\"**/*.py\",$(jstr "$d/tree")]}")"
printf 'one two\n' >"$d/ne.txt"
check daemon.native_edit "{\"id\":\"n\",\"ok\":true,\"data\":{\"path\":\"$d/ne.txt\",\"replacements\":1}}" \
	"$(raw "{\"id\":\"n\",\"op\":\"edit\",\"args\":[$(jstr "$d/ne.txt")],\"stdin\":$(jstr '{"old_text":"two","new_text":"2"}')}")"
check daemon.native_edit_file "one 2" "$(cat "$d/ne.txt")"
check daemon.native_edit_error "{\"id\":\"n\",\"ok\":false,\"error\":\"edit $d/ne.txt: old_text not found in file\"}" \
	"$(raw "{\"id\":\"n\",\"op\":\"edit\",\"args\":[$(jstr "$d/ne.txt")],\"stdin\":$(jstr '{"old_text":"two","new_text":"2"}')}")"

# ---- client ----
cl read "$d/f.txt" >/dev/null
check daemon.client_exit_ok 0 "$?"
cl read "$d/none" >/dev/null
check daemon.client_exit_error 1 "$?"

# ---- many clients ----
# The client compares every reply with the first and counts those that
# differ: all 1000 must be answered, and alike.
out=$(cl --parallel 1000 read "$d/f.txt" 2>"$d/par.err")
rc=$?
check daemon.1000_connections '{"ok":true,"data":"hello\n"} 0' "$out $rc"
check daemon.1000_connections_all "client: 1000 of 1000 connections answered, 0 replies differ from the first" "$(cat "$d/par.err")"

# A stuck client (half a line, never finished) does not delay others.
exec 7<>/dev/tcp/127.0.0.1/"$PORT"
printf '{"id":"stuck","cmd":"echo' >&7
check daemon.stuck_client_no_delay '{"id":"p","stdout":"ok\n","stderr":"","exit_code":0}' \
	"$(raw '{"id":"p","cmd":"echo ok"}')"
exec 7>&-
# Disconnect in the middle of a request and while a command runs.
gone="sleep 0.3$$5"
exec 7<>/dev/tcp/127.0.0.1/"$PORT"
printf '{"id":"gone","cmd":"%s; echo x"}\n{"id":"half","cm' "$gone" >&7
exec 7>&-
# Until the command of the closed connection has started and ended.
for _ in $(seq 50); do
	[ -n "$(procs_matching "$gone")" ] && break
	sleep 0.05
done
wait_procs_gone "$gone"
check daemon.after_disconnect '{"id":"p","stdout":"ok\n","stderr":"","exit_code":0}' \
	"$(raw '{"id":"p","cmd":"echo ok"}')"

# No leaked descriptors or zombies after many commands, timed-out ones
# among them. The count before may still include a connection of an
# earlier check being closed: it is taken once it stops changing, and the
# check is that nothing was added (100 commands would leak dozens).
fds_before=$(fds_settled "$MAIN")
for i in $(seq 20); do
	printf '{"id":"%d","cmd":"echo %d | cat"}\n' "$i" "$i"
	printf '{"id":"%d","cmd":"wickfs read %s"}\n' "$i" "'$d/f.txt'"
	# Commands on one connection run in turn: three timeouts each.
	[ "$i" -le 3 ] && printf '{"id":"t%d","cmd":"sleep 5","timeout":1}\n' "$i"
done >"$d/many"
cpids=()
for i in 1 2 3 4 5; do
	daemon_send "unix:$SOCK" <"$d/many" >"$d/many.$i.out" &
	cpids+=($!)
done
wait "${cpids[@]}"
want=$(for i in $(seq 20); do
	printf '{"id":"%d","stdout":"%d\\n","stderr":"","exit_code":0}\n' "$i" "$i"
	printf '{"id":"%d","stdout":%s,"stderr":"","exit_code":0}\n' "$i" "$(jstr "$("$WICKFS" read "$d/f.txt")
")"
	[ "$i" -le 3 ] && printf '{"id":"t%d","stdout":"","stderr":"","exit_code":124,"error":"command timed out after 1s"}\n' "$i"
done)
for i in 1 2 3 4 5; do
	check "daemon.many_requests.$i" "$want" "$(cat "$d/many.$i.out")"
done
for _ in $(seq 20); do
	fds_after=$(ls /proc/"$MAIN"/fd | wc -l)
	[ "$fds_after" -le "$fds_before" ] && break
	sleep 0.1
done
check_true daemon.no_fd_leak "$fds_after descriptors after 200 requests, $fds_before before" \
	test "$fds_after" -le "$fds_before"
zombies=$(for s in /proc/[0-9]*/stat; do
	read -r _ _ st pp _ <"$s" 2>/dev/null && [ "$pp" = "$MAIN" ] && [ "$st" = Z ] && echo "$s"
done)
check daemon.no_zombies "" "$zombies"

# ---- unshare(CLONE_FS) refused, as under a strict seccomp profile ----
# No per-thread working directory: a fast-path cmd with a workdir is
# spawned instead (and prints the same), an op with a workdir is refused
# with a reason, and requests without a workdir still run in process.
nu=$d/seccomp_deny
if ! ${HOSTCC:-cc} -O1 -o "$nu" "$tests_dir/helpers/seccomp_deny.c" 2>"$d/nu.err"; then
	fail daemon.no_unshare_helper "cannot build tests/helpers/seccomp_deny.c: $(head -c 300 "$d/nu.err")"
else
	mkdir -p "$d/nubin" "$d/nuwd"
	ln -sf "$WICKFS" "$d/nubin/wickfs"
	printf 'from the workdir\n' >"$d/nuwd/rel.txt"
	if PATH="$d/nubin:$PATH" DAEMON_WRAP="$nu unshare" start_daemon nu --listen off --socket "$d/nu.sock" -v; then
		rn() { daemon_send "unix:$d/nu.sock" "$@"; }
		check_match daemon.no_unshare_logged "*no per-thread working directory (unshare CLONE_FS refused)*" "$(cat "$DLOG")"
		want=$(cd "$d/nuwd" && "$WICKFS" read rel.txt)
		check daemon.no_unshare_workdir_cmd "{\"id\":\"u1\",\"stdout\":$(jstr "$want
"),\"stderr\":\"\",\"exit_code\":0}" \
			"$(rn "{\"id\":\"u1\",\"cmd\":\"wickfs read 'rel.txt'\",\"workdir\":$(jstr "$d/nuwd")}")"
		check_match daemon.no_unshare_workdir_spawned "*id=u1 spawned*" "$(cat "$DLOG")"
		check daemon.no_unshare_workdir_op '{"id":"u2","ok":false,"error":"workdir is not supported for op requests here (no per-thread working directory); send a cmd"}' \
			"$(rn "{\"id\":\"u2\",\"op\":\"read\",\"args\":[\"rel.txt\"],\"workdir\":$(jstr "$d/nuwd")}")"
		check daemon.no_unshare_absolute "{\"id\":\"u3\",\"stdout\":$(jstr "$want
"),\"stderr\":\"\",\"exit_code\":0}" \
			"$(rn "{\"id\":\"u3\",\"cmd\":\"wickfs read '$d/nuwd/rel.txt'\"}")"
		check daemon.no_unshare_absolute_in_process "id=u3 answered" \
			"$(grep -o "id=u3 [a-z]*" "$DLOG")"
		daemon_stop
		check daemon.no_unshare_exit_0 0 "$?"
	else
		fail daemon.no_unshare_start "$(show "$(cat "$DLOG")")"
	fi
fi

# ---- a file over 1 MiB: tried on the event loop, read on a worker ----
head -c 1500000 /dev/zero | tr '\0' 'q' >"$d/big_read.txt"
want=$("$WICKFS" read "$d/big_read.txt")
check daemon.big_read_op "{\"id\":\"b\",\"ok\":true,\"data\":\"$(cat "$d/big_read.txt")\"}" \
	"$(raw "{\"id\":\"b\",\"op\":\"read\",\"args\":[\"$d/big_read.txt\"]}")"
check daemon.big_read_fast_path "$want" "$(cl read "$d/big_read.txt")"
check daemon.big_read_then_small '{"id":"s","ok":true,"data":"hello\n"}' \
	"$(raw "{\"id\":\"s\",\"op\":\"read\",\"args\":[\"$d/f.txt\"]}")"

# ---- big lines: parsed on a worker, still answered in order ----
# A line over 256 KiB is parsed off the event loop; on one connection the
# next request must still see its effect, and errors still come back.
bigtxt=$(head -c 400000 /dev/zero | tr '\0' x)
{
	printf '{"id":"w","op":"write","args":["%s"],"stdin":"%s"}\n' "$d/bigline.txt" "$bigtxt"
	printf '{"id":"n","op":"read","args":["%s"]}\n' "$d/bigline.txt"
	printf '{"id":"bad","cmd":"%s\n' "$bigtxt"
	printf '{"id":"c","cmd":"wc -c","stdin":"%s"}\n' "$bigtxt"
	printf '{"id":"after","cmd":"echo ok"}\n'
} >"$d/biglines.ndjson"
raw <"$d/biglines.ndjson" >"$d/biglines.out"
check daemon.bigline_write '{"id":"w","ok":true,"data":{"path":"'"$d"'/bigline.txt","bytes_written":400000}}' \
	"$(sed -n 1p "$d/biglines.out")"
check daemon.bigline_then_read '{"id":"n","ok":true,"data":"'"$bigtxt"'"}' "$(sed -n 2p "$d/biglines.out")"
check_match daemon.bigline_invalid '{"id":"","stdout":"","stderr":"","exit_code":0,"error":"invalid JSON: *"}' \
	"$(sed -n 3p "$d/biglines.out")"
check daemon.bigline_command '{"id":"c","stdout":"400000\n","stderr":"","exit_code":0}' "$(sed -n 4p "$d/biglines.out" | tr -d ' ')"
check daemon.bigline_after '{"id":"after","stdout":"ok\n","stderr":"","exit_code":0}' "$(sed -n 5p "$d/biglines.out")"

# ---- limits: output cap, line size ----
start_daemon limits --listen off --socket "$d/l.sock" --max-line 1000 --max-output 100 --poll-us 0
rl() { daemon_send "unix:$d/l.sock" "$@"; }
check daemon.poll_us_bad '{"ok":false,"error":"daemon: option --poll-us needs an integer, got \"x\""}' \
	"$("$WICKFS" daemon --poll-us x --listen off --socket off 2>&1)"
# Polling off (--poll-us 0): every answer still comes, in order.
printf 'polled\n' >"$d/poll.txt"
out=$(rl "{\"id\":\"a\",\"op\":\"read\",\"args\":[\"$d/poll.txt\"]}" \
	"{\"id\":\"b\",\"cmd\":\"wickfs read '$d/poll.txt'\"}" '{"id":"c","op":"nope"}')
check daemon.poll_off "{\"id\":\"a\",\"ok\":true,\"data\":\"polled\\n\"}
{\"id\":\"b\",\"stdout\":$(jstr "$("$WICKFS" read "$d/poll.txt")
"),\"stderr\":\"\",\"exit_code\":0}
{\"id\":\"c\",\"ok\":false,\"error\":\"unknown op: nope\"}" "$out"
big=$(head -c 2000 /dev/zero | tr '\0' a)
out=$(rl "{\"id\":\"big\",\"cmd\":\"echo $big\"}" '{"id":"after","cmd":"echo ok"}')
check daemon.oversize_line '{"id":"","stdout":"","stderr":"","exit_code":1,"error":"request line exceeds the limit of 1000 bytes"}
{"id":"after","stdout":"ok\n","stderr":"","exit_code":0}' "$out"
out=$(rl '{"id":"cap","cmd":"head -c 5000 /dev/zero | tr -c b b; echo done >&2"}')
check daemon.output_cap "{\"id\":\"cap\",\"stdout\":\"$(head -c 100 /dev/zero | tr '\0' b)\",\"stderr\":\"done\\n\",\"exit_code\":0,\"stdout_truncated\":true}" "$out"

daemon_stop
check daemon.limits_exit_0 0 "$?"

# --max-procs: commands beyond it wait their turn, none is lost.
start_daemon procs --listen off --socket "$d/p.sock" --max-procs 1 --max-conns 3 -v
rp() { daemon_send "unix:$d/p.sock" "$@"; }
rp '{"id":"p1","cmd":"sleep 0.3; echo 1"}' >"$d/p1.out" &
p1=$!
rp '{"id":"p2","cmd":"sleep 0.3; echo 2"}' >"$d/p2.out" &
p2=$!
wait "$p1" "$p2"
check daemon.max_procs_queued '{"id":"p1","stdout":"1\n","stderr":"","exit_code":0} {"id":"p2","stdout":"2\n","stderr":"","exit_code":0}' \
	"$(cat "$d/p1.out") $(cat "$d/p2.out")"
order=$(grep -oE "id=p[12] (spawned|answered)" "$DLOG" | awk '{print $2}' | tr '\n' ' ')
check daemon.max_procs_one_at_a_time "spawned answered spawned answered " "$order"
# --max-conns: one more connection is closed at once, the others served.
out=$(daemon_client "unix:$d/p.sock" --parallel 4 read "$d/f.txt" 2>&1)
check_match daemon.max_conns "*client: 3 of 4 connections answered*" "$out"
check_match daemon.max_conns_logged "*connection refused: 3 connections open*" "$(cat "$DLOG")"
daemon_stop

# ---- token ----
DAEMON_TOKEN=s3cret start_daemon token --listen off --socket "$d/t.sock"
TPID=$DPID
rt() { daemon_send "unix:$d/t.sock" "$@"; }
out=$(rt "{\"id\":\"t1\",\"cmd\":\"touch $d/ran1\"}")
check_match daemon.token_missing '{"id":"t1","stdout":"","stderr":"","exit_code":1,"error":"unauthorized*"}' "$out"
check_true daemon.token_missing_nothing_ran "command ran" test ! -e "$d/ran1"
out=$(rt "{\"id\":\"t2\",\"cmd\":\"touch $d/ran2\",\"token\":\"wrong\"}")
check_match daemon.token_wrong '{"id":"t2",*"error":"unauthorized*"}' "$out"
check_true daemon.token_wrong_nothing_ran "command ran" test ! -e "$d/ran2"
out=$(rt "{\"id\":\"t3\",\"op\":\"read\",\"args\":[\"$d/f.txt\"],\"token\":\"s3cre\"}")
check_match daemon.token_native_refused '{"id":"t3","ok":false,"error":"unauthorized*"}' "$out"
out=$(rt "{\"id\":\"t4\",\"cmd\":\"touch $d/ran4; echo yes\",\"token\":\"s3cret\"}")
check daemon.token_accepted '{"id":"t4","stdout":"yes\n","stderr":"","exit_code":0}' "$out"
out=$(daemon_client "unix:$d/t.sock" --token s3cret read "$d/f.txt")
check daemon.token_client '{"ok":true,"data":"hello\n"}' "$out"
check_true daemon.token_no_warning "warned" sh -c "! grep -q 'no DAEMON_TOKEN' '$DLOG'"
# Nothing the daemon runs sees its token, or any variable it read for
# itself; nor can it be read from the daemon's /proc entries.
out=$(rt '{"id":"env","cmd":"env","token":"s3cret"}')
check_match daemon.token_env_ran '{"id":"env","stdout":"*PATH=*","exit_code":0}' "$out"
check_true daemon.token_not_in_env "in the command's env: $(show "$out")" \
	sh -c "! printf '%s' '$out' | grep -q -e s3cret -e DAEMON_"
check_true daemon.token_not_in_proc_environ "in /proc/$TPID/environ" \
	sh -c "! tr '\0' '\n' <'/proc/$TPID/environ' 2>/dev/null | grep -q s3cret"

# --token on the command line: overwritten where ps shows it.
start_daemon token_arg --listen off --socket "$d/ta.sock" --token c0mmandl1ne
out=$(daemon_client "unix:$d/ta.sock" --token c0mmandl1ne read "$d/f.txt")
check daemon.token_arg_accepted '{"ok":true,"data":"hello\n"}' "$out"
check_true daemon.token_arg_not_in_cmdline "$(tr '\0' ' ' <"/proc/$DPID/cmdline")" \
	sh -c "! grep -q c0mmandl1ne '/proc/$DPID/cmdline'"
daemon_stop

# --token-file (DAEMON_TOKEN_FILE): read once, its first line; the file
# may go once the daemon is ready.
printf 'f1le-tok\n' >"$d/tok"
DAEMON_TOKEN_FILE=$d/tok DAEMON_LINE_TIMEOUT=7 DAEMON_MAX_CONNS=50 \
	start_daemon token_file --listen off --socket "$d/tf.sock"
rm "$d/tok"
rf() { daemon_send "unix:$d/tf.sock" "$@"; }
check_match daemon.token_file_refused '{"id":"a",*"error":"unauthorized*' "$(rf '{"id":"a","cmd":"true"}')"
out=$(rf '{"id":"b","cmd":"env","token":"f1le-tok"}')
check_match daemon.token_file_accepted '{"id":"b","stdout":"*PATH=*","exit_code":0}' "$out"
check_true daemon.token_file_env_clean "in the command's env: $(show "$out")" \
	sh -c "! printf '%s' '$out' | grep -q -e DAEMON_ -e f1le-tok"
daemon_stop
"$WICKFS" daemon --listen off --socket "$d/tm.sock" --token-file "$d/missing" 2>"$d/tm.log" &
p=$!
PIDS+=("$p")
with_timeout 10 tail --pid="$p" -f /dev/null
wait "$p"
rc=$?
check_match daemon.token_file_missing "exit 1: *token file $d/missing: No such file*" "exit $rc: $(cat "$d/tm.log")"

# ---- who may connect over TCP: --allow-from ----
# start_tcp NAME ARGS...: a daemon on a free loopback port (PORT).
start_tcp() {
	local name=$1 try
	shift
	for try in 1 2 3 4 5; do
		PORT=$((20000 + RANDOM % 40000))
		start_daemon "$name" --listen "${TCP_HOST:-127.0.0.1}:$PORT" "$@" && return 0
		kill "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	done
	return 1
}
rtcp() { daemon_send "tcp:127.0.0.1:$PORT" "$@"; }
start_tcp allow_other --socket "$d/al.sock" --allow-from 10.0.0.0/8,fd00::/8 ||
	fail daemon.allow_start "$(cat "$DLOG")"
out=$(rtcp '{"id":"a","cmd":"echo ok"}' 2>&1)
check_match daemon.allow_refused '{"ok":false,"error":"client: no response*' "$out"
check_match daemon.allow_refused_logged '*connection from 127.0.0.1:* refused: not in --allow-from*' "$(cat "$DLOG")"
check daemon.allow_unix_served '{"id":"a","stdout":"ok\n","stderr":"","exit_code":0}' \
	"$(daemon_send "unix:$d/al.sock" '{"id":"a","cmd":"echo ok"}')"
check_true daemon.allow_no_warning "warned: $(cat "$DLOG")" sh -c "! grep -q warning '$DLOG'"
daemon_stop
DAEMON_ALLOW_FROM=" 10.1.2.3 , 127.0.0.0/8" start_tcp allow_local --socket off ||
	fail daemon.allow_start "$(cat "$DLOG")"
check daemon.allow_served '{"id":"a","stdout":"ok\n","stderr":"","exit_code":0}' "$(rtcp '{"id":"a","cmd":"echo ok"}')"
check daemon.allow_env_clean '{"id":"e","stdout":"","stderr":"","exit_code":1}' \
	"$(rtcp '{"id":"e","cmd":"env | grep DAEMON_"}')"
daemon_stop
# A dual-stack socket sees IPv4 peers as ::ffff:a.b.c.d: an IPv4 entry
# still matches them.
if [ ! -e /proc/net/if_inet6 ]; then
	skip daemon.allow_mapped_v4 "no IPv6 here"
elif TCP_HOST="[::]" start_tcp allow_v6 --socket off --allow-from 127.0.0.1; then
	check daemon.allow_mapped_v4 '{"id":"a","stdout":"ok\n","stderr":"","exit_code":0}' "$(rtcp '{"id":"a","cmd":"echo ok"}')"
	daemon_stop
else
	fail daemon.allow_mapped_v4 "no daemon on [::]: $(cat "$DLOG")"
fi
"$WICKFS" daemon --listen 127.0.0.1:0 --socket off --allow-from "127.0.0.1,300.1.1.1" 2>"$d/ab.log" &
p=$!
PIDS+=("$p")
with_timeout 10 tail --pid="$p" -f /dev/null
wait "$p"
rc=$?
check_match daemon.allow_bad_entry "exit 1: *bad entry \"300.1.1.1\" in the allow-list*" "exit $rc: $(cat "$d/ab.log")"

# ---- the socket path ----
printf 'precious\n' >"$d/notsock"
"$WICKFS" daemon --listen off --socket "$d/notsock" 2>"$d/ns.log" &
p=$!
PIDS+=("$p")
with_timeout 5 tail --pid="$p" -f /dev/null
wait "$p"
rc=$?
check_true daemon.non_socket_refused "exit $rc" test "$rc" -ne 0
check daemon.non_socket_kept "precious" "$(cat "$d/notsock")"
"$WICKFS" daemon --listen off --socket "$d/t.sock" 2>"$d/busy.log" &
p=$!
PIDS+=("$p")
with_timeout 5 tail --pid="$p" -f /dev/null
wait "$p"
check_match daemon.live_socket_refused "*another daemon is listening*" "$(cat "$d/busy.log")"

# ---- SIGTERM with a command running ----
marker="sleep 30.$$4"
daemon_send "unix:$d/t.sock" \
	"{\"id\":\"run\",\"cmd\":\"$marker\",\"token\":\"s3cret\"}" >"$d/term.out" &
cpid=$!
# Bounded generously: a loaded machine may take seconds to start it.
# The sleep itself: the client's (and its timeout's) argv hold the marker
# too, and a signal before the request arrives would race the client.
sleep_started() {
	local f a IFS=' '
	for f in /proc/[0-9]*/cmdline; do
		mapfile -d '' a 2>/dev/null <"$f" || continue
		[ "${a[*]}" = "$marker" ] && return 0
	done
	return 1
}
for i in $(seq 1200); do
	sleep_started && break
	sleep 0.05
done
daemon_stop "$TPID"
check daemon.sigterm_exit_0 0 "$?"
wait "$cpid"
check_match daemon.sigterm_answered '{"id":"run",*"error":"daemon shutting down*"}' "$(cat "$d/term.out")"
check_true daemon.sigterm_socket_removed "socket left" test ! -e "$d/t.sock"
check daemon.sigterm_no_process_left "" "$(procs_matching "$marker")"

daemon_stop "$MAIN"
check daemon.main_exit_0 0 "$?"
check_true daemon.main_socket_removed "socket left" test ! -e "$SOCK"

# ---- --lifeline: the end of stdin stops the daemon ----
mkfifo "$d/life"
"$WICKFS" daemon --listen off --socket "$d/life.sock" --lifeline <"$d/life" 2>"$d/life.log" &
LPID=$!
exec 7>"$d/life"
for i in $(seq 200); do
	grep -q "ready:" "$d/life.log" && break
	sleep 0.05
done
printf 'ignored\n' >&7
check_true daemon.lifeline_running "the daemon stopped on input: $(cat "$d/life.log")" kill -0 "$LPID"
exec 7>&-
wait "$LPID"
check daemon.lifeline_exit_0 0 "$?"
check_match daemon.lifeline_said "*stdin ended (--lifeline): shutting down*" "$(cat "$d/life.log")"
check_true daemon.lifeline_socket_removed "socket left" test ! -e "$d/life.sock"
"$WICKFS" daemon --listen off --socket "$d/life2.sock" --lifeline </dev/null 2>"$d/life2.log"
check daemon.lifeline_not_a_pipe 1 "$?"
check_match daemon.lifeline_not_a_pipe_said "*--lifeline: stdin cannot be watched:*a pipe or a socket is needed*" "$(cat "$d/life2.log")"

# ---- --mount VPATH=DIR[:ro]: bound in the daemon's own mount namespace ----
mkdir -p "$d/mw/data" "$d/mw/cache" "$d/mreal" "$d/mc"
printf 'real\n' >"$d/mreal/r.txt"
"$WICKFS" daemon --listen off --socket "$d/m0.sock" --mount /=/tmp 2>"$d/m0.log"
check daemon.mount.not_root 2 "$?"
check_match daemon.mount.not_root_said "*--mount /=/tmp: VPATH must be an absolute path other than /*" "$(cat "$d/m0.log")"
"$WICKFS" daemon --listen off --socket "$d/m0.sock" --mount "$d/mw/data=$d/mreal" --mount "$d/mw/data/x=$d/mc" 2>"$d/m0.log"
check daemon.mount.overlap 2 "$?"
check_match daemon.mount.overlap_said "*--mount $d/mw/data/x=$d/mc: it overlaps an earlier mount*" "$(cat "$d/m0.log")"
if ! daemon_start "$d/m.log" --listen off --socket "$d/m.sock" --root "$d/mw" \
	--mount "$d/mw/data=$d/mreal:ro" --mount "$d/mw/cache=$d/mc"; then
	if grep -q "the kernel refuses a mount namespace" "$d/m.log"; then
		skip daemon.mount "$(tail -n 1 "$d/m.log")"
	else
		fail daemon.mount.start "$(cat "$d/m.log")"
	fi
else
	rm_() { daemon_send "unix:$d/m.sock" "$1"; }
	check daemon.mount.read '{"id":"1","ok":true,"data":"real\n"}' "$(rm_ '{"id":"1","op":"read","args":["data/r.txt"]}')"
	check daemon.mount.ro_refused "{\"id\":\"2\",\"ok\":false,\"error\":\"write data/x.txt: refused, $d/mw/data is a read-only mount (--mount)\"}" \
		"$(rm_ '{"id":"2","op":"write","args":["data/x.txt"],"stdin":"x"}')"
	check_match daemon.mount.rw_write '*"ok":true*' "$(rm_ '{"id":"3","op":"write","args":["cache/y.txt"],"stdin":"y"}')"
	check daemon.mount.rw_landed "y" "$(cat "$d/mc/y.txt" 2>&1)"
	check_match daemon.mount.command_sees '*"stdout":"real?ny.txt?n"*Read-only file system*' \
		"$(rm_ '{"id":"4","op":"exec","args":["cat data/r.txt; ls cache; echo z > data/z"]}')"
	check daemon.mount.ro_untouched "r.txt" "$(ls "$d/mreal")"
	check daemon.mount.host_unchanged "" "$(ls "$d/mw/data")"
	check_match daemon.mount.logged "*--mount $d/mw/data=$d/mreal:ro: bound in the daemon's mount namespace*" "$(cat "$d/m.log")"
	daemon_stop
fi
"$WICKFS" daemon --listen off --socket "$d/m1.sock" --mount "$d/mw/nope=$d/mc" 2>"$d/m1.log"
check daemon.mount.missing_vpath 1 "$?"
check_match daemon.mount.missing_vpath_said "*--mount $d/mw/nope=$d/mc: bind $d/mc on $d/mw/nope: No such file or directory*" "$(cat "$d/m1.log")"
