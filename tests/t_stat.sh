#!/usr/bin/env bash
# stat: every field of a file, a link (followed or not) and a directory,
# its errors, usage and help. Checks keep the fsops.stat.* names they had
# in t_fsops.sh.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/stat
mkdir -p "$d"
cd "$d" || exit 1

printf 'hello\n' >f.txt
chmod 0640 f.txt
touch -d '2021-03-04 05:06:07.123456789 UTC' f.txt
ln -s f.txt lnk
wfo() { wf "$@"; OUT=${OUT%$'\n'}; }
wfo stat f.txt
check_match fsops.stat.file '{"ok":true,"data":{"path":"f.txt","type":"file","size":6,"mode":"0640","perm":"-rw-r-----","uid":'"$(id -u)"',"gid":'"$(id -g)"',"nlink":1,"mtime":"2021-03-04T05:06:07.123456789Z","mtime_unix":1614834367,"ctime":"*","ctime_unix":*,"atime":"*","atime_unix":*}}' "$OUT"
wfo stat lnk
check_match fsops.stat.link '*"type":"symlink","size":5,*"perm":"lrwxrwxrwx",*"link_target":"f.txt"}}' "$OUT"
wfo stat --follow lnk
check_match fsops.stat.follow '{"ok":true,"data":{"path":"lnk","type":"file","size":6,"mode":"0640",*' "$OUT"
case $OUT in *link_target*) fail fsops.stat.follow_no_target "$OUT" ;; *) pass fsops.stat.follow_no_target ;; esac
mkdir -p sd
chmod 1755 sd
wfo stat sd
check_match fsops.stat.dir_sticky '*"type":"dir",*"mode":"1755","perm":"drwxr-xr-t",*' "$OUT"
expect_error fsops.stat.missing "stat none: no such file or directory" stat none
expect_error fsops.stat.follow_dangling "stat dangle: no such file or directory" stat --follow dangle
ln -s nowhere dangle
expect_error fsops.stat.follow_dangling2 "stat dangle: no such file or directory" stat --follow dangle
expect_error fsops.stat.under_file "stat f.txt/x: not a directory" stat f.txt/x
wfo stat
check_match fsops.stat.usage '1 {"ok":false,"error":"*"}' "$RC $OUT"
wf stat --help
check_match fsops.stat.help "usage: wickfs stat*--follow*" "$OUT"
