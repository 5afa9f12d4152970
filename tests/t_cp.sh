#!/usr/bin/env bash
# cp: files with their mode and mtime, --no-clobber, -r (links copied as
# links, never followed), into a directory, large, empty and /proc files,
# FIFOs and devices refused.
# (the fsops.cp.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

# what the checks copy into and past: a directory, a link to it, and a
# directory outside the copied trees
mkdir -p into keep
ln -s into intolink
printf 'keep me\n' >keep/k.txt

printf 'content\n' >c1
chmod 0750 c1
touch -d '2019-05-06 07:08:09.5 UTC' c1
expect fsops.cp.file 0 '{"ok":true,"data":{"src":"c1","dst":"c2","copied":1}}' cp c1 c2
check fsops.cp.file_kept "content 750 $(stat -c %Y c1)" "$(cat c2) $(stat -c '%a %Y' c2)"
check fsops.cp.mtime_ns "$(stat -c %y c1)" "$(stat -c %y c2)"
printf old >c3
expect fsops.cp.clobber 0 '{"ok":true,"data":{"src":"c1","dst":"c3","copied":1}}' cp c1 c3
check fsops.cp.clobbered "content" "$(cat c3)"
printf old >c4
expect_error fsops.cp.no_clobber "cp c4: file exists" cp --no-clobber c1 c4
check fsops.cp.no_clobber_kept "old" "$(cat c4)"
expect_error fsops.cp.missing "cp none: no such file or directory" cp none c5
mkdir -p ct/sub ct/empty
printf a >ct/sub/a
chmod 0700 ct/sub
ln -s sub/a ct/rel
ln -s "$t/w/keep" ct/out # a link out of the source tree: copied as a link
expect_error fsops.cp.dir_needs_r "cp ct: is a directory (use -r)" cp ct ct2
expect fsops.cp.r 0 '{"ok":true,"data":{"src":"ct","dst":"ct2","copied":3}}' cp -r ct ct2
check fsops.cp.r_tree "a 700 sub/a $t/w/keep" "$(cat ct2/sub/a) $(stat -c %a ct2/sub) $(readlink ct2/rel) $(readlink ct2/out)"
check_true fsops.cp.r_empty_dir "ct2/empty missing" test -d ct2/empty
check fsops.cp.r_not_through_link "k.txt" "$(ls keep)"
expect fsops.cp.link_top 0 '{"ok":true,"data":{"src":"ct/out","dst":"lcopy","copied":1}}' cp ct/out lcopy
check fsops.cp.link_top_is_link "$t/w/keep" "$(readlink lcopy)"
expect_error fsops.cp.r_no_clobber "cp ct2/sub: file exists" cp -r --no-clobber ct/sub ct2
mkdir -p self/x
printf s >self/x/f
expect fsops.cp.into_itself 0 '{"ok":true,"data":{"src":"self","dst":"self/copy","copied":1}}' cp -r self self/copy
check fsops.cp.into_itself_once "self/copy/x/f" "$(cd "$t/w" && find self/copy -type f)"
printf ci >ci1
expect fsops.cp.into_dir 0 '{"ok":true,"data":{"src":"ci1","dst":"into/ci1","copied":1}}' cp ci1 into
check fsops.cp.into_dir_copied "ci ci" "$(cat ci1) $(cat into/ci1)"
expect fsops.cp.r_into_dir 0 '{"ok":true,"data":{"src":"ct","dst":"into/ct","copied":3}}' cp -r ct into/
check fsops.cp.r_into_dir_tree "a sub/a" "$(cat into/ct/sub/a) $(readlink into/ct/rel)"
expect fsops.cp.r_into_dir_again 0 '{"ok":true,"data":{"src":"ct","dst":"into/ct/ct","copied":3}}' cp -r ct into/ct
check_true fsops.cp.r_into_dir_not_merged "into/ct/ct/sub/a missing" test -f into/ct/ct/sub/a
expect fsops.cp.into_link_to_dir 0 '{"ok":true,"data":{"src":"ci1","dst":"intolink/ci2","copied":1}}' cp ci1 intolink/ci2
expect_error fsops.cp.into_no_clobber "cp into/ci1: file exists" cp --no-clobber ci1 into
# the bytes, by copy_file_range or by read and write: a file over the
# copy buffer, an empty one, and a /proc file whose size says 0
head -c 300000 /dev/urandom >cbig
cp_same() { "$WICKFS" cp "$2" "$3" >/dev/null && cmp -s "$2" "$3" && [ -s "$3" -o ! -s "$2" ] && echo same; }
check fsops.cp.big_file same "$(cp_same x cbig cbig2)"
: >cempty
check fsops.cp.empty_file "same 0" "$(cp_same x cempty cempty2) $(wc -c <cempty2)"
if [ -r /proc/version ]; then
	check fsops.cp.proc_file "$(cat /proc/version)" "$("$WICKFS" cp /proc/version cproc >/dev/null; cat cproc)"
else
	skip fsops.cp.proc_file "no /proc/version here"
fi
mkfifo fifo
expect_error fsops.cp.fifo "cp fifo: is a fifo (named pipe), not copied" cp fifo fifo2


# cp over a device or a FIFO refuses: putting a new file in its place
# would remove the device (a root agent's `cp x /dev/null`).
if [ "$(id -u)" = 0 ]; then
	sp=$TEST_TMP/special
	mkdir -p "$sp"
	mknod "$sp/null" c 1 3 && mkfifo "$sp/fifo" && echo x >"$sp/src"
	expect fsops.cp.onto_device 1 '{"ok":false,"error":"cp '"$sp"'/null: is a character device, not a regular file: cp replaces only files"}' cp "$sp/src" "$sp/null"
	check fsops.cp.device_kept c "$(stat -c %F "$sp/null" | cut -c1)"
	wf cp "$sp/src" "$sp/fifo"
	check_match fsops.cp.onto_fifo '*"ok":false*is a fifo*' "$OUT"
	check fsops.cp.fifo_kept "fifo" "$(stat -c %F "$sp/fifo")"
else
	skip fsops.cp.onto_device "needs root to make a device node"
fi
