#!/usr/bin/env bash
# apply-patch: the format's own examples (add, delete, update, move, @@
# anchors, End of File, fuzzy whitespace), malformed patches (each error
# names the patch line), all files or none, and a kill at any instant.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/apply_patch
mkdir -p "$d"
cd "$d" || exit 1

ap() { wf_in "$1" apply-patch; }
no_temps() { [ -z "$(find . -name '.wickfs-tmp-*')" ]; }

# The format's example: add, update with an anchor, delete, in one patch.
printf 'def greet():\n    print("Hi")\n\ndef bye():\n    print("Bye")\n' >hello.py
printf 'obsolete\n' >old.txt
ap '*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Update File: hello.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: old.txt
*** End Patch
'
check apply.example '{"ok":true,"data":{"files":[{"op":"add","path":"docs/new.md"},{"op":"update","path":"hello.py"},{"op":"delete","path":"old.txt"}]}}' "${OUT%$'\n'}"
check apply.example.add $'# New\n\ntext' "$(cat docs/new.md)"
check apply.example.update $'def greet():\n    print("Hello, world!")\n\ndef bye():\n    print("Bye")' "$(cat hello.py)"
check_true apply.example.delete "old.txt still there" test ! -e old.txt

# Move to, with a change; mode kept.
chmod 751 hello.py
ap '*** Begin Patch
*** Update File: hello.py
*** Move to: src/hello.py
@@ def bye():
-    print("Bye")
+    print("Goodbye")
*** End Patch
'
check apply.move '{"ok":true,"data":{"files":[{"op":"update","path":"hello.py","move_to":"src/hello.py"}]}}' "${OUT%$'\n'}"
check_true apply.move.source_gone "hello.py still there" test ! -e hello.py
check apply.move.content '    print("Goodbye")' "$(tail -1 src/hello.py)"
check apply.move.mode 751 "$(stat -c %a src/hello.py)"

# Several hunks, the first without an anchor; End of File; context that
# differs only in whitespace; CRLF kept.
seq 1 20 >n
ap '*** Begin Patch
*** Update File: n
@@
 2
-3
+three
 4
@@
 18
 19
-20
+twenty
*** End of File
*** End Patch
'
check_match apply.hunks '{"ok":true*' "$OUT"
check apply.hunks.content "1 2 three 4" "$(head -4 n | tr '\n' ' ' | sed 's/ $//')"
check apply.eof.content twenty "$(tail -1 n)"
printf 'a  \n\tb\n' >ws
ap $'*** Begin Patch\n*** Update File: ws\n@@\n a\n-b\n+B\n*** End Patch\n'
check apply.fuzzy_whitespace $'a  \nB' "$(cat ws)"
printf 'x\r\ny\r\n' >crlf
ap $'*** Begin Patch\n*** Update File: crlf\n@@\n-x\n+X\n y\n*** End Patch\n'
check_true apply.crlf_kept "got $(od -c crlf | head -2)" cmp -s crlf <(printf 'X\r\ny\r\n')

# All or none: the second file fails, the first is not changed, no temp
# file is left, no file is added.
printf 'keep1\n' >k1
printf 'keep2\n' >k2
ap '*** Begin Patch
*** Update File: k1
@@
-keep1
+changed
*** Add File: added.txt
+new
*** Update File: k2
@@
-nothere
+x
*** End Patch
'
check_match apply.atomic.error '*"ok":false*"patch line 8: apply-patch k2: hunk 1 (patch line 9): *' "$OUT"
check apply.atomic.k1 keep1 "$(cat k1)"
check apply.atomic.k2 keep2 "$(cat k2)"
check_true apply.atomic.no_add "added.txt exists" test ! -e added.txt
check_true apply.atomic.no_temps "temps left: $(find . -name '.wickfs-tmp-*')" no_temps

# File errors name the patch line and the file.
ap $'*** Begin Patch\n*** Update File: missing\n@@\n-a\n+b\n*** End Patch\n'
check_match apply.missing_update '*"patch line 2: apply-patch missing: no such file or directory"*' "$OUT"
ap $'*** Begin Patch\n*** Delete File: missing\n*** End Patch\n'
check_match apply.missing_delete '*"patch line 2: apply-patch missing: no such file or directory"*' "$OUT"
ap $'*** Begin Patch\n*** Update File: k1\n@@\n-keep1\n+a\n*** Delete File: k1\n*** End Patch\n'
check_match apply.twice '*patch line 6: apply-patch k1: the patch names this file twice*' "$OUT"
check apply.twice.untouched keep1 "$(cat k1)"
mkdir -p adir
ap $'*** Begin Patch\n*** Update File: adir\n@@\n-a\n+b\n*** End Patch\n'
check_match apply.directory '*"ok":false*patch line 2*adir*' "$OUT"

# Malformed patches: each error names the line.
bad() { # NAME PATCH NEEDLE
	ap "$2"
	check_match "apply.malformed.$1" "*\"ok\":false,\"error\":\"apply-patch: $3" "$OUT"
}
bad empty '' 'patch line 1*'
bad no_begin $'*** Update File: k1\n*** End Patch\n' 'patch line 1*'
bad no_end $'*** Begin Patch\n*** Delete File: k1\n' 'patch line *'
bad bad_header $'*** Begin Patch\n*** Frob File: k1\n*** End Patch\n' 'patch line 2*'
bad bad_hunk_line $'*** Begin Patch\n*** Update File: k1\n@@\nfoo\n*** End Patch\n' 'patch line 4*'
bad add_no_plus $'*** Begin Patch\n*** Add File: z\nno plus\n*** End Patch\n' 'patch line 3*'
bad update_no_hunk $'*** Begin Patch\n*** Update File: k1\n*** End Patch\n' 'patch line *'
bad empty_path $'*** Begin Patch\n*** Delete File: \n*** End Patch\n' 'patch line 2*'
check apply.malformed.untouched keep1 "$(cat k1)"
ap $'*** Begin Patch\n*** Update File: k1\n@@\n-zzz\n+y\n*** End Patch\n'
check_match apply.context_not_found '*"error":"patch line 2: apply-patch k1: hunk 1 (patch line 3): *zzz*' "$OUT"
expect_error apply.extra_arg "usage: wickfs apply-patch*" apply-patch x

# A kill -9 at any instant: each file is old or new, never a mix.
seq 1 300000 >big1.old
seq 1 300000 >big2.old
sed 's/^1$/one/' big1.old >big1.new
sed 's/^1$/one/' big2.old >big2.new
p=$'*** Begin Patch\n*** Update File: big1\n@@\n-1\n+one\n 2\n*** Update File: big2\n@@\n-1\n+one\n 2\n*** End Patch\n'
bad=0
for ((i = 0; i < 30; i++)); do
	cp big1.old big1
	cp big2.old big2
	printf '%s' "$p" | "$WICKFS" apply-patch >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((i % 10))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	for f in big1 big2; do
		cmp -s $f $f.old || cmp -s $f $f.new || bad=$((bad + 1))
	done
	find . -name '.wickfs-tmp-*' -delete
done
check apply.kill_any_instant.whole 0 "$bad"
printf '%s' "$p" | "$WICKFS" apply-patch >/dev/null
check_true apply.kill_any_instant.new "not the new content" cmp -s big1 big1.new

# Concurrent apply-patch and edit of one file lose nothing.
: >conc
for ((i = 10; i < 30; i++)); do printf 'a%d\ne%d\n' "$i" "$i" >>conc; done
pids=()
for ((i = 10; i < 30; i++)); do
	printf '*** Begin Patch\n*** Update File: conc\n@@\n-a%d\n+A%d\n*** End Patch\n' "$i" "$i" |
		"$WICKFS" apply-patch >"out.a$i" &
	pids+=($!)
	"$WICKFS" edit conc <<<"{\"old_text\":\"e$i\n\",\"new_text\":\"E$i\n\"}" >"out.e$i" &
	pids+=($!)
done
wait "${pids[@]}"
check apply.concurrent.patches 20 "$(grep -c '^A' conc)"
check apply.concurrent.edits 20 "$(grep -c '^E' conc)"
check apply.concurrent.answers 40 "$(cat out.* | grep -c '"ok":true')"

# WICKFS_READONLY refuses it, nothing changes (patch.readonly.apply, once
# in t_patch.sh).
mkdir -p "$TEST_TMP/apply_ro"
printf 'kept\n' >"$TEST_TMP/apply_ro/all"
(cd "$TEST_TMP/apply_ro" &&
	WICKFS_READONLY=1 "$WICKFS" apply-patch <<<$'*** Begin Patch\n*** Delete File: all\n*** End Patch' >out)
check_match patch.readonly.apply '*apply-patch: refused, WICKFS_READONLY is set*' "$(cat "$TEST_TMP/apply_ro/out")"

# The daemon's native op and cmd form give the CLI's bytes (the
# patch.daemon.* names of t_patch.sh, where this was).
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
dm=$TEST_TMP/apply_patch_daemon
mkdir -p "$dm"
if daemon_start "$dm/daemon.log" --listen off --socket "$dm/d.sock"; then
	printf 'one\ntwo\nthree\n' >"$dm/daemon_f.orig"
	reset="cp '$dm/daemon_f.orig' '$dm/daemon_f'"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.apply_patch "$reset" "*** Begin Patch
*** Update File: $dm/daemon_f
@@
-two
+2
*** End Patch
" apply-patch
	daemon_stop
else
	fail patch.daemon.start "$(cat "$dm/daemon.log")"
fi
