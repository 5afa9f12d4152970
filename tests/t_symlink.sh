#!/usr/bin/env bash
# symlink: a new link, and its errors.
# (the fsops.symlink.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

expect fsops.symlink.new 0 '{"ok":true,"data":{"path":"sl","target":"/etc/passwd"}}' symlink /etc/passwd sl
check fsops.symlink.made "/etc/passwd" "$(readlink sl)"
expect_error fsops.symlink.exists "symlink sl: file exists" symlink x sl
expect_error fsops.symlink.empty "symlink s2: empty target" symlink '' s2
expect_error fsops.symlink.no_dir "symlink nodir/s: no such file or directory" symlink x nodir/s
