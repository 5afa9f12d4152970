#!/usr/bin/env bash
# WICKFS_THREADS: clamped to 1..8 (the workers' table has 8 places; 100
# once overflowed it and grep died with SIGSEGV), and a value that is not
# a number is refused with an error naming it.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/threads
mkdir -p "$d"
cd "$d" || exit 1
for i in $(seq 1 40); do
	mkdir -p "dir$i"
	printf 'line one\nneedle %d\n' "$i" >"dir$i/f.txt"
done
want=$(WICKFS_THREADS=1 "$WICKFS" grep needle .)
check_match threads.one_finds_all '*"needle 40"*' "$want"
for n in 2 8 9 100 100000 0 -5; do
	got=$(WICKFS_THREADS=$n "$WICKFS" grep needle . 2>&1)
	rc=$?
	check "threads.$n" "0 $want" "$rc $got"
done
for n in abc 4x 99999999999999999999999; do
	got=$(WICKFS_THREADS=$n "$WICKFS" grep needle . 2>&1)
	rc=$?
	check "threads.bad_$n" "1 {\"ok\":false,\"error\":\"grep: WICKFS_THREADS=$n is not a number of threads\"}" "$rc $got"
done
