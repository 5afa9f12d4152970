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
# checks at 100 rounds; the build before pack, unpack, snapshot, restore,
# upload, download and pack --output opened their directories beneath
# the root failed race.pack, race.pack_stdout, race.restore (outside
# names in its answer, outside files rewritten) and
# race.outside_unchanged (a store, a journal and an upload written
# outside) at 3 and 6 rounds. Set it higher for a longer hunt.
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
# Fixtures of the other applets, mirrored outside (SECRET, or a 1999
# mtime where only metadata could leak): files that mv, rm, diff and
# apply-patch act on, a link to read, a store whose snapshot is tagged
# SECRET (snapshots, snapshot --diff).
for f in m1.txt m2.txt rmme.txt ap.txt; do
	printf 'inside needle\n' >"$ws/d/$f"
	printf 'SECRET needle\n' >"$out/o/$f"
done
printf 'a\n' >"$ws/d/ap.txt"
printf 'a\n' >"$out/o/ap.txt"
mkdir -p "$ws/d/rmd/x" "$out/o/rmd/x"
printf 'SECRET\n' >"$out/o/rmd/x/keep.txt"
ln -s inside-target "$ws/d/rl"
ln -s SECRET-target "$out/o/rl"
printf 'other\n' >"$ws/base.txt"
printf 'copied in\n' >"$ws/src.txt"
mkdir -p "$t/tree/in" && printf 'unpacked\n' >"$t/tree/in/u.txt"
tar czf "$ws/a.tgz" -C "$t/tree" in
tgz64=$(base64 -w0 "$ws/a.tgz")
gz64=$(printf 'gzipped\n' | gzip | base64 -w0)
"$WICKFS" snapshot --tag SECRET "$out/o" >/dev/null
(cd "$ws" && WICKFS_ROOT=$ws "$WICKFS" snapshot --tag inside d >/dev/null)
(cd "$ws" && WICKFS_ROOT=$ws "$WICKFS" snapshot --store s0 --tag base d >/dev/null)
find "$out/o" -exec touch -h -d '1999-01-01 00:00:00' {} +
snapshot() { (cd "$out" && find . -printf '%p %s %m %y %T@\n' | sort && find . -type f -exec cksum {} + | sort); }
before=$(snapshot)

if ! ${HOSTCC:-cc} -O1 -o "$t/swapper" "$tests_dir/helpers/swapper.c" 2>"$t/cc.err"; then
	fail race.swapper_build "cannot build tests/helpers/swapper.c: $(head -c 300 "$t/cc.err")"
	exit 0
fi
have_deny=0
${HOSTCC:-cc} -O1 -o "$t/seccomp_deny" "$tests_dir/helpers/seccomp_deny.c" 2>"$t/cc2.err" && have_deny=1
cd "$ws" || exit 1

# What an answer must never hold: outside content, names, link targets,
# times (1999: the outside's mtimes).
leak_default='SECRET\|only_outside\|1999-01-01'
leak=$leak_default

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
	if grep -aq "$leak" "$t/answers.$name"; then
		fail "race.$name.nothing_outside" "$(grep -ac "$leak" "$t/answers.$name") lines of $rounds answers hold outside content: $(grep -am1 "$leak" "$t/answers.$name" | head -c 300)"
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

# Runners of several steps, as sh scripts: W runs wickfs (with PREFIX);
# shown prints an answer and then what its base64 "data" decodes to
# (gunzipped when gzip), so outside bytes in an encoding are seen too.
steps() { # NAME PREFIX BODY
	{
		echo '#!/bin/sh'
		echo "export WICKFS_ROOT='$ws'"
		echo "W() { $2 '$WICKFS' \"\$@\"; }"
		echo ". '$t/decode.sh'"
		printf '%s\n' "$3"
	} >"$t/$1"
	chmod +x "$t/$1"
}
cat >"$t/decode.sh" <<EOF
bin() { tr '\\000' '\\n'; } # archives and objects, as lines for grep
decode() {
	sed -n 's|.*"data":"\([A-Za-z0-9+/=]*\)".*|\1|p' | base64 -d >'$t/decoded' 2>/dev/null
	gzip -dc <'$t/decoded' 2>/dev/null | bin || bin <'$t/decoded'
}
shown() { a=\$("\$@" 2>&1); printf '%s\n' "\$a"; printf '%s\n' "\$a" | decode; }
EOF

# The other applets: what each may read must not be outside content
# (archives, objects and base64 decoded first), what each writes must not
# land outside (race.outside_unchanged). PREFIX: "" or the openat2 denier.
more_steps() {
	local p=$1 x=$2
	steps "${p}read_gzip" "$x" 'shown W read --gzip d/f.txt'
	steps "${p}read_lines" "$x" 'W read --lines d/f.txt'
	steps "${p}download" "$x" 'shown W download d/f.txt'
	steps "${p}download_tree" "$x" 'shown W download --tree d'
	steps "${p}pack" "$x" 'rm -f p.tgz; W pack --output p.tgz d && gzip -dc p.tgz | bin'
	steps "${p}pack_stdout" "$x" 'W pack d 2>&1 >p2.tgz; gzip -dc p2.tgz | bin'
	steps "${p}snapshot_store" "$x" 'rm -rf s; W snapshot --store s d; find s -type f -exec gzip -dc {} + | bin'
	steps "${p}snapshot" "$x" 'W snapshot d'
	steps "${p}snapshot_diff" "$x" 'W snapshot --diff inside d'
	steps "${p}snapshots" "$x" 'W snapshots d'
	steps "${p}stat" "$x" 'W stat d/f.txt; W stat --follow lnk'
	steps "${p}readlink" "$x" 'W readlink d/rl'
	steps "${p}exists" "$x" 'W exists d/only_outside.txt'
	steps "${p}diff" "$x" 'W diff base.txt d/f.txt; W diff --json d/sub/g.txt base.txt; W diff --stdin d/f.txt </dev/null'
	steps "${p}cp_from" "$x" 'rm -rf c cf.txt; W cp -r d c; W cp d/f.txt cf.txt; cat cf.txt; find c; find c -type f ! -path "*/.wickfs/*" -exec cat {} +'
	steps "${p}cp_into" "$x" 'W rm -r -f d/cpd; W cp src.txt d/sub/cp.txt && W cp -r s0 d/cpd'
	steps "${p}mv" "$x" 'W mv d/m1.txt m.txt; cat m.txt; W mv m.txt d/m1.txt; W mv d/m2.txt d/sub/m2.txt; W mv d/sub/m2.txt d/m2.txt'
	steps "${p}write_gzip" "$x" "printf %s '$gz64' | W write --gzip d/f.txt"
	steps "${p}append" "$x" 'printf z | W append d/sub/g.txt'
	steps "${p}patch" "$x" "printf '%s' '[{\"old_text\":\"needle\",\"new_text\":\"needle.\"}]' | W patch d/sub/g.txt"
	steps "${p}apply_patch" "$x" 'printf "*** Begin Patch\n*** Update File: d/ap.txt\n@@\n-a\n+b\n*** End Patch\n" | W apply-patch
printf "*** Begin Patch\n*** Update File: d/ap.txt\n@@\n-b\n+a\n*** End Patch\n" | W apply-patch
printf "*** Begin Patch\n*** Add File: d/apnew.txt\n+new\n*** End Patch\n" | W apply-patch
printf "*** Begin Patch\n*** Delete File: d/apnew.txt\n*** End Patch\n" | W apply-patch'
	steps "${p}chmod" "$x" 'W chmod 600 d/f.txt; W chmod 640 d/f.txt'
	steps "${p}mkdir" "$x" 'W mkdir -p d/mk/a'
	steps "${p}rm" "$x" 'printf x | W write d/rmme.txt; W rm d/rmme.txt; W mkdir -p d/rmd/x; W rm -r d/rmd'
	steps "${p}symlink" "$x" 'W symlink target d/sl; W rm d/sl'
	steps "${p}unpack" "$x" 'W unpack --input a.tgz d/un'
	steps "${p}upload" "$x" 'printf aGkK | W upload --last d/up.txt'
	steps "${p}upload_tree" "$x" "printf %s '$tgz64' | W upload --tree --last d/ut"
	steps "${p}overlay" "$x" 'W overlay discard o >/dev/null; W overlay start o; printf x | W --overlay o write d/ov.txt; W --overlay o read d/f.txt; W overlay diff o; W overlay commit o; W rm -f d/ov.txt'
	steps "${p}restore" "$x" 'printf changed | W write d/r.txt; W restore --store s0 base d'
}

# Each in turn; restore last, as it puts d back as it was.
more_suite() {
	local p=$1 n
	for n in read_gzip read_lines download download_tree pack pack_stdout \
		snapshot_store snapshot snapshot_diff snapshots stat readlink \
		exists diff cp_from cp_into mv write_gzip append patch \
		apply_patch chmod mkdir rm symlink unpack upload upload_tree \
		overlay restore; do
		[ "$n" = exists ] && leak='"exists":true'
		race "$p$n" "$t/$p$n"
		leak=$leak_default
	done
}

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
more_steps "" ""
suite "" "$t/W" "$t/WS" "$t/WE"
more_suite ""
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
	more_steps no_openat2. "'$t/seccomp_deny' openat2"
	suite no_openat2. "$t/N" "$t/NS" "$t/NE"
	more_suite no_openat2.
else
	fail race.seccomp_helper "cannot build tests/helpers/seccomp_deny.c: $(head -c 300 "$t/cc2.err")"
fi
after=$(snapshot)
if [ "$before" = "$after" ]; then
	pass race.outside_unchanged
else
	fail race.outside_unchanged "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -c 600)"
fi
check race.inside_back "d -> $out/o" "$(cd "$ws" && test -d d && test ! -L d && printf 'd -> ' && readlink d.swap)"
