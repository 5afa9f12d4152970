#!/bin/sh
# The aarch64 cross toolchain for `make ARCH=aarch64`, all from Debian's
# archive, /etc/apt untouched (no dpkg --add-architecture):
#
#   gcc-aarch64-linux-gnu, qemu-user-static  apt-get install
#   build/musl-aarch64/   musl built from Debian's musl source package;
#                         bin/musl-gcc is its specs wrapper around
#                         aarch64-linux-gnu-gcc (the Makefile's CC)
#   build/zlib-aarch64/   static libz.a built with that wrapper
#
# Idempotent: a second run checks and does nothing. A lock keeps two runs
# (make ARCH=aarch64 and tests/t_aarch64.sh) from building at once.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
musl="$build/musl-aarch64"
zdir="$build/zlib-aarch64"
triple=aarch64-linux-gnu
pkgs="gcc-$triple qemu-user-static file make"

say() { printf 'cross-aarch64: %s\n' "$*" >&2; }

ready() {
	[ -x "$musl/bin/musl-gcc" ] && [ -f "$musl/lib/libc.a" ] &&
		[ -f "$musl/lib/musl-gcc.specs" ] &&
		[ -f "$zdir/lib/libz.a" ] && [ -f "$zdir/include/zlib.h" ]
}

# shellcheck source=scripts/apt.sh
. "$top/scripts/apt.sh"

missing=""
for p in $pkgs; do
	# qemu-user (qemu-aarch64) serves as well as qemu-user-static.
	[ "$p" = qemu-user-static ] && deb_installed qemu-user && continue
	deb_installed "$p" || missing="$missing $p"
done
if [ -z "$missing" ] && ready; then
	exit 0
fi

mkdir -p "$build"
exec 9>"$build/.cross-aarch64.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi

if [ -n "$missing" ]; then
	say "installing$missing"
	# shellcheck disable=SC2086
	deb_install $missing
fi
ready && exit 0

start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 2)

# Debian's source packages through a private source list of our own (not
# deps.sh's, so the two never share apt's list lock).
apt="$build/apt-aarch64"
fetch() { # PACKAGE: the path of its .orig.tar.*
	srcpkg_orig "$apt" "$1" || {
		say "fetching the $1 source package"
		srcpkg_fetch "$apt" "$1"
	} || { say "cannot fetch Debian's $1 source package"; exit 1; }
}

# ---- musl ----
if ! { [ -x "$musl/bin/musl-gcc" ] && [ -f "$musl/lib/libc.a" ] &&
	[ -f "$musl/lib/musl-gcc.specs" ]; }; then
	orig=$(fetch musl)
	work="$build/musl-aarch64-src"
	rm -rf "$work" "$musl" && mkdir -p "$work"
	tar -xf "$orig" -C "$work" --strip-components=1
	say "building $(basename "$orig") for aarch64"
	(cd "$work" &&
		./configure --target=$triple CROSS_COMPILE=$triple- \
			--prefix="$musl" --disable-shared --enable-wrapper=gcc \
			>configure.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1 &&
		make install >install.log 2>&1) || {
		say "musl build failed (logs in build/musl-aarch64-src)"
		exit 1
	}
	# The generated wrapper runs ${REALGCC:-aarch64-linux-gnu-gcc}: a
	# REALGCC meant for the host compiler must not reach it.
	# shellcheck disable=SC2016
	sed -i 's/\${REALGCC:-\([^}]*\)}/\1/' "$musl/bin/musl-gcc"
	rm -rf "$work"
fi

# ---- zlib ----
if ! { [ -f "$zdir/lib/libz.a" ] && [ -f "$zdir/include/zlib.h" ]; }; then
	# scripts/deps.sh's download when there is one.
	orig=$(srcpkg_orig "$build/apt" zlib) || orig=$(fetch zlib)
	work="$build/zlib-aarch64-src"
	rm -rf "$work" "$zdir" && mkdir -p "$work"
	tar -xf "$orig" -C "$work" --strip-components=1
	say "building $(basename "$orig") for aarch64"
	(cd "$work" &&
		CHOST=$triple CC="$musl/bin/musl-gcc" CFLAGS="-O2" \
			AR=$triple-ar RANLIB=$triple-ranlib \
			./configure --static --prefix="$zdir" >configure.log 2>&1 &&
		make -j"$jobs" libz.a >make.log 2>&1 &&
		mkdir -p "$zdir/lib" "$zdir/include" &&
		cp libz.a "$zdir/lib/" && cp zlib.h zconf.h "$zdir/include/") || {
		say "zlib build failed (logs in build/zlib-aarch64-src)"
		exit 1
	}
	rm -rf "$work"
fi

ready || { say "toolchain incomplete"; exit 1; }
say "ready in $(($(date +%s) - start)) s: build/musl-aarch64, build/zlib-aarch64"
