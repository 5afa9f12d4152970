#!/bin/sh
# bench/fileops.sh - whole-process time of one small file operation
#
# `wickfs read` on a small file against `cat`, `wickfs ls` on a small
# directory against `ls` (and `ls -l`, which stats every entry as wickfs
# does), all in one hyperfine run without a shell in between (-N).
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

json=$BENCH_OUT/fileops.json
set -- -n "wickfs read" "$W read $FILE" -n "cat" "$CAT $FILE" \
	-n "wickfs ls" "$W ls $DIR" -n "ls" "$LS $DIR" -n "ls -l" "$LS -l $DIR"
[ -z "$REF" ] || set -- "$@" -n "ref read" "$REF read $FILE" -n "ref ls" "$REF ls $DIR"
say "fileops: hyperfine -N --warmup 20 --runs $RUNS (read $FILE, ls $DIR)"
hyperfine -N --warmup 20 --runs "$RUNS" --style basic --output pipe \
	--export-json "$json" "$@" >"$BENCH_OUT/fileops.log" 2>&1 ||
	{ say "fileops: hyperfine failed, see $BENCH_OUT/fileops.log"; exit 0; }

mean() { hf_stats "$json" "$1" | cut -d' ' -f1; }
sd() { hf_stats "$json" "$1" | cut -d' ' -f2; }
least() { hf_stats "$json" "$1" | cut -d' ' -f4; }
row() { # row NAME PEER
	m=$(mean "$1") p=$(mean "$2")
	printf '| `%s` | %s ± %s | `%s` | %s ± %s | %s | %s |\n' "$1" "$(fmt_ms "$m")" \
		"$(fmt_ms "$(sd "$1")")" "$2" "$(fmt_ms "$p")" "$(fmt_ms "$(sd "$2")")" \
		"$(ratio "$m" "$p")" "$(ratio "$(least "$1")" "$(least "$2")")"
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
