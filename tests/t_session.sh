#!/usr/bin/env bash
# session: "session":NAME on exec and start keeps the working directory
# and the exported variables from one command to the next (issue 24),
# the ops session and session_close, confinement of the kept directory.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/session
mkdir -p "$d/ws/sub" "$d/plain/sub"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT

if ! daemon_start "$d/root.log" --root "$d/ws" --listen off --socket "$d/root.sock"; then
	fail session.start "the daemon did not start: $(show "$(cat "$d/root.log")")"
	exit 0
fi
ROOTD=$DPID
# One request line; its answer.
rq() { with_timeout 30 "$WICKFS" client --connect "unix:$d/root.sock" --raw "$1"; }
ws=$(cd "$d/ws" && pwd -P)
dirs() { ls -d /tmp/wickfs-sessions-* 2>/dev/null; }
dirs >"$d/dirs.before"

check session.cd_kept '{"id":"1","ok":true,"data":{"stdout":"","stderr":"","exit_code":0}}' \
	"$(rq '{"id":"1","op":"exec","session":"s1","args":["cd sub && export FOO=bar SP='"'a b'"' NL='"'x\\ny'"'"]}')"
# the state directory this daemon made (others may run beside it)
dir=$(dirs | grep -vxF -f "$d/dirs.before")
check session.next_command_there "{\"id\":\"2\",\"ok\":true,\"data\":{\"stdout\":\"$ws/sub\\nbar|a b|x\\ny\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(rq '{"id":"2","op":"exec","session":"s1","args":["pwd; printf \"%s|%s|%s\\n\" \"$FOO\" \"$SP\" \"$NL\""]}')"
shown=$(rq '{"id":"3","op":"session","session":"s1"}')
check_match session.show "{\"id\":\"3\",\"ok\":true,\"data\":{\"session\":\"s1\",\"cwd\":\"$ws/sub\",\"env\":{*}}}" "$shown"
check_match session.show_env_foo '*"FOO":"bar"*' "$shown"
check_match session.show_env_space '*"SP":"a b"*' "$shown"
check_match session.show_env_newline '*"NL":"x\\ny"*' "$shown"
# the exit status is the command's, and what it did before exiting is kept
check session.status_kept '{"id":"4","ok":true,"data":{"stdout":"","stderr":"","exit_code":3}}' \
	"$(rq '{"id":"4","op":"exec","session":"s1","args":["export LAST=three; exit 3"]}')"
check session.after_exit '{"id":"5","ok":true,"data":{"stdout":"three\n","stderr":"","exit_code":0}}' \
	"$(rq '{"id":"5","op":"exec","session":"s1","args":["echo $LAST"]}')"
# a request's own env wins over the session's for that command
check session.request_env_wins '{"id":"6","ok":true,"data":{"stdout":"mine\n","stderr":"","exit_code":0}}' \
	"$(rq '{"id":"6","op":"exec","session":"s1","env":{"LAST":"mine"},"args":["echo $LAST"]}')"
# a background process of the session hands its state back when it ends
rq '{"id":"7","op":"start","session":"s1","tag":"b","args":["cd ..; export BG=done"]}' >/dev/null
rq '{"id":"8","op":"wait","tag":"b","timeout":20}' >/dev/null
check session.start_kept "{\"id\":\"9\",\"ok\":true,\"data\":{\"stdout\":\"$ws done\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(rq '{"id":"9","op":"exec","session":"s1","args":["echo $(pwd) $BG"]}')"
check_match session.start_shows_command '*"command":"cd ..; export BG=done"*' \
	"$(rq '{"id":"10","op":"list"}')"
# a command killed (its timeout) changes nothing
rq '{"id":"11","op":"exec","session":"s1","timeout":1,"args":["cd sub; export BG=killed; sleep 20"]}' >/dev/null
check session.killed_changes_nothing "{\"id\":\"12\",\"ok\":true,\"data\":{\"stdout\":\"$ws done\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(rq '{"id":"12","op":"exec","session":"s1","args":["echo $(pwd) $BG"]}')"
# a directory outside the root is not kept
rq '{"id":"13","op":"exec","session":"s1","args":["cd /"]}' >/dev/null
check session.outside_root_not_kept "{\"id\":\"14\",\"ok\":true,\"data\":{\"stdout\":\"$ws\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(rq '{"id":"14","op":"exec","session":"s1","args":["pwd"]}')"
# sessions are separate; a new one starts where any command does
check session.separate "{\"id\":\"15\",\"ok\":true,\"data\":{\"stdout\":\"$ws|\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
	"$(rq '{"id":"15","op":"exec","session":"s2","args":["echo \"$(pwd)|$FOO\""]}')"
check_match session.close '{"id":"16","ok":true,"data":{"session":"s1",*}}' \
	"$(rq '{"id":"16","op":"session_close","session":"s1"}')"
check session.closed_gone '{"id":"17","ok":false,"error":"session: no such session (its name in \"session\")"}' \
	"$(rq '{"id":"17","op":"session","session":"s1"}')"
check session.bad_name '{"id":"18","ok":false,"error":"session: a name of 1 to 64 letters, digits, '"'_', '-' or '.'"' (not first)"}' \
	"$(rq '{"id":"18","op":"exec","session":"../x","args":["true"]}')"
# at most 64 sessions: the next is refused by name of the limit
for i in $(seq 2 64); do
	printf '{"id":"l%s","op":"exec","session":"n%s","args":["true"]}\n' "$i" "$i"
done | with_timeout 60 "$WICKFS" client --connect "unix:$d/root.sock" --raw >/dev/null
check session.limit '{"id":"19","ok":false,"error":"session: 64 sessions are open, the daemon'"'"'s limit (end one with session_close)"}' \
	"$(rq '{"id":"19","op":"exec","session":"one-more","args":["true"]}')"
daemon_stop "$ROOTD"
if [ "$(printf '%s\n' "$dir" | grep -c .)" = 1 ]; then
	check session.state_dir_removed "gone" "$([ -e "$dir" ] && echo "left: $dir" || echo gone)"
else
	skip session.state_dir_removed "another daemon made a state directory at the same time"
fi

# without a root, the file ops of a session run in its directory
if daemon_start "$d/plain.log" --listen off --socket "$d/plain.sock"; then
	pq() { with_timeout 30 "$WICKFS" client --connect "unix:$d/plain.sock" --raw "$1"; }
	pq "{\"id\":\"1\",\"op\":\"exec\",\"session\":\"p\",\"args\":[\"cd $d/plain/sub\"]}" >/dev/null
	pq '{"id":"2","op":"write","session":"p","args":["here.txt"],"stdin":"x"}' >/dev/null
	check session.file_ops_in_dir "x" "$(cat "$d/plain/sub/here.txt" 2>/dev/null)"
	# the client's --session: any applet in our form, in the session
	cs() { with_timeout 30 "$WICKFS" "$@"; }
	export DAEMON_CONNECT="unix:$d/plain.sock"
	cs client --session c exec "cd $d/plain/sub && export V=kept" >/dev/null
	check session.client_exec "{\"ok\":true,\"data\":{\"stdout\":\"$(cd "$d/plain/sub" && pwd -P) kept\\n\",\"stderr\":\"\",\"exit_code\":0}}" \
		"$(cs client --session c exec 'echo $(pwd) $V')"
	check session.client_ls '{"ok":true,"data":[{"name":"here.txt","type":"file","size":1}]}' \
		"$(cs client --session c ls .)"
	out=$(cs -t client --session c exec 'echo $V; exit 5')
	check session.client_text_status 5 "$?"
	check session.client_text_output kept "$out"
	unset DAEMON_CONNECT
	daemon_stop "$DPID"
else
	fail session.plain_start "$(show "$(cat "$d/plain.log")")"
fi

# What sessions keep counts in the memory budget (--max-memory 2 MiB:
# answers and sessions may hold 1.5 MiB; a 300 KB file's answer takes
# about three times that): eight 110 KB exports (one variable can be at
# most 128 KB, the kernel's limit for one string of an environment) are
# kept and leave too little for the read, a second session's are not
# kept (the log says so), and closing the session gives the room back.
if daemon_start "$d/mem.log" --listen off --socket "$d/mem.sock" --max-memory 2097152; then
	mq() { with_timeout 30 "$WICKFS" client --connect "unix:$d/mem.sock" --raw "$1"; }
	head -c 300000 /dev/zero | tr '\0' y >"$d/plain/300k.txt"
	big='v=$(head -c 110000 /dev/zero | tr \"\\\\0\" x); for i in 1 2 3 4 5 6 7 8; do export BIG$i=$v; done'
	sz='printf %s \"$BIG1$BIG2$BIG3$BIG4$BIG5$BIG6$BIG7$BIG8\" | wc -c'
	mq "{\"id\":\"1\",\"op\":\"exec\",\"session\":\"m1\",\"args\":[\"$big\"]}" >/dev/null
	check session.budget_kept "880000" \
		"$(mq "{\"id\":\"2\",\"op\":\"exec\",\"session\":\"m1\",\"args\":[\"$sz\"]}" |
			sed -n 's/.*"stdout":"\([0-9]*\)\\n".*/\1/p')"
	check_match session.budget_held '*"ok":false*memory budget*' \
		"$(mq "{\"id\":\"3\",\"op\":\"read\",\"args\":[\"$d/plain/300k.txt\"]}" | head -c 600)"
	mq "{\"id\":\"4\",\"op\":\"exec\",\"session\":\"m2\",\"args\":[\"$big\"]}" >/dev/null
	n=$(mq "{\"id\":\"5\",\"op\":\"exec\",\"session\":\"m2\",\"args\":[\"$sz\"]}" |
		sed -n 's/.*"stdout":"\([0-9]*\)\\n".*/\1/p')
	check session.budget_second_cut 1 "$([ -n "$n" ] && [ "$n" -lt 880000 ] && echo 1 || echo "kept $n")"
	check_match session.budget_logged '*session m2: BIG? not kept: over the memory budget*' "$(cat "$d/mem.log")"
	mq '{"id":"6","op":"session_close","session":"m1"}' >/dev/null
	mq '{"id":"6b","op":"session_close","session":"m2"}' >/dev/null
	check_match session.budget_given_back '{"id":"7","ok":true,*' \
		"$(mq "{\"id\":\"7\",\"op\":\"read\",\"args\":[\"$d/plain/300k.txt\"]}" | head -c 100)"
	daemon_stop "$DPID"
else
	fail session.mem_start "$(show "$(cat "$d/mem.log")")"
fi
