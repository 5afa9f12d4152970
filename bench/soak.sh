#!/usr/bin/env bash
# soak.sh [REQUESTS [CONNS]] - a daemon under mixed load for a long while.
#
# Starts a daemon on a private Unix socket, warms it up with 1% of the
# requests (at least 1,000), notes its descriptor count and RSS, runs
# REQUESTS (default 1,000,000) mixed requests over CONNS connections
# (default 32: writes, reads checked against what was written, edits,
# greps and the command `true`; bench/soak.c, built here with cc, one
# poll() loop, one request in flight per connection), and notes them again.
# Prints the errors and both figures; exits 1 on any error, or when the
# descriptors grew. RSS is reported, not judged (allocator caches).
#   WICKFS=BIN  the binary (default build/wickfs)
#   BENCH_CC=CC the compiler for bench/soak.c (default cc, else gcc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
WICKFS=${WICKFS:-$here/../build/wickfs}
n=${1:-1000000}
conns=${2:-32}
warm=$((n / 100 > 1000 ? n / 100 : 1000))
tmp=$(mktemp -d)
trap 'kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
dpid=
cc=${BENCH_CC:-cc}
command -v "$cc" >/dev/null 2>&1 || cc=gcc
if ! "$cc" -O2 -o "$tmp/soak" "$here/soak.c" 2>"$tmp/cc.err"; then
	echo "soak: cannot build bench/soak.c: $(cat "$tmp/cc.err")" >&2
	exit 1
fi

"$WICKFS" daemon --listen off --socket "$tmp/s.sock" 2>"$tmp/d.log" &
dpid=$!
for _ in $(seq 200); do
	grep -q "ready:" "$tmp/d.log" 2>/dev/null && break
	sleep 0.05
done
fds() { ls /proc/"$dpid"/fd | wc -l; }
rss() { awk '/^VmRSS/ {print $2}' /proc/"$dpid"/status; }

"$tmp/soak" "$tmp/s.sock" "$tmp/w" "$warm" "$conns" >"$tmp/warm.out" || exit 1
sleep 0.5 # the warm-up connections' close is seen by the daemon
fd0=$(fds)
rss0=$(rss)
out=$("$tmp/soak" "$tmp/s.sock" "$tmp/w" "$n" "$conns")
sleep 0.5
fd1=$(fds)
rss1=$(rss)
echo "soak: $out over $conns connections"
echo "soak: descriptors $fd0 -> $fd1, RSS $rss0 kB -> $rss1 kB (after a warm-up of $warm)"
errs=$(echo "$out" | awk '{print $4}')
[ "$errs" = 0 ] && [ "$fd1" -le "$fd0" ] && kill -0 "$dpid"
