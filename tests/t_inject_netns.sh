#!/usr/bin/env bash
# The empty root (scratch: the binary alone) with a network namespace of
# its own, loopback up: the daemon serves TCP on its default address
# (0.0.0.0:9090, what the Go DockerBackend dials) with DAEMON_TOKEN set and
# the Unix socket off, and the client in the same root talks to it over
# 127.0.0.1. Answers are checked exactly, the request form the host sends
# (`wickfs APPLET 'ARG'` as cmd) included.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/roots.sh"

needs_static inject_netns || exit 0
if [ "$(id -u)" != 0 ]; then
	skip inject_netns "needs root (network namespace, chroot)"
	exit 0
fi
roots_ns_start -n || {
	skip inject_netns "unshare -m -n does not work here"
	exit 0
}
# Loopback starts down in a new namespace: iproute2, else BusyBox's ip.
if command -v ip >/dev/null 2>&1; then
	lo_up=(ip link set lo up)
elif command -v busybox >/dev/null 2>&1; then
	lo_up=(busybox ip link set lo up)
else
	skip inject_netns "no ip (iproute2) or busybox to bring lo up"
	exit 0
fi
if ! in_ns "${lo_up[@]}" 2>"$TEST_TMP/ip.err"; then
	skip inject_netns "cannot bring lo up: $(cat "$TEST_TMP/ip.err")"
	exit 0
fi
root=$TEST_TMP/root
mkdir -p "$root/work"
cp "$WICKFS" "$root/wickfs"
printf 'hello\n' >"$root/work/a.txt"
IN_ROOT=(env -i DAEMON_TOKEN=s3cret "${NS[@]}" "$(command -v chroot)" "$root")

"${IN_ROOT[@]}" /wickfs daemon --socket off </dev/null >/dev/null 2>"$TEST_TMP/d.err" &
dpid=$!
trap 'kill -KILL "$dpid" 2>/dev/null; roots_ns_stop' EXIT
cl=(/wickfs client --connect tcp:127.0.0.1:9090)
up=0
for _ in $(seq 200); do
	kill -0 "$dpid" 2>/dev/null || break
	if in_root "${cl[@]}" exists /work </dev/null >/dev/null 2>&1; then
		up=1
		break
	fi
	sleep 0.05
done
check inject_netns.daemon_up 1 "$up"
check_match inject_netns.listening_log "*listening on tcp 0.0.0.0:9090*" "$(cat "$TEST_TMP/d.err")"
check_true inject_netns.own_netns "the daemon is in the host's network namespace" \
	test "$(readlink "/proc/$dpid/ns/net")" != "$(readlink /proc/self/ns/net)"

# rc NAME STDIN WANT ARGS...: the client in the root; exact stdout.
rc_() {
	local name=$1 in=$2 want=$3 out
	shift 3
	out=$(printf '%s' "$in" | in_root "${cl[@]}" "$@" 2>"$TEST_TMP/c.err")
	check "$name" "$want" "$out"
}
rc_ inject_netns.read "" '{"ok":true,"data":"hello\n"}' read /work/a.txt
rc_ inject_netns.write "over tcp" '{"ok":true,"data":{"path":"/work/b.txt","bytes_written":8}}' -i write /work/b.txt
check inject_netns.write.content "over tcp" "$(cat "$root/work/b.txt")"
rc_ inject_netns.grep "" '{"ok":true,"data":{"matches":[{"file":"/work/b.txt","line":1,"text":"over tcp"}],"truncated":false}}' grep tcp /work
# What the Go host sends: a command line, the token, an id.
rc_ inject_netns.raw_host_form "" '{"id":"r1","stdout":"{\"ok\":true,\"data\":\"hello\\n\"}\n","stderr":"","exit_code":0}' \
	--raw '{"id":"r1","cmd":"wickfs read '\''/work/a.txt'\''","token":"s3cret","timeout":5}'
# No shell in scratch: a shell command is answered, naming what is missing.
out=$(in_root "${cl[@]}" --raw '{"id":"r2","cmd":"echo ok","workdir":"/","timeout":5,"token":"s3cret"}' </dev/null 2>/dev/null)
check inject_netns.raw_no_shell '{"id":"r2","stdout":"","stderr":"","exit_code":1,"error":"failed to execute: /bin/sh: no such file or directory (there is no shell in this image; only a plain command naming a program in PATH runs without one)"}' "$out"
out=$(env -i DAEMON_TOKEN=wrong "${NS[@]}" "$(command -v chroot)" "$root" "${cl[@]}" read /work/a.txt </dev/null 2>/dev/null)
check_match inject_netns.bad_token '{"ok":false,"error":"*token*"}' "$out"

kill -TERM "$dpid"
with_timeout 20 tail --pid="$dpid" -f /dev/null
wait "$dpid"
check inject_netns.daemon_exit_0 0 "$?"
