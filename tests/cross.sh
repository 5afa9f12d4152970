#!/usr/bin/env bash
# tests/cross.sh - sourced by tests/t_cross_ARCH.sh with CROSS_ARCH set: the
# cross build (`make ARCH=$CROSS_ARCH`, toolchain by scripts/cross.sh) is a
# static, stripped binary that, run under qemu-user, prints byte for byte
# what the x86_64 build (WICKFS) prints on the same inputs: the conformance
# applets, confinement, and the byte scans at every offset of a 16-byte
# block (NEON on aarch64, SSE2 on x86_64, plain loops elsewhere; s390x is
# big-endian). The unit tests (tests/unit) are built for ARCH too and run
# under qemu.
#
# WICKFS_TEST_CROSS: the architectures to test (default: aarch64 and
# s390x, a 64-bit ARM and the big-endian one, which keeps `make test`
# near its time; "all" for the six, "none" for none); WICKFS_TEST_AARCH64=0
# leaves aarch64 out as before. `make test-cross` runs every platform.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/cross-arch.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
A=$CROSS_ARCH
cross_arch "$A" || { fail "$A" "unknown CROSS_ARCH"; exit 1; }
arm=$top/build/wickfs-$A

want=${WICKFS_TEST_CROSS:-aarch64 s390x}
[ "$want" = all ] && want=$CROSS_ARCHES
case " $want " in
*" $A "*) ;;
*)
	skip "$A" "not in WICKFS_TEST_CROSS (${WICKFS_TEST_CROSS:-aarch64 s390x by default; all for the six}); make test-cross runs it"
	exit 0
	;;
esac
if [ "$A" = aarch64 ] && [ "${WICKFS_TEST_AARCH64:-1}" = 0 ]; then
	skip aarch64 "WICKFS_TEST_AARCH64=0"
	exit 0
fi
if [ "${WICKFS_SANITIZED:-0}" = 1 ]; then
	skip "$A" "compared with the static x86_64 build in the plain pass"
	exit 0
fi

if ! make -C "$top" -s --no-print-directory ARCH="$A" >"$TEST_TMP/make.log" 2>&1; then
	fail "$A.build" "make ARCH=$A: $(tail -n 8 "$TEST_TMP/make.log" | tr '\n' ' ' | cut -c1-800)"
	exit 1
fi
pass "$A.build"

case $A in
aarch64) want="ARM aarch64" ;;
armv7) want="ARM, EABI5" ;;
i386) want="Intel 80386" ;;
ppc64le) want="LSB executable, 64-bit PowerPC" ;;
s390x) want="IBM S/390" ;;
riscv64) want="RISC-V" ;;
esac
desc=$(file -b "$arm" 2>&1)
check_match "$A.file.arch" "*$want*" "$desc"
check_match "$A.file.static" "*statically linked*" "$desc"
check_match "$A.file.stripped" "*, stripped*" "$desc"

qemu=$(command -v "qemu-$qemu-static" || command -v "qemu-$qemu") || {
	fail "$A.qemu" "neither qemu-$qemu-static nor qemu-$qemu (scripts/cross.sh installs qemu-user-static)"
	exit 1
}

# run BINARY... ARGS: rc, stdout and stderr of one run as one string,
# stdin from $stdin (default /dev/null).
stdin=/dev/null
run() {
	local o=$TEST_TMP/.o e=$TEST_TMP/.e rc
	"$@" <"$stdin" >"$o" 2>"$e"
	rc=$?
	printf 'rc=%s\n' "$rc"
	cat "$o"
	printf '\n-- stderr:\n'
	cat "$e"
}

# same NAME ARGS...: both builds, the same result; the x86_64 one a
# success envelope (same_err: an error envelope), so that two identical
# failures do not pass as a comparison.
_same() {
	local name=$1 want=$2 x a
	shift 2
	x=$(run "$WICKFS" "$@"; printf x)
	a=$(run "$qemu" "$arm" "$@"; printf x)
	# shellcheck disable=SC2053
	if [[ $x != rc=?$'\n'$want* ]]; then
		fail "$A.$name" "x86_64 gave $(show "${x%x}")"
		return
	fi
	check "$A.$name" "${x%x}" "${a%x}"
}
same() { _same "$1" '{"ok":true' "${@:2}"; }
same_err() { _same "$1" '{"ok":false' "${@:2}"; }
same_text() { _same "$1" '' "${@:2}"; }

# same_fs NAME FILE SETUP ARGS...: like same for a command that changes
# FILE; SETUP (a function) restores the inputs before each run, FILE's
# contents and mode afterwards are compared too.
same_fs() {
	local name=$1 file=$2 setup=$3 x a
	shift 3
	"$setup"
	x=$(run "$WICKFS" "$@"; stat -c %a "$file"; cat "$file"; printf x)
	"$setup"
	a=$(run "$qemu" "$arm" "$@"; stat -c %a "$file"; cat "$file"; printf x)
	if [[ $x != rc=0$'\n''{"ok":true'* ]]; then
		fail "$A.$name" "x86_64 gave $(show "${x%x}")"
		return
	fi
	check "$A.$name" "${x%x}" "${a%x}"
}

same_text version --version
same_text list --list

# ---- the inputs ----
d=$TEST_TMP/d
mkdir -p "$d/sub/deep" "$d/.hidden" "$d/node_modules"
printf 'hello world\nfoo123 bar\nFOO45 baz\nnothing here\n' >"$d/a.txt"
printf 'package main\n\nfunc Foo() {}\n// TODO: fix ÄPFEL and Straße\n' >"$d/sub/b.go"
printf "def foo_99():\n    return 'äpfel'  # Ärger\n" >"$d/sub/c.py"
printf 'deep foo7\n' >"$d/sub/deep/x.txt"
printf 'hidden foo1\n' >"$d/.hidden/h.txt"
printf 'module foo2\n' >"$d/node_modules/m.js"
printf 'one\r\ntwo\r\nthree' >"$d/crlf.txt"
printf '\x00\x01\x02\xff\xfe binary' >"$d/bin.dat"
printf 'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 and bad \xc3(\n' >"$d/utf8.txt"
printf 'compressed foo77\nplain line\n' | gzip -9n >"$d/z.txt.gz"
ln -s a.txt "$d/link.txt"
printf '*.log\n' >"$d/.gitignore"
printf 'foo in a log\n' >"$d/skip.log"
# Long lines and many of them, rare hits: the byte scan, newline count,
# DFA and the literal prefilter on both paths.
awk 'BEGIN {
	for (i = 1; i <= 20000; i++) {
		s = sprintf("%06d alpha beta gamma delta epsilon zeta eta theta iota kappa", i)
		if (i % 7 == 0) s = s "\tTab_" i
		if (i % 997 == 0) s = s " Needle_" i " key=VALUE" (i % 10)
		if (i % 1499 == 0) s = s " nEeDlE_x"
		if (i % 3001 == 0) { r = ""; for (j = 0; j < 400; j++) r = r "ab"; s = s " " r "Zq" }
		print s
	}
}' >"$d/big.txt"
cd "$d" || exit 1

# ---- ls, read ----
same ls.dir ls .
same ls.sub ls sub
same ls.abs ls "$d/sub/deep"
same_err ls.missing ls nope
same read.text read a.txt
same read.crlf read crlf.txt
same read.binary read bin.dat
same read.utf8 read utf8.txt
same read.gz read z.txt.gz
same read.symlink read link.txt
same read.big read big.txt
same_err read.missing read nope.txt
same_err read.dir read sub

# ---- grep ----
same grep.literal grep foo
same grep.class_i grep -i '[a-f]oo\d+' .
same grep.class_posix grep '[[:upper:]]{3}\d{2}'
same grep.unicode_i grep -i 'äpfel|STRASSE|straße'
same grep.unicode_class grep '\p{Lu}\p{Ll}+' sub
same grep.word grep -w foo .
same grep.fixed grep -F 'a.txt' .
same grep.context grep -C 1 bar
same grep.files grep -l foo
same grep.count grep -c -i 'o\b'
same grep.hidden_noskip grep --hidden --no-skip 'foo\d'
same grep.gitignore grep --gitignore foo
same grep.gz grep -z 'compressed|plain'
same grep.multiline grep -U 'one\r?\ntwo' crlf.txt
same grep.include grep --include '*.go' --include '*.py' -i 'todo|def'
same grep.big_rare grep --max 0 'Needle_\d+ key=VALUE[0-4]' big.txt
same grep.big_rare_i grep --max 0 -i 'needle_x' big.txt
same grep.big_count grep -c 'Tab_\d*7$' big.txt
same grep.big_long grep --max 0 '(ab){300}Zq' big.txt
same grep.big_class_i grep --max 0 -i '[a-l]{2}ue[0-9]$' big.txt
same grep.big_fixed_i grep --max 0 -F -i 'VALUE7' big.txt
same grep.big_none grep --max 0 'omega' big.txt
same grep.big_truncated grep 'a' big.txt
same_err grep.bad_regex grep '(' .

# ---- glob ----
same glob.txt glob '*.txt'
same glob.alternation glob '**/*.{go,py}'
same glob.class glob '[a-c].*'
same glob.hidden glob --hidden --no-skip '*'
same glob.type_l glob --type l '*'
same glob.max glob --max 2 '*'
same glob.gitignore glob --gitignore '*'

# ---- write, edit ----
w=$TEST_TMP/w
reset_w() { rm -rf "$w"; }
stdin=$TEST_TMP/content
printf 'new content: ä € 😀\nline 2\n' >"$stdin"
same_fs write.new "$w/new/dir/f.txt" reset_w write "$w/new/dir/f.txt"
mk_w() { rm -rf "$w" && mkdir -p "$w" && printf 'old\n' >"$w/f.txt" && chmod 640 "$w/f.txt"; }
same_fs write.replace "$w/f.txt" mk_w write "$w/f.txt"

e=$TEST_TMP/e.txt
mk_e() { printf 'foo one\r\nbar foo\r\nfoo end' >"$e"; }
printf '{"old_text":"foo","new_text":"qüx"}' >"$stdin"
same_fs edit.first "$e" mk_e edit "$e"
same_fs edit.all "$e" mk_e edit --all "$e"
mk_e
same_err edit.unique edit --unique "$e"
printf '{"old_text":"absent","new_text":"x"}' >"$stdin"
same_err edit.absent edit "$e"
stdin=/dev/null

# ---- exec ----
same exec.echo exec echo hi
same exec.shell exec 'echo out; echo err >&2; exit 3'
same exec.cwd exec --cwd sub ls
same exec.cap exec --max-output 5 'printf 0123456789'

# ---- the vector scans at 16-byte block boundaries ----
# Files of lines of about L bytes (the last one without '\n'), one planted
# byte or sequence per line at every offset: the newline scan and count,
# JSON escaping (read, exec stdout, grep text) and the literal prefilters
# (one literal, a set) see their needle at every place of a 16-byte block
# and in the tail. u*.txt are valid UTF-8 (read gives them as strings),
# b*.txt also hold CR, bytes >= 0x80 that are not UTF-8, z*.txt a NUL.
v=$TEST_TMP/v
mkdir -p "$v"
fill=abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789
# shellcheck disable=SC1003 # printf formats: '\\' is one backslash
utf=('Q' 'Zq' '"' '\\' '\t' '\001' '\037' ' ' '~' '\177' '\303\251' 'bar9')
bad=('\377' '\200' '\303' '\r' '\342\200\250')
vec_file() { # FILE L PLANT...
	local f=$1 L=$2 p k
	shift 2
	{
		for ((p = 0; p < L; p++)); do
			k=$(((p + L) % $#))
			printf '%s' "${fill:0:p}"
			# shellcheck disable=SC2059
			printf "${@:k+1:1}"
			printf '%s\n' "${fill:p+1:L-p}"
		done
		printf '%s' "${fill:0:L}"
	} >"$f"
}
vec_lens="$(seq -s ' ' 0 40) 47 48 49 63 64 65 79 80 81"
for L in $vec_lens; do
	vec_file "$v/u$L.txt" "$L" "${utf[@]}"
	vec_file "$v/b$L.txt" "$L" "${utf[@]}" "${bad[@]}"
	if [ "$L" -gt 0 ]; then
		{ printf '%s' "${fill:0:L-1}Zq"; printf '\000'; printf 'Zq\n'; } >"$v/z$L.txt"
	fi
done
cd "$v" || exit 1
same vec.grep_one grep --max 0 'Q' .
same vec.grep_two grep --max 0 'Zq' .
same vec.grep_set grep --max 0 'Q|Zq|bar9' .
same vec.grep_i grep --max 0 -i 'zQ|BAR9' .
same vec.grep_tab grep --max 0 -F "$(printf '\t')" .
same vec.grep_utf8 grep --max 0 'é|\x{2028}' .
same vec.grep_count grep -c 'a' .
same vec.grep_files grep -l 'Zq' .
same vec.exec_cat exec 'cat u*.txt b*.txt'
vec_read=""
for L in $vec_lens; do
	x=$(run "$WICKFS" read "u$L.txt")
	a=$(run "$qemu" "$arm" read "u$L.txt")
	[ "$x" == "$a" ] || vec_read="$vec_read u$L.txt"
	case $x in
	rc=0$'\n''{"ok":true'*) ;;
	*) vec_read="$vec_read u$L.txt(x86_64 failed)" ;;
	esac
done
check "$A.vec.read_all" "" "$vec_read"

# ---- confinement: the same walk and refusals (openat2, or its fallback
# where qemu lacks it) ----
cd "$d" || exit 1
ln -s / "$d/slash"
export WICKFS_ROOT=$d
same conf.read_inside read a.txt
same conf.read_link_inside read link.txt
same_err conf.read_outside read /etc/hostname
same_err conf.read_dotdot read ../x
same_err conf.link_out ls slash
same conf.grep_inside grep foo sub
unset WICKFS_ROOT

# ---- the unit tests, built for ARCH and run under qemu ----
cd "$top" || exit 1
mkdir -p "$TEST_TMP/unit"
for src in tests/unit/*_test.c; do
	[ -f "$src" ] || continue
	n=$(basename "$src" .c)
	exe=$TEST_TMP/unit/$n
	if ! "build/musl-$A/bin/musl-gcc" -static -Iinclude -Ibuild/gen \
		"-Ibuild/zlib-$A/include" $musl_cflags -Wall -Wextra -Werror -std=gnu11 \
		-D_GNU_SOURCE -O1 "$src" "build/obj-$A/libwickfs.a" \
		"build/zlib-$A/lib/libz.a" -lpthread -o "$exe" >"$exe.log" 2>&1; then
		fail "$A.unit/$n" "does not compile: $(head -c 600 "$exe.log" | tr '\n' ' ')"
		continue
	fi
	# A hang guard, not a time limit: emulated, the regex differential
	# table takes minutes on a loaded machine.
	timeout -k 5 600 "$qemu" "$exe" </dev/null >"$exe.out" 2>"$exe.err"
	rc=$?
	sed "s|^ok |ok $A.unit/$n.|; s|^FAIL |FAIL $A.unit/$n.|" "$exe.out" | grep -E '^(ok|FAIL) '
	if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$exe.out"; then
		fail "$A.unit/$n" "exit status $rc: $(tail -n 3 "$exe.err" | tr '\n' ' ' | cut -c1-300)"
	fi
done
