#!/usr/bin/env bash
# snapshots: the listing of a store made by hand (lib.sh's snapshot_store):
# DIR's default, and read-only mode, which leaves it. (the listing of what
# snapshot wrote: t_snapshot.sh)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/snap
w=$d/w
mkdir -p "$w"
cd "$d" || exit 1
printf 'hello\n' >"$w/hello.txt"
(cd "$w" && snapshot_store .wickfs/snapshots 5e1f000000000001 first hello.txt)

# DIR defaults to the root, else ".".
(cd "$w" && "$WICKFS" snapshots) >dot.out
check_match snapshot.dir_default_dot '{"ok":true,"data":{"snapshots":?{*"tag":"first"*' "$(cat dot.out)"
"$WICKFS" --root "$w" snapshots >root.out
check_match snapshot.dir_default_root '{"ok":true,"data":{"snapshots":?{*"tag":"first"*' "$(cat root.out)"

# Read-only mode leaves the listing.
WICKFS_READONLY=1 "$WICKFS" snapshots "$w" >ro.out
check_match snapshots.readonly_lists '{"ok":true,*' "$(cat ro.out)"
