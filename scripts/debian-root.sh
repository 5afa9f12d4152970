#!/bin/sh
# scripts/debian-root.sh - the Debian minbase root that tests/t_inject_debian.sh
# enters: `debootstrap --variant=minbase bookworm`, built once and kept as a
# directory under build/, which tests only ever mount read-only beneath a
# private overlay (so no test dirties it).
#
#   scripts/debian-root.sh        build it if missing; print its path
#
# Exit 0 with the path on stdout when the root is ready. Otherwise exit 1
# with one line on stdout saying why (no debootstrap, not root, the mirror
# unreachable), which the test prints as its skip reason.
# WICKFS_DEBIAN_MIRROR overrides the mirror (default deb.debian.org).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/roots/debian-bookworm-minbase
mirror=${WICKFS_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The marker is written last, so a root cut short by a crash is rebuilt.
if [ -f "$dir/.wickfs-complete" ]; then
	printf '%s\n' "$dir"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "debootstrap needs root"
	exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
	echo "no debootstrap (apt-get install debootstrap)"
	exit 1
fi

mkdir -p "$top/build/roots"
# One build at a time: two tests starting together wait for the first.
exec 9>"$top/build/roots/.debian.lock"
command -v flock >/dev/null 2>&1 && flock 9
if [ -f "$dir/.wickfs-complete" ]; then
	printf '%s\n' "$dir"
	exit 0
fi

tmp=$dir.tmp
rm -rf "$tmp"
log=$top/build/roots/debootstrap.log
if ! debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$log" 2>&1; then
	why=$(grep -E '^(E|W):' "$log" | tail -n 1)
	rm -rf "$tmp"
	echo "debootstrap from $mirror failed: ${why:-see build/roots/debootstrap.log}"
	exit 1
fi
# Only a small cache is kept: the downloaded packages are not needed.
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
touch "$tmp/.wickfs-complete"
rm -rf "$dir"
mv "$tmp" "$dir"
printf '%s\n' "$dir"
