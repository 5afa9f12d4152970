#!/usr/bin/env bash
# snapshot, and restore and snapshots of what it wrote: round trips
# compared file by file, diff, dedupe measured by the store, --root,
# read-only mode, and restores killed at random instants. restore's and
# snapshots' checks that need no snapshot of a real tree, from a store
# made by hand (lib.sh's snapshot_store), are in t_restore.sh and
# t_snapshots.sh; the journal's in t_snapshot_journal.sh.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/snap
mkdir -p "$d"
cd "$d" || exit 1

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
id1=$(out_field id)
check snapshot.bytes "$(find "$w" -path "$w/.wickfs" -prune -o -type f -printf '%s\n' | awk '{n += $1} END {print n}')" "$(out_field bytes)"
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

# By unique id prefix (an unknown one: t_restore.sh).
wf restore "${id1:0:6}" "$w"
check restore.by_prefix 0 "$RC"

# Dedupe: an unchanged tree stores no object, only its manifest; one
# edit stores one object.
size0=$(du -sb "$w/.wickfs/snapshots" | cut -f1)
wf snapshot --tag same "$w"
check snapshot.dedupe.unchanged 0 "$(out_field new_objects)"
size1=$(du -sb "$w/.wickfs/snapshots" | cut -f1)
check_true snapshot.dedupe.store_growth "store grew $((size1 - size0)) bytes for an unchanged tree" test $((size1 - size0)) -lt 6000
printf 'edit' >>"$w/sub/deeper/f3.c"
wf snapshot --tag edited "$w"
check snapshot.dedupe.one_edit 1 "$(out_field new_objects)"
edited_id=$(out_field id)
# Identical contents in two files are one object.
cp "$w/random.bin" "$w/copy.bin"
wf snapshot "$w"
check snapshot.dedupe.same_content 0 "$(out_field new_objects)"
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
check restore.by_tag '{"ok":true,"data":{"id":"'"$(out_field id)"'","added":[],"removed":[],"modified":[]}}' "${OUT%$'\n'}"

# --store elsewhere, and a store inside the tree is left out of itself.
wf snapshot --store "$d/store2" --tag s2 "$w"
check snapshot.store_option 0 "$RC"
wf snapshot --store "$w/inner" --tag in "$w"
wf snapshot --store "$w/inner" --diff in "$w"
check snapshot.store_inside_excluded '{"ok":true,"data":{"id":"'"$(out_field id)"'","added":[],"removed":[],"modified":[]}}' "${OUT%$'\n'}"
rm -r "$w/inner"

# Read-only mode refuses snapshot (restore: t_restore.sh; the listing: t_snapshots.sh).
WICKFS_READONLY=1 "$WICKFS" snapshot "$w" >ro.out
check snapshot.readonly '{"ok":false,"error":"snapshot '"$w"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"

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
