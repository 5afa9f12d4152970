#!/bin/sh
# bench/proc.sh - the process service (issue 24): how soon a command's first
# byte reaches a streaming client against a polling one, and what 200 idle
# background processes cost the daemon (bench/proc.py says how).
#
#   sh bench/proc.sh [--quick]    --quick: 20 runs, 2 s idle (a smoke run)
#
# Variables: WICKFS, BENCH_N (runs, default 200), BENCH_POLL_MS (10).
. bench/lib.sh

W=$(bench_wickfs)
n=${BENCH_N:-200}
idle=10
if [ "${1:-}" = --quick ]; then
	n=20
	idle=2
fi
[ -x "$W" ] || { say "bench: no $W (make first)"; exit 0; }
command -v python3 >/dev/null 2>&1 || { say "bench: proc: python3 is missing"; exit 0; }
dir=$(mktemp -d)
"$W" daemon --listen off --socket "$dir/d.sock" --max-background 256 2>"$dir/d.log" &
pid=$!
i=0
until grep -q ready: "$dir/d.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { say "bench: proc: the daemon did not start"; kill $pid; exit 0; }
	sleep 0.05
done
echo "## The process service ($(nproc) CPUs; $(date -u +%Y-%m-%d))"
echo
python3 bench/proc.py "$dir/d.sock" "$pid" "$n" "${BENCH_POLL_MS:-10}" "$idle"
kill $pid
wait $pid 2>/dev/null
rm -rf "$dir"
