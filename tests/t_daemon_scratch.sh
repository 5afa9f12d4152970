#!/usr/bin/env bash
# The daemon in a scratch image: a root holding only the binary (no /tmp,
# no shell, no libc). The default socket cannot be made there; the daemon
# serves TCP alone and says so. A socket asked for that cannot be made is
# still fatal.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/scratch
mkdir -p "$d"
cd "$d" || exit 1

# An asked-for socket in a directory that does not exist: fatal, named.
with_timeout 10 "$WICKFS" daemon --listen off --socket "$d/none/d.sock" >/dev/null 2>"$d/asked.err"
rc=$?
check daemon_scratch.asked_socket_fatal_rc 1 "$((rc != 0))"
check_match daemon_scratch.asked_socket_fatal "*bind $d/none/d.sock: [Nn]o such file or directory*" "$(cat "$d/asked.err")"

if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null 2>&1; then
	skip daemon_scratch.tcp_alone "needs root and chroot for a root with only the binary"
	exit 0
fi
if [ -n "${WICKFS_SANITIZED:-}" ] || [ -n "${WICKFS_EMULATED:-}" ]; then
	skip daemon_scratch.tcp_alone "needs the static binary as a file of its own"
	exit 0
fi
root=$d/root
mkdir -p "$root"
cp "$WICKFS" "$root/wickfs"
echo hello >"$root/hello.txt"
port=$((20000 + RANDOM % 20000))
chroot "$root" /wickfs daemon --listen "127.0.0.1:$port" 2>"$d/daemon.err" &
dpid=$!
trap 'kill "$dpid" 2>/dev/null' EXIT
up=""
for _ in $(seq 100); do
	grep -q "listening on tcp" "$d/daemon.err" 2>/dev/null && up=1 && break
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.05
done
if [ -z "$up" ]; then
	fail daemon_scratch.tcp_alone "not listening: $(cat "$d/daemon.err")"
	exit 0
fi
pass daemon_scratch.tcp_alone
check_match daemon_scratch.says_so "*the default socket /tmp/wick-daemon.sock cannot be made (above): serving tcp 127.0.0.1:$port alone*" "$(cat "$d/daemon.err")"
expect daemon_scratch.serves 0 '{"ok":true,"data":"hello\n"}' client --connect "tcp:127.0.0.1:$port" read /hello.txt
kill "$dpid"
wait "$dpid" 2>/dev/null
