#!/usr/bin/env bash
# scripts/: what the build's own shell helpers promise.
#
# deb_install (scripts/apt.sh) runs one install at a time: make test builds
# several cross platforms at once, and two apt-gets racing for dpkg's lock
# made one of them fail on a fresh machine. A stand-in apt-get here fails
# when a second one starts while the first is still running.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	skip scripts.apt.one_at_a_time "deb_install calls sudo when not root"
else
	fake=$TEST_TMP/fakebin
	mkdir -p "$fake"
	cat >"$fake/apt-get" <<'SH'
#!/bin/sh
# Holds a directory for a moment; a second apt-get meanwhile is the race.
mkdir "$FAKE_APT_HELD" 2>/dev/null || { echo "apt-get: lock held by another apt-get" >&2; exit 100; }
sleep 0.3
rmdir "$FAKE_APT_HELD"
echo "$*" >>"$FAKE_APT_LOG"
SH
	chmod +x "$fake/apt-get"
	export FAKE_APT_HELD=$TEST_TMP/held FAKE_APT_LOG=$TEST_TMP/apt.log
	one() {
		PATH="$fake:$PATH" build=$TEST_TMP/build sh -c \
			". '$top/scripts/apt.sh' && deb_install pkg-$1" 2>>"$TEST_TMP/apt.err"
	}
	pids=()
	for i in 1 2 3 4; do
		one "$i" &
		pids+=($!)
	done
	bad=0
	for p in "${pids[@]}"; do
		wait "$p" || bad=$((bad + 1))
	done
	check scripts.apt.one_at_a_time "0 failed" "$bad failed$(tr '\n' ' ' <"$TEST_TMP/apt.err" 2>/dev/null)"
	# update and install for each of the four
	check scripts.apt.all_installed 8 "$(wc -l <"$FAKE_APT_LOG" 2>/dev/null | tr -d ' ')"
	check_match scripts.apt.lock_timeout "*DPkg::Lock::Timeout=*install*pkg-*" "$(grep install "$FAKE_APT_LOG" | head -n 1)"
fi
