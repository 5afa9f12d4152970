#!/usr/bin/env bash
# mv: renames, --no-clobber, directories, links moved as links, across
# filesystems (EXDEV), into a directory, onto links; a usage error.
# (the fsops.mv.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

mkdir -p m
wfo() { wf "$@"; OUT=${OUT%$'\n'}; }

printf one >m1
expect fsops.mv.rename 0 '{"ok":true,"data":{"src":"m1","dst":"m2","copied":false}}' mv m1 m2
check fsops.mv.moved "one" "$(cat m2)"
printf two >m3
expect fsops.mv.clobber 0 '{"ok":true,"data":{"src":"m3","dst":"m2","copied":false}}' mv m3 m2
check fsops.mv.clobbered "two" "$(cat m2)"
printf three >m4
expect_error fsops.mv.no_clobber "mv m2: file exists" mv --no-clobber m4 m2
check fsops.mv.no_clobber_kept "two three" "$(cat m2) $(cat m4)"
expect_error fsops.mv.missing "mv none: no such file or directory" mv none m5
expect_error fsops.mv.dst_parent "mv nodir/x: no such file or directory" mv m4 nodir/x
mkdir -p mvd/sub
printf in >mvd/sub/f
expect fsops.mv.dir 0 '{"ok":true,"data":{"src":"mvd","dst":"m/mvd2","copied":false}}' mv mvd m/mvd2
check fsops.mv.dir_moved "in" "$(cat m/mvd2/sub/f)"
ln -s /nonexistent-outside mvl
expect fsops.mv.link_itself 0 '{"ok":true,"data":{"src":"mvl","dst":"mvl2","copied":false}}' mv mvl mvl2
check fsops.mv.link_kept "/nonexistent-outside" "$(readlink mvl2)"
# Across filesystems (EXDEV): /dev/shm is a tmpfs when TEST_TMP is not.
shm=/dev/shm/wickfs-fsops-$$
if [ -d /dev/shm ] && mkdir "$shm" 2>/dev/null &&
	[ "$(stat -f -c %T /dev/shm)" != "$(stat -f -c %T "$t")" ] ||
	[ "$(stat -c %d /dev/shm 2>/dev/null)" != "$(stat -c %d "$t")" ]; then
	mkdir -p xd/sub
	printf data >xd/sub/f
	chmod 0751 xd/sub
	touch -d '2020-01-02 03:04:05 UTC' xd/sub/f
	ln -s sub/f xd/l
	expect fsops.mv.exdev 0 "{\"ok\":true,\"data\":{\"src\":\"xd\",\"dst\":\"$shm/xd\",\"copied\":true}}" mv xd "$shm/xd"
	check fsops.mv.exdev_content "data 751 2020-01-02 03:04:05 sub/f gone" \
		"$(cat "$shm/xd/sub/f") $(stat -c %a "$shm/xd/sub") $(TZ=UTC date -r "$shm/xd/sub/f" '+%Y-%m-%d %H:%M:%S') $(readlink "$shm/xd/l") $([ -e xd ] || echo gone)"
	printf back >"$shm/f1"
	expect fsops.mv.exdev_file 0 "{\"ok\":true,\"data\":{\"src\":\"$shm/f1\",\"dst\":\"xf1\",\"copied\":true}}" mv "$shm/f1" xf1
	check fsops.mv.exdev_file_moved "back gone" "$(cat xf1) $([ -e "$shm/f1" ] || echo gone)"
	printf n >"$shm/f2"
	expect_error fsops.mv.exdev_no_clobber "mv xf1: file exists" mv --no-clobber "$shm/f2" xf1
	rm -rf "$shm"
else
	rmdir "$shm" 2>/dev/null
	skip fsops.mv.exdev "no second filesystem (/dev/shm) here"
fi
# Into an existing directory: the item lands inside it, under its name.
mkdir -p into/sub
printf f >mi1
expect fsops.mv.into_dir 0 '{"ok":true,"data":{"src":"mi1","dst":"into/mi1","copied":false}}' mv mi1 into
check fsops.mv.into_dir_moved "f gone" "$(cat into/mi1) $([ -e mi1 ] || echo gone)"
printf g >mi2
expect fsops.mv.into_dir_slash 0 '{"ok":true,"data":{"src":"mi2","dst":"into/sub/mi2","copied":false}}' mv mi2 into/sub/
mkdir -p mid/x
expect fsops.mv.dir_into_dir 0 '{"ok":true,"data":{"src":"mid","dst":"into/mid","copied":false}}' mv mid into
check_true fsops.mv.dir_into_dir_moved "into/mid/x missing" test -d into/mid/x
ln -s into intolink
printf h >mi3
expect fsops.mv.into_link_to_dir 0 '{"ok":true,"data":{"src":"mi3","dst":"intolink/mi3","copied":false}}' mv mi3 intolink
check fsops.mv.into_link_to_dir_moved "h link" "$(cat into/mi3) $([ -L intolink ] && echo link)"
printf i >mi1
expect_error fsops.mv.into_no_clobber "mv into/mi1: file exists" mv --no-clobber mi1 into
check fsops.mv.into_no_clobber_kept "f i" "$(cat into/mi1) $(cat mi1)"
rm mi1
(cd into/sub && "$WICKFS" mv ../mi1 . >"$t/mvdot.out")
check fsops.mv.into_dot '{"ok":true,"data":{"src":"../mi1","dst":"./mi1","copied":false}}' "$(cat "$t/mvdot.out")"
printf j >mi5
ln -s mi5 filelink
printf k >mi6
expect fsops.mv.onto_link_to_file 0 '{"ok":true,"data":{"src":"mi6","dst":"filelink","copied":false}}' mv mi6 filelink
check fsops.mv.onto_link_to_file_replaced "k j" "$(cat filelink) $(cat mi5)"
ln -s nowhere danglelink
expect fsops.mv.onto_dangling_link 0 '{"ok":true,"data":{"src":"mi5","dst":"danglelink","copied":false}}' mv mi5 danglelink
check fsops.mv.onto_dangling_link_replaced "j" "$(cat danglelink)"

wfo mv onlyone
check_match fsops.usage.mv '1 {"ok":false,"error":"*"}' "$RC $OUT"
