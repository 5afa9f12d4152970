#!/usr/bin/env bash
# A non-root user (uid 1000) in a workspace it does not fully own: root
# owns /work and some files in it, the user owns /work/mine. Every refusal
# is an error envelope naming the path and the cause, and a refused or
# failed change leaves the workspace exactly as it was (no partial file, no
# staging temp left behind). Also a workspace that fills up (a small tmpfs):
# the old content stays whole. The root holds only the binary (/bin/wickfs); chroot
# drops to uid 1000 after entering it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/roots.sh"

needs_static inject_user || exit 0
if [ "$(id -u)" != 0 ]; then
	skip inject_user "needs root (chroot, then the switch to uid 1000)"
	exit 0
fi
roots_ns_start || {
	skip inject_user "unshare -m does not work here"
	exit 0
}
root=$TEST_TMP/root
w=$root/work
mkdir -p "$w/mine/small" "$w/private" "$w/sub" "$root/bin"
chmod 755 "$root"
cp "$WICKFS" "$root/bin/wickfs"
printf 'ro\n' >"$w/ro.txt"
printf 'secret\n' >"$w/secret.txt"
chmod 600 "$w/secret.txt"
printf 'shared\n' >"$w/shared.txt"
chmod 666 "$w/shared.txt"
printf 'p\n' >"$w/private/p.txt"
chmod 700 "$w/private"
printf 'mine\n' >"$w/mine/m.txt"
printf 'keep\n' >"$w/mine/small/f.txt"
chown -R 1000:1000 "$w/mine"
if ! in_ns mount -t tmpfs -o size=64k,uid=1000,gid=1000,mode=755 tmpfs "$w/mine/small" 2>"$TEST_TMP/mount.err"; then
	skip inject_user "cannot mount a tmpfs: $(cat "$TEST_TMP/mount.err")"
	exit 0
fi
in_ns sh -c "printf 'keep\n' >'$w/mine/small/f.txt' && chown 1000:1000 '$w/mine/small/f.txt'"
IN_ROOT=(env PATH=/bin "${NS[@]}" "$(command -v chroot)" --userspec=1000:1000 --groups=1000 "$root")

check inject_user.uid "1000" "$(in_root wickfs write /work/mine/uid.txt </dev/null >/dev/null; stat -c %u "$w/mine/uid.txt"; rm -f "$w/mine/uid.txt" )"

# Everything the user can see of the workspace: names, modes, owners,
# sizes and contents (as root, from inside the namespace).
snapshot() {
	in_ns sh -c "cd '$w' && find . -printf '%p %m %u %s\n' | sort &&
		find . -type f -exec md5sum {} + | sort"
}
before=$(snapshot)

# ue NAME STDIN NEEDLE ARGS...: /wickfs ARGS as uid 1000 must fail with
# an error envelope whose message contains NEEDLE.
ue() {
	local name=$1 in=$2 needle=$3
	shift 3
	OUT=$(printf '%s' "$in" | in_root wickfs "$@" 2>/dev/null)
	RC=$?
	OUT+=$'\n'
	_expect_error_result "$name" "$needle"
}

ue inject_user.read_unreadable "" "read /work/secret.txt: permission denied" read /work/secret.txt
ue inject_user.write_not_owned "new" "write /work/ro.txt: permission denied" write /work/ro.txt
ue inject_user.write_new_in_root_dir "new" "write /work/new.txt: permission denied" write /work/new.txt
ue inject_user.edit_not_owned '{"old_text":"ro","new_text":"rw"}' "edit /work/ro.txt: permission denied" edit /work/ro.txt
# shared.txt is writable (0666), but its directory is not: the message
# says that the directory is what stops the atomic replace.
ue inject_user.edit_dir_not_writable '{"old_text":"shared","new_text":"edited"}' \
	"edit /work/shared.txt: permission denied: its directory is not writable*" edit /work/shared.txt
ue inject_user.patch_dir_not_writable '[{"old_text":"shared","new_text":"x"}]' \
	"patch /work/shared.txt: permission denied: its directory is not writable*" patch /work/shared.txt
ue inject_user.mkdir "" "mkdir /work/x: permission denied" mkdir /work/x
ue inject_user.rm "" "rm /work/ro.txt: permission denied" rm /work/ro.txt
ue inject_user.rm_r "" "permission denied" rm -r /work/sub
ue inject_user.mv_out "" "mv /work/mine/m.txt: permission denied" mv /work/mine/m.txt /work/m.txt
ue inject_user.mv_in "" "mv /work/ro.txt: permission denied" mv /work/ro.txt /work/mine/ro.txt
ue inject_user.cp_unreadable "" "cp /work/secret.txt: permission denied" cp /work/secret.txt /work/mine/s.txt
ue inject_user.ls_private "" "ls /work/private: permission denied" ls /work/private
ue inject_user.stat_private "" "stat /work/private/p.txt: permission denied" stat /work/private/p.txt
ue inject_user.chmod_not_owner "" "chmod /work/ro.txt: operation not permitted" chmod 777 /work/ro.txt
ue inject_user.symlink "" "symlink /work/l: permission denied" symlink ro.txt /work/l
# pack and unpack print the C library's message, capitalised.
ue inject_user.unpack_into_root_dir "" "unpack /work/x: [Pp]ermission denied" unpack --input /work/ro.txt /work/x
ue inject_user.pack_output "" "pack /work/t.tgz: [Pp]ermission denied" pack --output /work/t.tgz /work/mine
ue inject_user.pack_private "" "pack /work/private: [Pp]ermission denied" pack --output /work/mine/t.tgz /work/private
# All or nothing: m.txt could change, ro.txt cannot, so neither does.
ue inject_user.apply_patch_all_or_nothing '*** Begin Patch
*** Update File: /work/mine/m.txt
@@
-mine
+MINE
*** Update File: /work/ro.txt
@@
-ro
+RO
*** End Patch
' "apply-patch /work/ro.txt: permission denied" apply-patch

# A full file system: the old content stays, no temp is left.
big=$(head -c 200000 /dev/zero | tr '\0' x)
ue inject_user.write_enospc "$big" "write /work/mine/small/f.txt: no space left on device" write /work/mine/small/f.txt
ue inject_user.append_enospc "$big" "append /work/mine/small/f.txt: no space left on device" append /work/mine/small/f.txt

after=$(snapshot)
check inject_user.nothing_changed "$before" "$after"
check inject_user.no_temp_files "" "$(in_ns find "$w" -name '.wickfs-tmp-*')"

# What the user owns, it can change; new files are its own.
rr inject_user.write_own "ok" '{"ok":true,"data":{"path":"/work/mine/ok.txt","bytes_written":2}}' write /work/mine/ok.txt
check inject_user.write_own.owner "1000:1000" "$(stat -c %u:%g "$w/mine/ok.txt")"
rr inject_user.edit_own '{"old_text":"mine","new_text":"MINE"}' '{"ok":true,"data":{"path":"/work/mine/m.txt","replacements":1}}' edit /work/mine/m.txt
rr inject_user.append_shared "more" '{"ok":true,"data":{"path":"/work/shared.txt","bytes_written":4}}' append /work/shared.txt
check inject_user.append_shared.content "shared"$'\n'"more" "$(cat "$w/shared.txt")"
