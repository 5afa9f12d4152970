#!/usr/bin/env bash
# patch: all-or-nothing edits, errors naming the hunk, the kept line ends,
# readonly and root, a kill at any instant, concurrent edits and patches;
# and the daemon's native op and cmd form giving the CLI's bytes. (The
# other text applets' checks of that kind, and edit --insert-line's and
# apply-patch's under WICKFS_READONLY, are in their own scripts.)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/patch
mkdir -p "$d"
cd "$d" || exit 1

ok_patch() { printf '{"ok":true,"data":{"path":"%s","hunks":%s}}' "$1" "$2"; }

printf 'alpha\nbeta\ngamma\n' >f
expect_in patch.two '[{"old_text":"alpha","new_text":"A"},{"OLD_TEXT":"gamma\n","New_Text":"G\n"}]' 0 "$(ok_patch f 2)" patch f
check patch.two.content $'A\nbeta\nG' "$(cat f)"
expect_in patch.chained '[{"old_text":"beta","new_text":"B1"},{"old_text":"B1","new_text":"B2"}]' 0 "$(ok_patch f 2)" patch f
check patch.chained.content $'A\nB2\nG' "$(cat f)"
expect_in patch.delete '[{"old_text":"B2\n"}]' 0 "$(ok_patch f 1)" patch f
check patch.delete.content $'A\nG' "$(cat f)"
chmod 640 f
expect_in patch.mode_kept '[{"old_text":"A","new_text":"a"}]' 0 "$(ok_patch f 1)" patch f
check patch.mode_kept.mode 640 "$(stat -c %a f)"

# CRLF, BOM and no final newline survive.
printf '\xef\xbb\xbfone\r\ntwo\r\nthree' >crlf
expect_in patch.crlf '[{"old_text":"one\ntwo\n","new_text":"1\n2\n"}]' 0 "$(ok_patch crlf 1)" patch crlf
check_true patch.crlf.content "got $(od -c crlf | head -2)" cmp -s crlf <(printf '\xef\xbb\xbf1\r\n2\r\nthree')

# All or nothing: a failing hunk changes nothing and is named.
printf 'x1\nx2\nx1\n' >all
cp all all.orig
expect_error_in patch.not_found '[{"old_text":"x2","new_text":"y"},{"old_text":"zz","new_text":"y"}]' \
	"patch all: hunk 2: old_text not found*" patch all
check_true patch.not_found.untouched "changed" cmp -s all all.orig
expect_error_in patch.ambiguous '[{"old_text":"x1","new_text":"y"}]' "patch all: hunk 1: old_text occurs 2 times (lines 1 and 3*" patch all
expect_error_in patch.same '[{"old_text":"x2","new_text":"x2"}]' "patch all: hunk 1: old_text and new_text are the same" patch all
expect_error_in patch.empty_old '[{"old_text":"x2","new_text":"q"},{"new_text":"q"}]' "patch all: hunk 2: old_text is empty" patch all
printf '  def  f(a):\n    return a\n' >ws
expect_error_in patch.closest '[{"old_text":"def f(a):\n  return  a\n","new_text":"x"}]' \
	"patch ws: hunk 1: old_text not found*closest match ignoring whitespace: lines 1-2*" patch ws
printf 'a\r\nb\r\n' >crlf2
expect_error_in patch.crlf_hint '[{"old_text":"zzz","new_text":"x"}]' "*CRLF*" patch crlf2
check_true patch.errors.untouched "changed" cmp -s all all.orig
expect_error_in patch.no_hunks '[]' "patch all: no hunks*" patch all
for c in 'garbage:nope' 'object:{"old_text":"x1"}' 'not_object:["x1"]' 'number:[{"old_text":1}]' 'empty:'; do
	expect_error_in "patch.invalid_json.${c%%:*}" "${c#*:}" "invalid JSON input*" patch all
done
expect_error_in patch.missing '[{"old_text":"a","new_text":"b"}]' "patch nope: no such file or directory" patch nope
mkdir -p dir
expect_error_in patch.directory '[{"old_text":"a","new_text":"b"}]' "patch dir*" patch dir
expect_error patch.no_path "usage: wickfs patch*" patch
check_true patch.errors.untouched2 "changed" cmp -s all all.orig

# WICKFS_READONLY refuses patch; nothing changes.
WICKFS_READONLY=1 wf_in '[{"old_text":"x2","new_text":"y"}]' patch all
check patch.readonly.patch '{"ok":false,"error":"patch all: refused, WICKFS_READONLY is set"}' "${OUT%$'\n'}"
check_true patch.readonly.untouched "changed" cmp -s all all.orig

# Under a root: a link out is refused, the outside file untouched.
mkdir -p root/in outside
printf 'secret\n' >outside/s
ln -s "$d/outside/s" root/in/link
cd root || exit 1
WICKFS_ROOT=$d/root wf_in '[{"old_text":"secret","new_text":"gone"}]' patch in/link
check_match patch.root.link_out '*"ok":false*outside the workspace root*' "$OUT"
WICKFS_ROOT=$d/root wf_in '[{"old_text":"secret","new_text":"gone"}]' patch ../outside/s
WICKFS_ROOT=$d/root wf_in $'*** Begin Patch\n*** Update File: in/link\n@@\n-secret\n+gone\n*** End Patch\n' apply-patch
check_match patch.root.apply_link_out '*"ok":false*patch line 2: *outside the workspace root*' "$OUT"
WICKFS_ROOT=$d/root wf_in $'*** Begin Patch\n*** Add File: ../outside/new\n+x\n*** End Patch\n' apply-patch
check_match patch.root.apply_add_out '*"ok":false*patch line 2: *outside the workspace root*' "$OUT"
check_true patch.root.apply_add_out.none "made outside" test ! -e ../outside/new
check_match patch.root.dotdot '*"ok":false*outside the workspace root*' "$OUT"
check patch.root.untouched secret "$(cat ../outside/s)"
printf 'in\n' >in/f
WICKFS_ROOT=$d/root wf_in '[{"old_text":"in","new_text":"done"}]' patch in/f
check patch.root.inside done "$(cat in/f)"
cd "$d" || exit 1

# A kill -9 at any instant leaves the old or the new content, never a mix.
seq 1 400000 >big.old
sed 's/^1$/first/; s/^400000$/last/' big.old >big.new
bad=0
for ((i = 0; i < 30; i++)); do
	cp big.old big
	"$WICKFS" patch big <<<'[{"old_text":"1\n2\n","new_text":"first\n2\n"},{"old_text":"\n400000\n","new_text":"\nlast\n"}]' >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((i % 10))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	cmp -s big big.old || cmp -s big big.new || bad=$((bad + 1))
done
check patch.kill_any_instant.whole 0 "$bad"
# (the last one, unkilled, lands)
cp big.old big
"$WICKFS" patch big <<<'[{"old_text":"1\n2\n","new_text":"first\n2\n"},{"old_text":"\n400000\n","new_text":"\nlast\n"}]' >/dev/null
check_true patch.kill_any_instant.new "not the new content" cmp -s big big.new

# Concurrent edits, patches and inserts from separate processes lose none.
: >conc
for ((i = 10; i < 40; i++)); do printf 'e%d\np%d\n' "$i" "$i" >>conc; done
pids=()
for ((i = 10; i < 40; i++)); do
	"$WICKFS" edit conc <<<"{\"old_text\":\"e$i\n\",\"new_text\":\"E$i\n\"}" >"out.e$i" &
	pids+=($!)
	"$WICKFS" patch conc <<<"[{\"old_text\":\"p$i\n\",\"new_text\":\"P$i\n\"}]" >"out.p$i" &
	pids+=($!)
done
for ((i = 0; i < 10; i++)); do
	"$WICKFS" edit --insert-line 0 conc <<<"{\"new_text\":\"top$i\"}" >"out.t$i" &
	pids+=($!)
done
wait "${pids[@]}"
check patch.concurrent.edits 30 "$(grep -c '^E' conc)"
check patch.concurrent.patches 30 "$(grep -c '^P' conc)"
check patch.concurrent.inserts 10 "$(grep -c '^top' conc)"
check patch.concurrent.lines 70 "$(wc -l <conc)"
check patch.concurrent.answers 70 "$(cat out.* | grep -c '"ok":true')"

# The daemon: native op and cmd form give the CLI's bytes.
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
if daemon_start "$d/daemon.log" --listen off --socket "$d/d.sock"; then
	printf 'one\ntwo\nthree\n' >daemon_f.orig
	reset="cp '$d/daemon_f.orig' '$d/daemon_f'"
	same_via_daemon "unix:$d/d.sock" patch.daemon.patch "$reset" \
		'[{"old_text":"two","new_text":"2"}]' patch "$d/daemon_f"
	same_via_daemon "unix:$d/d.sock" patch.daemon.patch_error "$reset" \
		'[{"old_text":"zzz","new_text":"2"}]' patch "$d/daemon_f"
	daemon_stop
else
	fail patch.daemon.start "$(cat "$d/daemon.log")"
fi
