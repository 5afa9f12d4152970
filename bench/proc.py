#!/usr/bin/python3
"""bench/proc.py - the process service's two goals (issue 24), measured on a
running daemon (bench/proc.sh starts it):

  first  the first byte a command writes, until a client holds it: a
         streaming client (exec with "stream": the byte arrives as an
         event) against a polling client (start, then the output op every
         POLL_MS, as a host without streaming must), the median of N runs.
         The command prints its own clock (CLOCK_REALTIME, ns) as its
         first bytes; the client subtracts that from its clock on arrival.
  idle   200 background processes (sleep) held by the daemon: its CPU time
         (utime + stime, /proc/PID/stat) over IDLE_S seconds of nothing.

    proc.py SOCKET DAEMON_PID [N] [POLL_MS] [IDLE_S]
"""
import json
import os
import socket
import statistics
import sys
import time

sock_path, dpid = sys.argv[1], int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
poll_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 10
idle_s = float(sys.argv[5]) if len(sys.argv) > 5 else 10
# the command: its clock first (no newline wait: one write)
CMD = "printf %s $(date +%s%N); sleep 0.05"


def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    return s, s.makefile("rwb")


def send(f, **kw):
    f.write((json.dumps(kw) + "\n").encode())
    f.flush()


def streaming():
    s, f = conn()
    lat = []
    for i in range(n):
        send(f, id=str(i), op="exec", stream=True, args=[CMD])
        got = None
        while True:
            ev = json.loads(f.readline())
            if ev.get("event") == "stdout" and got is None:
                got = time.time_ns()
                lat.append((got - int(ev["data"])) / 1e6)
            if ev.get("event") == "exit" or "ok" in ev:
                break
    s.close()
    return lat


def polling():
    s, f = conn()
    lat = []
    for i in range(n):
        send(f, id="s%d" % i, op="start", args=[CMD])
        h = json.loads(f.readline())["data"]["handle"]
        while True:
            send(f, id="o", op="output", handle=h)
            out = json.loads(f.readline())["data"]
            if out["stdout"]:
                lat.append((time.time_ns() - int(out["stdout"])) / 1e6)
                break
            time.sleep(poll_ms / 1000)
        send(f, id="k", op="kill", handle=h)
        f.readline()
    s.close()
    return lat


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as st:
        fields = st.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def idle():
    s, f = conn()
    for i in range(200):
        send(f, id=str(i), op="start", tag="idle%d" % i, args=["sleep 600"])
        r = json.loads(f.readline())
        if not r.get("ok"):
            sys.exit("start: %r" % r)
    time.sleep(1)
    t0, c0 = time.time(), cpu_ticks(dpid)
    time.sleep(idle_s)
    t1, c1 = time.time(), cpu_ticks(dpid)
    for i in range(200):
        send(f, id="k%d" % i, op="kill", tag="idle%d" % i)
        f.readline()
    s.close()
    hz = os.sysconf("SC_CLK_TCK")
    return (c1 - c0) / hz, t1 - t0


st, po = streaming(), polling()
cpu, wall = idle()
print("| what | streaming client (exec with stream) | polling client (output every %g ms) | ratio |" % poll_ms)
print("|---|---:|---:|---:|")
ms, mp = statistics.median(st), statistics.median(po)
print("| first byte to the client, median of %d (ms) | %.3f | %.3f | %.2fx |" % (n, ms, mp, ms / mp))
print("| the same, 90th percentile (ms) | %.3f | %.3f | |" % (
    statistics.quantiles(st, n=10)[8], statistics.quantiles(po, n=10)[8]))
print()
print("200 background processes held, %.1f s of nothing: the daemon used %.3f s of CPU (%.2f%% of one core)" % (
    wall, cpu, 100 * cpu / wall))
