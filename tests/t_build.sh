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
# The ceiling for all applets on x86_64, deflate and snapshots included.
check_true build.size_under_400KB "build/wickfs is $size bytes" test "$size" -lt 409600
# The archive step's ceiling: everything, deflate and snapshots included.
check_true build.size_under_360KB "build/wickfs is $size bytes" test "$size" -lt 360000

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
