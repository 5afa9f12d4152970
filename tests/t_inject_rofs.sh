#!/usr/bin/env bash
# A read-only root filesystem (as `docker run --read-only`) with a writable
# workspace mounted on /work: every applet works on the workspace, writes
# elsewhere fail naming the path and the cause, and the daemon's default
# socket (/tmp/wick-daemon.sock, on the read-only root) fails with an error
# that says what to pass, after which --socket / DAEMON_SOCKET on the
# workspace works. The root is the Debian minbase root when
# scripts/debian-root.sh has it (exec through dash too), else one holding
# only the binary.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/roots.sh"

needs_static inject_rofs || exit 0
if [ "$(id -u)" != 0 ]; then
	skip inject_rofs "needs root (mounts, chroot)"
	exit 0
fi
roots_ns_start || {
	skip inject_rofs "unshare -m does not work here"
	exit 0
}
# The image's own layer: the binary baked in, /work and /tmp as mount
# points (/tmp stays part of the read-only root, as in Docker).
layer=$TEST_TMP/layer
mkdir -p "$layer/usr/local/bin" "$layer/work" "$layer/tmp"
cp "$WICKFS" "$layer/usr/local/bin/wickfs"
base=$(sh "$(dirname "$0")/../scripts/debian-root.sh") || base=""
root=$TEST_TMP/root
mkdir -p "$root"
if [ -n "$base" ]; then
	# Overlay without an upper layer: read-only by construction.
	mnt="mount -t overlay overlay -o 'lowerdir=$layer:$base' '$root'"
else
	mnt="mount --bind '$layer' '$root' && mount -o remount,bind,ro '$root'"
fi
if ! in_ns sh -c "$mnt && mount -t tmpfs -o mode=755 tmpfs '$root/work'" 2>"$TEST_TMP/mount.err"; then
	skip inject_rofs "cannot mount the read-only root: $(cat "$TEST_TMP/mount.err")"
	exit 0
fi
IN_ROOT=("${NS[@]}" chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin)

# The root really is read-only, and a write there says so, by path.
wf_ro() {
	OUT=$(in_root wickfs "$@" </dev/null 2>/dev/null)
	RC=$?
	OUT+=$'\n'
}
wf_ro write /etc/wickfs-test
_expect_error_result inject_rofs.root_write "write /etc/wickfs-test: *read-only file system"
wf_ro mkdir /wickfs-dir
_expect_error_result inject_rofs.root_mkdir "/wickfs-dir*read-only file system"
check_true inject_rofs.root_unchanged "a file appeared on the read-only root" \
	in_ns test ! -e "$root/etc/wickfs-test" -a ! -e "$root/wickfs-dir"

applet_sweep inject_rofs /work

if [ -n "$base" ]; then
	rr inject_rofs.exec "" '{"ok":true,"data":{"stdout":"x\n","stderr":"","exit_code":0}}' \
		exec --cwd /work 'echo x >e.txt && cat e.txt'
else
	skip inject_rofs.exec "no Debian root (scripts/debian-root.sh), so no shell in this root"
fi

# The default socket path is on the read-only root: the daemon exits
# non-zero, naming the path and what to pass instead.
timeout -k 2 30 "${IN_ROOT[@]}" wickfs daemon --listen off </dev/null >/dev/null 2>"$TEST_TMP/d0.err"
rc=$?
check_true inject_rofs.default_socket.exit "exit $rc, want non-zero" test "$rc" != 0 -a "$rc" != 124
check_match inject_rofs.default_socket.message \
	"*/tmp/wick-daemon.sock*pass --socket PATH (or DAEMON_SOCKET) in a writable directory, or --socket off*" \
	"$(cat "$TEST_TMP/d0.err")"

# DAEMON_SOCKET on the workspace: the daemon and the client agree on it.
IN_ROOT+=(DAEMON_SOCKET=/work/.wick-daemon.sock)
"${IN_ROOT[@]}" wickfs daemon --listen off </dev/null >/dev/null 2>"$TEST_TMP/d.err" &
dpid=$!
sock=$root/work/.wick-daemon.sock
for _ in $(seq 200); do
	in_ns test -S "$sock" && break
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.05
done
rr inject_rofs.daemon_socket_env.read "" '{"ok":true,"data":"gamma\npin\ntail\n"}' client read /work/a.txt
rr inject_rofs.daemon_socket_env.write "w" '{"ok":true,"data":{"path":"/work/w.txt","bytes_written":1}}' \
	client -i write /work/w.txt
kill -TERM "$dpid"
with_timeout 20 tail --pid="$dpid" -f /dev/null
wait "$dpid"
check inject_rofs.daemon_socket_env.exit_0 0 "$?"
check_true inject_rofs.daemon_socket_env.removed "socket left behind" in_ns test ! -e "$sock"
