#!/bin/sh
# Install what the build and the test suite need, and build a static musl
# libz.a under build/. Works on a bare Debian (a debootstrap minbase root
# with nothing added): make itself is installed here. Idempotent: a second
# run checks and does nothing.
#
#   make gcc libc6-dev musl-tools      the build (musl-gcc, static)
#   kconfig-frontends-nox              the Kconfig tools (make defconfig ...)
#   zopfli                             the help texts' gzip, 4% smaller
#                                      (scripts/gzblob.sh; gzip -9 without it)
#   bzip2 xz-utils                     unpacking Debian's orig tarballs
#                                      (zlib's is a .tar.bz2)
#   file                               tests/t_build.sh, t_aarch64.sh, demo
#   clang libclang-rt-dev zlib1g-dev   the sanitizer pass of tests/run
#                                      (clang with its ASan/UBSan runtime)
#   clang-format                       tests/t_style.sh (.clang-format)
#   busybox-static                     tests/t_inject_busybox.sh
#   strace                             tests/t_write.sh (WICKFS_FSYNC)
#   util-linux                         unshare, setsid, flock (tests)
#   unicode-data                       tests/unit/regex_diff_test.c (the UCD files)
#   python3 time                       tests/t_grep_long.sh (JSON fields, peak
#                                      RSS), t_unpack.sh (hostile archives)
#   pigz                               tests/t_unpack.sh (pigz -i multi-member output)
#   debootstrap                        tests/t_inject_debian.sh, t_inject_rofs.sh
#                                      (scripts/debian-root.sh, once, cached)
#   curl                               tests/t_mcp_http.sh (raw HTTP: two
#                                      clients at once, Expect: 100-continue)
#   nodejs npm                         tests/t_mcp_sdk.sh (the MCP SDK client and
#                                      the reference server, from npm)
#
# The cross toolchains are scripts/cross.sh's (make test runs it).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
zdir="$build/zlib"
pkgs="make gcc libc6-dev musl-tools kconfig-frontends-nox zopfli bzip2 xz-utils file
	clang libclang-rt-dev zlib1g-dev clang-format busybox-static strace util-linux
	unicode-data python3 time debootstrap pigz nodejs npm curl"

say() { printf 'deps: %s\n' "$*" >&2; }
. "$top/scripts/apt.sh"

missing=""
for p in $pkgs; do
	deb_installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing$missing"
	# shellcheck disable=SC2086
	deb_install $missing
fi

if zlib_ready "$zdir"; then
	exit 0
fi

# Debian's zlib source package, the orig tarball unpacked by hand.
say "fetching zlib source package"
orig=$(srcpkg_fetch "$build/apt" zlib) || { say "cannot fetch Debian's zlib source package"; exit 1; }

work="$build/zlib-src"
rm -rf "$work" && mkdir -p "$work"
tar -xf "$orig" -C "$work" --strip-components=1
say "building $(basename "$orig") with musl-gcc"
rm -rf "$zdir"
(cd "$work" && CC=musl-gcc CFLAGS="$ZLIB_CFLAGS" ./configure --static --prefix="$zdir" >/dev/null &&
	zlib_make >/dev/null && mkdir -p "$zdir/lib" "$zdir/include" &&
	cp libz.a "$zdir/lib/" && cp zlib.h zconf.h "$zdir/include/") ||
	{ say "zlib build failed (in build/zlib-src)"; exit 1; }
zlib_stamp >"$zdir/cflags"
say "zlib ready in build/zlib"
