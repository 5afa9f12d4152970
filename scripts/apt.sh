# shellcheck shell=sh
# scripts/apt.sh - sourced by deps.sh and cross.sh: Debian packages,
# and source packages through a private source list (/etc/apt untouched).
#
#   deb_installed PACKAGE         is it installed?
#   deb_install PACKAGE...        install them (with sudo when not root),
#                                 one caller at a time ($build is the caller's)
#   srcpkg_orig APTDIR PACKAGE    print its downloaded .orig.tar.*, if any
#   srcpkg_fetch APTDIR PACKAGE   download it once and print that path
#   zlib_ready ZDIR               is a libz.a built with $ZLIB_CFLAGS there?
#   zlib_make                     build libz.a in a configured zlib tree
#
# APTDIR holds the source list, apt's lists and the downloads; each caller
# has its own, so two never contend for one list lock.

# zlib for the static binary. Function sections let the link drop the
# parts of zlib nothing calls (gz*, compress, infback...). DYNAMIC_CRC_TABLE
# computes the CRC tables at first use into .bss instead of storing 9 KB of
# them in the file; zlib builds them under a C11 atomic once, so threads
# are safe. No unwind tables: nothing unwinds C frames in a static
# binary, and zlib's were 3.4 KB of it. The files in ZLIB_COLD are built
# with -Os instead of -O2 (4 KB less): inflate()'s state machine and the
# Huffman table builder run once per block, and the bytes go through
# inffast.c, which stays at -O2 like deflate and crc32. trees.c too (4 KB
# less again): its symbol emitter is 3.75% more instructions for pack
# (callgrind, 6.5 MB of headers), the price of room for the rest.
# ZDIR/cflags records the flags: a change rebuilds.
ZLIB_CFLAGS="-O2 -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -DDYNAMIC_CRC_TABLE"
ZLIB_COLD="inflate inftrees trees"

zlib_stamp() { printf '%s; -Os: %s\n' "$ZLIB_CFLAGS" "$ZLIB_COLD"; }

zlib_ready() {
	[ -f "$1/lib/libz.a" ] && [ -f "$1/include/zlib.h" ] &&
		[ "$(cat "$1/cflags" 2>/dev/null)" = "$(zlib_stamp)" ]
}

# In a configured zlib source tree: libz.a, the cold files at -Os.
# JOBS: make's -j.
zlib_make() {
	make -s -j"${JOBS:-2}" libz.a || return 1
	_cf=$(sed -n 's/^CFLAGS=//p' Makefile | sed 's/-O2/-Os/')
	_objs=""
	for _f in $ZLIB_COLD; do _objs="$_objs $_f.o"; done
	# shellcheck disable=SC2086
	rm -f libz.a $_objs && make -s CFLAGS="$_cf" $_objs && make -s libz.a
}

deb_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# One install at a time: make test builds several cross platforms at once,
# and two apt-gets racing for dpkg's lock make one of them fail. A lock of
# ours ($build/.apt-install.lock) orders our own installs; apt's
# DPkg::Lock::Timeout waits for anyone else's (an unattended upgrade).
deb_install() {
	_sudo=""
	[ "$(id -u)" = 0 ] || _sudo=sudo
	mkdir -p "$build"
	(
		if command -v flock >/dev/null 2>&1; then
			flock 8
		fi
		DEBIAN_FRONTEND=noninteractive $_sudo apt-get -o DPkg::Lock::Timeout=600 \
			update -qq || true
		DEBIAN_FRONTEND=noninteractive $_sudo apt-get -o DPkg::Lock::Timeout=600 \
			install -y -qq --no-install-recommends "$@" >/dev/null
	) 8>"$build/.apt-install.lock"
}

srcpkg_orig() {
	for f in "$1/src/$2"_*.orig.tar.*; do
		case $f in *.asc) continue ;; esac
		[ -f "$f" ] && printf '%s\n' "$f" && return 0
	done
	return 1
}

srcpkg_fetch() {
	_apt=$1
	_opts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$_apt/sources
		-o Dir::State::Lists=$_apt/lists -o APT::Sandbox::User=root"
	if ! srcpkg_orig "$_apt" "$2" >/dev/null; then
		if [ ! -f "$_apt/updated" ]; then
			mkdir -p "$_apt/sources" "$_apt/lists/partial" "$_apt/src"
			if [ -f /etc/apt/sources.list.d/debian.sources ]; then
				sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
					>"$_apt/sources/debian.sources"
			else
				# shellcheck disable=SC1091
				. /etc/os-release
				printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' \
					"${VERSION_CODENAME:-bookworm}" >"$_apt/sources/debian.sources"
			fi
			# shellcheck disable=SC2086
			apt-get $_opts update -qq >&2 || return 1
			touch "$_apt/updated"
		fi
		# shellcheck disable=SC2086
		(cd "$_apt/src" && apt-get $_opts source --download-only -qq "$2") >&2 || return 1
	fi
	srcpkg_orig "$_apt" "$2" || { printf 'no %s orig tarball downloaded\n' "$2" >&2; return 1; }
}
