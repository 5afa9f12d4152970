#!/usr/bin/env bash
# The restore journal commands deletions and modes, so nothing an agent, an
# archive or a command writes may pass for one: every way in that once
# wiped a workspace (a planted DIR/.wickfs/restore/journal completed by
# the next snapshot), the seal that proves a journal (DIR/.wickfs/key),
# and the .wickfs directory that confined applets and archives never
# reach. Journals are forged here with python3's hmac, knowing the key,
# to show that a sealed one is acted on (and its modes cut to 0777)
# while any other is refused and left in place.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	skip journal "python3 is missing (scripts/deps.sh installs it)"
	exit 0
fi
d=$TEST_TMP/j
mkdir -p "$d"
cd "$d" || exit 1

# A workspace with files, as the attacker finds it.
fresh() {
	rm -rf "$d/ws"
	mkdir -p "$d/ws/sub"
	printf 'keep me\n' >"$d/ws/a.txt"
	printf 'me too\n' >"$d/ws/sub/b.txt"
}
tree_of() { (cd "$d/ws" && find . -path ./.wickfs -prune -o -print | sort | tr '\n' ' '); }

# The issue's journal: every file the list lacks would be deleted.
evil=$'0123456789abcdef\n/nonexistent-store\nwickfs-snapshot 1 1 evil\n'

# The reproduction: a tar.gz holding only .wickfs/restore/journal,
# unpacked into the workspace, then a snapshot.
fresh
before=$(tree_of)
mkdir -p "$d/arch/.wickfs/restore"
printf '%s' "$evil" >"$d/arch/.wickfs/restore/journal"
tar -czf "$d/evil.tgz" -C "$d/arch" .wickfs
wf unpack --input "$d/evil.tgz" "$d/ws"
check_match journal.unpack.refused '*"unpack .wickfs/*: refused: .wickfs is reserved for wickfs'"'"'s own state*' "$OUT"
check_true journal.unpack.nothing_planted "a journal was unpacked" test ! -e "$d/ws/.wickfs/restore/journal"
# Deeper in the archive too, and through upload --tree (which unpacks).
tar -czf "$d/evil2.tgz" -C "$d/arch" --transform 's,^,x/,' .wickfs
wf unpack --input "$d/evil2.tgz" "$d/ws"
check_match journal.unpack.refused_deeper '*"unpack x/.wickfs*: refused: .wickfs is reserved*' "$OUT"
b64=$(base64 -w0 <"$d/evil.tgz")
wf_in "$b64" upload --tree --last "$d/ws"
check_match journal.upload_tree.refused '*refused: .wickfs is reserved*' "$OUT"
wf snapshot --tag t "$d/ws"
check_match journal.after_unpack.snapshot_ok '{"ok":true,*' "$OUT"
check journal.after_unpack.tree_intact "$before" "$(tree_of)"

# Planted by hand (a write unconfined, or any command): refused with the
# reason, left in place, the tree untouched.
fresh
mkdir -p "$d/ws/.wickfs/restore"
printf '%s' "$evil" >"$d/ws/.wickfs/restore/journal"
for op in "snapshot --tag t" "snapshots" "restore t" "snapshot --diff t"; do
	# shellcheck disable=SC2086
	wf $op "$d/ws"
	name=journal.unsealed.$(printf %s "$op" | tr -s " -" "__")
	check_match "$name.refused" '*"*/.wickfs/restore/journal: refused, not written by a restore of this directory (it has no seal); left in place, nothing changed*' "$OUT"
	check "$name.tree_intact" "$before" "$(tree_of)"
done
printf '%s' "$evil" >"$d/evil.txt"
check_true journal.unsealed.left_in_place "the journal changed" cmp -s "$d/evil.txt" "$d/ws/.wickfs/restore/journal"

# seal WS KEYFILE BODYFILE: the journal python3 seals as a restore would
# (HMAC-SHA-256 over "wickfs-journal 1 DEV INO\n" and the body).
seal() {
	python3 - "$@" <<'PY'
import hmac, hashlib, os, sys
ws, keyf, bodyf = sys.argv[1:4]
st = os.stat(ws)
key = open(keyf, 'rb').read()
body = open(bodyf, 'rb').read()
mac = hmac.new(key, b'wickfs-journal 1 %d %d\n' % (st.st_dev, st.st_ino) + body, hashlib.sha256)
sys.stdout.buffer.write(b'seal ' + mac.hexdigest().encode() + b'\n' + body)
PY
}

# A command run through exec plants a key as git or tar would make it
# (0644) and a journal sealed with it: the key is not trusted.
fresh
printf '%s' "$evil" >"$d/body"
head -c 32 /dev/urandom >"$d/k"
seal "$d/ws" "$d/k" "$d/body" >"$d/sealed"
wf exec --cwd "$d/ws" "mkdir -p .wickfs/restore && cp '$d/k' .wickfs/key && cp '$d/sealed' .wickfs/restore/journal"
check_true journal.exec.planted "the command did not plant" test -s "$d/ws/.wickfs/restore/journal"
wf snapshot --tag t "$d/ws"
check_match journal.exec_key_0644.refused '*refused, not written by a restore of this directory (*/.wickfs/key: not a key wickfs made (it must be a 32-byte regular file of uid*, mode 0600))*' "$OUT"
check journal.exec_key_0644.tree_intact "$before" "$(tree_of)"
if command -v git >/dev/null 2>&1; then
	# A repository that carries both, cloned into an empty workspace.
	rm -rf "$d/repo" "$d/ws"
	mkdir -p "$d/repo/.wickfs/restore" "$d/repo/sub"
	printf 'keep me\n' >"$d/repo/a.txt"
	printf 'me too\n' >"$d/repo/sub/b.txt"
	cp "$d/k" "$d/repo/.wickfs/key"
	git -C "$d/repo" init -q && git -C "$d/repo" add -A &&
		git -C "$d/repo" -c user.name=t -c user.email=t@t commit -qm evil
	wf exec "git clone -q '$d/repo' '$d/ws'"
	mkdir -p "$d/ws/.wickfs/restore" # git keeps no empty directory
	seal "$d/ws" "$d/k" "$d/body" >"$d/ws/.wickfs/restore/journal"
	cloned=$(tree_of)
	check_match journal.git_clone.has_files "*./a.txt*./sub/b.txt*" "$cloned"
	wf snapshot --tag t "$d/ws"
	check_match journal.git_clone.refused '*refused, not written by a restore*not a key wickfs made*' "$OUT"
	check journal.git_clone.tree_intact "$cloned" "$(tree_of)"
else
	skip journal.git_clone "git is not installed"
fi

# The real key, a journal sealed with another: refused.
fresh
wf snapshot --tag A "$d/ws"
wf restore A "$d/ws"
check_true journal.key.made "no key" test -f "$d/ws/.wickfs/key"
check journal.key.mode "600 32" "$(stat -c '%a %s' "$d/ws/.wickfs/key")"
mkdir -p "$d/ws/.wickfs/restore"
seal "$d/ws" "$d/k" "$d/body" >"$d/ws/.wickfs/restore/journal"
wf snapshot --tag t "$d/ws"
check_match journal.wrong_key.refused '*refused, not written by a restore of this directory (its seal does not match */.wickfs/key)*' "$OUT"
check journal.wrong_key.tree_intact "$before" "$(tree_of)"
# A copy of a sealed journal into another directory (same key bytes):
# the seal binds the directory too.
rm -rf "$d/ws2" && cp -a "$d/ws" "$d/ws2"
seal "$d/ws" "$d/ws/.wickfs/key" "$d/body" >"$d/ws2/.wickfs/restore/journal"
wf snapshot --tag t "$d/ws2"
check_match journal.other_dir.refused '*refused, not written by a restore*its seal does not match*' "$OUT"

# The positive control: a journal sealed with the real key is acted on
# (the tree made to match it), and its setuid, setgid and sticky bits are
# never applied.
fresh
chmod 0755 "$d/ws/a.txt"
wf snapshot --tag A "$d/ws"
id=$(printf '%s' "$OUT" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
wf restore A "$d/ws" # makes the key
printf 'extra\n' >"$d/ws/extra.txt"
store=$(cd "$d/ws/.wickfs/snapshots" && pwd)
{
	printf '%s\n%s\n' "$id" "$store"
	gzip -dc "$store/snaps/$id" | sed 's/^f 755 /f 6755 /; s/^d 755 \(.*\) sub$/d 1755 \1 sub/'
} >"$d/body2"
check_match journal.control.setuid_in_journal "*f 6755 *a.txt*" "$(cat "$d/body2")"
mkdir -p "$d/ws/.wickfs/restore"
seal "$d/ws" "$d/ws/.wickfs/key" "$d/body2" >"$d/ws/.wickfs/restore/journal"
wf snapshots "$d/ws"
check_match journal.control.recovered '{"ok":true,*' "$OUT"
check_true journal.control.acted "extra.txt was not removed" test ! -e "$d/ws/extra.txt"
check journal.control.no_setuid "755" "$(stat -c %a "$d/ws/a.txt")"
check journal.control.no_sticky "755" "$(stat -c %a "$d/ws/sub")"
check_true journal.control.journal_gone "journal left" test ! -e "$d/ws/.wickfs/restore"

# Confined, no applet reaches .wickfs by a path, nor walks into it.
fresh
wf snapshot --tag A "$d/ws"
wf restore A "$d/ws"
export WICKFS_ROOT=$d/ws
cd "$d/ws" || exit 1
for cmd in "read $d/ws/.wickfs/key" "read .wickfs/key" "stat .wickfs/key" "ls .wickfs" \
	"rm .wickfs/key" "mkdir .wickfs/restore" "symlink x .wickfs/restore/journal" \
	"mv a.txt .wickfs/restore/journal" "cp a.txt .wickfs/restore/journal" "chmod 644 .wickfs/key" \
	"grep x .wickfs/key" "diff a.txt .wickfs/key"; do
	# shellcheck disable=SC2086
	wf $cmd
	# the name shows the root as ROOT: the same on every run
	check_match "journal.confined.${cmd%% *}.$(echo "${cmd//$d\/ws/ROOT}" | cut -d' ' -f2- | tr ' /' '__')" \
		'*refused: .wickfs is reserved for wickfs'"'"'s own state*' "$OUT"
done
wf_in "x" write .wickfs/restore/journal
check_match journal.confined.write '*refused: .wickfs is reserved*' "$OUT"
wf_in "x" write sub/.wickfs/restore/journal
check_match journal.confined.write_deeper '*refused: .wickfs is reserved*' "$OUT"
ln -s .wickfs "$d/ws/innocent"
wf_in "x" write innocent/restore/journal
check_match journal.confined.write_through_link '*refused: .wickfs is reserved*' "$OUT"
rm "$d/ws/innocent"
wf_in "*** Begin Patch
*** Add File: .wickfs/restore/journal
+x
*** End Patch" apply-patch
check_match journal.confined.apply_patch_v4a '*.wickfs*reserved*' "$OUT"
check_true journal.confined.nothing_written "a journal was written" test ! -e "$d/ws/.wickfs/restore/journal"
wf grep --hidden -r . .
check_true journal.confined.grep_skips "grep read .wickfs: $(show "$OUT")" test "${OUT/.wickfs/}" = "$OUT"
wf glob --hidden '**' .
check_true journal.confined.glob_skips "glob listed .wickfs: $(show "$OUT")" test "${OUT/.wickfs/}" = "$OUT"
mkdir -p "$d/ws/copy"
wf cp -r sub copy/sub
mkdir -p "$d/ws/sub/.wickfs" && printf k >"$d/ws/sub/.wickfs/key"
wf cp -r sub copy/sub2
check_true journal.confined.cp_skips "cp copied a .wickfs" test ! -e "$d/ws/copy/sub2/.wickfs"
rm -rf "$d/ws/sub/.wickfs"
# snapshot and restore, the owners, still work confined.
wf snapshot --tag B
check_match journal.confined.snapshot_works '{"ok":true,*' "$OUT"
printf 'changed\n' >"$d/ws/a.txt"
wf restore B
check_match journal.confined.restore_works '{"ok":true,*' "$OUT"
check journal.confined.restored "keep me" "$(cat "$d/ws/a.txt")"
unset WICKFS_ROOT
cd "$d" || exit 1
# pack leaves wickfs's state out, so its archives unpack again.
wf pack --output "$d/ws.tgz" "$d/ws"
check_true journal.pack.leaves_out "a .wickfs entry was packed" sh -c "! tar -tzf '$d/ws.tgz' | grep -q wickfs"
rm -rf "$d/ws3" && mkdir "$d/ws3"
wf unpack --input "$d/ws.tgz" "$d/ws3"
check_match journal.pack.round_trip '{"ok":true,*' "$OUT"

# A store that cannot be made says why (it said "no such file").
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	fresh
	chmod 755 "$d" "$d/ws"
	chmod 755 "$TEST_TMP"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WICKFS" snapshot "$d/ws" 2>&1)
	check_match journal.store.permission_cause '*snapshot*/ws/.wickfs/snapshots: permission denied*' "$out"
else
	skip journal.store.permission_cause "needs root and setpriv to run as another user"
fi
