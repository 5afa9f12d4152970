#!/usr/bin/env bash
# mkdir: -p/--parents, the mode, and its errors.
# (the fsops.mkdir.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

expect fsops.mkdir.new 0 '{"ok":true,"data":{"path":"m","created":true}}' mkdir m
check fsops.mkdir.mode 755 "$(stat -c %a m)"
expect_error fsops.mkdir.exists "mkdir m: file exists" mkdir m
expect_error fsops.mkdir.no_parent "mkdir a/b/c: no such file or directory" mkdir a/b/c
expect fsops.mkdir.p 0 '{"ok":true,"data":{"path":"a/b/c","created":true}}' mkdir -p a/b/c
check_true fsops.mkdir.p_made "a/b/c is no directory" test -d a/b/c
expect fsops.mkdir.p_exists 0 '{"ok":true,"data":{"path":"a/b/c","created":false}}' mkdir --parents a/b/c
expect_error fsops.mkdir.p_file "mkdir f.txt: file exists" mkdir -p f.txt
expect_error fsops.mkdir.p_under_file "mkdir f.txt/x: not a directory" mkdir -p f.txt/x
expect_error fsops.mkdir.empty "mkdir: empty path" mkdir ''
