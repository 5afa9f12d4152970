#!/usr/bin/env bash
# exec: PROTOCOL.md section 2 row exec, and our --timeout, --max-output,
# --cwd (the executor the daemon shares).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/exec
mkdir -p "$d"
cd "$d" || exit 1

expect exec.echo 0 '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' exec echo hi
# Options end at the first word: `exec ls -la` style.
expect exec.stop_at_arg 0 '{"ok":true,"data":{"stdout":"x","stderr":"","exit_code":0}}' exec printf -- x
expect exec.joined_words 0 '{"ok":true,"data":{"stdout":"a b\n","stderr":"","exit_code":0}}' exec echo 'a' 'b'
expect exec.shell_syntax 0 '{"ok":true,"data":{"stdout":"2\n","stderr":"","exit_code":0}}' exec 'echo $((1+1)) | cat'
expect exec.fails_ok 0 '{"ok":true,"data":{"stdout":"","stderr":"err\n","exit_code":3}}' exec 'echo err >&2; exit 3'
expect exec.signal 0 '{"ok":true,"data":{"stdout":"","stderr":"","exit_code":-1}}' exec 'kill -9 $$'
expect exec.stdin_devnull 0 '{"ok":true,"data":{"stdout":"","stderr":"","exit_code":0}}' exec cat
expect exec.invalid_utf8 0 '{"ok":true,"data":{"stdout":"\ufffdok","stderr":"","exit_code":0}}' exec "printf '\\377ok'"
expect exec.not_found_127 0 '{"ok":true,"data":{"stdout":"","stderr":"","exit_code":127}}' exec 'no-such-program-xyz 2>/dev/null'
expect_error exec.usage 'usage: wickfs exec' exec

# --cwd
mkdir -p "$d/sub"
expect exec.cwd 0 '{"ok":true,"data":{"stdout":"'"$d"'/sub\n","stderr":"","exit_code":0}}' exec --cwd "$d/sub" pwd
expect_error exec.cwd_missing "chdir $d/nope: no such file or directory" exec --cwd "$d/nope" pwd

# --max-output: the rest is discarded while the command keeps running.
expect exec.max_output 0 '{"ok":true,"data":{"stdout":"1\n2\n3","stderr":"done\n","exit_code":0,"stdout_truncated":true}}' \
	exec --max-output 5 'seq 1 100000; echo done >&2'
expect exec.max_output_stderr 0 '{"ok":true,"data":{"stdout":"ok\n","stderr":"abc","exit_code":0,"stderr_truncated":true}}' \
	exec --max-output 3 'printf abcdef >&2; echo ok'

# --timeout kills the whole group, grandchildren holding the pipes too.
# The answer (exit 124, timed_out) says the timer fired; the outer
# timeout (20 s, under the commands' 30 s) catches a hang.
marker="sleep 30.$$1"
with_timeout 20 "$WICKFS" exec --timeout 1 "$marker & $marker; echo never" >"$d/out" 2>&1
check exec.timeout_result '{"ok":true,"data":{"stdout":"","stderr":"","exit_code":124,"timed_out":true}}' "$(cat "$d/out")"
wait_procs_gone "$marker"
check exec.timeout_no_process_left "" "$(procs_matching "$marker")"

# A grandchild in another session keeps the pipe: we stop waiting anyway.
if command -v setsid >/dev/null; then
	marker2="sleep 30.$$2"
	# 5 s, not 1: a starved machine (or qemu) may not run the echo
	# within a second, and the check is about the output, not the time.
	with_timeout 20 "$WICKFS" exec --timeout 5 "setsid $marker2 & echo started" >"$d/out" 2>&1
	check exec.timeout_escaped_group '{"ok":true,"data":{"stdout":"started\n","stderr":"","exit_code":124,"timed_out":true}}' "$(cat "$d/out")"
	for p in $(procs_matching "$marker2"); do kill "$p" 2>/dev/null; done
else
	skip exec.timeout_escaped_group "no setsid"
fi

# No shell in the image: a clear error, not a hang or a crash.
root=$TEST_TMP/emptyroot
mkdir -p "$root"
cp "$WICKFS" "$root/wickfs"
# Only a static binary runs alone in an empty root (not sanitizer builds).
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null &&
	chroot "$root" /wickfs --version >/dev/null 2>&1; then
	with_timeout 10 chroot "$root" /wickfs exec echo hi >"$d/out" 2>&1
	rc=$?
	check_match exec.no_shell '{"ok":false,"error":"failed to execute: /bin/sh: no such file or directory*"}' "$(cat "$d/out")"
	check exec.no_shell_exit 1 "$rc"
	# A plain command naming a program runs without a shell.
	with_timeout 10 chroot "$root" /wickfs exec /wickfs ls / >"$d/out" 2>&1
	check_true exec.no_shell_direct "got $(show "$(cat "$d/out")")" \
		grep -qF '{"ok":true,"data":{"stdout":"{\"ok\":true,\"data\":[{\"name\":\"wickfs\"' "$d/out"
else
	skip exec.no_shell "needs root, chroot and a static binary"
fi
