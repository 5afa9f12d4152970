#!/usr/bin/env bash
# unpack: archives GNU tar (gnu, pax, ustar), gzip and pigz make, several
# gzip members, hostile archives (python's tarfile, a planted symlink, a
# bad checksum, bombs, not gzip, empty), read-only mode, --root, modes and
# the umask. (unpack of pack's own archive, round trips and damaged
# copies: t_pack.sh)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/pack
mkdir -p "$d"
cd "$d" || exit 1

# ---- the source tree ----
src=$d/src
pack_source_tree "$src"
want_t=$(tree_state "$src" | grep -v '^fifo	')
want=$(tree_state_no_time "$src" | grep -v '^fifo	')

# ---- we read what they write ----
for fmt in gnu pax ustar; do
	rm -rf "x-$fmt"
	if [ $fmt = ustar ]; then
		# ustar cannot hold the deep path or long target: a smaller tree.
		tar --format=ustar -czf "$fmt.tgz" -C "$src" hello.txt private many sub/uplink 2>/dev/null
		wf_file "$fmt.tgz" unpack "x-$fmt"
		check "gnutar.$fmt.unpack" 0 "$RC"
		check "gnutar.$fmt.content" "$(cat "$src/many/f77")" "$(cat "x-$fmt/many/f77")"
		continue
	fi
	tar --format=$fmt -czf "$fmt.tgz" -C "$src" . 2>/dev/null
	wf_file "$fmt.tgz" unpack "x-$fmt"
	check_match "gnutar.$fmt.unpack" '{"ok":true,"data":{"files":2010,*"skipped":\["./fifo"\],"skipped_total":1}}' "${OUT%$'\n'}"
	# GNU format keeps whole seconds only.
	if [ $fmt = gnu ]; then
		check "gnutar.$fmt.round_trip" "$want" "$(tree_state_no_time "x-$fmt")"
	else
		check "gnutar.$fmt.round_trip" "$want_t" "$(tree_state "x-$fmt")"
	fi
done

# Several gzip members (pigz -i, cat a.gz b.gz): one tar cut in two.
tar -cf whole.tar -C "$src" .
size=$(stat -c %s whole.tar)
head -c $((size / 2 + 333)) whole.tar | gzip -1 >m1.gz
tail -c +$((size / 2 + 334)) whole.tar | gzip -9 >m2.gz
cat m1.gz m2.gz >multi.tgz
wf_file multi.tgz unpack x-multi
check unpack.multi_member.rc 0 "$RC"
check unpack.multi_member "$want" "$(tree_state_no_time x-multi)"
if command -v pigz >/dev/null; then
	tar -cf - -C "$src" . | pigz -i >pigz.tgz
	wf_file pigz.tgz unpack x-pigz
	check unpack.pigz_i "$want" "$(tree_state_no_time x-pigz)"
else
	skip unpack.pigz_i "pigz is not installed"
fi

# ---- hostile archives ----
# Everything hostile happens in $jail: $jail/h/t is the target and
# $jail/outside must stay empty (lib.sh's unpack_jail, unpack_hostile).
jail=$d/jail
outside=$jail/outside
unpack_jail "$jail"

py=$(command -v python3 || true)
if [ -n "$py" ] && "$py" -c 'import tarfile' 2>/dev/null; then
	"$py" - "$d" "$outside" <<'EOF'
import io, sys, tarfile
d, outside = sys.argv[1], sys.argv[2]
def arc(name, members):
    with tarfile.open(f"{d}/{name}.tgz", "w:gz", format=tarfile.PAX_FORMAT) as t:
        for m in members:
            ti = tarfile.TarInfo(m[0])
            kind = m[1]
            if kind == "file":
                data = m[2]
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            elif kind == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = m[2]
                t.addfile(ti)
            elif kind == "dir":
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif kind == "header":
                ti.size = m[2]
                t.addfile(ti)  # no data: a declared size only
arc("dotdot", [("ok", "file", b"fine"), ("../x", "file", b"escape")])
arc("dotdot_mid", [("a/../../x", "file", b"escape")])
arc("absolute", [(outside + "/abs", "file", b"escape")])
arc("symlink_then_file", [("l", "link", ".."), ("l/x", "file", b"escape")])
arc("symlink_abs_then_file", [("l", "link", outside), ("l/x", "file", b"escape")])
arc("symlink_then_dir", [("l", "link", outside), ("l/sub", "dir")])
arc("huge_size", [("ok", "file", b"fine"), ("huge", "header", 1 << 40)])
EOF
	unpack_hostile dotdot '../x: refused: *would leave' dotdot.tgz
	check unpack.hostile.dotdot.before "fine" "$(cat "$jail/h/t/ok" 2>&1)"
	unpack_hostile dotdot_mid 'a/../../x: refused' dotdot_mid.tgz
	unpack_hostile absolute "$outside/abs: refused: an absolute name" absolute.tgz
	unpack_hostile symlink_then_file 'l/x: refused: l is a symlink' symlink_then_file.tgz
	unpack_hostile symlink_abs_then_file 'l/x: refused: l is a symlink' symlink_abs_then_file.tgz
	unpack_hostile symlink_then_dir 'l/sub/: refused: l is a symlink' symlink_then_dir.tgz
	unpack_hostile huge_size 'huge: refused: declared size 1099511627776 exceeds the limit' huge_size.tgz
	check unpack.hostile.huge_size.no_file "" "$(ls "$jail/h/t" | grep huge)"
else
	skip unpack.hostile.python "python3 with tarfile is not installed"
fi

# A symlink already in the target is not followed either.
rm -rf "$jail/h"
mkdir -p "$jail/h/t"
ln -s "$outside" "$jail/h/t/planted"
mkdir -p "$d/hsrc/planted"
printf 'x' >"$d/hsrc/planted/x"
tar -czf planted.tgz -C "$d/hsrc" planted
wf_file planted.tgz unpack "$jail/h/t"
_expect_error_result unpack.hostile.planted_symlink 'planted/: refused: a symlink is in the way'
check unpack.hostile.planted_symlink.outside "$UNPACK_JAIL_BEFORE" "$(unpack_jail_state)"

# Bad header checksum: a byte of the second header's name flipped.
mkdir -p cs/d
printf 'one' >cs/d/one
printf 'two' >cs/d/two
tar --format=ustar -cf cs.tar -C cs d
printf 'Z' | dd of=cs.tar bs=1 seek=$((512 + 5)) conv=notrunc 2>/dev/null
gzip -c cs.tar >cs.tgz
unpack_hostile bad_checksum 'header checksum mismatch at offset 512 (after d/' cs.tgz

# An entry whose name is empty (GNU tar makes it "."; found by the
# targz_stream fuzzer, which asks that every entry have a name): an error
# naming the entry before it, where it had been passed over unsaid.
python3 - <<'EOF'
import gzip
def hdr(name, typ, mode, size):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b'%07o\0' % mode
    h[108:124] = b'0000000\0' * 2
    h[124:136] = b'%011o\0' % size
    h[136:148] = b'00000000000\0'
    h[156:157] = typ
    h[257:265] = b'ustar\x0000'
    h[148:156] = b' ' * 8
    h[148:156] = b'%06o\0 ' % sum(h)
    return bytes(h)
data = hdr(b'a.txt', b'0', 0o644, 2) + b'hi' + b'\0' * 510 + hdr(b'', b'5', 0o777, 0) + b'\0' * 1024
open('noname.tgz', 'wb').write(gzip.compress(data))
EOF
unpack_hostile no_name 'corrupt archive: an entry with no name after a.txt' noname.tgz

# Gzip bombs: a 60 MB file of zeros (about 60 KB compressed), and a small
# file followed by 60 MB of zero padding, each past --max-bytes 10 MB.
mkdir -p bomb1 bomb2
head -c 60000000 /dev/zero >bomb1/zeros
tar -czf bomb1.tgz -C bomb1 zeros
unpack_hostile bomb_declared 'zeros: refused: declared size 60000000 exceeds the limit of 10000000' bomb1.tgz --max-bytes 10000000
printf 'small' >bomb2/small
{ tar -cf - -C bomb2 small; head -c 60000000 /dev/zero; } | gzip -c >bomb2.tgz
unpack_hostile bomb_padding 'exceeds the limit of 10000000 bytes' bomb2.tgz --max-bytes 10000000
WICKFS_UNPACK_MAX=5000000 "$WICKFS" unpack "$jail/h/env" <bomb1.tgz >env.out
check_match unpack.hostile.bomb_env_limit '*exceeds the limit of 5000000*' "$(cat env.out)"

# Not gzip at all, and empty input.
printf 'plain text' >plain.txt
unpack_hostile not_gzip 'gzip: corrupt data in member 1' plain.txt
: >empty.tgz
unpack_hostile empty 'empty input, not a gzip stream' empty.tgz

# Read-only mode refuses unpack.
WICKFS_READONLY=1 "$WICKFS" unpack "$d/ro" <pax.tgz >ro.out
check unpack.readonly '{"ok":false,"error":"unpack '"$d/ro"': refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
check_true unpack.readonly.nothing "target created" test ! -e "$d/ro"

# --root: the target stays inside it.
mkdir -p "$d/root"
cp ustar.tgz "$d/root/ok.tgz"
wf --root "$d/root" unpack --input "$d/root/ok.tgz" "$d/unpacked-outside"
check_match unpack.root.target_outside '*outside the workspace root*' "$OUT"
check_true unpack.root.no_dir "target created" test ! -e "$d/unpacked-outside"

# Modes: the umask applies (a directory stored 7777 once unpacked 1777,
# world-writable), for root too; --same-permissions keeps the stored
# modes; setuid and setgid never.
pm=$TEST_TMP/perm
rm -rf "$pm" && mkdir -p "$pm/src/dir"
printf 'x' >"$pm/src/dir/f"
chmod 7777 "$pm/src/dir"
chmod 6777 "$pm/src/dir/f"
tar -czf "$pm/t.tgz" -C "$pm/src" dir
chmod 755 "$pm/src/dir"
(umask 022 && "$WICKFS" unpack --input "$pm/t.tgz" "$pm/o" >/dev/null)
check unpack.modes.umask_022 "1755 755" "$(stat -c %a "$pm/o/dir" "$pm/o/dir/f" | tr '\n' ' ' | sed 's/ $//')"
(umask 077 && "$WICKFS" unpack --input "$pm/t.tgz" "$pm/o77" >/dev/null)
check unpack.modes.umask_077 "1700 700" "$(stat -c %a "$pm/o77/dir" "$pm/o77/dir/f" | tr '\n' ' ' | sed 's/ $//')"
(umask 022 && "$WICKFS" unpack --same-permissions --input "$pm/t.tgz" "$pm/op" >/dev/null)
check unpack.modes.same_permissions "1777 777" "$(stat -c %a "$pm/op/dir" "$pm/op/dir/f" | tr '\n' ' ' | sed 's/ $//')"
