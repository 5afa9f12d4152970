#!/usr/bin/env bash
# download: a file in chunks, a range, the limit, a tree spooled as a
# tar.gz and removed once read; read-only mode and --root. (upload: t_upload;
# a tree downloaded then uploaded, and both through the daemon: t_transfer)
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/xfer
transfer_fixture "$d"

rm -f got.bin
off=0 n=0
while [ $n -lt 10 ]; do
	wf download --offset "$off" --limit 1000000 rand.bin
	out_field data | base64 -d >>got.bin
	n=$((n + 1))
	[ "$(out_field eof)" = true ] && break
	off=$((off + $(out_field bytes)))
done
check_true download.chunks "the 3 chunks differ" cmp -s rand.bin got.bin
check download.chunk_count 3 "$n"
wf download --offset 2999990 --limit 5 rand.bin
check download.range "$(tail -c 10 rand.bin | head -c 5 | base64)" "$(out_field data)"
wf download --limit 8000000 rand.bin
check_match download.limit_bounded '{"ok":false,"error":"download: --limit takes 1 to 7340032, got 8000000"}*' "$OUT"
wf download missing.bin
check_match download.missing '{"ok":false,"error":"download missing.bin: *' "$OUT"

# A tree: download --tree spools a tar.gz (.wickfs left out), read in
# chunks, the last with --remove.
download_tree src tree.tgz
check_match download.tree.spool "src/.wickfs/download-*.tar.gz" "$SPOOL"
check_true download.tree.spool_removed "spool left" test ! -e "$SPOOL"
check download.tree.listing "$(printf 'a\nsub/\nsub/l\nsub/r.bin\nwith space/\n')" "$(tar -tzf tree.tgz | sort)"

# Read-only mode and --root.
WICKFS_READONLY=1 "$WICKFS" download --tree src >ro.out
check download.tree.readonly '{"ok":false,"error":"download src: refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
mkdir -p jail
wf --root "$d/jail" download "$d/rand.bin"
check_match download.root '*outside the workspace root*' "$OUT"
wf --root "$d/jail" download --tree "$d/src"
check_match download.tree.root '*outside the workspace root*' "$OUT"
