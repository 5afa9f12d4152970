#!/usr/bin/env python3
"""soak.py SOCK DIR REQUESTS CONNS - mixed requests against a daemon.

Each connection (a thread) owns DIR/cN/ and cycles through: write a file,
read it back (the content must be what it wrote), edit it (old -> new
text), grep its directory, and the command `true`. Every answer is
checked; the first few errors are printed. Prints one line:
"requests R errors E seconds S".
"""
import json
import os
import socket
import sys
import threading
import time

errors = []
lock = threading.Lock()


def worker(sock, base, n, idx, counts):
    d = os.path.join(base, "c%d" % idx)
    os.makedirs(d, exist_ok=True)
    f = os.path.join(d, "f.txt")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    rf = s.makefile("rb")
    done = bad = 0
    k = 0
    while done < n:
        kind = k % 5
        body = "line %d of %d\nsecond\n" % (k, idx)
        rid = "%d-%d" % (idx, k)
        if kind == 0:
            req = {"id": rid, "op": "write", "args": [f], "stdin": body}
        elif kind == 1:
            req = {"id": rid, "op": "read", "args": [f]}
        elif kind == 2:
            req = {"id": rid, "op": "edit", "args": [f],
                   "stdin": json.dumps({"old_text": "second",
                                        "new_text": "edited"})}
        elif kind == 3:
            req = {"id": rid, "op": "grep", "args": ["edited", d]}
        else:
            req = {"id": rid, "cmd": "true"}
        s.sendall((json.dumps(req) + "\n").encode())
        line = rf.readline()
        ok = False
        try:
            r = json.loads(line)
            if r.get("id") != rid:
                ok = False
            elif kind == 4:
                ok = r.get("exit_code") == 0 and not r.get("error")
            elif kind == 1:
                ok = r.get("ok") is True and r["data"] == \
                    "line %d of %d\nsecond\n" % (k - 1, idx)
            elif kind == 3:
                ok = r.get("ok") is True and "edited" in json.dumps(r["data"])
            else:
                ok = r.get("ok") is True
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            bad += 1
            with lock:
                if len(errors) < 5:
                    errors.append("%s -> %s" % (json.dumps(req)[:120],
                                                line[:200]))
        done += 1
        k += 1
    s.close()
    counts[idx] = (done, bad)


def main():
    sock, base, total, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    per = [total // conns + (1 if i < total % conns else 0)
           for i in range(conns)]
    counts = [(0, 0)] * conns
    t0 = time.monotonic()
    ts = [threading.Thread(target=worker, args=(sock, base, per[i], i, counts))
          for i in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    secs = time.monotonic() - t0
    for e in errors:
        print("error:", e, file=sys.stderr)
    print("requests %d errors %d seconds %.1f" %
          (sum(c[0] for c in counts), sum(c[1] for c in counts), secs))


if __name__ == "__main__":
    main()
