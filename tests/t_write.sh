#!/usr/bin/env bash
# write: PROTOCOL.md section 2, row write, and the mode/symlink fixes.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/write
mkdir -p "$d"
cd "$d" || exit 1

# Content from stdin, exactly; data {"path" as given, "bytes_written"}.
expect_in write.basic 'hello' 0 '{"ok":true,"data":{"path":"f.txt","bytes_written":5}}' write f.txt
check write.basic.content hello "$(cat f.txt)"
expect_in write.absolute_path 'x' 0 '{"ok":true,"data":{"path":"'"$d"'/abs.txt","bytes_written":1}}' write "$d/abs.txt"
expect_in write.path_as_given 'y' 0 '{"ok":true,"data":{"path":"./g.txt","bytes_written":1}}' write ./g.txt
expect_in write.path_unclean 'y' 0 '{"ok":true,"data":{"path":"'"$d"'//./h.txt","bytes_written":1}}' write "$d//./h.txt"
check_true write.path_unclean.file "h.txt missing" test -f h.txt

# Replaces an existing file; an empty stdin empties it.
expect_in write.replace 'second' 0 '{"ok":true,"data":{"path":"f.txt","bytes_written":6}}' write f.txt
check write.replace.content second "$(cat f.txt)"
expect write.empty 0 '{"ok":true,"data":{"path":"f.txt","bytes_written":0}}' write f.txt
check write.empty.size 0 "$(stat -c %s f.txt)"

# bytes_written is the byte length; bytes are written untouched.
expect_in write.utf8_length 'é€' 0 '{"ok":true,"data":{"path":"u.txt","bytes_written":5}}' write u.txt
printf 'a\0b\r\n\xff\xfe no newline' >bin.src
wf_file bin.src write bin.out
_expect_result write.binary 0 '{"ok":true,"data":{"path":"bin.out","bytes_written":'"$(stat -c %s bin.src)"'}}'
check_true write.binary.bytes "bytes differ" cmp -s bin.src bin.out
head -c 3000000 /dev/urandom >big.src
wf_file big.src write big.out
_expect_result write.big 0 '{"ok":true,"data":{"path":"big.out","bytes_written":3000000}}'
check_true write.big.bytes "bytes differ" cmp -s big.src big.out

# Parent directories are created (0777 & ~umask, as Go's MkdirAll(0755)).
expect_in write.parents 'deep' 0 '{"ok":true,"data":{"path":"a/b/c/d.txt","bytes_written":4}}' write a/b/c/d.txt
check write.parents.content deep "$(cat a/b/c/d.txt 2>/dev/null)"
check write.parents.mode 755 "$(mode_of a/b)"

# Atomic: a new inode renamed into place, no temp file left behind.
mkdir -p atomic
printf old >atomic/f
ino=$(stat -c %i atomic/f)
exec 7<atomic/f
expect_in write.atomic 'new' 0 '{"ok":true,"data":{"path":"atomic/f","bytes_written":3}}' write atomic/f
check write.atomic.old_reader_sees_old old "$(cat <&7)"
exec 7<&-
check_true write.atomic.new_inode "same inode $ino: written in place" test "$(stat -c %i atomic/f)" != "$ino"
check write.atomic.no_temp_files f "$(ls -A atomic)"
for i in 1 2 3 4 5; do wf_in "round $i" write atomic/f; done
check write.atomic.no_temp_files_after_many f "$(ls -A atomic)"

# New files: 0666 & ~umask.
for u in 022 077 002 000; do
	(umask $u && "$WICKFS" write "mode_$u" </dev/null >/dev/null 2>&1)
	check "write.new_mode.umask_$u" "$(printf '%o' $((0666 & ~0$u)))" "$(mode_of "mode_$u" 2>/dev/null)"
done

# Existing files keep their mode (the reference chmods 0666).
for m in 640 600 755 444; do
	printf old >"keep_$m"
	chmod "$m" "keep_$m"
	wf_in 'new' write "keep_$m"
	_expect_result "write.keeps_mode_$m" 0 '{"ok":true,"data":{"path":"keep_'$m'","bytes_written":3}}'
	check "write.keeps_mode_$m.mode" "$m" "$(mode_of "keep_$m")"
done
# ... and their owner when run as root.
if [ "$(id -u)" = 0 ]; then
	printf old >owned
	chown 65534:65534 owned
	chmod 640 owned
	wf_in 'new' write owned
	check write.keeps_owner "65534:65534 640 new" "$(stat -c '%u:%g %a' owned) $(cat owned)"
else
	skip write.keeps_owner "not root"
fi

# Through a symlink: the target is written, the link stays.
mkdir -p t l
printf old >t/target.txt
chmod 640 t/target.txt
ln -s ../t/target.txt l/link.txt
expect_in write.symlink 'via link' 0 '{"ok":true,"data":{"path":"l/link.txt","bytes_written":8}}' write l/link.txt
check_true write.symlink.still_link "l/link.txt is no longer a symlink" test -L l/link.txt
check write.symlink.target_unchanged ../t/target.txt "$(readlink l/link.txt)"
check write.symlink.target_content "via link" "$(cat t/target.txt)"
check write.symlink.target_mode 640 "$(mode_of t/target.txt)"
check write.symlink.no_temp_files link.txt "$(ls -A l)"
check write.symlink.no_temp_files_target target.txt "$(ls -A t)"
# A chain of links.
ln -s l/link.txt chain
wf_in 'chained' write chain
check write.symlink.chain "chained" "$(test -L chain && test -L l/link.txt && cat t/target.txt)"
# A dangling link: its target is created.
ln -s made.txt dangling
wf_in 'made' write dangling
check write.symlink.dangling "made" "$(test -L dangling && cat made.txt 2>/dev/null)"

# Errors name the path.
mkdir -p isdir
expect_error_in write.directory 'x' "isdir" write isdir
printf x >plain
expect_error_in write.parent_is_file 'x' "plain/sub" write plain/sub
expect_error write.usage "usage: wickfs write" write
check_match write.usage.prefix 'usage: wickfs write*' "$(err_msg)"

# Unusual names.
expect_in write.spaces_unicode 'ok' 0 '{"ok":true,"data":{"path":"dir with space/é.txt","bytes_written":2}}' write "dir with space/é.txt"
check write.spaces_unicode.content ok "$(cat "dir with space/é.txt")"

# WICKFS_FSYNC=1: the new content is synced before the rename that
# publishes it, for write and edit; without it, no sync. Seen with strace.
if ! command -v strace >/dev/null 2>&1; then
	skip write.fsync "no strace here (scripts/deps.sh installs it)"
elif ! strace -f -qq -o /dev/null true 2>/dev/null; then
	skip write.fsync "strace cannot trace here (ptrace refused)"
else
	# The sync and rename calls of one run, in order, by name. renameat2
	# counts as renameat: riscv64 has no renameat, and musl's renameat
	# is renameat2 there (seen under qemu, which passes it through).
	syncs() {
		local log=$TEST_TMP/strace.log
		strace -f -qq -e trace=fsync,fdatasync,syncfs,sync,rename,renameat,renameat2 \
			-o "$log" "$@" >/dev/null 2>&1
		sed -n 's/^[0-9]* *\([a-z0-9_]*\)(.*/\1/p' "$log" | sed 's/^renameat2$/renameat/' | tr '\n' ' '
	}
	check write.fsync.write "fsync renameat " "$(printf 'synced\n' | WICKFS_FSYNC=1 syncs "$WICKFS" write fsync.txt)"
	check write.fsync.write_content synced "$(cat fsync.txt)"
	check write.fsync.edit "fsync renameat " \
		"$(printf '{"old_text":"synced","new_text":"edited"}' | WICKFS_FSYNC=1 syncs "$WICKFS" edit fsync.txt)"
	check write.fsync.edit_content edited "$(cat fsync.txt)"
	check write.fsync.off_write "renameat " "$(printf 'plain\n' | syncs "$WICKFS" write fsync.txt)"
	check write.fsync.off_edit "renameat " \
		"$(printf '{"old_text":"plain","new_text":"p"}' | syncs "$WICKFS" edit fsync.txt)"
fi

# ---- --no-clobber, --append (the fsops.write.* checks, once in t_fsops.sh) ----
mkdir -p "$TEST_TMP/write_modes"
cd "$TEST_TMP/write_modes" || exit 1
expect_in fsops.write.no_clobber_new "a" 0 '{"ok":true,"data":{"path":"wn","bytes_written":1}}' write --no-clobber wn
expect_error_in fsops.write.no_clobber_exists "b" "write wn: file exists" write --no-clobber wn
check fsops.write.no_clobber_kept "a" "$(cat wn)"
expect_in fsops.write.append "bc" 0 '{"ok":true,"data":{"path":"wn","bytes_written":2}}' write --append wn
check fsops.write.appended "abc" "$(cat wn)"
expect_in fsops.write.append_new "n" 0 '{"ok":true,"data":{"path":"wa/new","bytes_written":1}}' write --append wa/new
expect_error_in fsops.write.both "x" "write: --no-clobber cannot be combined with --append" write --append --no-clobber wn
check_match fsops.write.readonly_append '{"ok":false,"error":"write wn: refused, WICKFS_READONLY is set"}' "$(printf x | WICKFS_READONLY=1 "$WICKFS" write --append wn)"
check_match fsops.write.readonly_no_clobber '{"ok":false,"error":"write wq: refused, WICKFS_READONLY is set"}' "$(printf x | WICKFS_READONLY=1 "$WICKFS" write --no-clobber wq)"

# ---- --gzip (the write.gzip.* checks, once in t_transfer.sh) ----
mkdir -p "$TEST_TMP/write_gzip"
cd "$TEST_TMP/write_gzip" || exit 1
# A field of the last envelope: "key":number|bool or "key":"string".
field() { printf '%s' "$OUT" | sed -n 's/.*"'"$1"'":\("[^"]*"\|[0-9a-z]*\).*/\1/p' | tr -d '"'; }
seq 1 20000 >text.txt
gzip -c text.txt | base64 >text.b64
wf_file text.b64 write --gzip w.txt
check_true write.gzip.round_trip "w.txt differs" cmp -s text.txt w.txt
check write.gzip.bytes "$(stat -c %s text.txt)" "$(field bytes_written)"
wf_in 'not base64!' write --gzip bad.txt
check_match write.gzip.not_base64 '{"ok":false,"error":"write bad.txt: --gzip: stdin is not base64"}*' "$OUT"
wf_in "$(printf 'plain' | base64)" write --gzip bad.txt
check_match write.gzip.not_gzip '{"ok":false,"error":"write bad.txt: --gzip: *' "$OUT"
check_true write.gzip.nothing_written "bad.txt exists" test ! -e bad.txt
head -c 3000000 /dev/zero | gzip -c | base64 >bomb.b64
WICKFS_MAX_FILE=1000000 "$WICKFS" write --gzip bomb.txt <bomb.b64 >bomb.out
check_match write.gzip.bounded '{"ok":false,"error":"write bomb.txt: --gzip: *exceeds the limit of 1000000*' "$(cat bomb.out)"
