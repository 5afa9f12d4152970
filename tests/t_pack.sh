#!/usr/bin/env bash
# pack: its archive read back by GNU tar and gzip and by unpack (round
# trips compared file by file, also over an existing tree, and damaged
# copies of it refused), --output, --exclude, --whole-seconds, --gitignore,
# --root, errors, --progress of both on one archive. The unpack.* checks
# here are those whose input is pack's archive; unpack's checks over
# archives that GNU tar, gzip, pigz, python or the test make are in
# t_unpack.sh.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/pack
mkdir -p "$d"
cd "$d" || exit 1

# ---- the source tree ----
src=$d/src
pack_source_tree "$src"
want_t=$(tree_state "$src" | grep -v '^fifo	')
want=$(tree_state_no_time "$src" | grep -v '^fifo	')

# ---- pack, then unpack ----
"$WICKFS" pack "$src" >a.tgz 2>a.err
rc=$?
check pack.stdout.rc 0 "$rc"
check_match pack.stdout.envelope_on_stderr '{"ok":true,"data":{"files":2010,"dirs":8,"symlinks":4,"bytes":20*,"compressed_bytes":*,"skipped":\["fifo"\],"skipped_total":1}}' "$(cat a.err)"
wf_file a.tgz unpack out
check_match unpack.envelope '{"ok":true,"data":{"files":2010,"dirs":8,"symlinks":4,"bytes":20*,"compressed_bytes":*,"skipped":\[\],"skipped_total":0}}' "${OUT%$'\n'}"
check_tree unpack.round_trip out "$want_t" "$want"
unpack_no_temp unpack.no_temp out

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
check pack.whole_seconds.round_trip "$want" "$(tree_state_no_time x-ws)"
check pack.whole_seconds.mtime "1614834367" "$(stat -c %Y x-ws/hello.txt)"
wf pack --level 10 "$src"
check pack.bad_level 1 "$RC"

# ---- GNU tar and gzip read what we write ----
check_true gzip.test "gzip -t failed" gzip -t a.tgz
check gnutar.list_count 2022 "$(tar -tzf a.tgz | wc -l)"
mkdir gnu
check_true gnutar.extract "tar -xzf failed" tar -xzf a.tgz -C gnu
check_tree gnutar.round_trip gnu "$want_t" "$want"
check gzip.one_member "$(gzip -dc a.tgz | md5sum)" "$(gzip -dc a.tgz | md5sum)"

# Unpacking over an existing tree replaces files and keeps going.
wf_file a.tgz unpack out
check unpack.again.rc 0 "$RC"
check_tree unpack.again out "$want_t" "$want"

# ---- damaged copies of pack's archive ----
# unpacked in $jail as t_unpack.sh's hostile archives are
# (lib.sh's unpack_jail, unpack_hostile).
jail=$d/jail
unpack_jail "$jail"

# Truncated: cut inside the 20 MB file's data. The error names it, the
# file is not there, no temporary file is left.
off=$(( $(stat -c %s a.tgz) / 2 ))
head -c "$off" a.tgz >cut.tgz
unpack_hostile truncated 'big: gzip: truncated stream' cut.tgz
check unpack.hostile.truncated.no_partial "" "$(ls "$jail/h/t/big" 2>/dev/null)"
# Cut in the gzip trailer: every entry is whole, the CRC check fails.
head -c $(( $(stat -c %s a.tgz) - 4 )) a.tgz >cut2.tgz
unpack_hostile truncated_trailer 'after the last entry: gzip: truncated stream' cut2.tgz

# A corrupt deflate stream: bytes in the middle of the data flipped. The
# result is an inflate error or garbage that breaks the next tar header
# (deflate has no per-block check; the CRC comes at the end).
cp a.tgz corrupt.tgz
printf '\xff\x00\xff\x00\xff\x00\xff\x00' | dd of=corrupt.tgz bs=1 seek=$((off / 2)) conv=notrunc 2>/dev/null
unpack_hostile corrupt 'corrupt' corrupt.tgz

# Errors without --output go to stderr: stdout carries only the archive.
"$WICKFS" pack "$d/missing" >err.bin 2>err.txt
check pack.error.rc_and_stdout "1 0" "$? $(stat -c %s err.bin)"
check pack.error.on_stderr '{"ok":false,"error":"pack '"$d"'/missing: No such file or directory"}' "$(cat err.txt)"

# --root: the output and the input stay inside it (the target: t_unpack.sh).
mkdir -p "$d/root/in"
printf 'r' >"$d/root/in/r"
wf --root "$d/root" pack --output "$d/escape.tgz" "$d/root/in"
check_match pack.root.output_outside '*outside the workspace root*' "$OUT"
check_true pack.root.no_file "escape.tgz written" test ! -e "$d/escape.tgz"
wf --root "$d/root" pack --output "$d/root/ok.tgz" "$d/root/in"
check pack.root.inside 0 "$RC"

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
	check_tree unpack.progress.round_trip "$d/p-out" "$want_t" "$want"
else
	skip pack.progress.tty "no script(1) for a terminal"
	skip unpack.progress.tty "no script(1) for a terminal"
fi
