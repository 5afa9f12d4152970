#!/usr/bin/env bash
# faults: hostile and vanishing clients, runaway commands, killed writers.
# Each fault is followed by a real request that must get a real reply.
# Waits are bounded waits for an answer, never measured durations.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)
SF="$tests_dir/helpers/sockfault.py"

d=$TEST_TMP/faults
mkdir -p "$d"
cd "$d" || exit 1

trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

if ! command -v python3 >/dev/null; then
	skip faults "python3 is missing (scripts/deps.sh installs it)"
	exit 0
fi

# start_daemon NAME ARGS...: a daemon on $d/NAME.sock (S), its log in
# $d/NAME.log (DLOG); sets DPID.
start_daemon() {
	DLOG=$d/$1.log
	S=$d/$1.sock
	shift
	daemon_start "$DLOG" --listen off --socket "$S" "$@"
}
# A real request on a fresh connection: the reply, bounded.
real() { daemon_send "unix:$S" "$@"; }
PING='{"id":"p","cmd":"echo ok"}'
PONG='{"id":"p","stdout":"ok\n","stderr":"","exit_code":0}'
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/"$1"/status; }
# check_rss NAME KB_LIMIT: the daemon's peak RSS; the sanitizer build's
# shadow memory and quarantine make it meaningless there.
check_rss() {
	local kb
	if [ "${WICKFS_SANITIZED:-0}" = 1 ]; then
		skip "$1" "peak RSS under the sanitizers is shadow memory and quarantine"
		return
	fi
	kb=$(hwm_kb "$DPID")
	check_true "$1" "peak RSS ${kb} kB, limit $2 kB" test "$kb" -lt "$2"
}
sf() { with_timeout 120 python3 "$SF" "$@"; }

printf 'hello\n' >"$d/f.txt"

# ---- unfinished lines: answered with an error and closed ----
DAEMON_LINE_TIMEOUT=1 start_daemon lt || fail faults.start "$(cat "$DLOG")"
out=$(sf partial "$S" '{"id":"x' 60)
check_match faults.line_timeout '*"error":"request line unfinished after 1 s*' "$out"
check faults.line_timeout_then_served "$PONG" "$(real "$PING")"
daemon_stop

# ---- idle and unfinished connections never hold every slot ----
DAEMON_LINE_TIMEOUT=3600 start_daemon slots --max-conns 20
sf hold "$S" 20 '{"id":"x' "$d/held" >/dev/null &
hp=$!
PIDS+=("$hp")
for _ in $(seq 600); do [ -e "$d/held" ] && break; sleep 0.05; done
sleep 1.2 # past the grace a fresh connection has (IDLE_GRACE_MS)
check faults.slots_held_by_partial_lines "$PONG" "$(real "$PING")"
check_match faults.slots_logged "*connection closed for a new one*" "$(cat "$DLOG")"
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null
daemon_stop

# ---- a budget on buffered request bytes ----
# 24 connections each hold 3 MiB of an unfinished line: 72 MiB without a
# budget; with --max-buffered 9 MiB the largest holders are refused.
DAEMON_MAX_BUFFERED=9000000 DAEMON_LINE_TIMEOUT=3600 start_daemon budget --max-line 4000000
{ printf '{"id":"x","cmd":"'; head -c 3000000 /dev/zero | tr '\0' a; } >"$d/big"
sf hold "$S" 24 "@$d/big" "$d/bheld" >/dev/null &
hp=$!
PIDS+=("$hp")
for _ in $(seq 1200); do [ -e "$d/bheld" ] && break; sleep 0.05; done
check faults.budget_then_served "$PONG" "$(real "$PING")"
check_rss faults.budget_rss 40000 # 72 MiB offered
check_match faults.budget_refused "*?--max-memory?: refused the connection holding the most request bytes*" "$(cat "$DLOG")"
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null
daemon_stop

# ---- one memory budget, both ways, by default ----
# Two floods at once against the default budget (no cgroup limit: an
# empty DAEMON_CGROUP_DIR): 300 clients each ask for a 9.2 MB file and
# never read (2.8 GB of answers before the budget), and 30 clients
# without the token each stream 9 MiB of an unfinished line (277 MB
# before). The timeouts that would end them are pushed out of the way.
mkdir -p "$d/nocg"
yes 'a line of text that the flood asks for, again and again.....' | head -c 9200000 >"$d/big9"
{ printf '{"id":"x","cmd":"'; head -c 9437184 /dev/zero | tr '\0' a; } >"$d/line9"
DAEMON_CGROUP_DIR=$d/nocg DAEMON_TOKEN=tok DAEMON_LINE_TIMEOUT=3600 \
	start_daemon floods --write-timeout 3600 -v
check_match faults.mem_default "*memory budget 67108864 bytes ?the default; no cgroup memory limit?*" "$(cat "$DLOG")"
sf noread "$S" 300 "{\"id\":\"b\",\"cmd\":\"wickfs read '$d/big9'\",\"token\":\"tok\"}" "$d/nready" >/dev/null &
np=$!
sf hold "$S" 30 "@$d/line9" "$d/sready" >/dev/null &
hp=$!
PIDS+=("$np" "$hp")
for _ in $(seq 2400); do
	[ -e "$d/sready" ] && [ "$(grep -c 'id=b answered' "$DLOG")" -ge 300 ] && break
	sleep 0.05
done
check faults.mem_floods_answered 300 "$(grep -c 'id=b answered' "$DLOG")"
PINGT='{"id":"p","cmd":"echo ok","token":"tok"}'
check faults.mem_floods_others_served "$PONG" "$(real "$PINGT")"
out=$(real "{\"id\":\"r\",\"op\":\"read\",\"args\":[\"$d/f.txt\"],\"token\":\"tok\"}")
check faults.mem_floods_small_read '{"id":"r","ok":true,"data":"hello\n"}' "$out"
out=$(real "{\"id\":\"r\",\"op\":\"read\",\"args\":[\"$d/big9\"],\"token\":\"tok\"}")
check_match faults.mem_floods_big_refused '{"id":"r","ok":false,"error":"read *big9: this 9200000-byte file does not fit the daemon'"'"'s memory budget now*?--max-memory 67108864?*"}' "$out"
check_match faults.mem_floods_stream_refused "*?--max-memory?: refused the connection holding the most request bytes*" "$(cat "$DLOG")"
check_rss faults.mem_floods_rss 128000
kill "$np" "$hp" 2>/dev/null
wait "$np" "$hp" 2>/dev/null
daemon_stop

# ---- a client that stops reading is closed after --write-timeout ----
rm -f "$d/go"
start_daemon wt --write-timeout 1
sf stall "$S" "{\"id\":\"b\",\"op\":\"read\",\"args\":[\"$d/big9\"]}" "$d/go" 120 >"$d/stall.out" &
sp=$!
PIDS+=("$sp")
for _ in $(seq 1200); do grep -q 'unread for' "$DLOG" && break; sleep 0.05; done
touch "$d/go"
wait "$sp"
check_match faults.write_timeout_logged "*an answer of * bytes unread for 1 s ?the daemon's --write-timeout?: connection closed*" "$(cat "$DLOG")"
check_match faults.write_timeout_closed "lines 0, bytes *, then EOF" "$(cat "$d/stall.out")"
check faults.write_timeout_then_served "$PONG" "$(real "$PING")"
daemon_stop

# ---- the default budget from the container's memory limit ----
# 1/8 of cgroup v2 memory.max or v1 memory.limit_in_bytes when less than
# 64 MiB; DAEMON_CGROUP_DIR stands for /sys/fs/cgroup.
mkdir -p "$d/cg2" "$d/cg1/memory" "$d/cgmax"
echo 268435456 >"$d/cg2/memory.max"
echo 134217728 >"$d/cg1/memory/memory.limit_in_bytes"
echo max >"$d/cgmax/memory.max"
DAEMON_CGROUP_DIR=$d/cg2 start_daemon cg2
check_match faults.cgroup_v2 "*memory budget 33554432 bytes ?1/8 of the cgroup memory limit, 268435456 bytes?*" "$(cat "$DLOG")"
out=$(real "{\"id\":\"r\",\"op\":\"read\",\"args\":[\"$d/big9\"]}")
check_match faults.cgroup_v2_big_read '{"id":"r","ok":false,"error":"read *big9: this 9200000-byte file is more than the daemon'"'"'s memory budget lets one answer hold*?read --bytes --offset N --limit N*"}' "$out"
out=$(real "{\"id\":\"r\",\"op\":\"read\",\"args\":[\"$d/big9\",\"--bytes\",\"--limit\",\"1000000\"]}")
check_match faults.cgroup_v2_read_in_parts '{"id":"r","ok":true,"data":{*"bytes":1000000,"size":9200000,"eof":false}}' "$out"
daemon_stop
DAEMON_CGROUP_DIR=$d/cg1 start_daemon cg1
check_match faults.cgroup_v1 "*memory budget 16777216 bytes ?1/8 of the cgroup memory limit, 134217728 bytes?*" "$(cat "$DLOG")"
daemon_stop
DAEMON_CGROUP_DIR=$d/cgmax start_daemon cgmax
check_match faults.cgroup_unlimited "*memory budget 67108864 bytes ?the default; no cgroup memory limit?*" "$(cat "$DLOG")"
daemon_stop

# ---- answers the budget has no room for ----
# An in-process answer over the budget's bulk share is an error naming
# it; a command's output is cut to fit (and flagged), never dropped.
seq -f '%0200g' 20000 >"$d/long_lines"
start_daemon small --max-line 1000000 --max-memory 4000000 --max-output 60000000
out=$(real "{\"id\":\"g\",\"op\":\"grep\",\"args\":[\"--max\",\"100000\",\"0\",\"$d/long_lines\"]}")
check_match faults.answer_over_budget '{"id":"g","ok":false,"error":"the answer ?* bytes? is dropped: the daemon'"'"'s memory budget ?--max-memory 4000000?*"}' "$out"
real '{"id":"big","cmd":"head -c 50000000 /dev/zero | tr \\\\0 a","timeout":300}' >"$d/cut.out"
check_match faults.command_output_cut '{"id":"big","stdout":"aaa*","stderr":"","exit_code":0,"stdout_truncated":true}' "$(cat "$d/cut.out")"
check_true faults.command_output_cut_size "$(wc -c <"$d/cut.out") bytes" test "$(wc -c <"$d/cut.out")" -lt 4000000
check_rss faults.command_output_cut_rss 40000 # 60 MB gathered before
check faults.small_then_served "$PONG" "$(real "$PING")"
daemon_stop

# ---- 100 MB without a newline: an error, bounded memory, others served ----
DAEMON_LINE_TIMEOUT=3600 start_daemon flood
sf flood "$S" 100000000 60 >"$d/flood.out" &
fp=$!
check faults.flood_others_served "$PONG" "$(real "$PING")"
wait "$fp"
check_match faults.flood_answered '*"error":"request line exceeds the limit of 10485760 bytes"*' "$(cat "$d/flood.out")"
check_rss faults.flood_rss 64000
check faults.flood_then_served "$PONG" "$(real "$PING")"
daemon_stop

# ---- clients that vanish mid-request ----
start_daemon vanish -v
sf sendclose "$S" 50 '{"id":"half","cmd":"echo' >/dev/null
gone="0.2$$7"
sf sendclose "$S" 5 "{\"id\":\"gone\",\"cmd\":\"sleep $gone; echo x\"}" >/dev/null
sf sendclose "$S" 20 "{\"id\":\"r\",\"op\":\"read\",\"args\":[\"$d/f.txt\"]}" >/dev/null
check faults.vanish_then_served "$PONG" "$(real "$PING")"
wait_procs_gone "$gone"
check faults.vanish_served_after_commands "$PONG" "$(real "$PING")"
daemon_stop

# ---- in-process work stops when its client goes away ----
# One worker, eight greps over a tree, their clients gone at once: the
# greps still queued never start and the one running stops; a grep of
# one file is then answered.
mkdir -p "$d/tree"
for i in $(seq 300); do seq 2000 >"$d/tree/$i.txt"; done
start_daemon cancel --workers 1 -v
sf sendclose "$S" 8 "{\"id\":\"g\",\"op\":\"grep\",\"args\":[\"zzz\",\"$d/tree\"],\"timeout\":15}" >/dev/null
out=$(daemon_client "unix:$S" grep hello "$d/f.txt")
check_match faults.cancel_other_grep_answered '{"ok":true,*hello*' "$out"
for _ in $(seq 200); do
	[ "$(grep -c 'id=g unanswered' "$DLOG")" -ge 8 ] && break
	sleep 0.05
done
n=$(grep 'id=g unanswered' "$DLOG" | grep -c 'cancel')
check_true faults.cancel_abandoned_greps "$n of 8 greps cancelled: $(grep 'id=g unanswered' "$DLOG" | head -3)" test "$n" -ge 7
daemon_stop

# ---- 5,000 connections at once ----
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt 5200 ]; then
	skip faults.5000_connections "the hard RLIMIT_NOFILE is $(ulimit -Hn), under 5,200"
else
	start_daemon many
	out=$(sf many "$S" 5000 "{\"id\":\"m\",\"op\":\"read\",\"args\":[\"$d/f.txt\"]}" 100)
	check faults.5000_connections "answered 5000 of 5000, ok 5000" "$out"
	check faults.5000_then_served "$PONG" "$(real "$PING")"
	daemon_stop
fi

# ---- runaway commands ----
# The supervisor is a child subreaper, so what a dying command orphans
# stays within reach. qemu-user 7.2 (tests/cross-run) refuses that prctl
# (QEMU_STRACE: prctl(36,1,...) = -1 errno=22): there orphans go to init,
# and the checks that need the subreaper skip.
no_reaper=""
if [ "${WICKFS_EMULATED:-0}" = 1 ] &&
	QEMU_STRACE=1 "$WICKFS" exec true 2>&1 >/dev/null | grep -q 'prctl(36,1,.*errno=22'; then
	no_reaper="this qemu-user refuses PR_SET_CHILD_SUBREAPER, so the command's orphans go to init, out of the supervisor's reach"
fi
# all_gone NAME MARK: every process of MARK is gone (bounded), or a skip
# where orphans cannot be reached; either way none is left behind.
all_gone() {
	if [ -n "$no_reaper" ]; then
		skip "$1" "$no_reaper"
		for p in $(procs_matching "$2"); do kill "$p" 2>/dev/null; done
	else
		check_true "$1" "left running: $(procs_matching "$2" | wc -l)" wait_procs_gone "$2"
	fi
}
start_daemon cmds
# A timeout kills what left the process group, too (setsid).
m1="100.$$1"
out=$(real "{\"id\":\"s\",\"cmd\":\"setsid sleep $m1 & wait\",\"timeout\":1}")
check_match faults.setsid_timed_out '*"exit_code":124*' "$out"
check_true faults.setsid_descendant_killed "left running: $(procs_matching "$m1")" wait_procs_gone "$m1"
# ... and a command that exits leaves its background processes alone.
m2="100.$$2"
out=$(real "{\"id\":\"b\",\"cmd\":\"sleep $m2 >/dev/null 2>&1 &\"}")
check faults.background_exit '{"id":"b","stdout":"","stderr":"","exit_code":0}' "$out"
check_true faults.background_kept "not running" test -n "$(procs_matching "$m2")"
for p in $(procs_matching "$m2"); do kill "$p"; done
# A fork storm (255 processes, each in a new session) ended by the timeout.
m3="100.$$3"
storm='f(){ if [ $1 -gt 0 ]; then setsid sleep '"$m3"' & f $(($1-1)) & f $(($1-1)); fi; wait; }; f 7'
[ "$(id -u)" = 0 ] || storm="ulimit -u 400; $storm" # root: NPROC binds not
out=$(real "{\"id\":\"fs\",\"cmd\":$(jstr "$storm"),\"timeout\":2}")
check_match faults.fork_storm_timed_out '*"exit_code":124*' "$out"
all_gone faults.fork_storm_all_killed "$m3"
check faults.fork_storm_then_served "$PONG" "$(real "$PING")"
# SIGTERM ignored: KILL follows.
m4="100.$$4"
out=$(real "{\"id\":\"t\",\"cmd\":\"trap '' TERM; sleep $m4; sleep $m4\",\"timeout\":1}")
check_match faults.ignores_term_timed_out '*"exit_code":124*' "$out"
check_true faults.ignores_term_killed "left running" wait_procs_gone "$m4"
# A command that answers TERM by starting a new session and exiting: the
# supervisor must outlive it until the KILL step, or the new session's
# process goes to init, out of reach.
m5="100.$$5"
out=$(real "{\"id\":\"h\",\"cmd\":$(jstr "trap 'setsid sleep $m5 & exit 0' TERM; sleep $m5 & wait"),\"timeout\":1}")
check_match faults.term_handler_timed_out '*"exit_code":124*' "$out"
all_gone faults.term_handler_session_killed "$m5"
# 1 GB of output: kept to --max-output, flagged, memory bounded, others
# served meanwhile.
real '{"id":"big","cmd":"head -c 1000000000 /dev/zero","timeout":300}' >"$d/gb.out" &
gp=$!
check faults.gb_others_served "$PONG" "$(real "$PING")"
wait "$gp"
check_match faults.gb_truncated '{"id":"big",*"exit_code":0*truncated*' "$(head -c 200 "$d/gb.out"; tail -c 200 "$d/gb.out")"
check_rss faults.gb_rss 200000
daemon_stop

# ---- killed writers leave no temporaries ----
mkdir -p "$d/w"
head -c 100000 /dev/zero | tr '\0' a >"$d/100k"
# RLIMIT_FSIZE kills the writer (SIGXFSZ) in the middle of its write.
(ulimit -f 8; "$WICKFS" write "$d/w/big" <"$d/100k" >/dev/null 2>&1)
check faults.killed_writer_no_temp "" "$(ls -A "$d/w")"
ns=$(readlink /proc/self/ns/pid | tr -dc 0-9)
sh -c 'exit 0' &
dead=$!
wait "$dead"
: >"$d/w/.wickfs-tmp-$dead-$ns-0123456789abcdef"
: >"$d/w/.wickfs-tmp-$$-$ns-0123456789abcdef"
printf 'x' | "$WICKFS" write "$d/w/f" >/dev/null
check faults.stale_temp_removed ".wickfs-tmp-$$-$ns-0123456789abcdef f" "$(ls -A "$d/w" | tr '\n' ' ' | sed 's/ $//')"
