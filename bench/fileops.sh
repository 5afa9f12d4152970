#!/bin/sh
# bench/fileops.sh - whole-process time of one small file operation
#
# `wickfs read` on a small file against `cat`, `wickfs ls` on a small
# directory against `ls` (and `ls -l`, which stats every entry as wickfs
# does), all in one hyperfine run without a shell in between (-N); and
# against the floor, an empty static musl program (`int main(void)
# {return 0;}`, built here with musl-gcc -static -Os -s): what any
# process start costs, so wickfs read / empty is what wickfs adds. Beside
# the times, what each did (perf stat's page faults and task clock, strace's
# count of system calls), which a busy machine does not move.
# WICKFS_REF=BIN adds a reference binary with the same arguments.
# Env: WICKFS (default build/wickfs), BENCH_RUNS (default 300).
set -u
cd "$(dirname "$0")/.." || exit 0
. bench/lib.sh

need hyperfine hyperfine || exit 0
need jq jq || exit 0
W=$(bench_wickfs)
[ -x "$W" ] || { say "fileops: $W not built (make)"; exit 0; }
# A copy, so that a rebuild during the run cannot change or remove it.
mkdir -p "$BENCH_OUT/bin"
cp "$W" "$BENCH_OUT/bin/wickfs.new" && mv -f "$BENCH_OUT/bin/wickfs.new" "$BENCH_OUT/bin/wickfs" || exit 0
W=$PWD/$BENCH_OUT/bin/wickfs
REF=${WICKFS_REF:-}
[ -z "$REF" ] || [ -x "$REF" ] || { say "fileops: WICKFS_REF=$REF is not executable"; REF=; }
RUNS=${BENCH_RUNS:-300}

# Fixtures: a 2 KiB text file and a directory of 32 entries.
fx=$PWD/$BENCH_OUT/fileops
mkdir -p "$fx/dir"
awk 'BEGIN { for (i = 1; i <= 40; i++)
	printf "line %02d: the quick brown fox jumps over the lazy dog\n", i }' >"$fx/small.txt"
i=0
while [ $i -lt 30 ]; do : >"$fx/dir/file$i.txt"; i=$((i + 1)); done
mkdir -p "$fx/dir/sub1" "$fx/dir/sub2"
FILE=$fx/small.txt
DIR=$fx/dir
CAT=$(command -v cat) LS=$(command -v ls)

EMPTY=
if command -v musl-gcc >/dev/null 2>&1; then
	printf 'int main(void) { return 0; }\n' >"$fx/empty.c"
	musl-gcc -static -Os -s -o "$fx/empty" "$fx/empty.c" && EMPTY=$fx/empty
fi
[ -n "$EMPTY" ] || say "fileops: no musl-gcc: no empty-program floor"

json=$BENCH_OUT/fileops.json
set -- -n "wickfs read" "$W read $FILE" -n "cat" "$CAT $FILE" \
	-n "wickfs ls" "$W ls $DIR" -n "ls" "$LS $DIR" -n "ls -l" "$LS -l $DIR"
[ -z "$REF" ] || set -- "$@" -n "ref read" "$REF read $FILE" -n "ref ls" "$REF ls $DIR"
[ -z "$EMPTY" ] || set -- "$@" -n "empty program" "$EMPTY"
say "fileops: hyperfine -N --warmup 20 --runs $RUNS (read $FILE, ls $DIR)"
hyperfine -N --warmup 20 --runs "$RUNS" --style basic --output pipe \
	--export-json "$json" "$@" >"$BENCH_OUT/fileops.log" 2>&1 ||
	{ say "fileops: hyperfine failed, see $BENCH_OUT/fileops.log"; exit 0; }

mean() { hf_stats "$json" "$1" | cut -d' ' -f1; }
median() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .median' "$json"; }
sd() { hf_stats "$json" "$1" | cut -d' ' -f2; }
least() { hf_stats "$json" "$1" | cut -d' ' -f4; }
row() { # row NAME PEER
	m=$(mean "$1") p=$(mean "$2")
	printf '| `%s` | %s ± %s | `%s` | %s ± %s | %s | %s |\n' "$1" "$(fmt_ms "$m")" \
		"$(fmt_ms "$(sd "$1")")" "$2" "$(fmt_ms "$p")" "$(fmt_ms "$(sd "$2")")" \
		"$(ratio "$m" "$p")" "$(ratio "$(least "$1")" "$(least "$2")")"
}
# counters: per command, page faults and task clock (perf stat, 500 runs),
# system calls (strace -c) and instructions (callgrind: the same count
# whatever else the machine does), where those tools work.
counters() {
	command -v perf >/dev/null 2>&1 && perf stat -e page-faults true >/dev/null 2>&1 || return 0
	echo
	echo "| command | page faults | task clock | system calls | instructions (callgrind) |"
	echo "|---|---:|---:|---:|---:|"
	for c in "wickfs read|$W read $FILE" "wickfs ls|$W ls $DIR" "cat|$CAT $FILE" \
		${EMPTY:+"empty program|$EMPTY"}; do
		n=${c%%|*} cmd=${c#*|}
		# shellcheck disable=SC2086
		ps=$(perf stat -x, -r 500 -e page-faults,task-clock $cmd 2>&1 >/dev/null)
		pf=$(printf '%s\n' "$ps" | awk -F, '/page-faults/ { printf "%.0f", $1 }')
		tc=$(printf '%s\n' "$ps" | awk -F, '/task-clock/ { printf "%.3f ms", $1 }')
		sc=-
		if command -v strace >/dev/null 2>&1; then
			# shellcheck disable=SC2086
			strace -f -c -o "$fx/strace.txt" $cmd >/dev/null 2>&1
			# strace -c's total row: %, seconds, usecs/call, calls
			sc=$(awk '$NF == "total" { print $4 }' "$fx/strace.txt")
		fi
		ir=-
		if command -v valgrind >/dev/null 2>&1; then
			# shellcheck disable=SC2086
			ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd 2>&1 >/dev/null |
				sed -n 's/.*refs: *//p' | tr -d ,)
		fi
		printf '| `%s` | %s | %s | %s | %s |\n' "$n" "${pf:--}" "${tc:--}" "${sc:--}" "${ir:--}"
	done
}
md=$BENCH_OUT/fileops.md
{
	echo "### File operations: whole process (hyperfine -N, $RUNS runs)"
	echo
	machine_info
	wickfs_info "$W"
	echo
	echo "| wickfs | mean | peer | mean | wickfs/peer | by min |"
	echo "|---|---:|---|---:|---:|---:|"
	row "wickfs read" "cat"
	row "wickfs ls" "ls"
	row "wickfs ls" "ls -l"
	if [ -n "$REF" ]; then
		row "wickfs read" "ref read"
		row "wickfs ls" "ref ls"
	fi
	if [ -n "$EMPTY" ]; then
		row "wickfs read" "empty program"
		row "wickfs ls" "empty program"
		echo
		echo "Medians: wickfs read $(fmt_ms "$(median "wickfs read")"), empty program" \
			"$(fmt_ms "$(median "empty program")") ($(ratio "$(median "wickfs read")" \
			"$(median "empty program")")x); wickfs ls $(fmt_ms "$(median "wickfs ls")")" \
			"($(ratio "$(median "wickfs ls")" "$(median "empty program")")x)."
	fi
	counters
	echo
	echo "read: a 2 KiB text file; ls: a directory of 30 files and 2 directories."
	echo "Commands (paths relative to the repository root):"
	echo
	echo '```'
	echo "hyperfine -N --warmup 20 --runs $RUNS --output pipe \\"
	echo "  'build/wickfs read $BENCH_OUT/fileops/small.txt' 'cat $BENCH_OUT/fileops/small.txt' \\"
	echo "  'build/wickfs ls $BENCH_OUT/fileops/dir' 'ls $BENCH_OUT/fileops/dir' 'ls -l $BENCH_OUT/fileops/dir'"
	echo '```'
} >"$md"
cat "$md"
if [ "${BENCH_SAVE:-0}" = 1 ]; then
	mkdir -p bench/results && cp "$md" bench/results/fileops.md
fi
exit 0
