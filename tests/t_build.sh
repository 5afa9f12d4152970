#!/usr/bin/env bash
# The build: a static, stripped, small binary; `make allnoconfig` plus one
# applet builds; `make install` installs bin/wickfs. The Kconfig and
# install checks run in a copy of the tree, so build/ and .config here are
# never touched.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)

desc=$(file -b "$WICKFS" 2>&1)
check_match build.static "*statically linked*" "$desc"
check_match build.stripped "*, stripped*" "$desc"
size=$(stat -c %s "$WICKFS")
# The project's ceiling for all applets on x86_64 (450 KiB).
check_true build.size_under_450KiB "build/wickfs is $size bytes" test "$size" -le 460800

config_before=$(cksum <"$top/.config" 2>/dev/null)

# A copy of the working tree without build products; the static zlib is
# reused from build/zlib (scripts/deps.sh made it).
copy=$TEST_TMP/tree
mkdir -p "$copy/build"
tar -C "$top" --exclude=./build --exclude=./.git --exclude=./.config \
	--exclude=./.config.old -cf - . | tar -C "$copy" -xf -
if [ -d "$top/build/zlib" ]; then
	cp -r "$top/build/zlib" "$copy/build/zlib"
else
	fail build.zlib "build/zlib missing: run scripts/deps.sh (make test does)"
	exit 1
fi
mk() { make -C "$copy" --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "$@" >"$TEST_TMP/make.log" 2>&1; }
mklog() { tail -n 8 "$TEST_TMP/make.log" | tr '\n' ' ' | cut -c1-800; }

# allnoconfig, then one applet.
if mk allnoconfig; then
	pass build.allnoconfig
else
	fail build.allnoconfig "$(mklog)"
fi
check build.allnoconfig.no_applets "" "$(grep '^CONFIG_APPLET_.*=y' "$copy/.config" 2>/dev/null)"
if command -v kconfig-tweak >/dev/null 2>&1; then
	kconfig-tweak --file "$copy/.config" --enable APPLET_READ
else
	sed -i 's/^# CONFIG_APPLET_READ is not set$/CONFIG_APPLET_READ=y/' "$copy/.config"
fi
if mk; then
	pass build.one_applet
else
	fail build.one_applet "$(mklog)"
fi
one=$copy/build/wickfs
check build.one_applet.list read "$("$one" --list 2>&1)"
printf 'content' >"$TEST_TMP/f"
check build.one_applet.read '{"ok":true,"data":"content"}' "$("$one" read "$TEST_TMP/f" 2>&1)"
"$one" ls "$TEST_TMP" >/dev/null 2>&1
check build.one_applet.ls_absent 2 "$?"
osize=$(stat -c %s "$one" 2>/dev/null || echo 0)
check_true build.one_applet.smaller "one-applet binary $osize bytes, full $size" test "$osize" -gt 0 -a "$osize" -le "$size"

# make install PREFIX=/usr DESTDIR=...
dest=$TEST_TMP/dest
if mk install PREFIX=/usr DESTDIR="$dest"; then
	pass build.install
else
	fail build.install "$(mklog)"
fi
check_true build.install.bin "$dest/usr/bin/wickfs missing or not executable" test -x "$dest/usr/bin/wickfs" -a -f "$dest/usr/bin/wickfs"
check_match build.install.runs "wickfs *" "$("$dest/usr/bin/wickfs" --version 2>&1)"
check build.install.nothing_else "usr" "$(ls -A "$dest" 2>/dev/null)"

check build.main_config_untouched "$config_before" "$(cksum <"$top/.config" 2>/dev/null)"

# Options are compile-time constants (OPT_x from scripts/gen-applets.sh):
# one misspelt option in an applet fails the build, naming it. The copy
# is configured like the full build, so the applet is compiled.
typo=$TEST_TMP/typo
mkdir -p "$typo/build"
tar -C "$top" --exclude=./build --exclude=./.git --exclude=./.config \
	--exclude=./.config.old -cf - . | tar -C "$typo" -xf -
cp -r "$top/build/zlib" "$typo/build/zlib"
sed -i 's/opt_walk(r, OPT_hidden,/opt_walk(r, OPT_hiden,/' "$typo/applets/grep.c"
if ! grep -q OPT_hiden "$typo/applets/grep.c"; then
	fail build.misspelt_option "applets/grep.c has no opt_walk(r, OPT_hidden, to misspell"
elif make -C "$typo" --no-print-directory -j2 >"$TEST_TMP/typo.log" 2>&1; then
	fail build.misspelt_option "a build with OPT_hiden in applets/grep.c succeeded"
else
	check_match build.misspelt_option "*OPT_hiden*" "$(grep -m1 OPT_hiden "$TEST_TMP/typo.log")"
fi
# A spec that excludes an option it does not declare fails too.
sed -i 's/OPT_hiden/OPT_hidden/; s/ !U,A / !U,Q /' "$typo/applets/grep.c"
if make -C "$typo" --no-print-directory -j2 >"$TEST_TMP/typo.log" 2>&1; then
	fail build.unknown_exclusion "a spec with !U,Q built"
else
	check_match build.unknown_exclusion "*names an unknown option*" "$(cat "$TEST_TMP/typo.log")"
fi

# Policy is declared: an applet whose APPLET line says APPLET_WRITES is
# refused in read-only mode by applet_run, for the CLI and the daemon
# alike, though its own code writes with no check at all.
cp "$top/applets/grep.c" "$typo/applets/grep.c"
{
	printf '/* zz_throwaway.c - writes PATH by hand, with no read-only check\n'
	printf ' *\n * APPLET(zz_throwaway, "", 1, 1, APPLET_WRITES)\n *\n'
	printf ' * config APPLET_ZZ_THROWAWAY\n *\tbool "zz_throwaway"\n'
	printf ' *\tdefault y\n *\thelp\n *\t  usage: wickfs zz_throwaway PATH\n */\n'
	printf '#include <fcntl.h>\n#include <unistd.h>\n#include "applet.h"\n\n'
	printf 'int zz_throwaway_main(struct req *r)\n{\n'
	printf '\tint fd = open(r->argv[0], O_WRONLY | O_CREAT | O_TRUNC, 0644);\n\n'
	printf '\tif (fd < 0 || write(fd, "x", 1) != 1 || close(fd))\n'
	printf '\t\treturn reply_error(r, "zz_throwaway %%s: cannot write", r->argv[0]);\n'
	printf '\treturn reply_path_num(r, "bytes", 1);\n}\n'
} >"$typo/applets/zz_throwaway.c"
zz=$typo/build/wickfs
zdir=$TEST_TMP/zz
mkdir -p "$zdir"
if ! make -C "$typo" --no-print-directory -j2 >"$TEST_TMP/zz.log" 2>&1; then
	fail build.policy.throwaway "the tree with applets/zz_throwaway.c did not build: $(tail -n 8 "$TEST_TMP/zz.log" | tr '\n' ' ' | cut -c1-800)"
else
	check build.policy.throwaway.writes '{"ok":true,"data":{"path":"'"$zdir/w"'","bytes":1}} x' \
		"$("$zz" zz_throwaway "$zdir/w") $(cat "$zdir/w" 2>&1)"
	out=$(WICKFS_READONLY=1 "$zz" zz_throwaway "$zdir/ro")
	check build.policy.throwaway.refused "1 {\"ok\":false,\"error\":\"zz_throwaway $zdir/ro: refused, WICKFS_READONLY is set\"}" "$? $out"
	check_true build.policy.throwaway.nothing_written "$zdir/ro was written" test ! -e "$zdir/ro"
	WICKFS_READONLY=1 "$zz" daemon --listen off --socket "$zdir/d.sock" 2>"$zdir/d.log" &
	zpid=$!
	for i in $(seq 100); do
		grep -q "ready:" "$zdir/d.log" 2>/dev/null && break
		sleep 0.05
	done
	out=$(with_timeout 30 "$zz" client --connect "unix:$zdir/d.sock" --raw \
		"{\"id\":\"z\",\"op\":\"zz_throwaway\",\"args\":[$(jstr "$zdir/dm")]}")
	kill "$zpid" 2>/dev/null
	wait "$zpid" 2>/dev/null
	check build.policy.throwaway.daemon_refused "{\"id\":\"z\",\"ok\":false,\"error\":\"zz_throwaway $zdir/dm: refused, WICKFS_READONLY is set\"}" "$out"
	check_true build.policy.throwaway.daemon_nothing_written "$zdir/dm was written" test ! -e "$zdir/dm"
fi
