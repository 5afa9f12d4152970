#!/usr/bin/env bash
# readlink: a link's target, and its errors.
# (the fsops.readlink.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

ln -s /etc/passwd sl
expect fsops.readlink.ok 0 '{"ok":true,"data":{"path":"sl","target":"/etc/passwd"}}' readlink sl
expect_error fsops.readlink.not_link "readlink f.txt: not a symlink" readlink f.txt
expect_error fsops.readlink.missing "readlink none: no such file or directory" readlink none
