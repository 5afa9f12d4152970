#!/usr/bin/env bash
# pack / unpack: round trips compared file by file, GNU tar and gzip in both
# directions, and hostile archives.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/pack
mkdir -p "$d"
cd "$d" || exit 1

# One line per entry (newlines in names shown as '?'): type, mode, mtime
# to the nanosecond and link target; then every file's content hash.
manifest() {
	(
		cd "$1" || exit 1
		find . -mindepth 1 -printf '%P\t%y %m %T@ %l\0' | sort -z | tr '\n\0' '?\n'
		find . -type f -print0 | sort -z | xargs -0 -r md5sum
	)
}

# The same without mtimes: for writers that do not keep them all.
manifest_no_time() {
	manifest "$1" | sed -E 's/^([^\t]*\t[a-z] [0-7]+) [0-9.]+/\1/'
}

# Fails when "$2" (a directory) holds a temporary file of unpack.
no_temp() {
	local left
	left=$(find "$2" -name '.wickfs-unpack-*' 2>/dev/null | head -3)
	check "$1" "" "$left"
}

# check_tree NAME DIR: DIR holds the source to the nanosecond. Under a
# qemu-user whose fstatat gives whole seconds (tests/cross-run sets
# WICKFS_EMULATED_WHOLE_SECONDS to why), all but the times, and the
# times' part skips.
check_tree() {
	if [ -n "${WICKFS_EMULATED_WHOLE_SECONDS:-}" ]; then
		check "$1" "$want" "$(manifest_no_time "$2")"
		skip "$1.mtime_ns" "$WICKFS_EMULATED_WHOLE_SECONDS"
	else
		check "$1" "$want_t" "$(manifest "$2")"
	fi
}

# ---- the source tree ----
src=$d/src
mkdir -p "$src/sub/deeper" "$src/empty dir" "$src/private" "$src/many"
printf 'hello\n' >"$src/hello.txt"
printf 'secret' >"$src/private/key"
chmod 0600 "$src/private/key"
chmod 0750 "$src/private"
printf '#!/bin/sh\n' >"$src/run.sh"
chmod 0755 "$src/run.sh"
: >"$src/empty file"
printf 'space' >"$src/name with spaces"
printf 'nl' >"$src/new"$'\n'"line"
printf 'utf8' >"$src/ünïcödé-名前.txt"
long=$(printf 'l%.0s' $(seq 1 120))
printf 'long' >"$src/sub/$long"
deep=$src/sub/deeper/$(printf 'a%.0s' $(seq 1 90))/$(printf 'b%.0s' $(seq 1 90))/$(printf 'c%.0s' $(seq 1 90))
mkdir -p "$deep"
printf 'deep' >"$deep/file-at-depth"
ln -s hello.txt "$src/link"
ln -s ../hello.txt "$src/sub/uplink"
ln -s does-not-exist "$src/dangling"
ln -s "$(printf 't%.0s' $(seq 1 150))" "$src/longtarget"
mkfifo "$src/fifo"
head -c 15000000 /dev/urandom | base64 >"$src/big" # about 20 MB
for i in $(seq 1 2000); do printf 'small %d\n' "$i" >"$src/many/f$i"; done
touch -d '2021-03-04 05:06:07.123456789' "$src/hello.txt"
touch -h -d '2019-01-01 00:00:00.5' "$src/link"
touch -d '2018-02-03 04:05:06' "$src/empty dir" "$src/sub/deeper"
want_t=$(manifest "$src" | grep -v '^fifo	')
want=$(manifest_no_time "$src" | grep -v '^fifo	')

# ---- pack, then unpack ----
"$WICKFS" pack "$src" >a.tgz 2>a.err
rc=$?
check pack.stdout.rc 0 "$rc"
check_match pack.stdout.envelope_on_stderr '{"ok":true,"data":{"files":2010,"dirs":8,"symlinks":4,"bytes":20*,"compressed_bytes":*,"skipped":\["fifo"\],"skipped_total":1}}' "$(cat a.err)"
wf_file a.tgz unpack out
check_match unpack.envelope '{"ok":true,"data":{"files":2010,"dirs":8,"symlinks":4,"bytes":20*,"compressed_bytes":*,"skipped":\[\],"skipped_total":0}}' "${OUT%$'\n'}"
check_tree unpack.round_trip out
no_temp unpack.no_temp out

# --output: the envelope on stdout, the archive in the file.
wf pack --output b.tgz --exclude 'f1*' --exclude '*.sh' --level 9 "$src"
check_match pack.output.envelope '{"ok":true,"data":{"files":898,*' "$OUT"
check pack.output.no_stderr "" "$ERR"
check pack.output.no_temp "" "$(ls | grep wickfs-tmp)"
listing=$(tar -tzf b.tgz 2>&1)
check_true pack.exclude "excluded names in the archive" \
	bash -c '! grep -qE "^many/f1|run\.sh" <<<"$1"' _ "$listing"
check_true pack.exclude.kept "many/f2 missing" grep -qx 'many/f2' <<<"$listing"
# --whole-seconds: no pax mtime records; the rest survives.
"$WICKFS" pack --whole-seconds --threads 1 "$src" >ws.tgz 2>/dev/null
check pack.whole_seconds.no_mtime_records 0 "$(gzip -dc ws.tgz | grep -ac 'mtime=')"
if [ -n "${WICKFS_EMULATED_WHOLE_SECONDS:-}" ]; then
	skip pack.default_has_subsec "$WICKFS_EMULATED_WHOLE_SECONDS"
else
	check_true pack.default_has_subsec "no mtime records" bash -c '[ "$(gzip -dc a.tgz | grep -ac mtime=)" -gt 2000 ]'
fi
wf_file ws.tgz unpack x-ws
check pack.whole_seconds.round_trip "$want" "$(manifest_no_time x-ws)"
check pack.whole_seconds.mtime "1614834367" "$(stat -c %Y x-ws/hello.txt)"
wf pack --level 10 "$src"
check pack.bad_level 1 "$RC"

# ---- GNU tar and gzip read what we write ----
check_true gzip.test "gzip -t failed" gzip -t a.tgz
check gnutar.list_count 2022 "$(tar -tzf a.tgz | wc -l)"
mkdir gnu
check_true gnutar.extract "tar -xzf failed" tar -xzf a.tgz -C gnu
check_tree gnutar.round_trip gnu
check gzip.one_member "$(gzip -dc a.tgz | md5sum)" "$(gzip -dc a.tgz | md5sum)"

# ---- we read what they write ----
for fmt in gnu pax ustar; do
	rm -rf "x-$fmt"
	if [ $fmt = ustar ]; then
		# ustar cannot hold the deep path or long target: a smaller tree.
		tar --format=ustar -czf "$fmt.tgz" -C "$src" hello.txt private many sub/uplink 2>/dev/null
		wf_file "$fmt.tgz" unpack "x-$fmt"
		check "gnutar.$fmt.unpack" 0 "$RC"
		check "gnutar.$fmt.content" "$(cat "$src/many/f77")" "$(cat "x-$fmt/many/f77")"
		continue
	fi
	tar --format=$fmt -czf "$fmt.tgz" -C "$src" . 2>/dev/null
	wf_file "$fmt.tgz" unpack "x-$fmt"
	check_match "gnutar.$fmt.unpack" '{"ok":true,"data":{"files":2010,*"skipped":\["./fifo"\],"skipped_total":1}}' "${OUT%$'\n'}"
	# GNU format keeps whole seconds only.
	if [ $fmt = gnu ]; then
		check "gnutar.$fmt.round_trip" "$want" "$(manifest_no_time "x-$fmt")"
	else
		check "gnutar.$fmt.round_trip" "$want_t" "$(manifest "x-$fmt")"
	fi
done

# Several gzip members (pigz -i, cat a.gz b.gz): one tar cut in two.
tar -cf whole.tar -C "$src" .
size=$(stat -c %s whole.tar)
head -c $((size / 2 + 333)) whole.tar | gzip -1 >m1.gz
tail -c +$((size / 2 + 334)) whole.tar | gzip -9 >m2.gz
cat m1.gz m2.gz >multi.tgz
wf_file multi.tgz unpack x-multi
check unpack.multi_member.rc 0 "$RC"
check unpack.multi_member "$want" "$(manifest_no_time x-multi)"
if command -v pigz >/dev/null; then
	tar -cf - -C "$src" . | pigz -i >pigz.tgz
	wf_file pigz.tgz unpack x-pigz
	check unpack.pigz_i "$want" "$(manifest_no_time x-pigz)"
else
	skip unpack.pigz_i "pigz is not installed"
fi

# Unpacking over an existing tree replaces files and keeps going.
wf_file a.tgz unpack out
check unpack.again.rc 0 "$RC"
check_tree unpack.again out

# ---- hostile archives ----
# Everything hostile happens in $jail: $jail/h/t is the target and
# $jail/outside must stay empty.
jail=$d/jail
outside=$jail/outside
mkdir -p "$outside"
jail_state() { ls -A "$jail" | grep -vx h; ls -A "$outside"; }
before_outside=$(jail_state)

# hostile NAME NEEDLE ARCHIVE [ARGS]: refused with NEEDLE in the error,
# nothing outside changed, no temporary file left.
hostile() {
	local name=$1 needle=$2 arc=$3
	shift 3
	rm -rf "$jail/h"
	mkdir "$jail/h"
	wf_file "$arc" unpack "$@" "$jail/h/t"
	_expect_error_result "unpack.hostile.$name" "$needle"
	check "unpack.hostile.$name.outside" "$before_outside" "$(jail_state)"
	no_temp "unpack.hostile.$name.no_temp" "$jail/h"
}

py=$(command -v python3 || true)
if [ -n "$py" ] && "$py" -c 'import tarfile' 2>/dev/null; then
	"$py" - "$d" "$outside" <<'EOF'
import io, sys, tarfile
d, outside = sys.argv[1], sys.argv[2]
def arc(name, members):
    with tarfile.open(f"{d}/{name}.tgz", "w:gz", format=tarfile.PAX_FORMAT) as t:
        for m in members:
            ti = tarfile.TarInfo(m[0])
            kind = m[1]
            if kind == "file":
                data = m[2]
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            elif kind == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = m[2]
                t.addfile(ti)
            elif kind == "dir":
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif kind == "header":
                ti.size = m[2]
                t.addfile(ti)  # no data: a declared size only
arc("dotdot", [("ok", "file", b"fine"), ("../x", "file", b"escape")])
arc("dotdot_mid", [("a/../../x", "file", b"escape")])
arc("absolute", [(outside + "/abs", "file", b"escape")])
arc("symlink_then_file", [("l", "link", ".."), ("l/x", "file", b"escape")])
arc("symlink_abs_then_file", [("l", "link", outside), ("l/x", "file", b"escape")])
arc("symlink_then_dir", [("l", "link", outside), ("l/sub", "dir")])
arc("huge_size", [("ok", "file", b"fine"), ("huge", "header", 1 << 40)])
EOF
	hostile dotdot '../x: refused: *would leave' dotdot.tgz
	check unpack.hostile.dotdot.before "fine" "$(cat "$jail/h/t/ok" 2>&1)"
	hostile dotdot_mid 'a/../../x: refused' dotdot_mid.tgz
	hostile absolute "$outside/abs: refused: an absolute name" absolute.tgz
	hostile symlink_then_file 'l/x: refused: l is a symlink' symlink_then_file.tgz
	hostile symlink_abs_then_file 'l/x: refused: l is a symlink' symlink_abs_then_file.tgz
	hostile symlink_then_dir 'l/sub/: refused: l is a symlink' symlink_then_dir.tgz
	hostile huge_size 'huge: refused: declared size 1099511627776 exceeds the limit' huge_size.tgz
	check unpack.hostile.huge_size.no_file "" "$(ls "$jail/h/t" | grep huge)"
else
	skip unpack.hostile.python "python3 with tarfile is not installed"
fi

# A symlink already in the target is not followed either.
rm -rf "$jail/h"
mkdir -p "$jail/h/t"
ln -s "$outside" "$jail/h/t/planted"
mkdir -p "$d/hsrc/planted"
printf 'x' >"$d/hsrc/planted/x"
tar -czf planted.tgz -C "$d/hsrc" planted
wf_file planted.tgz unpack "$jail/h/t"
_expect_error_result unpack.hostile.planted_symlink 'planted/: refused: a symlink is in the way'
check unpack.hostile.planted_symlink.outside "$before_outside" "$(jail_state)"

# Truncated: cut inside the 20 MB file's data. The error names it, the
# file is not there, no temporary file is left.
off=$(( $(stat -c %s a.tgz) / 2 ))
head -c "$off" a.tgz >cut.tgz
hostile truncated 'big: gzip: truncated stream' cut.tgz
check unpack.hostile.truncated.no_partial "" "$(ls "$jail/h/t/big" 2>/dev/null)"
# Cut in the gzip trailer: every entry is whole, the CRC check fails.
head -c $(( $(stat -c %s a.tgz) - 4 )) a.tgz >cut2.tgz
hostile truncated_trailer 'after the last entry: gzip: truncated stream' cut2.tgz

# Bad header checksum: a byte of the second header's name flipped.
mkdir -p cs/d
printf 'one' >cs/d/one
printf 'two' >cs/d/two
tar --format=ustar -cf cs.tar -C cs d
printf 'Z' | dd of=cs.tar bs=1 seek=$((512 + 5)) conv=notrunc 2>/dev/null
gzip -c cs.tar >cs.tgz
hostile bad_checksum 'header checksum mismatch at offset 512 (after d/' cs.tgz

# A corrupt deflate stream: bytes in the middle of the data flipped. The
# result is an inflate error or garbage that breaks the next tar header
# (deflate has no per-block check; the CRC comes at the end).
cp a.tgz corrupt.tgz
printf '\xff\x00\xff\x00\xff\x00\xff\x00' | dd of=corrupt.tgz bs=1 seek=$((off / 2)) conv=notrunc 2>/dev/null
hostile corrupt 'corrupt' corrupt.tgz

# Gzip bombs: a 60 MB file of zeros (about 60 KB compressed), and a small
# file followed by 60 MB of zero padding, each past --max-bytes 10 MB.
mkdir -p bomb1 bomb2
head -c 60000000 /dev/zero >bomb1/zeros
tar -czf bomb1.tgz -C bomb1 zeros
hostile bomb_declared 'zeros: refused: declared size 60000000 exceeds the limit of 10000000' bomb1.tgz --max-bytes 10000000
printf 'small' >bomb2/small
{ tar -cf - -C bomb2 small; head -c 60000000 /dev/zero; } | gzip -c >bomb2.tgz
hostile bomb_padding 'exceeds the limit of 10000000 bytes' bomb2.tgz --max-bytes 10000000
WICKFS_UNPACK_MAX=5000000 "$WICKFS" unpack "$jail/h/env" <bomb1.tgz >env.out
check_match unpack.hostile.bomb_env_limit '*exceeds the limit of 5000000*' "$(cat env.out)"

# Not gzip at all, and empty input.
printf 'plain text' >plain.txt
hostile not_gzip 'gzip: corrupt data in member 1' plain.txt
: >empty.tgz
hostile empty 'empty input, not a gzip stream' empty.tgz

# Read-only mode refuses unpack.
WICKFS_READONLY=1 "$WICKFS" unpack "$d/ro" <a.tgz >ro.out
check unpack.readonly '{"ok":false,"error":"unpack '"$d/ro"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
check_true unpack.readonly.nothing "target created" test ! -e "$d/ro"

# Errors without --output go to stderr: stdout carries only the archive.
"$WICKFS" pack "$d/missing" >err.bin 2>err.txt
check pack.error.rc_and_stdout "1 0" "$? $(stat -c %s err.bin)"
check pack.error.on_stderr '{"ok":false,"error":"pack '"$d"'/missing: No such file or directory"}' "$(cat err.txt)"

# --root: the output, the input and the target stay inside it.
mkdir -p "$d/root/in"
printf 'r' >"$d/root/in/r"
wf --root "$d/root" pack --output "$d/escape.tgz" "$d/root/in"
check_match pack.root.output_outside '*outside the workspace root*' "$OUT"
check_true pack.root.no_file "escape.tgz written" test ! -e "$d/escape.tgz"
wf --root "$d/root" pack --output "$d/root/ok.tgz" "$d/root/in"
check pack.root.inside 0 "$RC"
wf --root "$d/root" unpack --input "$d/root/ok.tgz" "$d/unpacked-outside"
check_match unpack.root.target_outside '*outside the workspace root*' "$OUT"
check_true unpack.root.no_dir "target created" test ! -e "$d/unpacked-outside"

# --gitignore: what git itself leaves out (git ls-files is the oracle when
# git is here), negation, anchored and directory rules, nested files.
g=$d/gi
mkdir -p "$g/sub/deep" "$g/build" "$g/logs"
printf '*.log\nbuild/\n!keep.log\n/top-only\n' >"$g/.gitignore"
printf 'anchored.txt\n!*.log\n' >"$g/sub/.gitignore"
for f in a.log keep.log top-only b.txt build/out logs/x.log logs/y.txt \
	sub/top-only sub/anchored.txt sub/deep/anchored.txt sub/n.log sub/deep/m.log; do
	printf '%s\n' "$f" >"$g/$f"
done
wf pack --gitignore --output "$d/gi.tgz" "$g"
check pack.gitignore.rc 0 "$RC"
got=$(tar -tzf "$d/gi.tgz" | grep -v '/$' | sort)
check pack.gitignore.files "$(printf '%s\n' .gitignore b.txt keep.log logs/y.txt sub/.gitignore \
	sub/deep/m.log sub/n.log sub/top-only | sort)" "$got"
if command -v git >/dev/null 2>&1 && git -C "$g" init -q 2>/dev/null; then
	check pack.gitignore.as_git "$(git -C "$g" ls-files --others --exclude-standard | sort)" "$got"
	rm -rf "$g/.git"
else
	skip pack.gitignore.as_git "no git here"
fi
wf pack --output "$d/all.tgz" "$g"
check pack.gitignore.off_by_default 14 "$(tar -tzf "$d/all.tgz" | grep -vc '/$')"

# --progress: off a terminal (a CI log) plain lines, no \r, the last one
# "(done)" (a slow run prints a line a second before it: only the last is
# checked); a redrawn line on one (script(1) gives one).
"$WICKFS" pack --progress --output "$d/q.tgz" "$src" >"$d/q.out" 2>"$d/q.err"
# (on a slow machine a line every 5 s comes first: the last one is checked)
check_match pack.progress.lines_off_tty "pack: [0-9]* files, * MB/s (done)" "$(tail -n 1 "$d/q.err")"
check_true pack.progress.no_cr_off_tty "a carriage return in a log" sh -c "! grep -q \"\$(printf '\\r')\" '$d/q.err'"
nfiles=$(sed -n 's/.*"files":\([0-9]*\),.*/\1/p' "$d/q.out")
"$WICKFS" unpack --progress --input "$d/q.tgz" "$d/q-out" >/dev/null 2>"$d/q.err"
check_match unpack.progress.lines_off_tty "unpack: $nfiles files, * MB/s (done)" "$(tail -n 1 "$d/q.err")"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	# stderr is the terminal; the typescript is what it showed. The last
	# line drawn has the final counts and ends the line.
	script -qec "'$WICKFS' pack --progress --output '$d/p.tgz' '$src' >/dev/null" "$d/p.log" >/dev/null
	check_match pack.progress.tty "*"$'\r'"pack: $nfiles files, 2[0-9].[0-9] MB, *MB/s"$'\e[K\r\n'"*" "$(cat "$d/p.log")"
	script -qec "'$WICKFS' unpack --progress --input '$d/p.tgz' '$d/p-out' >/dev/null" "$d/u.log" >/dev/null
	check_match unpack.progress.tty "*"$'\r'"unpack: $nfiles files, 2[0-9].[0-9] MB, *MB/s"$'\e[K\r\n'"*" "$(cat "$d/u.log")"
	check_tree unpack.progress.round_trip "$d/p-out"
else
	skip pack.progress.tty "no script(1) for a terminal"
	skip unpack.progress.tty "no script(1) for a terminal"
fi

# Modes: the umask applies (a directory stored 7777 once unpacked 1777,
# world-writable), for root too; --same-permissions keeps the stored
# modes; setuid and setgid never.
pm=$TEST_TMP/perm
rm -rf "$pm" && mkdir -p "$pm/src/dir"
printf 'x' >"$pm/src/dir/f"
chmod 7777 "$pm/src/dir"
chmod 6777 "$pm/src/dir/f"
tar -czf "$pm/t.tgz" -C "$pm/src" dir
chmod 755 "$pm/src/dir"
(umask 022 && "$WICKFS" unpack --input "$pm/t.tgz" "$pm/o" >/dev/null)
check unpack.modes.umask_022 "1755 755" "$(stat -c %a "$pm/o/dir" "$pm/o/dir/f" | tr '\n' ' ' | sed 's/ $//')"
(umask 077 && "$WICKFS" unpack --input "$pm/t.tgz" "$pm/o77" >/dev/null)
check unpack.modes.umask_077 "1700 700" "$(stat -c %a "$pm/o77/dir" "$pm/o77/dir/f" | tr '\n' ' ' | sed 's/ $//')"
(umask 022 && "$WICKFS" unpack --same-permissions --input "$pm/t.tgz" "$pm/op" >/dev/null)
check unpack.modes.same_permissions "1777 777" "$(stat -c %a "$pm/op/dir" "$pm/op/dir/f" | tr '\n' ' ' | sed 's/ $//')"
