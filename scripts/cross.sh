#!/bin/sh
# The cross toolchain for `make ARCH=X`, all from Debian's archive,
# /etc/apt untouched (no dpkg --add-architecture):
#
#   usage: scripts/cross.sh ARCH      ARCH: aarch64 armv7 i386 ppc64le s390x riscv64
#
#   gcc-TRIPLE, qemu-user-static  apt-get install
#   build/musl-ARCH/   musl built from Debian's musl source package;
#                      bin/musl-gcc is its specs wrapper around TRIPLE-gcc
#                      (the Makefile's CC for ARCH)
#   build/zlib-ARCH/   static libz.a built with that wrapper
#
# Idempotent: a second run checks and does nothing. A lock per ARCH keeps
# two runs (make ARCH=X and a test) from building at once.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
arch=${1:-}
# shellcheck source=scripts/cross-arch.sh
. "$top/scripts/cross-arch.sh"
cross_arch "$arch" || {
	printf 'usage: scripts/cross.sh ARCH (%s)\n' "$CROSS_ARCHES" >&2
	exit 2
}
musl="$build/musl-$arch"
zdir="$build/zlib-$arch"
pkgs="gcc-$triple qemu-user-static file make"

# Run from make ARCH=X, the ARCH=X in MAKEFLAGS would reach musl's own
# make, where ARCH means musl's name for the architecture.
unset MAKEFLAGS MFLAGS MAKELEVEL ARCH

say() { printf 'cross %s: %s\n' "$arch" "$*" >&2; }

ready() {
	[ -x "$musl/bin/musl-gcc" ] && [ -f "$musl/lib/libc.a" ] &&
		[ -f "$musl/lib/musl-gcc.specs" ] && zlib_ready "$zdir"
}

# shellcheck source=scripts/apt.sh
. "$top/scripts/apt.sh"

missing=""
for p in $pkgs; do
	# qemu-user (qemu-ARCH) serves as well as qemu-user-static.
	[ "$p" = qemu-user-static ] && deb_installed qemu-user && continue
	deb_installed "$p" || missing="$missing $p"
done
if [ -z "$missing" ] && ready; then
	exit 0
fi

mkdir -p "$build"
exec 9>"$build/.cross-$arch.lock"
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
apt="$build/apt-$arch"
fetch() { # PACKAGE: the path of its .orig.tar.*
	srcpkg_orig "$apt" "$1" || srcpkg_orig "$build/apt-aarch64" "$1" || {
		say "fetching the $1 source package"
		srcpkg_fetch "$apt" "$1"
	} || { say "cannot fetch Debian's $1 source package"; exit 1; }
}

# ---- musl ----
if ! { [ -x "$musl/bin/musl-gcc" ] && [ -f "$musl/lib/libc.a" ] &&
	[ -f "$musl/lib/musl-gcc.specs" ]; }; then
	orig=$(fetch musl)
	work="$build/musl-$arch-src"
	rm -rf "$work" "$musl" && mkdir -p "$work"
	tar -xf "$orig" -C "$work" --strip-components=1
	say "building $(basename "$orig")"
	(cd "$work" &&
		./configure --target="$triple" CROSS_COMPILE="$triple-" \
			CFLAGS="$musl_cflags" \
			--prefix="$musl" --disable-shared --enable-wrapper=gcc \
			>configure.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1 &&
		make install >install.log 2>&1) || {
		say "musl build failed (logs in build/musl-$arch-src)"
		exit 1
	}
	# The generated wrapper runs ${REALGCC:-TRIPLE-gcc}: a REALGCC meant
	# for the host compiler must not reach it.
	# shellcheck disable=SC2016
	sed -i 's/\${REALGCC:-\([^}]*\)}/\1/' "$musl/bin/musl-gcc"
	cp "$work/VERSION" "$musl/VERSION" 2>/dev/null || true # for --version
	rm -rf "$work"
fi

# ---- zlib ----
if ! zlib_ready "$zdir"; then
	# scripts/deps.sh's download when there is one.
	orig=$(srcpkg_orig "$build/apt" zlib) || orig=$(fetch zlib)
	work="$build/zlib-$arch-src"
	rm -rf "$work" "$zdir" && mkdir -p "$work"
	tar -xf "$orig" -C "$work" --strip-components=1
	say "building $(basename "$orig")"
	(cd "$work" &&
		CHOST="$triple" CC="$musl/bin/musl-gcc" CFLAGS="$ZLIB_CFLAGS $musl_cflags" \
			AR="$triple-ar" RANLIB="$triple-ranlib" \
			./configure --static --prefix="$zdir" >configure.log 2>&1 &&
		JOBS=$jobs zlib_make >make.log 2>&1 &&
		mkdir -p "$zdir/lib" "$zdir/include" &&
		cp libz.a "$zdir/lib/" && cp zlib.h zconf.h "$zdir/include/" &&
		zlib_stamp >"$zdir/cflags") || {
		say "zlib build failed (logs in build/zlib-$arch-src)"
		exit 1
	}
	rm -rf "$work"
fi

ready || { say "toolchain incomplete"; exit 1; }
say "ready in $(($(date +%s) - start)) s: build/musl-$arch, build/zlib-$arch"
