#!/usr/bin/env bash
# client: one timeout shape. `wickfs client --timeout S exec CMD` answers
# as `wickfs exec --timeout S CMD` does (ok, exit_code 124, timed_out, the
# output so far), not as a failed request; other applets keep the
# request's timeout.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/client
mkdir -p "$d"
cd "$d" || exit 1
sock=$d/d.sock
trap kill_pids EXIT
if ! daemon_start "$d/daemon.log" --listen off --socket "$sock"; then
	fail client.daemon_up "no socket: $(cat "$d/daemon.log")"
	exit 0
fi

want='{"ok":true,"data":{"stdout":"part\n","stderr":"","exit_code":124,"timed_out":true}}'
wf exec --timeout 1 'echo part; sleep 5'
check client.exec_cli_shape "$want"$'\n' "$OUT"
wf client --connect "unix:$sock" --timeout 1 exec 'echo part; sleep 5'
check client.exec_timeout_shape "$want"$'\n' "$OUT"
check client.exec_timeout_rc 0 "$RC"
expect client.exec_plain 0 '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' \
	client --connect "unix:$sock" exec 'echo hi'
# exec's own --timeout given: sent as it is
wf client --connect "unix:$sock" exec --timeout 1 'echo part; sleep 5'
check client.exec_own_timeout "$want"$'\n' "$OUT"
# the words stay literal: a quote in the command survives the --timeout
expect client.exec_quoting 0 '{"ok":true,"data":{"stdout":"it'"'"'s\n","stderr":"","exit_code":0}}' \
	client --connect "unix:$sock" --timeout 5 exec "echo \"it's\""

# A native write without "stdin" is refused, not taken as empty (the file
# keeps its content); "" still empties.
echo keep >"$d/keep.txt"
wf client --connect "unix:$sock" --raw '{"id":"1","op":"write","args":["'"$d"'/keep.txt"]}'
check client.native_write_needs_stdin '{"id":"1","ok":false,"error":"write: field \"stdin\" is missing: it is the input (\"\" for none); refused rather than taken as empty"}'$'\n' "$OUT"
check client.native_write_kept "keep" "$(cat "$d/keep.txt")"
wf client --connect "unix:$sock" --raw '{"id":"2","op":"write","args":["'"$d"'/keep.txt"],"stdin":""}'
check client.native_write_empty '{"id":"2","ok":true,"data":{"path":"'"$d"'/keep.txt","bytes_written":0}}'$'\n' "$OUT"
wf client --connect "unix:$sock" --raw '{"id":"3","op":"edit","args":["'"$d"'/keep.txt"]}'
check_match client.native_edit_needs_stdin '*edit: field ?"stdin?" is missing*' "$OUT"
