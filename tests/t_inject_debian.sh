#!/usr/bin/env bash
# Injection into a Debian image: a `debootstrap --variant=minbase bookworm`
# root (scripts/debian-root.sh builds it once under build/roots/), entered
# through a private overlay whose upper layer is a tmpfs, so the cached
# root is never written. Every applet works on a workspace there, exec runs
# through Debian's /bin/sh (dash), and the daemon serves a client.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/roots.sh"

needs_static inject_debian || exit 0
if [ "$(id -u)" != 0 ]; then
	skip inject_debian "needs root (debootstrap, mounts, chroot)"
	exit 0
fi
base=$(sh "$(dirname "$0")/../scripts/debian-root.sh") || {
	skip inject_debian "no Debian root: $base"
	exit 0
}
roots_ns_start || {
	skip inject_debian "unshare -m does not work here"
	exit 0
}
m=$TEST_TMP/mnt
mkdir -p "$m"
# lower: the cache (read-only to the overlay); upper and work on a tmpfs
# that exists only in our namespace.
if ! in_ns sh -c "mount -t tmpfs tmpfs '$m' && mkdir '$m/up' '$m/wk' '$m/root' &&
	mount -t overlay overlay -o 'lowerdir=$base,upperdir=$m/up,workdir=$m/wk' '$m/root'" \
	2>"$TEST_TMP/mount.err"; then
	skip inject_debian "overlay on tmpfs refused: $(cat "$TEST_TMP/mount.err")"
	exit 0
fi
root=$m/root
in_ns cp "$WICKFS" "$root/usr/local/bin/wickfs"
in_ns mkdir "$root/work"
IN_ROOT=("${NS[@]}" chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root)

check inject_debian.is_debian "12" "$(in_root cat /etc/debian_version | cut -d. -f1)"
applet_sweep inject_debian /work

# exec: through /bin/sh, which is dash on Debian. Dash's echo expands
# backslash escapes where bash's and BusyBox's do not.
rr inject_debian.exec.sh_is_dash "" '{"ok":true,"data":{"stdout":"/usr/bin/dash\n","stderr":"","exit_code":0}}' \
	exec 'readlink -f /bin/sh'
rr inject_debian.exec.dash_echo "" '{"ok":true,"data":{"stdout":"a\tb\n","stderr":"","exit_code":0}}' \
	exec 'echo "a\tb"'
rr inject_debian.exec.workdir "" '{"ok":true,"data":{"stdout":"/work/sub\n","stderr":"err\n","exit_code":3}}' \
	exec --cwd /work/sub 'pwd; echo err >&2; exit 3'
rr inject_debian.exec.coreutils "" '{"ok":true,"data":{"stdout":"new.txt\n","stderr":"","exit_code":0}}' \
	exec 'ls /work | grep new'

# The daemon in the root, the client in the root, over the default socket
# path (/tmp is writable here).
"${IN_ROOT[@]}" wickfs daemon --listen off </dev/null >/dev/null 2>"$TEST_TMP/d.err" &
dpid=$!
sock=$root/tmp/wick-daemon.sock
for _ in $(seq 200); do
	in_ns test -S "$sock" && break
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.05
done
check_true inject_debian.daemon.socket "no socket at /tmp/wick-daemon.sock: $(show "$(cat "$TEST_TMP/d.err")")" in_ns test -S "$sock"
rr inject_debian.client.read "" '{"ok":true,"data":"gamma\npin\ntail\n"}' client read /work/a.txt
rr inject_debian.client.exec "" '{"ok":true,"data":{"stdout":"a\tb\n","stderr":"","exit_code":0}}' \
	client exec 'echo "a\tb"'
rr inject_debian.client.write "via daemon" '{"ok":true,"data":{"path":"/work/d.txt","bytes_written":10}}' \
	client -i write /work/d.txt
check inject_debian.client.write.content "via daemon" "$(in_ns cat "$root/work/d.txt")"
rr inject_debian.client.raw "" '{"id":"r1","stdout":"ok\n","stderr":"","exit_code":0}' \
	client --raw '{"id":"r1","cmd":"echo ok","workdir":"/","timeout":5}'
kill -TERM "$dpid"
with_timeout 20 tail --pid="$dpid" -f /dev/null
wait "$dpid"
check inject_debian.daemon.exit_0 0 "$?"
check_true inject_debian.daemon.socket_removed "socket still there after SIGTERM" in_ns test ! -e "$sock"

sweep_covers inject_debian.every_applet daemon

# Copy-on-use: the cached root saw none of it.
check_true inject_debian.cache_clean "the cache gained files" \
	test ! -e "$base/work" -a ! -e "$base/usr/local/bin/wickfs"
