#!/usr/bin/env bash
# exists: a file, missing paths, a dangling link (stat: t_stat.sh).
# (the fsops.exists.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/fsops
fsops_fixture "$t"

expect fsops.exists.yes 0 '{"ok":true,"data":{"path":"f.txt","exists":true,"type":"file"}}' exists f.txt
expect fsops.exists.no 0 '{"ok":true,"data":{"path":"none","exists":false}}' exists none
expect fsops.exists.deep_no 0 '{"ok":true,"data":{"path":"no/ne/x","exists":false}}' exists no/ne/x
expect fsops.exists.under_file 0 '{"ok":true,"data":{"path":"f.txt/x","exists":false}}' exists f.txt/x
expect fsops.exists.dangling 0 '{"ok":true,"data":{"path":"dangle","exists":true,"type":"symlink"}}' exists dangle
wf exists --help
check_match fsops.exists.help "usage: wickfs exists PATH*" "$OUT"
