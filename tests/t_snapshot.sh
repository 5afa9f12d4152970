#!/usr/bin/env bash
# snapshot / snapshots / restore: round trips compared file by file, diff,
# dedupe measured by the store, hostile manifests and objects, --root,
# read-only mode, and restores killed at random instants.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/snap
mkdir -p "$d"
cd "$d" || exit 1

# A field of the last envelope, crudely: "key":value (numbers, strings).
field() { printf '%s' "$OUT" | sed -n 's/.*"'"$1"'":\("[^"]*"\|[0-9]*\).*/\1/p' | tr -d '"'; }

w=$d/w
mkdir -p "$w/sub/deeper" "$w/empty dir" "$w/private"
printf 'hello\n' >"$w/hello.txt"
printf 'secret' >"$w/private/key"
chmod 0600 "$w/private/key"
chmod 0750 "$w/private"
printf '#!/bin/sh\n' >"$w/run.sh"
chmod 0755 "$w/run.sh"
printf 'space' >"$w/with space.txt"
printf 'nl' >"$w/new"$'\n'"line"
printf 'utf' >"$w/ünïcødé-日本.txt"
: >"$w/empty file"
ln -s hello.txt "$w/link"
ln -s ../missing "$w/sub/dangling"
ln -s sub "$w/dirlink"
for i in $(seq 1 40); do printf 'file %s\n' "$i" >"$w/sub/deeper/f$i.c"; done
head -c 300000 /dev/urandom >"$w/random.bin"
touch -d '2001-02-03 04:05:06.123456789' "$w/hello.txt"
before=$(tree_state "$w")

wf snapshot --tag first "$w"
check_match snapshot.ok '{"ok":true,"data":{"id":"*","tag":"first",*"files":48,"dirs":4,"symlinks":3,*' "$OUT"
id1=$(field id)
check snapshot.bytes "$(find "$w" -path "$w/.wickfs" -prune -o -type f -printf '%s\n' | awk '{n += $1} END {print n}')" "$(field bytes)"
check_true snapshot.store_default "no store" test -d "$w/.wickfs/snapshots/objects"
wf snapshots "$w"
check_match snapshots.list '{"ok":true,"data":{"snapshots":?{"id":"'"$id1"'","tag":"first",*' "$OUT"

# Mutate every way: edit, delete, add, chmod, retarget a link, a file
# where a directory was and a directory where a file was.
printf 'changed\n' >"$w/hello.txt"
rm "$w/with space.txt" "$w/sub/deeper/f7.c"
rm -r "$w/empty dir"
printf 'new' >"$w/added.txt"
mkdir -p "$w/added dir/x"
chmod 0644 "$w/run.sh"
ln -sf elsewhere "$w/link"
rm -r "$w/private" && printf 'now a file' >"$w/private"
rm "$w/run.sh" 2>/dev/null; mkdir "$w/run.sh"
wf snapshot --diff first "$w"
check snapshot.diff '{"ok":true,"data":{"id":"'"$id1"'","added":["added dir","added dir/x","added.txt"],"removed":["empty dir","private/key","sub/deeper/f7.c","with space.txt"],"modified":["hello.txt","link","private","run.sh"]}}' "${OUT%$'\n'}"
check_true snapshot.diff.nothing_written "diff changed the tree" test -e "$w/added.txt"

wf restore first "$w"
check_match restore.report '{"ok":true,"data":{"id":"'"$id1"'","deleted":?"added dir","added dir/x","added.txt"?,"recreated":?"empty dir",*' "$OUT"
check restore.tree_identical "$before" "$(tree_state "$w")"
check_true restore.no_staging "staging left" test ! -e "$w/.wickfs/restore"
wf snapshot --diff first "$w"
check restore.diff_empty '{"ok":true,"data":{"id":"'"$id1"'","added":[],"removed":[],"modified":[]}}' "${OUT%$'\n'}"

# By unique id prefix, and errors naming the store.
wf restore "${id1:0:6}" "$w"
check restore.by_prefix 0 "$RC"
wf restore nosuch "$w"
check_match restore.unknown '*"restore nosuch: no such snapshot in '"$w"'/.wickfs/snapshots"*' "$OUT"

# Dedupe: an unchanged tree stores no object, only its manifest; one
# edit stores one object.
size0=$(du -sb "$w/.wickfs/snapshots" | cut -f1)
wf snapshot --tag same "$w"
check snapshot.dedupe.unchanged 0 "$(field new_objects)"
size1=$(du -sb "$w/.wickfs/snapshots" | cut -f1)
check_true snapshot.dedupe.store_growth "store grew $((size1 - size0)) bytes for an unchanged tree" test $((size1 - size0)) -lt 6000
printf 'edit' >>"$w/sub/deeper/f3.c"
wf snapshot --tag edited "$w"
check snapshot.dedupe.one_edit 1 "$(field new_objects)"
edited_id=$(field id)
# Identical contents in two files are one object.
cp "$w/random.bin" "$w/copy.bin"
wf snapshot "$w"
check snapshot.dedupe.same_content 0 "$(field new_objects)"
rm "$w/copy.bin"
# A tag reused: it now names the new snapshot, and says which it left.
printf 'one more\n' >"$w/tagged-again.txt"
wf snapshot --tag edited "$w"
check_match snapshot.tag_reused_says_previous '*,"previous":"'"$edited_id"'"}}*' "$OUT"
wf snapshot --tag never-before "$w"
check_true snapshot.new_tag_no_previous "$(show "$OUT")" test "${OUT/previous/}" = "$OUT"
rm "$w/tagged-again.txt"
wf restore edited "$w"
check_match restore.report_words '{"ok":true,"data":{"id":"*","deleted":?*?,"recreated":?*?,"reverted":?*?}}*' "$OUT"
wf snapshot --diff edited "$w"
check restore.by_tag '{"ok":true,"data":{"id":"'"$(field id)"'","added":[],"removed":[],"modified":[]}}' "${OUT%$'\n'}"

# --store elsewhere, and a store inside the tree is left out of itself.
wf snapshot --store "$d/store2" --tag s2 "$w"
check snapshot.store_option 0 "$RC"
wf snapshot --store "$w/inner" --tag in "$w"
wf snapshot --store "$w/inner" --diff in "$w"
check snapshot.store_inside_excluded '{"ok":true,"data":{"id":"'"$(field id)"'","added":[],"removed":[],"modified":[]}}' "${OUT%$'\n'}"
rm -r "$w/inner"

# DIR defaults to the root, else ".".
(cd "$w" && "$WICKFS" snapshots) >dot.out
check_match snapshot.dir_default_dot '{"ok":true,"data":{"snapshots":?{*"tag":"first"*' "$(cat dot.out)"
"$WICKFS" --root "$w" snapshots >root.out
check_match snapshot.dir_default_root '{"ok":true,"data":{"snapshots":?{*"tag":"first"*' "$(cat root.out)"

# Read-only mode refuses snapshot and restore, not the listing.
WICKFS_READONLY=1 "$WICKFS" snapshot "$w" >ro.out
check snapshot.readonly '{"ok":false,"error":"snapshot '"$w"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
WICKFS_READONLY=1 "$WICKFS" restore first "$w" >ro.out
check restore.readonly '{"ok":false,"error":"restore '"$w"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
WICKFS_READONLY=1 "$WICKFS" snapshots "$w" >ro.out
check_match snapshots.readonly_lists '{"ok":true,*' "$(cat ro.out)"

# --root: neither the tree nor the store may be outside.
mkdir -p "$d/jail/in" && printf 'j' >"$d/jail/in/j"
wf --root "$d/jail" snapshot "$d/jail/../w"
check_match snapshot.root.dir_outside '*outside the workspace root*' "$OUT"
wf --root "$d/jail" snapshot --store "$d/outside-store" "$d/jail/in"
check_match snapshot.root.store_outside '*outside the workspace root*' "$OUT"
check_true snapshot.root.nothing_outside "store made" test ! -e "$d/outside-store"
ln -s "$d" "$d/jail/up"
wf --root "$d/jail" snapshot --store "$d/jail/up/st" "$d/jail/in"
check_match snapshot.root.store_via_link '*outside the workspace root*' "$OUT"
wf --root "$d/jail" restore --store "$w/.wickfs/snapshots" first "$d/jail/in"
check_match restore.root.store_outside '*outside the workspace root*' "$OUT"

# Hostile manifests: each is refused, naming the file, and nothing moves.
hm=$d/hm
mkdir -p "$hm/t" && printf 'keep' >"$hm/t/keep"
wf snapshot --store "$hm/st" "$hm/t"
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

# Killed at random instants: afterwards (the next call completes a
# committed restore) the tree is the old one or the restored one.
k=$d/k
mkdir -p "$k"
for i in $(seq 1 300); do printf 'old %s\n' "$i" >"$k/f$i"; done
wf snapshot --tag A "$k"
stateA=$(tree_state "$k")
for i in $(seq 1 300); do printf 'new %s %s\n' "$i" "$i" >"$k/f$i"; done
for i in $(seq 1 1500); do printf "added\n" >"$k/g$i"; done
wf snapshot --tag B "$k"
stateB=$(tree_state "$k")
# The kill instants spread over one restore's duration here (a choice of
# delays, not an assertion).
t0=$(date +%s%N)
"$WICKFS" restore A "$k" >/dev/null
span=$((($(date +%s%N) - t0) / 1000000 + 1))
"$WICKFS" restore B "$k" >/dev/null
mix=0 olds=0 news=0 other=""
for n in $(seq 1 25); do
	"$WICKFS" restore A "$k" >/dev/null 2>&1 &
	pid=$!
	ms=$((RANDOM % span))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -z "$other" ] && [ -e "$k/.wickfs/restore/journal" ]; then
		# Killed after the commit point: a snapshot into another store
		# (one that has not the objects) still completes the restore.
		rm -rf "$d/other"
		other=$("$WICKFS" snapshot --store "$d/other" "$k" 2>&1)
		other="$other|$(tree_state "$k" | cksum)"
	fi
	"$WICKFS" snapshots "$k" >/dev/null
	s=$(tree_state "$k")
	if [ "$s" == "$stateA" ]; then
		olds=$((olds + 1))
		"$WICKFS" restore B "$k" >/dev/null
	elif [ "$s" == "$stateB" ]; then
		news=$((news + 1))
	else
		mix=$((mix + 1))
		"$WICKFS" restore B "$k" >/dev/null
	fi
done
check restore.kill9.never_a_mix "0 mixed" "$mix mixed"
if [ -n "$other" ]; then
	check_match restore.kill9.completed_from_another_store '{"ok":true,*|'"$(echo "$stateA" | cksum)" "$other"
else
	skip restore.kill9.completed_from_another_store "no kill of 25 landed after the commit point"
fi
echo "# restore killed 25 times within ${span} ms: $olds restored, $news old" >&2
