#!/bin/sh
# Quick start: build wickfs, then drive every applet on a sample workspace,
# first as one-shot commands, then through the daemon.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/deps.sh
make --no-print-directory >/dev/null
W=$top/build/wickfs
ws=$top/build/demo
rm -rf "$ws"
mkdir -p "$ws/src/util" "$ws/node_modules/dep"
printf 'def main():\n    print("hello")  # TODO: greet by name\n' >"$ws/src/app.py"
printf 'package util\n\n// TODO: handle errors\nfunc Must() {}\n' >"$ws/src/util/must.go"
printf 'TODO: never searched (node_modules is skipped)\n' >"$ws/node_modules/dep/x.js"

# Print the command as one would type it, then run it.
run() {
	printf '\n$ wickfs'
	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./-]*) printf " '%s'" "$a" ;;
		*) printf ' %s' "$a" ;;
		esac
	done
	printf '\n'
	"$W" "$@" || true
}
cd "$ws"
echo "== $("$W" --version), $(wc -c <"$W") bytes, $(file -b "$W" | cut -d, -f1-5)"
run ls src
run read src/app.py
printf 'new file\n' | { printf '\n$ echo "new file" | wickfs write notes/today.txt\n'; "$W" write notes/today.txt; }
printf '{"old_text":"hello","new_text":"hello, world"}' | {
	printf '\n$ echo {"old_text":"hello",...} | wickfs edit src/app.py\n'
	"$W" edit src/app.py
}
run grep TODO
run grep -i 'todo: (greet|handle)' src
run glob '**/*.go'
run exec 'echo from a shell; uname -s'
# Confined to the workspace: a symlink out of it is refused.
ln -sfn /etc "$ws/etc-link"
run --root . read etc-link/hostname
rm -f "$ws/etc-link"

if "$W" --list | grep -qx daemon && "$W" --list | grep -qx client; then
	sock=$top/build/demo.sock
	rm -f "$sock"
	echo
	echo "== the daemon on $sock (TCP off), driven by wickfs client"
	"$W" daemon --socket "$sock" --listen off 2>"$top/build/demo-daemon.log" &
	pid=$!
	trap 'kill $pid 2>/dev/null || true' EXIT
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	printf '\n$ wickfs client --connect unix:%s read src/app.py\n' "$sock"
	"$W" client --connect "unix:$sock" read src/app.py || true
	printf '\n$ wickfs client --connect unix:%s grep TODO %s\n' "$sock" "$ws"
	"$W" client --connect "unix:$sock" grep TODO "$ws" || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	trap - EXIT
fi
