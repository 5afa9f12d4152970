#!/bin/sh
# bench/archive.sh - pack and unpack against tar + pigz, tar czf and
# tar xzf on a generated tree of BENCH_FILES files (default 20000), at the
# same level (6); then snapshot dedupe on a copy of this source tree.
# Prints markdown tables: wall seconds, CPU seconds, peak RSS, output size.
#
#   sh bench/archive.sh            # 20,000 files (the real run)
#   BENCH_FILES=500 sh bench/archive.sh   # a quick check that it works
set -eu
WICKFS=${WICKFS:-build/wickfs}
case $WICKFS in /*) ;; *) WICKFS=$PWD/$WICKFS ;; esac
files=${BENCH_FILES:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/tree
TIMEF=/usr/bin/time
[ -x "$TIMEF" ] || { echo "bench/archive.sh: needs GNU time (/usr/bin/time)" >&2; exit 0; }

# The tree: 100 directories of source-like text (a few KB each, some
# repetition, as code has) and one file in 50 of random bytes.
i=0
while [ "$i" -lt "$files" ]; do
	dir=$src/d$((i % 100))
	[ -d "$dir" ] || mkdir -p "$dir"
	if [ $((i % 50)) = 0 ]; then
		head -c 8192 /dev/urandom >"$dir/f$i.bin"
	else
		seq "$i" $((i + 400 + i % 700)) | sed 's/^/value = /' >"$dir/f$i.c"
	fi
	i=$((i + 1))
done
bytes=$(du -sb "$src" | cut -f1)
echo "### archive: $files files, $bytes bytes, level 6, $(nproc) CPUs"
echo
echo "| run | wall s | CPU s | peak RSS KB | output bytes |"
echo "|---|---|---|---|---|"

# row NAME OUTPUT CMD: runs CMD under sh three times, prints one row with
# the median wall time (and that run's CPU and RSS). The first run of a
# set pays for whatever the previous one left in the caches; the median
# does not.
row() {
	name=$1 out=$2
	shift 2
	sync
	for k in 1 2 3; do
		"$TIMEF" -f '%e %U %S %M' -o "$tmp/t$k" sh -c "$1" >/dev/null 2>&1 ||
			{ echo "| $name | failed | | | |"; return; }
	done
	set -- $(sort -n "$tmp/t1" "$tmp/t2" "$tmp/t3" | sed -n 2p)
	size=-
	[ -n "$out" ] && [ -e "$out" ] && size=$(stat -c %s "$out")
	echo "| $name | $1 | $(echo "$2 + $3" | bc) | $4 | $size |"
}

# Every file read once before the first timed run.
tar cf - -C "$tmp" tree | cat >/dev/null
# GNU tar in name order, as pack writes: the same bytes to compress, so
# the sizes compare the compressors (tar's default order is the
# directory's, which compresses a tree like this one much worse).
sorted="tar --sort=name --format=gnu"
row "wickfs pack --level 6" "$tmp/w.tgz" "'$WICKFS' pack --level 6 --output '$tmp/w.tgz' '$src'"
row "wickfs pack --whole-seconds" "$tmp/ws.tgz" "'$WICKFS' pack --whole-seconds --output '$tmp/ws.tgz' '$src'"
if command -v pigz >/dev/null; then
	row "tar --sort=name cf - \\| pigz -6" "$tmp/p.tgz" "$sorted -cf - -C '$tmp' tree | pigz -6 >'$tmp/p.tgz'"
else
	echo "| tar cf - \\| pigz -6 | pigz not installed | | | |"
fi
row "tar --sort=name czf (gzip -6)" "$tmp/t.tgz" "$sorted -czf '$tmp/t.tgz' -C '$tmp' tree"
row "tar cf - \\| pigz -6 (directory order)" "$tmp/pd.tgz" "tar cf - -C '$tmp' tree | pigz -6 >'$tmp/pd.tgz'"
mkdir -p "$tmp/u1" "$tmp/u2"
row "wickfs unpack" "" "rm -rf '$tmp/u1' && mkdir '$tmp/u1' && '$WICKFS' unpack --input '$tmp/t.tgz' '$tmp/u1'"
row "tar xzf" "" "rm -rf '$tmp/u2' && mkdir '$tmp/u2' && tar xzf '$tmp/t.tgz' -C '$tmp/u2'"
diff -r "$tmp/u1" "$tmp/u2" >/dev/null && echo && echo "unpacked trees identical"

# Snapshot dedupe: this source tree, then a few edits, then again.
here=$(cd "$(dirname "$0")/.." && pwd)
if command -v git >/dev/null && git -C "$here" rev-parse >/dev/null 2>&1; then
	s=$tmp/src
	mkdir -p "$s"
	git -C "$here" ls-files -z | (cd "$here" && xargs -0 tar cf -) | tar xf - -C "$s"
	field() { sed -n 's/.*"'"$1"'":\([0-9]*\).*/\1/p'; }
	# The bytes of the store's files (directories not counted).
	store() { find "$s/.wickfs/snapshots" -type f -printf '%s\n' | awk '{t += $1} END {print t}'; }
	echo
	echo "### snapshot dedupe: this repository's tracked files ($(git -C "$here" ls-files | wc -l) files, $(du -sb "$s" | cut -f1) bytes)"
	echo
	echo "| step | new objects | bytes stored | store size |"
	echo "|---|---|---|---|"
	out=$("$WICKFS" snapshot --tag base "$s")
	echo "| first snapshot | $(echo "$out" | field new_objects) | $(echo "$out" | field new_bytes) | $(store) |"
	for f in $(cd "$s" && ls lib/*.c | head -5); do printf '\n/* edited */\n' >>"$s/$f"; done
	out=$("$WICKFS" snapshot --tag edited "$s")
	echo "| 5 files edited | $(echo "$out" | field new_objects) | $(echo "$out" | field new_bytes) | $(store) |"
	out=$("$WICKFS" snapshot --tag same "$s")
	echo "| nothing changed | $(echo "$out" | field new_objects) | $(echo "$out" | field new_bytes) | $(store) |"
	"$WICKFS" pack --exclude .wickfs --output "$tmp/full.tgz" "$s" >/dev/null
	echo
	echo "One pack of the same tree: $(stat -c %s "$tmp/full.tgz") bytes (so three full archives would take three times that)."
fi
