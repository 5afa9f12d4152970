#!/usr/bin/env python3
"""sockfault.py - hostile and plain clients of the daemon's Unix socket,
for tests/t_faults.sh. Every mode prints one result line on stdout.

  partial SOCK DATA SECS   send DATA (no newline), then wait at most SECS
                           for the reply: prints it, "EOF" or "NOREPLY"
  hold SOCK N DATA READY   open N connections, send DATA (@FILE: its
                           contents) on each, touch
                           READY, then hold them until killed
  sendclose SOCK N LINE    N connections each send LINE and close at once
  flood SOCK NBYTES SECS   send NBYTES without a newline (as much as the
                           daemon takes), then print its reply or "NOREPLY"
  many SOCK N LINE SECS    N connections open at once, each sends LINE;
                           prints "answered A of N, ok K"
  noread SOCK N LINE READY N connections each send LINE and never read
                           what comes back; touch READY, hold until killed
  stall SOCK LINE GO SECS  send LINE, read nothing until the file GO
                           exists (at most SECS), then read to the end:
                           prints "lines L, bytes B, then EOF" (or
                           "then NOREPLY" when the daemon keeps it open)
"""
import os
import resource
import socket
import sys
import time


def conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def read_line(s, secs):
    """The first line the daemon sends, "EOF" when it closes first, or
    "NOREPLY" when nothing comes in time (a bounded wait)."""
    s.settimeout(secs)
    data = b""
    try:
        while b"\n" not in data:
            b = s.recv(65536)
            if not b:
                return data.decode(errors="replace") if data else "EOF"
            data += b
    except (socket.timeout, TimeoutError):
        return "NOREPLY"
    except OSError as e:
        return data.decode(errors="replace") if data else "ERR " + str(e)
    return data.split(b"\n", 1)[0].decode(errors="replace")


def partial(path, data, secs):
    s = conn(path)
    s.sendall(data.encode())
    print(read_line(s, float(secs)))


def hold(path, n, data, ready):
    if data.startswith("@"):
        data = open(data[1:]).read()
    keep = []
    for _ in range(int(n)):
        s = conn(path)
        try:
            s.sendall(data.encode())
        except OSError:
            pass  # refused (the budget): the daemon closed it
        keep.append(s)
    open(ready, "w").close()
    while True:
        time.sleep(3600)


def sendclose(path, n, line):
    socks = []
    for _ in range(int(n)):
        s = conn(path)
        s.sendall((line + "\n").encode())
        socks.append(s)
    for s in socks:
        s.close()
    print("sent", len(socks))


def flood(path, nbytes, secs):
    s = conn(path)
    chunk = b"a" * (1 << 20)
    left = int(nbytes)
    s.settimeout(float(secs))
    try:
        while left > 0:
            n = s.send(chunk[:min(left, len(chunk))])
            left -= n
    except OSError:
        pass  # refused and closed before the end: the reply tells
    print(read_line(s, float(secs)))


def many(path, n, line, secs):
    n = int(n)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 64), hard))
    socks = [conn(path) for _ in range(n)]
    for s in socks:
        s.sendall((line + "\n").encode())
    answered = ok = 0
    deadline = time.monotonic() + float(secs)
    for s in socks:
        r = read_line(s, max(0.1, deadline - time.monotonic()))
        if r not in ("NOREPLY", "EOF") and not r.startswith("ERR"):
            answered += 1
            ok += '"ok":true' in r
        s.close()
    print("answered %d of %d, ok %d" % (answered, n, ok))


def noread(path, n, line, ready):
    n = int(n)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 64), hard))
    keep = []
    for _ in range(n):
        s = conn(path)
        s.sendall((line + "\n").encode())
        keep.append(s)
    open(ready, "w").close()
    while True:
        time.sleep(3600)


def stall(path, line, go, secs):
    s = conn(path)
    s.sendall((line + "\n").encode())
    deadline = time.monotonic() + float(secs)
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.05)
    s.settimeout(max(0.1, deadline - time.monotonic()))
    data, end = b"", "EOF"
    try:
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            data += b
    except (socket.timeout, TimeoutError):
        end = "NOREPLY"
    except OSError:
        pass
    print("lines %d, bytes %d, then %s" % (data.count(b"\n"), len(data), end))


if __name__ == "__main__":
    modes = {"partial": partial, "hold": hold, "sendclose": sendclose,
             "flood": flood, "many": many, "noread": noread, "stall": stall}
    modes[sys.argv[1]](*sys.argv[2:])
