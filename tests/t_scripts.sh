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

# scripts/bloat.sh OLD NEW: two small programs that differ by one
# function's size (100 bytes of filler more), one function removed and one
# added; the report names each with its delta.
if ! command -v gcc >/dev/null 2>&1; then
	skip scripts.bloat "gcc missing"
else
	b=$TEST_TMP/bloat
	mkdir -p "$b"
	cat >"$b/old.c" <<'C'
__attribute__((noinline)) void grow(void) { __asm__ volatile(".fill 16, 1, 0x90"); }
__attribute__((noinline)) void gone(void) { __asm__ volatile(".fill 8, 1, 0x90"); }
int main(void) { grow(); gone(); return 0; }
C
	cat >"$b/new.c" <<'C'
__attribute__((noinline)) void grow(void) { __asm__ volatile(".fill 116, 1, 0x90"); }
__attribute__((noinline)) void fresh(void) { __asm__ volatile(".fill 40, 1, 0x90"); }
int main(void) { grow(); fresh(); return 0; }
C
	if ! gcc -O1 -o "$b/old" "$b/old.c" 2>"$b/cc.err" ||
		! gcc -O1 -o "$b/new" "$b/new.c" 2>>"$b/cc.err"; then
		fail scripts.bloat "gcc: $(head -c 300 "$b/cc.err")"
	else
		report=$(sh "$top/scripts/bloat.sh" "$b/old" "$b/new" 2>&1)
		rc=$?
		check scripts.bloat.exit 0 "$rc"
		row() { printf '%s\n' "$report" | awk -v s="$1" '$1 == s { print $2, $3, $4 }'; }
		# The sizes themselves depend on the compiler; the delta does not.
		check_match scripts.bloat.grow "* +100" "$(row grow)"
		check_match scripts.bloat.added "- * +*" "$(row fresh)"
		check_match scripts.bloat.removed "* - -*" "$(row gone)"
		check scripts.bloat.main_unchanged "" "$(row main)"
		check_match scripts.bloat.first "grow *" "$(printf '%s\n' "$report" | sed -n 2p)"
		check_match scripts.bloat.summary "*add/remove: 1/1 grow/shrink: 1/0 up/down: *" "$report"
		check_match scripts.bloat.sections "*text * +*" "$report"
		strip -o "$b/old.stripped" "$b/old"
		sh "$top/scripts/bloat.sh" "$b/old.stripped" "$b/new" >/dev/null 2>"$b/err"
		check_match scripts.bloat.stripped_refused "*no symbols*" "$(cat "$b/err")"
	fi
fi
