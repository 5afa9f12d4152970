#!/usr/bin/env bash
# Injection smoke test: the binary alone in an otherwise empty root (no
# shell, no libc, no /proc, no /dev) runs every applet but exec, and exec
# says clearly that there is no shell.
. "$(dirname "$0")/lib.sh"

root=$TEST_TMP/root
mkdir -p "$root/work/sub"
cp "$WICKFS" "$root/wickfs"
chmod 755 "$root/wickfs"
printf 'hello needle\n' >"$root/work/a.txt"
printf 'needle deep\n' >"$root/work/sub/b.txt"

# How to enter it: chroot as root, else in a user namespace.
enter=()
if [ "$(id -u)" = 0 ] && chroot "$root" /wickfs --version >/dev/null 2>&1; then
	enter=(chroot "$root")
elif unshare -r chroot "$root" /wickfs --version >/dev/null 2>&1; then
	enter=(unshare -r chroot "$root")
else
	skip inject.empty_root "neither chroot (as root) nor unshare -r chroot works here"
	exit 0
fi
pass inject.enter

# run NAME STDIN EXPECTED ARGS...: one applet inside the empty root.
run() {
	local name=$1 in=$2 want=$3 out rc
	shift 3
	out=$(printf '%s' "$in" | timeout -k 2 30 "${enter[@]}" /wickfs "$@" 2>"$TEST_TMP/inject.err")
	rc=$?
	if [ "$out" == "$want" ] && [ "$rc" = 0 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc, stdout $(show "$out") want $(show "$want"); stderr $(show "$(cat "$TEST_TMP/inject.err")")"
	fi
}

run inject.ls "" '{"ok":true,"data":[{"name":"a.txt","type":"file","size":13},{"name":"sub","type":"dir","size":'"$(stat -c %s "$root/work/sub")"'}]}' ls /work
run inject.read "" '{"ok":true,"data":"hello needle\n"}' read /work/a.txt
run inject.write "new file" '{"ok":true,"data":{"path":"/work/new/c.txt","bytes_written":8}}' write /work/new/c.txt
check inject.write.content "new file" "$(cat "$root/work/new/c.txt" 2>/dev/null)"
run inject.edit '{"old_text":"hello","new_text":"bye"}' '{"ok":true,"data":{"path":"/work/a.txt","replacements":1}}' edit /work/a.txt
check inject.edit.content "bye needle" "$(cat "$root/work/a.txt")"
run inject.grep "" '{"ok":true,"data":{"matches":[{"file":"/work/a.txt","line":1,"text":"bye needle"},{"file":"/work/sub/b.txt","line":1,"text":"needle deep"}],"truncated":false}}' grep needle /work
run inject.glob "" '{"ok":true,"data":{"files":["/work/a.txt","/work/new/c.txt","/work/sub/b.txt"],"truncated":false}}' glob '*.txt' /work
run inject.ls_root "" '{"ok":true,"data":[{"name":"wickfs","type":"file","size":'"$(stat -c %s "$root/wickfs")"'},{"name":"work","type":"dir","size":'"$(stat -c %s "$root/work")"'}]}' ls /
check inject.no_temp_files "a.txt new sub" "$(ls -A "$root/work" | tr '\n' ' ' | sed 's/ $//')"

# exec: no /bin/sh here. A clear error envelope, not a crash or a hang.
out=$(timeout -k 2 30 "${enter[@]}" /wickfs exec 'echo hi' </dev/null 2>"$TEST_TMP/inject.err")
rc=$?
case $out in
'{"ok":false,"error":"'*'"}')
	msg=${out#'{"ok":false,"error":"'}
	msg=${msg%'"}'}
	check_match inject.exec_no_shell.message "failed to execute: */bin/sh*" "$msg"
	check inject.exec_no_shell.exit 1 "$rc"
	;;
*)
	fail inject.exec_no_shell "exit $rc, stdout $(show "$out"), want an error envelope naming the missing shell; stderr $(show "$(cat "$TEST_TMP/inject.err")")"
	;;
esac
