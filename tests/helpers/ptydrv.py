#!/usr/bin/python3
"""tests/helpers/ptydrv.py - drive the daemon's terminal processes for
tests/t_pty.sh: one scenario per run, one line of results per check
("NAME ok" or "NAME FAIL: why"), polling the output op for what a
person would wait to see, never sleeping a fixed time.

    ptydrv.py SOCKET SCENARIO
"""
import json
import socket
import sys
import time

sock = socket.socket(socket.AF_UNIX)
sock.connect(sys.argv[1])
f = sock.makefile("rwb")
seq = 0


def req(**kw):
    global seq
    seq += 1
    kw["id"] = str(seq)
    f.write((json.dumps(kw) + "\n").encode())
    f.flush()
    return json.loads(f.readline())


def say(name, ok, why=""):
    print("%s %s" % (name, "ok" if ok else "FAIL: " + why), flush=True)


def until(name, tag, text, t=20):
    """The output once it holds text, or None (and a FAIL line)."""
    end = time.time() + t
    r = None
    while time.time() < end:
        r = req(op="output", tag=tag)
        if r.get("ok") and text in r["data"]["stdout"]:
            return r["data"]["stdout"]
        time.sleep(0.05)
    say(name, False, "no %r in %r" % (text, r))
    return None


def wait(tag):
    r = req(op="wait", tag=tag, timeout=20)
    return r["data"] if r.get("ok") else r


def repl():
    r = req(op="start", pty={"rows": 30, "cols": 90}, args=["python3 -i -q"], tag="py")
    say("pty.repl_start", r.get("ok") and r["data"].get("pty") is True, repr(r))
    if until("pty.repl_prompt", "py", ">>> ") is None:
        return
    req(op="input", tag="py", stdin="import os; print(6*7, os.get_terminal_size())\n")
    out = until("pty.repl_input", "py", "42 os.terminal_size(columns=90, lines=30)")
    if out is not None:
        say("pty.repl_input", True)
    r = req(op="resize", tag="py", rows=50, cols=132)
    say("pty.resize_ok", r.get("ok"), repr(r))
    req(op="input", tag="py", stdin="print(os.get_terminal_size())\n")
    if until("pty.resize_seen", "py", "os.terminal_size(columns=132, lines=50)") is not None:
        say("pty.resize_seen", True)
    until("pty.repl_prompt_again", "py", "lines=50)\r\n>>> ")
    r = req(op="input", tag="py", eof=True, stdin="")
    st = wait("py")
    say("pty.eof_ends_repl", st.get("running") is False and st.get("exit_code") == 0, repr(st))
    say("pty.one_stream", st.get("stderr_bytes") == 0 and st.get("stdout_bytes", 0) > 0, repr(st))


CURSES = r"""
import curses, signal
def main(w):
    curses.curs_set(0)
    w.addstr(2, 5, "hello curses")
    w.refresh()
    while True:
        c = w.getch()
        if c == curses.KEY_RESIZE:
            y, x = w.getmaxyx()
            w.addstr(4, 5, "resized %dx%d" % (y, x))
            w.refresh()
        elif c == ord("q"):
            return
curses.wrapper(main)
print("curses done")
"""


def curses_prog():
    r = req(op="start", pty=True, env={"PROG": CURSES}, args=['python3 -c "$PROG"'], tag="cu")
    if not r.get("ok"):
        return say("pty.curses_start", False, repr(r))
    out = until("pty.curses_draws", "cu", "hello curses")
    if out is None:
        return
    # the alternate screen and cursor addressing: a real terminal program
    say("pty.curses_draws", "\x1b[" in out, repr(out[:200]))
    req(op="resize", tag="cu", rows=40, cols=100)
    if until("pty.curses_sigwinch", "cu", "resized 40x100") is not None:
        say("pty.curses_sigwinch", True)
    req(op="input", tag="cu", stdin="q")
    st = wait("cu")
    say("pty.curses_quits", st.get("exit_code") == 0, repr(st))
    until("pty.curses_after", "cu", "curses done")


def ctrl_c():
    r = req(op="start", pty=True, args=["sleep 100"], tag="sl")
    if not r.get("ok"):
        return say("pty.ctrl_c", False, repr(r))
    # the line discipline turns ^C into SIGINT for the foreground group
    time.sleep(0.2)
    req(op="input", tag="sl", stdin="\x03")
    st = wait("sl")
    say("pty.ctrl_c", st.get("running") is False and st.get("signal") == 2, repr(st))


def term(expect):
    r = req(op="exec", stream=True, pty=True, args=['echo "term=$TERM"'])
    out = ""
    while "event" in r and r["event"] != "exit":
        if r["event"] == "stdout":
            out += r["data"]
        r = json.loads(f.readline())
    say("pty.term_" + expect.replace("-", "_"), "term=%s\r\n" % expect in out, repr(out))


def term_env():
    r = req(op="start", pty=True, env={"TERM": "vt100"}, args=['echo "term=$TERM"'], tag="te")
    out = until("pty.term_from_env", "te", "term=")
    if out is not None:
        say("pty.term_from_env", "term=vt100" in out, repr(out))


def client():
    """wickfs client attach on a terminal of ours: raw keys, its size, ^]."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios

    r = req(op="start", pty=True, args=["sh"], tag="csh")
    if not r.get("ok"):
        return say("pty.client_attach_tty", False, repr(r))
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(os.environ["WICKFS"], ["wickfs", "client", "--connect", "unix:" + sys.argv[1],
                                       "attach", "csh"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 41, 121, 0, 0))
    out = b""

    def read_until(text, t=20):
        nonlocal out
        end = time.time() + t
        while text not in out and time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    return False
        return text in out

    # the shell's prompt, then a line typed as keys (a carriage return)
    read_until(b"$ ") or read_until(b"# ", 1)
    os.write(fd, b"stty size; echo marker$((6*7))\r")
    say("pty.client_attach_tty", read_until(b"marker42"), repr(out[-200:]))
    say("pty.client_size_followed", b"41 121" in out, repr(out[-200:]))
    os.write(fd, b"\x1d")
    say("pty.client_detach", read_until(b"client: detached"), repr(out[-200:]))
    _, st = os.waitpid(pid, 0)
    say("pty.client_detach_status", os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, repr(st))
    r = req(op="list")
    alive = [p for p in r["data"]["processes"] if p.get("tag") == "csh" and p["running"]]
    say("pty.client_detach_keeps_process", len(alive) == 1, repr(r))
    req(op="kill", tag="csh")


{"repl": repl, "client": client, "curses": curses_prog, "ctrl_c": ctrl_c,
 "term_default": lambda: term("xterm-256color"), "term_env": term_env}[sys.argv[2]]()
