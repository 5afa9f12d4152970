#!/usr/bin/env bash
# download / upload in chunks: on the CLI, and through the daemon's native
# ops with every line under 10 MiB (read --gzip and write --gzip: t_read.sh,
# t_write.sh).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/xfer
mkdir -p "$d"
cd "$d" || exit 1

# A field of the last envelope: "key":number|bool or "key":"string".
field() { printf '%s' "$OUT" | sed -n 's/.*"'"$1"'":\("[^"]*"\|[0-9a-z]*\).*/\1/p' | tr -d '"'; }

head -c 3000000 /dev/urandom >rand.bin

# ---- download / upload on the CLI ----
rm -f got.bin
off=0 n=0
while [ $n -lt 10 ]; do
	wf download --offset "$off" --limit 1000000 rand.bin
	field data | base64 -d >>got.bin
	n=$((n + 1))
	[ "$(field eof)" = true ] && break
	off=$((off + $(field bytes)))
done
check_true download.chunks "the 3 chunks differ" cmp -s rand.bin got.bin
check download.chunk_count 3 "$n"
wf download --offset 2999990 --limit 5 rand.bin
check download.range "$(tail -c 10 rand.bin | head -c 5 | base64)" "$(field data)"
wf download --limit 8000000 rand.bin
check_match download.limit_bounded '{"ok":false,"error":"download: --limit takes 1 to 7340032, got 8000000"}*' "$OUT"
wf download missing.bin
check_match download.missing '{"ok":false,"error":"download missing.bin: *' "$OUT"

# upload in three chunks, a chunk sent again, a gap refused.
split -b 1000000 -d rand.bin part.
wf_file <(base64 part.00) upload --offset 0 up.bin
wf_file <(base64 part.01) upload --offset 1000000 up.bin
wf_file <(base64 part.01) upload --offset 1000000 up.bin
check upload.resend 0 "$RC"
check_true upload.not_yet "up.bin exists before --last" test ! -e up.bin
wf_file <(base64 part.00) upload --offset 2500000 up.bin
check_match upload.gap '{"ok":false,"error":"upload up.bin: offset 2500000 but 2000000 bytes received so far"}*' "$OUT"
wf_file <(base64 part.02) upload --offset 2000000 --last up.bin
check upload.done 3000000 "$(field size)"
check_true upload.round_trip "up.bin differs" cmp -s rand.bin up.bin
check_true upload.no_part "part left" test ! -e up.bin.wickfs-part

# A tree: download --tree spools a tar.gz, upload --tree unpacks it.
mkdir -p src/sub "src/with space" src/.wickfs
printf 'a' >src/a
printf 'in .wickfs' >src/.wickfs/state
ln -s a src/sub/l
cp rand.bin src/sub/r.bin
wf download --tree --limit 1000000 src
spool=$(field path)
check_match download.tree.spool "src/.wickfs/download-*.tar.gz" "$spool"
field data | base64 -d >tree.tgz
off=$(field bytes)
while [ "$(field eof)" != true ]; do
	wf download --remove --offset "$off" --limit 1000000 "$spool"
	field data | base64 -d >>tree.tgz
	off=$((off + $(field bytes)))
done
check_true download.tree.spool_removed "spool left" test ! -e "$spool"
check download.tree.listing "$(printf 'a\nsub/\nsub/l\nsub/r.bin\nwith space/\n')" "$(tar -tzf tree.tgz | sort)"
split -b 700000 -d tree.tgz tp.
o=0
for p in tp.*; do
	wf_file <(base64 "$p") upload --tree --offset "$o" dst
	o=$((o + $(stat -c %s "$p")))
done
wf_in "" upload --tree --offset "$o" --last dst
check_match upload.tree.done '{"ok":true,"data":{"path":"dst",*"done":true,"unpacked":{"files":2,"dirs":2,"symlinks":1,*' "$OUT"
check_true upload.tree.content "dst/sub/r.bin differs" cmp -s rand.bin dst/sub/r.bin
check upload.tree.link a "$(readlink dst/sub/l)"
check_true upload.tree.no_part "part left" test ! -e dst/.wickfs/upload.tar.gz

# Read-only mode and --root.
WICKFS_READONLY=1 "$WICKFS" upload --offset 0 ro.bin </dev/null >ro.out
check upload.readonly '{"ok":false,"error":"upload ro.bin: refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
WICKFS_READONLY=1 "$WICKFS" download --tree src >ro.out
check download.tree.readonly '{"ok":false,"error":"download src: refused, WICKFS_READONLY is set"}' "$(cat ro.out)"
mkdir -p jail
wf --root "$d/jail" download "$d/rand.bin"
check_match download.root '*outside the workspace root*' "$OUT"
wf_in "eA==" --root "$d/jail" upload "$d/esc.bin"
check_match upload.root '*outside the workspace root*' "$OUT"
check_true upload.root.nothing "esc.bin.wickfs-part exists" test ! -e "$d/esc.bin.wickfs-part"
wf --root "$d/jail" download --tree "$d/src"
check_match download.tree.root '*outside the workspace root*' "$OUT"

# ---- through the daemon: native ops, every line under 10 MiB ----
if ! command -v python3 >/dev/null; then
	skip transfer.daemon "no python3"
	exit 0
fi
head -c 12000000 /dev/urandom >big.bin
"$WICKFS" daemon --listen off --socket "$d/x.sock" 2>"$d/x.log" &
dpid=$!
for i in $(seq 100); do grep -q "ready:" "$d/x.log" 2>/dev/null && break; sleep 0.05; done
python3 - "$d/x.sock" "$d/big.bin" "$d/back.bin" >py.out 2>&1 <<'EOF'
import base64, json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb")
longest = 0
def op(args, stdin=None):
    global longest
    req = {"id": "x", "op": args[0], "args": args[1:]}
    if stdin is not None:
        req["stdin"] = stdin
    f.write(json.dumps(req).encode() + b"\n")
    f.flush()
    line = f.readline()
    longest = max(longest, len(line))
    r = json.loads(line)
    if not r["ok"]:
        raise SystemExit("error: " + r["error"])
    return r["data"]
off, got = 0, b""
while True:
    d = op(["download", "--offset", str(off), "--limit", "7340032", sys.argv[2]])
    got += base64.b64decode(d["data"])
    off += d["bytes"]
    if d["eof"]:
        break
off = 0
while off < len(got):
    chunk = got[off:off + 7000000]
    last = off + len(chunk) >= len(got)
    op(["upload", "--offset", str(off)] + (["--last"] if last else []) + [sys.argv[3]],
       base64.b64encode(chunk).decode())
    off += len(chunk)
print("longest", longest)
EOF
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
check_true transfer.daemon.round_trip "$(head -c 300 py.out)" cmp -s big.bin back.bin
longest=$(sed -n 's/^longest //p' py.out)
check_true transfer.daemon.lines_under_10MiB "longest line ${longest:-?}" test "${longest:-99999999}" -le 10485760
