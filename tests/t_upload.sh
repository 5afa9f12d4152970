#!/usr/bin/env bash
# upload: a file in chunks, a chunk sent again, a gap refused, nothing in
# place before --last; read-only mode and --root. (upload --tree of what
# download --tree gives, and both through the daemon: t_transfer)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/xfer
transfer_fixture "$d"

split -b 1000000 -d rand.bin part.
wf_file <(base64 part.00) upload --offset 0 up.bin
wf_file <(base64 part.01) upload --offset 1000000 up.bin
wf_file <(base64 part.01) upload --offset 1000000 up.bin
check upload.resend 0 "$RC"
check_true upload.not_yet "up.bin exists before --last" test ! -e up.bin
wf_file <(base64 part.00) upload --offset 2500000 up.bin
check_match upload.gap '{"ok":false,"error":"upload up.bin: offset 2500000 but 2000000 bytes received so far"}*' "$OUT"
wf_file <(base64 part.02) upload --offset 2000000 --last up.bin
check upload.done 3000000 "$(out_field size)"
check_true upload.round_trip "up.bin differs" cmp -s rand.bin up.bin
check_true upload.no_part "part left" test ! -e up.bin.wickfs-part

# Read-only mode and --root.
WICKFS_READONLY=1 "$WICKFS" upload --offset 0 ro.bin </dev/null >ro.out
check upload.readonly '{"ok":false,"error":"upload ro.bin: refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
mkdir -p jail
wf_in "eA==" --root "$d/jail" upload "$d/esc.bin"
check_match upload.root '*outside the workspace root*' "$OUT"
check_true upload.root.nothing "esc.bin.wickfs-part exists" test ! -e "$d/esc.bin.wickfs-part"
