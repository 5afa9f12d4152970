#!/usr/bin/env bash
# init: exit status, signals passed on, orphans reaped; as PID 1 of a new
# PID namespace (as root) and as a subreaper elsewhere.
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP
ln -s "$WICKFS" "$t/wickfs-init"

"$WICKFS" init -- sh -c 'exit 7'
check init.exit_status 7 "$?"
"$WICKFS" init sh -c 'kill -KILL $$'
check init.killed_128_plus_signal 137 "$?"
"$WICKFS" init -- no-such-command-here 2>"$t/nf.err"
check init.not_found_127 127 "$?"
check_match init.not_found_names_it "*no-such-command-here*" "$(cat "$t/nf.err")"
"$t/wickfs-init" -- sh -c 'exit 3'
check init.argv0 3 "$?"
check init.no_stdout "" "$("$WICKFS" init -- true)"

# Orphans: each grandchild is left behind by its parent and exits; it is
# reaped when its /proc entry goes away (a zombie keeps it). The command
# polls for that, bounded, and reports what is left.
cat >"$t/orphans.sh" <<'EOF'
# Leave five orphans behind; each records its PID and exits at once.
dir=$1
for i in 1 2 3 4 5; do
	sh -c 'sh -c "echo \$\$ >$0; exit 0" &' "$dir/o$i"
done
left=""
n=0
for i in 1 2 3 4 5; do
	while [ ! -s "$dir/o$i" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
	p=$(cat "$dir/o$i" 2>/dev/null)
	[ -n "$p" ] || { left="$left none$i"; continue; }
	while [ -e /proc/$p ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
	[ -e /proc/$p ] && left="$left $p:$(cut -d" " -f3 /proc/$p/stat)"
done
echo "left:$left"
EOF
orphans=". $t/orphans.sh"
mkdir "$t/sub"
out=$("$WICKFS" init -- sh -c "$orphans" sh "$t/sub")
check init.subreaper_reaps_orphans "left:" "$out"

# Every forwarded signal reaches the command, which records it and exits
# on TERM.
record='
for s in INT HUP QUIT USR1 USR2 WINCH; do trap "echo $s >>$1/got" $s; done
trap "echo TERM >>$1/got; exit 9" TERM
echo $$ >$1/ready
while :; do sleep 0.05; done
'

# forward_to PIDFILE_WAIT INIT_PID DIR: send each signal to init, one at
# a time, waiting for the command to record it.
send_all() {
	local pid=$1 dir=$2 s n
	for s in INT HUP QUIT USR1 USR2 WINCH TERM; do
		kill -"$s" "$pid" 2>/dev/null
		n=0
		until grep -qx "$s" "$dir/got" 2>/dev/null || [ $n -ge 200 ]; do
			sleep 0.05
			n=$((n + 1))
		done
		grep -qx "$s" "$dir/got" 2>/dev/null || return 1
	done
}

# stop_if_stuck PID CMDPID: when PID has not ended (a signal was not passed
# on), kill it and the command by PID, so the wait below cannot hang.
stop_if_stuck() {
	local n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 200 ]; do
		[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ] && break
		sleep 0.05
		n=$((n + 1))
	done
	kill -KILL "$2" 2>/dev/null
}

wait_file() {
	local n=0
	until [ -s "$1" ] || [ $n -ge 200 ]; do sleep 0.05; n=$((n + 1)); done
}

mkdir "$t/sig"
"$WICKFS" init -- sh -c "$record" sh "$t/sig" &
ipid=$!
wait_file "$t/sig/ready"
send_all "$ipid" "$t/sig"
stop_if_stuck "$ipid" "$(cat "$t/sig/ready")"
wait "$ipid"
check init.forwards_signals_exit_9 9 "$?"
check init.forwards_every_signal "INT HUP QUIT USR1 USR2 WINCH TERM" "$(tr '\n' ' ' <"$t/sig/got" | sed 's/ $//')"

# As PID 1 of a PID namespace.
if [ "$(id -u)" != 0 ] || ! unshare -p -f --mount-proc true 2>/dev/null; then
	for c in pid1.is_pid1 pid1.reaps_orphans pid1.forwards_signals pid1.exit pid1.daemon; do
		skip "init.$c" "no PID namespace here (needs root and unshare -p)"
	done
	exit 0
fi

# The namespace's init is unshare's child.
child_of() {
	local n=0 c=""
	while [ -z "$c" ] && [ $n -lt 200 ]; do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null | awk '{print $1}')
		[ -n "$c" ] || sleep 0.05
		n=$((n + 1))
	done
	printf '%s' "$c"
}

out=$(timeout -k 5 60 unshare -p -f --mount-proc "$WICKFS" init -- sh -c 'echo $PPID')
check init.pid1.is_pid1 1 "$out"

mkdir "$t/ns"
out=$(timeout -k 5 60 unshare -p -f --mount-proc "$WICKFS" init -- sh -c "$orphans" sh "$t/ns")
check init.pid1.reaps_orphans "left:" "$out"

mkdir "$t/nssig"
timeout -k 5 60 unshare -p -f --mount-proc "$WICKFS" init -- sh -c "$record" sh "$t/nssig" &
upid=$!
wait_file "$t/nssig/ready"
ipid=$(child_of "$(child_of "$upid")")
send_all "$ipid" "$t/nssig"
stop_if_stuck "$upid" "$ipid"
wait "$upid"
check init.pid1.exit 9 "$?"
check init.pid1.forwards_signals "INT HUP QUIT USR1 USR2 WINCH TERM" "$(tr '\n' ' ' <"$t/nssig/got" | sed 's/ $//')"

# The documented entrypoint: init -- wick-daemon, stopped by TERM to PID 1.
mkdir "$t/d" "$t/bin"
ln -s "$WICKFS" "$t/bin/wick-daemon"
PATH="$t/bin:$PATH" timeout -k 5 60 unshare -p -f --mount-proc "$WICKFS" init -- wick-daemon \
	--listen off --socket "$t/d/s.sock" 2>"$t/d/log" &
upid=$!
n=0
until [ -S "$t/d/s.sock" ] || [ $n -ge 200 ]; do sleep 0.05; n=$((n + 1)); done
printf 'hello' >"$t/d/f"
out=$("$WICKFS" client --connect "unix:$t/d/s.sock" read "$t/d/f" 2>&1)
check init.pid1.daemon '{"ok":true,"data":"hello"}' "$out"
ipid=$(child_of "$(child_of "$upid")")
kill -TERM "$ipid"
stop_if_stuck "$upid" "$ipid"
wait "$upid"
rc=$?
check_true init.pid1.daemon_stops "exit $rc after TERM" test "$rc" = 0 -o "$rc" = 143
check_true init.pid1.daemon_socket_removed "$t/d/s.sock left behind" test ! -e "$t/d/s.sock"
