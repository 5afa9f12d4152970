#!/usr/bin/env bash
# diff: unified text as GNU diff -u prints it, counts, --json, --stdin,
# errors, and the daemon's native op giving the CLI's bytes.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/diff
mkdir -p "$d"
cd "$d" || exit 1

seq 1 40 >a
sed 's/^5$/five/; s/^30$/thirty/; /^20$/d' a >b
# The hunks of GNU diff -u, when it is here, are ours byte for byte.
if command -v diff >/dev/null && diff --version 2>/dev/null | grep -q GNU; then
	want=$(printf -- '--- a\n+++ b\n'; diff -u a b | tail -n +3; echo .)
	want=${want%.}
	expect diff.gnu_bytes 0 "{\"ok\":true,\"data\":{\"diff\":$(jstr "$want"),\"added\":2,\"removed\":3}}" diff a b
	seq 1 3000 | awk '{print ($0 % 97 == 0) ? "x" $0 : $0}' >big_a
	seq 1 3000 | awk '{print ($0 % 89 == 0) ? "y" $0 : $0}' >big_b
	want=$(printf -- '--- big_a\n+++ big_b\n'; diff -u big_a big_b | tail -n +3; echo .)
	want=${want%.}
	wf diff big_a big_b
	got=$(printf '%b' "$(sed 's/^{"ok":true,"data":{"diff":"//; s/","added".*//' "$_wf_out")"; echo .)
	check diff.gnu_bytes_big "$want" "${got%.}"
else
	skip diff.gnu_bytes "no GNU diff here"
fi
expect diff.same 0 '{"ok":true,"data":{"diff":"","added":0,"removed":0}}' diff a a
cp a a2
expect diff.identical_files 0 '{"ok":true,"data":{"diff":"","added":0,"removed":0}}' diff a a2
printf 'x\n' >nl
printf 'x' >nonl
expect diff.no_newline 0 '{"ok":true,"data":{"diff":"--- nl\n+++ nonl\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n","added":1,"removed":1}}' diff nl nonl
: >empty
expect diff.from_empty 0 '{"ok":true,"data":{"diff":"--- empty\n+++ nl\n@@ -0,0 +1 @@\n+x\n","added":1,"removed":0}}' diff empty nl

# --stdin: the file against new content.
expect_in diff.stdin $'y\n' 0 '{"ok":true,"data":{"diff":"--- nl\n+++ nl\n@@ -1 +1 @@\n-x\n+y\n","added":1,"removed":1}}' diff --stdin nl
wf_in "$(printf 'x\n')" diff --stdin nonl
check diff.stdin_same_text '{"ok":true,"data":{"diff":"","added":0,"removed":0}}' "${OUT%$'\n'}"
expect_in diff.stdin_equal_nl "$(cat a)
" 0 '{"ok":true,"data":{"diff":"","added":0,"removed":0}}' diff --stdin a

# --json: hunks as data.
expect diff.json 0 '{"ok":true,"data":{"added":1,"removed":1,"hunks":[{"old_start":1,"old_lines":1,"new_start":1,"new_lines":1,"lines":["-x","+x","\\ No newline at end of file"]}]}}' diff --json nl nonl
expect diff.json_same 0 '{"ok":true,"data":{"added":0,"removed":0,"hunks":[]}}' diff --json a a
wf diff --json a b
check_match diff.json_two_hunks '*"hunks":\[{"old_start":2,*},{"old_start":17,*},{"old_start":27,*}\]}}*' "$OUT"

# Errors name the path.
expect_error diff.missing_a "*nope: no such file or directory" diff nope a
expect_error diff.missing_b "*nope*no such file or directory" diff a nope
expect_error diff.stdin_missing "*nope*no such file or directory" diff --stdin nope
expect_error diff.dir "*" diff . a
expect_error diff.stdin_two "give two files, or --stdin and one file" diff --stdin a b
expect_error diff.one_file "give two files, or --stdin and one file" diff a
expect_error diff.no_args "usage: wickfs diff*" diff
expect_error diff.bad_option "diff: unknown option --frob (wickfs help diff)" diff --frob a b

# Under a root, outside files are refused.
mkdir -p root/in
printf 'x\n' >root/in/f
ln -s "$d/a" root/in/out
WICKFS_ROOT=$d/root wf diff in/f in/out
check_match diff.root_refuses_link_out '*"ok":false*outside the workspace root*' "$OUT"
WICKFS_ROOT=$d/root wf diff in/f /etc/passwd
check_match diff.root_refuses_absolute '*"ok":false*outside the workspace root*' "$OUT"

# The daemon's native op and cmd form give the CLI's bytes (the
# patch.daemon.* names of t_patch.sh, where this was).
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
dm=$TEST_TMP/diff_daemon
mkdir -p "$dm"
if daemon_start "$dm/daemon.log" --listen off --socket "$dm/d.sock"; then
	printf 'one\ntwo\nthree\n' >"$dm/daemon_f.orig"
	reset="cp '$dm/daemon_f.orig' '$dm/daemon_f'"
	printf 'one\nTWO\nthree\n' >"$dm/daemon_g"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.diff "$reset" "" \
		diff "$dm/daemon_f" "$dm/daemon_g"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.diff_json "$reset" "" \
		diff --json "$dm/daemon_f" "$dm/daemon_g"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.diff_stdin "$reset" $'one\n2\n' \
		diff --stdin "$dm/daemon_f"
	daemon_stop
else
	fail patch.daemon.start "$(cat "$dm/daemon.log")"
fi
