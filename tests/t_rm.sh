#!/usr/bin/env bash
# rm: files, -f, -r that never crosses a link out of the tree, and the
# refusal of . and ..
# (the fsops.rm.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

printf x >r1
expect fsops.rm.file 0 '{"ok":true,"data":{"path":"r1","removed":1}}' rm r1
check_true fsops.rm.file_gone "r1 still there" test ! -e r1
expect_error fsops.rm.missing "rm r1: no such file or directory" rm r1
expect fsops.rm.force_missing 0 '{"ok":true,"data":{"path":"r1","removed":0}}' rm -f r1
expect fsops.rm.force_missing_parent 0 '{"ok":true,"data":{"path":"no/r1","removed":0}}' rm --force no/r1
mkdir -p rd/e rd/sub/deep
printf x >rd/sub/deep/f
mkdir -p keep
printf 'keep me\n' >keep/k.txt
ln -s ../../keep rd/sub/tokeep # a link inside the tree to a directory outside it
expect_error fsops.rm.dir_needs_r "rm rd: is a non-empty directory (use -r)" rm rd
expect fsops.rm.empty_dir 0 '{"ok":true,"data":{"path":"rd/e","removed":1}}' rm rd/e
expect fsops.rm.r 0 '{"ok":true,"data":{"path":"rd","removed":5}}' rm -r rd
check fsops.rm.r_never_crosses_link "keep me" "$(cat keep/k.txt)"
ln -s keep keeplink
expect fsops.rm.link_itself 0 '{"ok":true,"data":{"path":"keeplink","removed":1}}' rm -r keeplink
check fsops.rm.link_target_kept "keep me" "$(cat keep/k.txt)"
ln -s keep keeplink
expect fsops.rm.link_trailing_slash 0 '{"ok":true,"data":{"path":"keeplink/","removed":1}}' rm -r keeplink/
check fsops.rm.link_slash_target_kept "keep me" "$(cat keep/k.txt)"
expect_error fsops.rm.dot 'rm .: refusing to remove*' rm -r .
expect_error fsops.rm.dotdot 'rm sd/..: refusing to remove*' rm -r sd/..
