#!/bin/sh
# bench/toolkit.sh - the toolkit applets: small operations through the
# daemon, diff against GNU diff -u, cp -r against cp -a.
#
# 1. Each small op (stat, exists, mkdir, rm, mv, append, symlink, chmod)
#    as a native op through the daemon's Unix socket, BENCH_N round trips
#    (bench/daemon_load.c, one request in flight), each op measured right
#    after BENCH_N fast-path `wickfs read` round trips of a 1 KB file in
#    the same daemon; the ratio is op / that read. The files live in
#    BENCH_OPS_DIR (default: /dev/shm when it is a tmpfs, so that the
#    numbers are the daemon's and not a disk journal's; give a directory
#    on disk to see the filesystem's own cost too).
# 2. `wickfs diff` of two BENCH_DIFF_LINES-line files (default 10000, about
#    15% of the lines changed) against `diff -u` (hyperfine -N), with the
#    hunk counts of both.
# 3. `wickfs cp -r` of a tree of BENCH_CP_FILES files (default 20000, in
#    directories of 100) against `cp -a`, each run copying to a fresh name
#    (hyperfine -N, --prepare removes the copy).
# Env: WICKFS, BENCH_N (default 5000), BENCH_RUNS (hyperfine runs, default
# 10), BENCH_OPS_DIR, BENCH_DIFF_LINES, BENCH_CP_FILES, BENCH_SAVE=1,
# BENCH_QUICK=1 (500 round trips, 2,000 lines, 1,000 files).
set -u
cd "$(dirname "$0")/.." || exit 0
. bench/lib.sh

W=$(bench_wickfs)
[ -x "$W" ] || { say "toolkit: $W not built (make)"; exit 0; }
mkdir -p "$BENCH_OUT/bin"
cp "$W" "$BENCH_OUT/bin/wickfs.tk" && mv -f "$BENCH_OUT/bin/wickfs.tk" "$BENCH_OUT/bin/wickfs-toolkit" || exit 0
W=$PWD/$BENCH_OUT/bin/wickfs-toolkit
if [ "${BENCH_QUICK:-0}" = 1 ]; then # bench/run's quick pass: small sizes
	N=${BENCH_N:-500} LINES=${BENCH_DIFF_LINES:-2000} FILES=${BENCH_CP_FILES:-1000}
else
	N=${BENCH_N:-5000} LINES=${BENCH_DIFF_LINES:-10000} FILES=${BENCH_CP_FILES:-20000}
fi
RUNS=${BENCH_RUNS:-10}
LOAD=$BENCH_OUT/daemon_load
md=$BENCH_OUT/toolkit.md
work=$PWD/$BENCH_OUT/toolkit
ops=${BENCH_OPS_DIR:-}
if [ -z "$ops" ]; then
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
		ops=/dev/shm
	else
		ops=${TMPDIR:-/tmp}
	fi
fi
ops=$(mktemp -d "$ops/wickfs-toolkit.XXXXXX") || exit 0
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	pid=
	rm -rf "$ops"
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP PIPE
rm -rf "$work"
mkdir -p "$work"
: >"$md"
out() { printf '%s\n' "$*" >>"$md"; }
out "### Toolkit applets"
out
machine_info >>"$md"
wickfs_info "$W" >>"$md"
out

# ---- 1. small ops through the daemon ----
smallops() {
	cc=${BENCH_CC:-cc}
	command -v "$cc" >/dev/null 2>&1 || cc=gcc
	"$cc" -O2 -o "$LOAD" bench/daemon_load.c -lpthread 2>"$work/cc.err" ||
		{ say "toolkit: cannot build bench/daemon_load.c: $(cat "$work/cc.err")"; return; }
	sock=$ops/d.sock
	"$W" daemon --listen off --socket "$sock" 2>"$work/d.log" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q "ready:" "$work/d.log"; do sleep 0.05; i=$((i + 1)); done
	grep -q "ready:" "$work/d.log" || { say "toolkit: daemon did not start: $(cat "$work/d.log")"; return; }
	head -c 768 /dev/urandom | base64 -w0 >"$ops/f1k.txt"
	: >"$ops/app.txt"
	mkdir -p "$ops/t"
	# the files rm and mv act on, one per request
	i=0
	while [ $i -lt "$N" ]; do printf x >"$ops/t/f$i"; i=$((i + 1)); done
	read_line="{\"id\":\"r\",\"cmd\":\"wickfs read '$ops/f1k.txt'\"}"
	med() { "$LOAD" "unix:$sock" 1 "$N" "$1" | sed 's/.*median_us \([0-9.]*\).*/\1/'; }
	op() { printf '{"id":"r","op":"%s","args":[%s]%s}' "$1" "$2" "${3:-}"; }
	q() { printf '"%s"' "$1"; }
	out "Small operations through the daemon: median round trip of $N native ops over the Unix socket, each right after $N fast-path \`wickfs read\` round trips of a 1 KB file (filesystem of the files: $(stat -f -c %T "$ops"))."
	out
	out "| op | median (µs) | fast-path read just before (µs) | op / read |"
	out "|---|---:|---:|---:|"
	for name in stat exists mkdir mv rm symlink chmod append; do
		case $name in
		stat) line=$(op stat "$(q "$ops/f1k.txt")") ;;
		exists) line=$(op exists "$(q "$ops/f1k.txt")") ;;
		mkdir) line=$(op mkdir "$(q "$ops/t/d%N")") ;;
		mv) line=$(op mv "$(q "$ops/t/f%N"),$(q "$ops/t/g%N")") ;;
		rm) line=$(op rm "$(q "$ops/t/g%N")") ;;
		symlink) line=$(op symlink "$(q target),$(q "$ops/t/l%N")") ;;
		chmod) line=$(op chmod "$(q 644),$(q "$ops/f1k.txt")") ;;
		append) line=$(op append "$(q "$ops/app.txt")" ',"stdin":"x"') ;;
		esac
		r=$(med "$read_line")
		o=$(med "$line")
		out "| $name | $o | $r | $(ratio "$o" "$r") |"
	done
	bad=$(ls "$ops/t" | grep -c '^[fg]')
	[ "$bad" = 0 ] || out "(check failed: $bad files left that mv or rm should have moved or removed)"
	out
	out "mkdir, mv, rm and symlink act on a new name each request (\`%N\` in the line); rm removes the files mv made. Command: \`sh bench/toolkit.sh\`."
	out
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}
smallops

need hyperfine hyperfine || { cat "$md"; exit 0; }
need jq jq || { cat "$md"; exit 0; }
DIFF=$(command -v diff) CP=$(command -v cp)

# ---- 2. diff ----
awk -v n="$LINES" 'BEGIN { srand(1)
	for (i = 1; i <= n; i++) {
		a = sprintf("line %d: %d %d the quick brown fox", i, int(rand() * 1e6), i % 97)
		print a >"/dev/stdout"
		r = rand()
		if (r < 0.05) continue                         # deleted
		if (r < 0.10) { print a " (changed)" >"/dev/stderr"; continue }
		if (r < 0.15) print "inserted before " i >"/dev/stderr"
		print a >"/dev/stderr"
	} }' >"$work/a.txt" 2>"$work/b.txt"
h_gnu=$("$DIFF" -u "$work/a.txt" "$work/b.txt" | grep -c '^@@')
h_ours=$("$W" diff --json "$work/a.txt" "$work/b.txt" | jq '.data.hunks | length')
json=$work/diff.json
hyperfine -N -i --warmup 2 --runs "$RUNS" --style basic --output pipe --export-json "$json" \
	-n "wickfs diff" "$W diff $work/a.txt $work/b.txt" \
	-n "diff -u" "$DIFF -u $work/a.txt $work/b.txt" >"$work/diff.log" 2>&1 ||
	say "toolkit: hyperfine (diff) failed, see $work/diff.log"
row() { # row NAME PEER JSON
	m=$(hf_stats "$3" "$1" | cut -d' ' -f1) p=$(hf_stats "$3" "$2" | cut -d' ' -f1)
	out "| \`$1\` | $(fmt_ms "$m") | \`$2\` | $(fmt_ms "$p") | $(ratio "$m" "$p") | $(ratio "$(hf_stats "$3" "$1" | cut -d' ' -f4)" "$(hf_stats "$3" "$2" | cut -d' ' -f4)") |"
}
out "| wickfs | mean | peer | mean | wickfs/peer | by min |"
out "|---|---:|---|---:|---:|---:|"
row "wickfs diff" "diff -u" "$json"

# ---- 3. cp -r ----
src=$work/tree
awk -v n="$FILES" -v d="$src" 'BEGIN { for (i = 0; i < n; i++) {
	if (i % 100 == 0) { dir = sprintf("%s/d%03d", d, i / 100); system("mkdir -p " dir) }
	f = sprintf("%s/f%05d.txt", dir, i); printf "file %d\n", i >f; close(f) } }'
json=$work/cp.json
hyperfine -N --warmup 1 --runs "$RUNS" --style basic --output pipe --export-json "$json" \
	--prepare "rm -rf $work/copy" -n "wickfs cp -r" "$W cp -r $src $work/copy" \
	--prepare "rm -rf $work/copy" -n "cp -a" "$CP -a $src $work/copy" >"$work/cp.log" 2>&1 ||
	say "toolkit: hyperfine (cp) failed, see $work/cp.log"
"$W" cp -r "$src" "$work/copy1" >/dev/null
"$CP" -a "$src" "$work/copy2"
same=$(cd "$work" && [ "$(find copy1 -printf '%P %s %m %T@\n' | sort)" = "$(find copy2 -printf '%P %s %m %T@\n' | sort)" ] && echo yes || echo NO)
row "wickfs cp -r" "cp -a" "$json"
rm -rf "$work/copy" "$work/copy1" "$work/copy2"
out
out "diff: two files of $LINES lines, about 15% of them changed, deleted or inserted; hunks: GNU $h_gnu, wickfs $h_ours$([ "$h_gnu" = "$h_ours" ] && echo ", the same" || echo ", DIFFERENT")."
out "cp: a tree of $FILES small files in directories of 100; names, sizes, modes and mtimes of the two copies the same: $same. Each run copies to a fresh name (\`--prepare 'rm -rf copy'\`)."
out "hyperfine -N, $RUNS runs; the diff rows with -i (GNU diff exits 1 when the files differ). Command: \`sh bench/toolkit.sh\`."
cat "$md"
if [ "${BENCH_SAVE:-0}" = 1 ]; then
	mkdir -p bench/results && cp "$md" bench/results/toolkit.md
fi
exit 0
