#!/usr/bin/env bash
# append: a new file and its parents, more, through a link, and what it
# refuses.
# (the fsops.append.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

mkfifo fifo
expect_in fsops.append.new "ab" 0 '{"ok":true,"data":{"path":"ap/new.txt","bytes_written":2}}' append ap/new.txt
expect_in fsops.append.more $'c\n' 0 '{"ok":true,"data":{"path":"ap/new.txt","bytes_written":2}}' append ap/new.txt
check fsops.append.content $'abc' "$(cat ap/new.txt)"
chmod 0600 ap/new.txt
ln -s new.txt ap/alink
expect_in fsops.append.through_link "d" 0 '{"ok":true,"data":{"path":"ap/alink","bytes_written":1}}' append ap/alink
check fsops.append.link_target "$(printf 'abc\nd') 600" "$(cat ap/new.txt) $(stat -c %a ap/new.txt)"
expect_error_in fsops.append.dir "x" "append ap: *" append ap
expect_error_in fsops.append.fifo "x" "append fifo: *fifo*" append fifo
expect_error_in fsops.append.under_file "x" "append f.txt/x: not a directory" append f.txt/x
