#!/bin/sh
# bench/daemon.sh - the daemon: round trips, throughput, memory, leaks.
#
# Median round trip over the Unix socket and TCP loopback for a fast-path
# `wickfs read` of a 1 KB file, the native op read, and the command true
# (the cost of a process); throughput with 8 connections doing fast-path
# reads; idle RSS and RSS after 100,000 requests; descriptors and RSS
# after 10,000 commands. Beside them, the floor: bench/echo_floor.c, a
# thread-per-connection server that answers each line with the daemon's
# own answer to the fast-path read (same socket kind, same bytes, nothing
# else done), measured in the same run by the same load generator; and the
# file floor, the same server opening, fstat'ing, reading and closing the
# file for each answer; and the daemon without lanes (--lanes 0).
# Variables: WICKFS, BENCH_N (round trips per case, default 20000),
# BENCH_CONNS (default 8).
. bench/lib.sh

W=$(bench_wickfs)
N=${BENCH_N:-20000}
CONNS=${BENCH_CONNS:-8}
LOAD=$BENCH_OUT/daemon_load
dir=$(mktemp -d "${TMPDIR:-/tmp}/wickfs-bench.XXXXXX")
pid=

cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	pid=
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP PIPE

[ -x "$W" ] || { say "bench: no $W (make first)"; exit 0; }
cc=${BENCH_CC:-cc}
command -v "$cc" >/dev/null 2>&1 || cc=gcc
if ! "$cc" -O2 -o "$LOAD" bench/daemon_load.c -lpthread 2>"$dir/cc.err"; then
	say "bench: cannot build bench/daemon_load.c: $(cat "$dir/cc.err")"
	exit 0
fi

FLOOR=$BENCH_OUT/echo_floor
"$cc" -O2 -o "$FLOOR" bench/echo_floor.c -lpthread 2>"$dir/cc.err" ||
	{ say "bench: cannot build bench/echo_floor.c: $(cat "$dir/cc.err")"; FLOOR=; }

head -c 768 /dev/urandom | base64 -w0 >"$dir/f1k.txt"
sock=$dir/d.sock
for try in 1 2 3 4 5; do
	port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
	"$W" daemon --listen "127.0.0.1:$port" --socket "$sock" 2>"$dir/d.log" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q "ready:" "$dir/d.log"; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	grep -q "ready:" "$dir/d.log" && break
	kill "$pid" 2>/dev/null
	pid=
done
[ -n "$pid" ] || { say "bench: daemon did not start: $(cat "$dir/d.log")"; exit 0; }

rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
fds() { ls "/proc/$pid/fd" | wc -l; }
idle_rss=$(rss)
idle_fds=$(fds)

fast="{\"id\":\"r1\",\"cmd\":\"wickfs read '$dir/f1k.txt'\"}"
native="{\"id\":\"r1\",\"op\":\"read\",\"args\":[\"$dir/f1k.txt\"]}"
true_cmd='{"id":"r1","cmd":"true"}'

# median ADDR N LINE [PIN]: the median round trip in microseconds; with
# PIN the load runs on CPU 0, where the daemon then is too.
median() {
	if [ -n "${4:-}" ]; then
		taskset -c 0 "$LOAD" "$1" 1 "$2" "$3"
	else
		"$LOAD" "$1" 1 "$2" "$3"
	fi | sed 's/.*median_us \([0-9.]*\).*/\1/'
}

ntrue=$((N / 10))
[ "$ntrue" -lt 200 ] && ntrue=200
pin=
command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -gt 1 ] && pin=1
rows=
for case in fast native true; do
	case $case in
	fast) line=$fast n=$N label="fast-path \`wickfs read\` of 1 KB" ;;
	native) line=$native n=$N label="native \`{\"op\":\"read\"}\` of 1 KB" ;;
	true) line=$true_cmd n=$ntrue label="command \`true\` (one process spawned)" ;;
	esac
	u=$(median "unix:$sock" "$n" "$line")
	t=$(median "tcp:127.0.0.1:$port" "$n" "$line")
	p=-
	if [ -n "$pin" ]; then
		taskset -pc 0 "$pid" >/dev/null
		p=$(median "unix:$sock" "$n" "$line" pin)
		taskset -pc "0-$(($(nproc) - 1))" "$pid" >/dev/null
	fi
	rows="$rows| $label | $u | $t | $p |
"
	eval "u_$case=\$u p_$case=\$p"
done

# The same fast-path read with the poll window off: each round trip then
# pays the daemon's sleep and wakeup too.
"$W" daemon --listen off --socket "$dir/nopoll.sock" --poll-us 0 2>"$dir/nopoll.log" &
pid2=$!
i=0
while [ $i -lt 100 ] && ! grep -q "ready:" "$dir/nopoll.log"; do sleep 0.05; i=$((i + 1)); done
u_nopoll=$(median "unix:$dir/nopoll.sock" "$N" "$fast")
kill "$pid2" 2>/dev/null
wait "$pid2" 2>/dev/null

per=$((N * 5 / CONNS))
# The floors: the echo server with the daemon's answer, and the same
# server reading the file for each answer (open, fstat, read, close: the
# file floor); then the daemon, and the daemon without lanes (--lanes 0);
# alternating, the median of each kept (three of each).
"$W" daemon --listen off --socket "$dir/nolanes.sock" --lanes 0 2>"$dir/nolanes.log" &
pid3=$!
i=0
while [ $i -lt 100 ] && ! grep -q "ready:" "$dir/nolanes.log"; do sleep 0.05; i=$((i + 1)); done
floor_rt=- floor_tp= ff_rt= ff_tp= d_rt= d_tp= l0_rt= l0_tp=
tp() { "$LOAD" "$1" "$CONNS" "$per" "$fast" | sed 's/.*req\/s \([0-9]*\).*/\1/'; }
if [ -n "$FLOOR" ]; then
	DAEMON_LOAD_SAVE=$dir/answer "$LOAD" "unix:$sock" 1 1 "$fast" >/dev/null
	mkfifo "$dir/floor.in"
	"$FLOOR" "$dir/floor.sock" "$dir/answer" <"$dir/floor.in" >"$dir/floor.log" 2>&1 &
	fpid=$!
	"$FLOOR" "$dir/ffloor.sock" "$dir/answer" "$dir/f1k.txt" <"$dir/floor.in" >"$dir/ffloor.log" 2>&1 &
	ffpid=$!
	exec 9>"$dir/floor.in" # their stdin: closed when this script ends
	i=0
	while [ $i -lt 100 ] && ! { grep -q ready "$dir/floor.log" && grep -q ready "$dir/ffloor.log"; }; do
		sleep 0.05
		i=$((i + 1))
	done
	for r in 1 2 3; do
		floor_rt="$floor_rt $(median "unix:$dir/floor.sock" "$N" "$fast")"
		ff_rt="$ff_rt $(median "unix:$dir/ffloor.sock" "$N" "$fast")"
		d_rt="$d_rt $(median "unix:$sock" "$N" "$fast")"
		l0_rt="$l0_rt $(median "unix:$dir/nolanes.sock" "$N" "$fast")"
		floor_tp="$floor_tp $(tp "unix:$dir/floor.sock")"
		ff_tp="$ff_tp $(tp "unix:$dir/ffloor.sock")"
		d_tp="$d_tp $(tp "unix:$sock")"
		l0_tp="$l0_tp $(tp "unix:$dir/nolanes.sock")"
	done
	exec 9>&-
	kill "$fpid" "$ffpid" 2>/dev/null
	wait "$fpid" "$ffpid" 2>/dev/null
	mid() { printf '%s\n' $1 | sort -n | sed -n 2p; }
	floor_rt=$(mid "$floor_rt") d_rt=$(mid "$d_rt") floor_tp=$(mid "$floor_tp") d_tp=$(mid "$d_tp")
	ff_rt=$(mid "$ff_rt") ff_tp=$(mid "$ff_tp") l0_rt=$(mid "$l0_rt") l0_tp=$(mid "$l0_tp")
fi
kill "$pid3" 2>/dev/null
wait "$pid3" 2>/dev/null
tput_u=$("$LOAD" "unix:$sock" "$CONNS" "$per" "$fast" | sed 's/.*req\/s \([0-9]*\).*/\1/')
tput_t=$("$LOAD" "tcp:127.0.0.1:$port" "$CONNS" "$per" "$fast" | sed 's/.*req\/s \([0-9]*\).*/\1/')

# RSS after 100,000 requests in all (topped up with fast-path reads), then
# 10,000 commands.
"$LOAD" "unix:$sock" 4 25000 "$fast" >/dev/null
after_rss=$(rss)
"$LOAD" "unix:$sock" 4 2500 "$true_cmd" >/dev/null
end_rss=$(rss)
end_fds=$(fds)
zombies=$(for s in /proc/[0-9]*/stat; do awk -v p="$pid" '$4 == p && $3 == "Z"' "$s" 2>/dev/null; done | wc -l)

{
	echo "### Daemon: round trips, throughput, memory"
	echo
	echo "Machine: $(nproc) CPU(s), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg). Date: $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo "wickfs: $("$W" --version | head -n 1) ($(wc -c <"$W") bytes). Load: bench/daemon_load.c, one request in flight per connection."
	echo
	echo "| median round trip (µs) | unix socket | tcp loopback | unix, pinned to one CPU |"
	echo "|---|---:|---:|---:|"
	printf '%s' "$rows"
	echo
	awk -v f="$u_fast" -v t="$u_true" -v pf="$p_fast" -v pt="$p_true" 'BEGIN {
		if (f > 0) printf "A process (`true`) costs %.0fx a fast-path read", t / f
		if (pf > 0) printf " (%.0fx pinned)", pt / pf
		print "."
	}'
	echo "With the poll window off (\`--poll-us 0\`) the unix fast-path read takes $u_nopoll µs: after answering in process the daemon polls 50 µs for the next request instead of sleeping, which spares one cross-CPU wakeup per back-to-back round trip; an isolated request pays it."
	echo "Pinned: daemon and load generator on CPU 0, so a round trip pays a context switch instead of a cross-CPU wakeup (which dominates the unpinned numbers on this VM)."
	echo
	if [ -n "$floor_tp" ]; then
		echo "Against the floors (bench/echo_floor.c, a thread per connection, answering with the daemon's own $(wc -c <"$dir/answer")-byte answer; the file floor also opens, fstat's, reads and closes the file for each answer, as a server answering from the file must); unix socket; median of three alternating runs each:"
		echo
		echo "| | echo floor | file floor | wickfs daemon | ratio to the echo floor | ratio to the file floor | daemon without lanes (\`--lanes 0\`) |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
		echo "| median round trip, 1 connection, fast-path read (µs) | $floor_rt | $ff_rt | $d_rt | $(ratio "$d_rt" "$floor_rt")x | $(ratio "$d_rt" "$ff_rt")x | $l0_rt |"
		echo "| throughput, $CONNS connections (requests/s) | $floor_tp | $ff_tp | $d_tp | $(ratio "$d_tp" "$floor_tp") | $(ratio "$d_tp" "$ff_tp") | $l0_tp |"
		echo "The file floor itself: $(ratio "$ff_tp" "$floor_tp") of the echo floor's throughput, $(ratio "$ff_rt" "$floor_rt")x its round trip."
		echo
	fi
	echo "| | |"
	echo "|---|---:|"
	echo "| throughput, $CONNS connections, fast-path read, unix | $tput_u requests/s |"
	echo "| throughput, $CONNS connections, fast-path read, tcp | $tput_t requests/s |"
	echo "| idle RSS | $idle_rss |"
	echo "| RSS after 100,000+ requests | $after_rss |"
	echo "| RSS after 10,000 more commands (\`true\`) | $end_rss |"
	echo "| open descriptors: start, end | $idle_fds, $end_fds |"
	echo "| zombies left | $zombies |"
	echo
	echo "Command: \`sh bench/daemon.sh\` (BENCH_N=$N round trips per case, BENCH_CONNS=$CONNS)."
} >"$BENCH_OUT/daemon.md"
cat "$BENCH_OUT/daemon.md"

if command -v hyperfine >/dev/null 2>&1; then
	echo
	echo "For scale, one CLI process per operation (hyperfine):"
	hyperfine -N --warmup 20 --runs 500 --style basic "$W read $dir/f1k.txt" 2>/dev/null |
		grep -E "Time|Range"
fi
exit 0
