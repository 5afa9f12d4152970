#!/usr/bin/env bash
# Injection into a BusyBox image: a root holding only a static busybox (its
# sh, ls, cat...) and our binary. exec runs through BusyBox's sh, the
# wickfs-APPLET links do not shadow the image's own ls, and the daemon
# serves a client from inside that root.
. "$(dirname "$0")/lib.sh"

needs_static inject_busybox || exit 0
bb=$(command -v busybox || true)
if [ -z "$bb" ] || ! file -b "$bb" | grep -q 'statically linked'; then
	skip inject_busybox "no static busybox here (Debian's busybox-static)"
	exit 0
fi
root=$TEST_TMP/bbroot
mkdir -p "$root/bin" "$root/usr/local/bin" "$root/tmp" "$root/work/src"
cp "$bb" "$root/bin/busybox"
for a in sh ls cat echo sleep env; do
	ln -s busybox "$root/bin/$a"
done
cp "$WICKFS" "$root/usr/local/bin/wickfs"
printf 'x = 1  # TODO\n' >"$root/work/src/m.py"

enter=()
if [ "$(id -u)" = 0 ] && chroot "$root" /bin/sh -c true 2>/dev/null; then
	enter=(chroot "$root")
elif unshare -r chroot "$root" /bin/sh -c true 2>/dev/null; then
	enter=(unshare -r chroot "$root")
else
	skip inject_busybox "neither chroot (as root) nor unshare -r chroot works here"
	exit 0
fi

in_root() { timeout -k 2 30 "${enter[@]}" env PATH=/usr/local/bin:/bin "$@"; }

check inject_busybox.exec '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' \
	"$(in_root wickfs exec 'echo hi' </dev/null)"
check inject_busybox.exec_status '{"ok":true,"data":{"stdout":"","stderr":"","exit_code":3}}' \
	"$(in_root wickfs exec 'exit 3' </dev/null)"
check inject_busybox.grep '{"ok":true,"data":{"matches":[{"file":"/work/src/m.py","line":1,"text":"x = 1  # TODO"}],"truncated":false}}' \
	"$(in_root wickfs grep TODO /work)"

# --install -s: wickfs-ls beside the image's ls, which still is BusyBox's.
in_root wickfs --install -s /usr/local/bin >/dev/null 2>&1
check inject_busybox.install_link '{"ok":true,"data":[{"name":"m.py","type":"file","size":14}]}' \
	"$(in_root wickfs-ls /work/src)"
check inject_busybox.own_ls_kept "m.py" "$(in_root ls /work/src)"
check inject_busybox.ls_is_busybox "busybox" "$(readlink "$root/bin/ls")"

# The daemon inside the root, driven by the client inside the root.
if in_root wickfs --list | grep -qx daemon; then
	# chroot (and unshare without -f) exec the next program, so $! is
	# the daemon itself: stopped by that PID.
	"${enter[@]}" env PATH=/usr/local/bin:/bin wickfs daemon --listen off --socket /tmp/d.sock \
		</dev/null >/dev/null 2>"$TEST_TMP/d.err" &
	dpid=$!
	trap 'kill -KILL "$dpid" 2>/dev/null' EXIT
	for _ in $(seq 100); do
		[ -S "$root/tmp/d.sock" ] && break
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.05
	done
	check inject_busybox.daemon_read '{"ok":true,"data":"x = 1  # TODO\n"}' \
		"$(in_root wickfs client --connect unix:/tmp/d.sock read /work/src/m.py)"
	check inject_busybox.daemon_exec '{"ok":true,"data":{"stdout":"bb\n","stderr":"","exit_code":0}}' \
		"$(in_root wickfs client --connect unix:/tmp/d.sock exec 'echo bb')"
	kill -TERM "$dpid"
	with_timeout 10 tail --pid="$dpid" -f /dev/null
	wait "$dpid"
	check inject_busybox.daemon_exit_0 0 "$?"
	check_true inject_busybox.daemon_stopped "socket still there after SIGTERM" test ! -e "$root/tmp/d.sock"
	trap - EXIT
fi
