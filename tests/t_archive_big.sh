#!/usr/bin/env bash
# Archives and snapshots at size: a 100 MB file and 20,000 small files, with
# names that need care, through pack -> unpack and snapshot -> restore,
# compared file by file (type, mode, mtime, link target, content).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/big
mkdir -p "$d"
cd "$d" || exit 1

src=$d/src
mkdir -p "$src/many" "$src/odd names"
# 100,000,000 bytes: half random (deflate cannot shrink it), half text.
{ head -c 50000000 /dev/urandom; seq 1 100000000 | head -c 50000000; } >"$src/big.bin"
# 20,000 small files, one line each, in 20 directories.
for k in $(seq 0 19); do
	mkdir -p "$src/many/d$k"
	seq $((k * 1000 + 1)) $((k * 1000 + 1000)) | (cd "$src/many/d$k" && split -l 1 -a 4 - f)
done
printf 'x' >"$src/odd names/with space"
printf 'y' >"$src/odd names/new"$'\n'"line"
printf 'z' >"$src/odd names/ünï-名前"
chmod 0700 "$src/odd names"
chmod 0640 "$src/many/d3/faaaa"
ln -s ../big.bin "$src/many/link"
touch -d '2020-01-02 03:04:05.678901234' "$src/big.bin"
check big.tree "20004 100000000" "$(find "$src" -type f -printf . | wc -c) $(stat -c %s "$src/big.bin")"
bytes=$(find "$src" -type f -printf '%s\n' | awk '{n += $1} END {print n}')
want=$(tree_state "$src")

wf pack --output "$d/a.tgz" "$src"
check_match big.pack '{"ok":true,"data":{"files":20004,"dirs":22,"symlinks":1,"bytes":'"$bytes"',*' "$OUT"
wf unpack --input "$d/a.tgz" "$d/out"
check big.unpack.rc 0 "$RC"
# Under a qemu-user whose fstatat gives whole seconds (tests/cross-run sets
# WICKFS_EMULATED_WHOLE_SECONDS to why) pack cannot see sub-seconds.
if [ -n "${WICKFS_EMULATED_WHOLE_SECONDS:-}" ]; then
	no_time() { sed -E 's/^([^\t]*\t[a-z] [0-7]+) [0-9.]+/\1/'; }
	check big.pack_unpack.identical "$(echo "$want" | no_time)" "$(tree_state "$d/out" | no_time)"
	skip big.pack_unpack.mtime_ns "$WICKFS_EMULATED_WHOLE_SECONDS"
else
	check big.pack_unpack.identical "$want" "$(tree_state "$d/out")"
fi
rm -rf "$d/out" "$d/a.tgz"

wf snapshot --tag base "$src"
check_match big.snapshot '{"ok":true,"data":{"id":"*","tag":"base",*"files":20004,*' "$OUT"
# Change it every way, then bring it back.
printf 'tail' >>"$src/big.bin"
rm -r "$src/many/d7"
printf 'new' >"$src/many/d1/new"
chmod 0755 "$src/odd names"
wf restore base "$src"
check big.restore.rc 0 "$RC"
check big.snapshot_restore.identical "$want" "$(tree_state "$src")"
