#!/usr/bin/env bash
# download and upload together, where one's output is the other's input:
# a tree downloaded with --tree and uploaded with --tree, and 12 MB each
# way through the daemon's native ops with every line under 10 MiB. Each
# applet's own checks are in t_download.sh and t_upload.sh (read --gzip
# and write --gzip: t_read.sh, t_write.sh).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/xfer
transfer_fixture "$d"
trap kill_pids EXIT

# ---- download --tree, then upload --tree of the same bytes in 700 kB chunks ----
if ! download_tree src tree.tgz; then
	fail upload.tree.download "download --tree src: $(show "$OUT")"
fi
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

# ---- through the daemon: native ops, every line under 10 MiB ----
if ! command -v python3 >/dev/null; then
	skip transfer.daemon "no python3"
	exit 0
fi
head -c 12000000 /dev/urandom >big.bin
if ! daemon_start "$d/x.log" --listen off --socket "$d/x.sock"; then
	fail transfer.daemon.start "$(head -c 300 "$d/x.log")"
	exit 0
fi
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
daemon_stop
check_true transfer.daemon.round_trip "$(head -c 300 py.out)" cmp -s big.bin back.bin
longest=$(sed -n 's/^longest //p' py.out)
check_true transfer.daemon.lines_under_10MiB "longest line ${longest:-?}" test "${longest:-99999999}" -le 10485760
