#!/usr/bin/env bash
# ls: PROTOCOL.md section 2, row ls.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/ls
mkdir -p "$d/sub" "$d/empty"
printf abc >"$d/B"
: >"$d/a"
printf 12345 >"$d/_x"
printf z >"$d/$(printf '\xc3\xa9')"
printf hidden >"$d/.h"
ln -s sub "$d/lnk"
ln -s a "$d/lf"
mkfifo "$d/p"
printf 'x' >"$d/sub/inner"
sub_size=$(stat -c %s "$d/sub")
empty_size=$(stat -c %s "$d/empty")

# Byte order of names; type dir/symlink (even to a dir)/file (a FIFO is
# "file"); size from lstat (a symlink's size is its target's length).
want='{"ok":true,"data":[{"name":".h","type":"file","size":6},{"name":"B","type":"file","size":3},{"name":"_x","type":"file","size":5},{"name":"a","type":"file","size":0},{"name":"empty","type":"dir","size":'$empty_size'},{"name":"lf","type":"symlink","size":1},{"name":"lnk","type":"symlink","size":3},{"name":"p","type":"file","size":0,"kind":"fifo (named pipe)"},{"name":"sub","type":"dir","size":'$sub_size'},{"name":"é","type":"file","size":1}]}'
expect ls.listing 0 "$want" ls "$d"
expect ls.trailing_slash 0 "$want" ls "$d/"
expect ls.dotted_path 0 "$want" ls "$d/./sub/.."
(cd "$d" && expect ls.default_dot 0 "$want" ls)
(cd "$d" && expect ls.empty_arg_is_dot 0 "$want" ls "")
(cd "$d" && expect ls.relative 0 '{"ok":true,"data":[{"name":"inner","type":"file","size":1}]}' ls sub)
expect ls.through_symlink_to_dir 0 '{"ok":true,"data":[{"name":"inner","type":"file","size":1}]}' ls "$d/lnk"
expect ls.empty_dir 0 '{"ok":true,"data":[]}' ls "$d/empty"
wf ls /
check ls.root_probe.exit 0 "$RC"
check_match ls.root_probe.ok '{"ok":true,"data":[{"name":*' "$OUT"

expect_error ls.nonexistent "$d/nope: no such file or directory" ls "$d/nope"
expect_error ls.not_a_directory "$d/a" ls "$d/a"
ln -s nowhere "$TEST_TMP/dangle"
expect_error ls.dangling_link "$TEST_TMP/dangle" ls "$TEST_TMP/dangle"

# Names are JSON-escaped; invalid UTF-8 becomes U+FFFD.
w=$TEST_TMP/names
mkdir -p "$w"
: >"$w/$(printf 'q"b\\s\nn\tt')"
: >"$w/$(printf 'x\xffy')"
expect ls.escaped_names 0 '{"ok":true,"data":[{"name":"q\"b\\s\nn\tt","type":"file","size":0},{"name":"x\ufffdy","name_escaped":"x\\xffy","type":"file","size":0}]}' ls "$w"

# Many entries: all listed, in order.
m=$TEST_TMP/many
mkdir -p "$m"
want='{"ok":true,"data":['
# printf -v: no subshell per name, so a loaded machine does not make
# this loop the slow part.
for i in $(seq 1500 -1 1); do
	printf -v n %04d "$i"
	: >"$m/f$n"
done
for i in $(seq 1 1500); do
	[ "$i" -gt 1 ] && want+=','
	printf -v n %04d "$i"
	want+='{"name":"f'$n'","type":"file","size":0}'
done
want+=']}'
expect ls.many_entries 0 "$want" ls "$m"

# A fifo is a "file" to the reference; "kind" says what stat says.
kd=$TEST_TMP/kinds
mkdir -p "$kd" && mkfifo "$kd/p" && : >"$kd/f"
wf ls "$kd"
check ls.kind.fifo '{"ok":true,"data":[{"name":"f","type":"file","size":0},{"name":"p","type":"file","size":0,"kind":"fifo (named pipe)"}]}' "${OUT%$'\n'}"
wf stat "$kd/p"
check_match ls.kind.same_as_stat '*"type":"fifo (named pipe)"*' "$OUT"

# A name that is not UTF-8: U+FFFD in "name" (the reference's), and beside
# it "name_escaped", which --escaped-paths reads back into the bytes.
nu=$TEST_TMP/nonutf8
mkdir -p "$nu"
printf 'raw\n' >"$nu/"$'a\xffb'
printf 'bs\n' >"$nu/c\\d"
expect ls.name_escaped 0 '{"ok":true,"data":[{"name":"a\ufffdb","name_escaped":"a\\xffb","type":"file","size":4},{"name":"c\\d","type":"file","size":3}]}' ls "$nu"
wf ls --long "$nu"
check_true ls.name_escaped.long "no name_escaped in $(show "$OUT")" grep -qF '"name":"a\ufffdb","name_escaped":"a\\xffb"' <<<"$OUT"
expect ls.escaped_paths.read 0 '{"ok":true,"data":"raw\n"}' --escaped-paths read "$nu/a\\xffb"
expect ls.escaped_paths.backslash 0 '{"ok":true,"data":"bs\n"}' --escaped-paths read "$nu/c\\\\d"
expect ls.escaped_paths.bad 1 '{"ok":false,"error":"read '"$nu"'/c\\d: a backslash starts \\xHH (a byte) or \\\\ (a backslash) (--escaped-paths)"}' --escaped-paths read "$nu/c\\d"
expect ls.escaped_paths.nul 1 '{"ok":false,"error":"read '"$nu"'/a\\x00: \\x00: a path holds no NUL byte (--escaped-paths)"}' --escaped-paths read "$nu/a\\x00"
# without the flag the argument is literal, as the reference's
expect ls.escaped_paths.off 1 '{"ok":false,"error":"read '"$nu"'/a\\xffb: no such file or directory"}' read "$nu/a\\xffb"

# ---- --depth, --long (the fsops.ls.* checks, once in t_fsops.sh) ----
dd=$TEST_TMP/ls_depth
mkdir -p "$dd/keep"
printf 'keep me\n' >"$dd/keep/k.txt"
cd "$dd" || exit 1
wfo() { wf "$@"; OUT=${OUT%$'\n'}; }
mkdir -p lt/a/b lt/c
printf 'xy' >lt/a/b/f
printf 'z' >lt/top
ln -s "$dd/keep" lt/a/out
touch -d '2022-02-03 04:05:06.7 UTC' lt/top
chmod 0640 lt/top
expect fsops.ls.default 0 '{"ok":true,"data":[{"name":"a","type":"dir","size":'"$(stat -c %s lt/a)"'},{"name":"c","type":"dir","size":'"$(stat -c %s lt/c)"'},{"name":"top","type":"file","size":1}]}' ls lt
wfo ls --depth 1 lt
check fsops.ls.depth1_is_default "$("$WICKFS" ls lt)" "$OUT"
wfo ls --depth 2 lt
check fsops.ls.depth2 "a a/b a/out c top" "$(printf '%s' "$OUT" | grep -o '"name":"[^"]*"' | sed 's/"name":"//; s/"$//' | tr '\n' ' ' | sed 's/ $//')"
wfo ls --depth 0 lt
check fsops.ls.depth0_all "a a/b a/b/f a/out c top" "$(printf '%s' "$OUT" | grep -o '"name":"[^"]*"' | sed 's/"name":"//; s/"$//' | tr '\n' ' ' | sed 's/ $//')"
check_match fsops.ls.depth_never_enters_link '*"name":"a/out","type":"symlink"*' "$OUT"
case $OUT in *k.txt*) fail fsops.ls.depth_link_not_walked "$OUT" ;; *) pass fsops.ls.depth_link_not_walked ;; esac
wfo ls --long lt
check_match fsops.ls.long_file '*{"name":"top","type":"file","size":1,"mode":"0640","perm":"-rw-r-----","mtime":"2022-02-03T04:05:06.700000000Z","mtime_unix":1643861106}]}' "$OUT"
wfo ls --long --depth 2 lt
check_match fsops.ls.long_link '*{"name":"a/out","type":"symlink",*,"link_target":"'"$dd/keep"'"}*' "$OUT"
expect_error fsops.ls.depth_negative "ls: --depth takes 0 to 1000, got -1" ls --depth -1 lt
expect_error fsops.ls.depth_not_number "ls: option --depth needs an integer*" ls --depth x lt
expect_error fsops.ls.long_missing "ls none: no such file or directory" ls --long none
expect_error fsops.ls.depth_file "ls lt/top: not a directory" ls --depth 2 lt/top
