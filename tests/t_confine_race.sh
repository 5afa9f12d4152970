#!/usr/bin/env bash
# Confinement under a race: while a helper swaps a directory inside the
# workspace root for a symlink to the outside and back in a tight loop
# (tests/helpers/swapper.c, rename-based), every applet is run many times.
# Whatever each run answers (the inside content, or a refusal), none may
# return outside content, list outside names, or change anything outside.
# Run with openat2 and, under tests/helpers/seccomp_deny.c, without it.
# WICKFS_RACE_ROUNDS sets the runs per applet (default 25, 3 for the
# sanitizer build, there for its memory checks of these paths: each run is
# a process start on a machine the swap keeps busy); the build before descriptor-relative opens failed 17 of these
# checks at 100 rounds. Set it higher for a longer hunt.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)
rounds=${WICKFS_RACE_ROUNDS:-25}
[ -z "${WICKFS_RACE_ROUNDS:-}" ] && [ "${WICKFS_SANITIZED:-0}" = 1 ] && rounds=3

t=$TEST_TMP/race
mkdir -p "$t/ws/d/sub" "$t/out/o/sub"
ws=$(cd "$t/ws" && pwd -P)
out=$(cd "$t/out" && pwd -P)
printf 'inside needle\n' >"$ws/d/f.txt"
printf 'inside needle\n' >"$ws/d/sub/g.txt"
# The outside mirrors the inside, so every path works in either state;
# SECRET marks its content and only_outside its names.
printf 'SECRET needle\n' >"$out/o/f.txt"
printf 'SECRET needle\n' >"$out/o/sub/g.txt"
printf 'SECRET needle\n' >"$out/o/only_outside.txt"
ln -s "$out/o" "$ws/d.swap"
ln -s d/f.txt "$ws/lnk" # a link inside that goes through the swapped name
snapshot() { (cd "$out" && find . -printf '%p %s %m\n' | sort && cat o/f.txt o/sub/g.txt); }
before=$(snapshot)

if ! ${HOSTCC:-cc} -O1 -o "$t/swapper" "$tests_dir/helpers/swapper.c" 2>"$t/cc.err"; then
	fail race.swapper_build "cannot build tests/helpers/swapper.c: $(head -c 300 "$t/cc.err")"
	exit 0
fi
have_deny=0
${HOSTCC:-cc} -O1 -o "$t/seccomp_deny" "$tests_dir/helpers/seccomp_deny.c" 2>"$t/cc2.err" && have_deny=1
cd "$ws" || exit 1

# Run one applet rounds times with the swap going on; every answer is
# appended to $t/answers.NAME. $1: the name, then a runner, then its args.
race() {
	local name=$1 i
	shift
	# Without the swap the run works and answers from inside, so the
	# runner is sound (during it, any answer may be a refusal).
	check_match "race.$name.works_unswapped" '*"ok":true*' "$("$@" 2>&1 </dev/null)"
	: >"$t/answers.$name"
	rm -f "$t/count.$name"
	"$t/swapper" "$ws/d" "$ws/d.swap" "$t/count.$name" &
	local spid=$!
	for ((i = 0; i < 400; i++)); do # bounded: until its SIGTERM handler is set
		[ -e "$t/count.$name" ] && break
		sleep 0.05
	done
	for ((i = 0; i < rounds; i++)); do
		"$@" >>"$t/answers.$name" 2>&1 </dev/null
		echo >>"$t/answers.$name"
	done
	kill -TERM "$spid"
	wait "$spid"
	local rc=$?
	check "race.$name.swapper_ran" "0 yes" "$rc $( [ "$(cat "$t/count.$name" 2>/dev/null || echo 0)" -gt 0 ] && echo yes || echo no)"
	if grep -q 'SECRET\|only_outside' "$t/answers.$name"; then
		fail "race.$name.nothing_outside" "$(grep -c 'SECRET\|only_outside' "$t/answers.$name") of $rounds answers hold outside content: $(grep -m1 'SECRET\|only_outside' "$t/answers.$name" | head -c 300)"
	else
		pass "race.$name.nothing_outside"
	fi
}

# The runners, as scripts (env and race run programs, not functions).
# $1 of each: "" to run directly, or the openat2-denying wrapper.
runner() { # NAME PREFIX STDIN ARGS...
	local name=$1 prefix=$2 input=$3
	shift 3
	{
		echo '#!/bin/sh'
		echo "export WICKFS_ROOT='$ws'"
		[ -n "$input" ] && printf "printf '%%s' '%s' | " "$input"
		echo "exec $prefix '$WICKFS' $* \"\$@\""
	} >"$t/$name"
	chmod +x "$t/$name"
}
# each edit appends a dot (an edit that changes nothing is refused)
edit_json='{"old_text":"needle","new_text":"needle."}'
runner W "" ""
runner WS "" x write
runner WE "" "$edit_json" edit
runner N "'$t/seccomp_deny' openat2" ""
runner NS "'$t/seccomp_deny' openat2" x write
runner NE "'$t/seccomp_deny' openat2" "$edit_json" edit

suite() {
	local p=$1 run=$2 wr=$3 ed=$4
	race "${p}read" "$run" read d/f.txt
	race "${p}read_deep" "$run" read d/sub/g.txt
	race "${p}ls" "$run" ls d
	race "${p}grep_dir" env WICKFS_THREADS=4 "$run" grep needle d
	race "${p}grep_dir_1thread" env WICKFS_THREADS=1 "$run" grep needle d
	race "${p}grep_tree" env WICKFS_THREADS=4 "$run" grep needle .
	race "${p}grep_file" "$run" grep needle d/f.txt
	race "${p}grep_link" "$run" grep needle lnk
	race "${p}glob" "$run" glob '**/*.txt' d
	race "${p}glob_tree" "$run" glob --sort mtime '**/*.txt'
	race "${p}write_mkdir" "$wr" d/new/deeper/f.txt
	race "${p}write" "$wr" d/f.txt
	race "${p}edit" "$ed" d/sub/g.txt
}
suite "" "$t/W" "$t/WS" "$t/WE"
# Under a qemu-user that does not know openat2 (tests/cross-run; QEMU_STRACE
# says "Unknown syscall 437"), the suite above already ran the descriptor
# walk that denying openat2 would force: a second suite would repeat it.
no_o2=""
if [ "${WICKFS_EMULATED:-0}" = 1 ] &&
	QEMU_STRACE=1 "$t/W" read d/f.txt 2>&1 >/dev/null | grep -q 'Unknown syscall 437'; then
	no_o2="this qemu-user does not implement openat2 (syscall 437), so the suite above already raced the walk without it"
fi
if [ -n "$no_o2" ]; then
	skip race.no_openat2 "$no_o2"
elif [ "$have_deny" = 1 ]; then
	suite no_openat2. "$t/N" "$t/NS" "$t/NE"
else
	fail race.seccomp_helper "cannot build tests/helpers/seccomp_deny.c: $(head -c 300 "$t/cc2.err")"
fi
check race.outside_unchanged "$before" "$(snapshot)"
check race.inside_back "d -> $out/o" "$(cd "$ws" && test -d d && test ! -L d && printf 'd -> ' && readlink d.swap)"
