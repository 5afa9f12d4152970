#!/usr/bin/env bash
# The build options that are off by default (Kconfig's "Features" menu:
# what does not fit the size ceiling with everything else), if any, are
# built and tested too: a copy of the tree, `make allyesconfig`, and the scripts
# that test those options run against that binary, their checks named
# "features:...". The default build, tested everywhere else, stays as it
# is; this binary is only for these checks (no ceiling is asserted).
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
# Every option on in the default build (so since 2026-11-27): then the
# default build is the feature build, tested by every script, and a
# second build would test nothing more.
if [ -f "$top/.config" ] && grep -q '^CONFIG_FEATURE_' "$top/.config" &&
	! grep -q '^# CONFIG_FEATURE_.* is not set' "$top/.config"; then
	check_true features.default_has_overlay "the default binary has no overlay applet" \
		sh -c "'$WICKFS' --list | grep -qx overlay"
	exit 0
fi
if [ "${WICKFS_SANITIZED:-0}" = 1 ] || [ "${WICKFS_EMULATED:-0}" = 1 ]; then
	skip features.build "the feature build is a native static build; run by the native pass"
	exit 0
fi
copy=$TEST_TMP/tree
mkdir -p "$copy/build"
tar -C "$top" --exclude=./build --exclude=./.git --exclude=./.config \
	--exclude=./.config.old -cf - . | tar -C "$copy" -xf -
if [ ! -d "$top/build/zlib" ]; then
	skip features.build "build/zlib missing: run scripts/deps.sh (make test does)"
	exit 0
fi
cp -r "$top/build/zlib" "$copy/build/zlib"
mk() { make -C "$copy" --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" "$@" >>"$TEST_TMP/make.log" 2>&1; }
if ! mk allyesconfig || ! mk; then
	fail features.build "$(tail -n 8 "$TEST_TMP/make.log" | tr '\n' ' ' | cut -c1-800)"
	exit 0
fi
pass features.build
on=$(grep -c '^CONFIG_FEATURE_.*=y' "$copy/.config")
check_true features.all_on "$on options on: $(grep '^# CONFIG_FEATURE_' "$copy/.config" | tr '\n' ' ')" \
	test -z "$(grep '^# CONFIG_FEATURE_.* is not set' "$copy/.config")"

# Each script that tests an option, against the feature build; it reads
# the options from WICKFS_CONFIG.
for s in t_check t_overlay; do
	mkdir -p "$TEST_TMP/$s"
	WICKFS=$copy/build/wickfs TEST_TMP=$TEST_TMP/$s WICKFS_CONFIG=$copy/.config \
		bash "$top/tests/$s.sh" 2>&1 |
		sed -u 's/^ok /ok features:/; s/^FAIL /FAIL features:/; s/^skip /skip features:/'
done
