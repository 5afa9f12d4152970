#!/usr/bin/env bash
# restore: the checks that need no snapshot of a real tree, from stores
# made by hand (lib.sh's snapshot_store): an unknown id, read-only mode,
# --root, hostile manifests, a damaged object. (restores of what snapshot
# wrote, and restores killed at random instants: t_snapshot.sh; the
# journal: t_snapshot_journal.sh)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/snap
w=$d/w
mkdir -p "$w"
cd "$d" || exit 1
printf 'hello\n' >"$w/hello.txt"
(cd "$w" && snapshot_store .wickfs/snapshots 5e1f000000000001 first hello.txt)

# An unknown id: the error names the store.
wf restore nosuch "$w"
check_match restore.unknown '*"restore nosuch: no such snapshot in '"$w"'/.wickfs/snapshots"*' "$OUT"

# Read-only mode refuses restore.
WICKFS_READONLY=1 "$WICKFS" restore first "$w" >ro.out
check restore.readonly '{"ok":false,"error":"restore '"$w"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"

# --root: the store may not be outside.
mkdir -p "$d/jail/in" && printf 'j' >"$d/jail/in/j"
wf --root "$d/jail" restore --store "$w/.wickfs/snapshots" first "$d/jail/in"
check_match restore.root.store_outside '*outside the workspace root*' "$OUT"

# Hostile manifests: each is refused, naming the file, and nothing moves.
hm=$d/hm
mkdir -p "$hm/t" && printf 'keep' >"$hm/t/keep"
(cd "$hm/t" && snapshot_store "$hm/st" 5e1f000000000002 "" keep)
sha=$(sha256sum <"$hm/t/keep" | cut -c1-64)
hostile_manifest() {
	local name=$1 body=$2 id=ffffffffffff0000
	printf '%s' "$body" | gzip -c >"$hm/st/snaps/$id"
	wf restore --store "$hm/st" $id "$hm/t"
	check_match "restore.hostile.$name" '*"restore '"$hm"'/st/snaps/'$id': malformed manifest*' "$OUT"
	check "restore.hostile.$name.untouched" "keep" "$(ls "$hm/t")"
	rm -f "$hm/st/snaps/$id"
}
hostile_manifest dotdot $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' ../evil\n'
hostile_manifest absolute $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' /tmp/evil\n'
hostile_manifest inner_dotdot $'wickfs-snapshot 1 0 \nd 755 0 0 0 - a\nf 644 0 0 4 '"$sha"$' a/../../evil\n'
hostile_manifest no_parent $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' nodir/evil\n'
hostile_manifest parent_is_link $'wickfs-snapshot 1 0 \nl 777 0 0 4 '"$sha"$' a\nf 644 0 0 4 '"$sha"$' a/evil\n'
hostile_manifest unsorted $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' b\nf 644 0 0 4 '"$sha"$' a\n'
hostile_manifest duplicate $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' a\nd 755 0 0 0 - a\n'
hostile_manifest bad_hash $'wickfs-snapshot 1 0 \nf 644 0 0 4 ../../../../etc/passwd0000000000000000000000000000000000000000 a\n'
hostile_manifest bad_mode $'wickfs-snapshot 1 0 \nf 99999 0 0 4 '"$sha"$' a\n'
hostile_manifest bad_escape $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"$' a\\x\n'
hostile_manifest no_newline $'wickfs-snapshot 1 0 \nf 644 0 0 4 '"$sha"' a'
hostile_manifest empty_component $'wickfs-snapshot 1 0 \nd 755 0 0 0 - a\nf 644 0 0 4 '"$sha"$' a//b\n'
hostile_manifest wrong_magic $'tar 1 0 \n'
check_true restore.hostile.nothing_outside "a file escaped" test ! -e "$hm/evil" -a ! -e "$d/evil"
# A damaged object: the hash check refuses it, the tree stays as it was.
printf 'other' >"$hm/t/keep"
obj=$(find "$hm/st/objects" -type f | head -1)
printf 'xxxx' | gzip -c >"$obj"
wf restore --store "$hm/st" "$(ls "$hm/st/snaps")" "$hm/t"
check_match restore.damaged_object '*"restore '"$hm"'/st (object of keep): damaged object"*' "$OUT"
check restore.damaged_object.old_tree other "$(cat "$hm/t/keep")"
check_true restore.damaged_object.no_staging "staging left" test ! -e "$hm/t/.wickfs/restore"
