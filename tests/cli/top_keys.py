#!/usr/bin/env python3
"""gpuperf top's full-screen view in a terminal, driven by its keys.

    top_keys.py GPUPERF ARGS...

Runs GPUPERF top ARGS in a pseudo-terminal of 40 rows and 120 columns,
waits for each screen a key should bring, and prints a line a check:
"ok WHAT" or "FAIL WHAT: why", then "done". Each wait is bounded by a
deadline that only catches a hang.
"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

DEADLINE_S = 30


class Terminal:
    def __init__(self, argv):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["LANG"] = "C.UTF-8"
            os.environ["TERM"] = "xterm"
            os.execv(argv[0], argv)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.seen = b""
        self.mark = 0

    def read_some(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:         # the child closed the terminal
            return False
        if not data:
            return False
        self.seen += data
        return True

    def wait_for(self, text):
        """Waits for text in what the program wrote since the last key."""
        end = time.monotonic() + DEADLINE_S
        while text.encode() not in self.seen[self.mark:]:
            left = end - time.monotonic()
            if left <= 0 or not self.read_some(min(left, 0.5)):
                return text.encode() in self.seen[self.mark:]
        return True

    def rows(self):
        """(pid, command, GPU %) of the newest screen's process table."""
        text = self.seen[self.mark:].decode(errors="replace")
        table = text[text.rfind("PID COMMAND"):].split("\n")[1:]
        out = []
        for line in table:
            cells = line.split()
            if len(cells) < 3 or not cells[0].isdigit():
                break
            gpu = cells[2].rstrip("%")
            out.append((int(cells[0]), cells[1], float(gpu) if gpu != "-" else -1.0))
        return out

    def key(self, k):
        self.mark = len(self.seen)
        os.write(self.fd, k.encode())

    def wait_exit(self):
        end = time.monotonic() + DEADLINE_S
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while select.select([self.fd], [], [], 0.2)[0] and self.read_some(0):
                    pass
                return status
            self.read_some(0.1)
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        return None


def main():
    term = Terminal(sys.argv[1:2] + ["top"] + sys.argv[2:])
    failed = False

    def check(ok, what, why=""):
        nonlocal failed
        if ok:
            print("ok " + what)
        else:
            failed = True
            tail = term.seen[-600:].decode(errors="replace").replace("\x1b", "^[")
            print("FAIL %s: %s; the screen's end: %r" % (what, why, tail))

    check(term.wait_for("\x1b[?1049h") and term.wait_for("q quit"),
          "the view takes the terminal's other screen, with its keys",
          "no screen with 'q quit'")
    check(term.wait_for(" CLASS ") and term.wait_for("s sort (gpu)"),
          "it starts with engine classes, processes by GPU time")
    by_pid = lambda r: [p for p, _, _ in r] == sorted(p for p, _, _ in r)
    by_command = lambda r: [c for _, c, _ in r] == sorted(c for _, c, _ in r)
    by_gpu = lambda r: [g for _, _, g in r] == sorted((g for _, _, g in r), reverse=True)
    for key, text, what, order in [
        ("p", "s sort (pid)", "p sorts by pid", by_pid),
        ("m", "s sort (memory)", "m sorts by memory", None),
        ("c", "s sort (command)", "c sorts by command", by_command),
        ("s", "s sort (gpu)", "s goes round to GPU time", by_gpu),
        ("1", " ENGINE ", "1 shows the physical engines", None),
        ("i", "i show idle", "i hides idle processes", None),
        ("i", "i hide idle", "i again shows them", None),
        ("1", " CLASS ", "1 again shows the engine classes", None),
    ]:
        term.key(key)
        shown = term.wait_for(text) and term.wait_for("q quit")
        rows = term.rows()
        check(shown and (order is None or (len(rows) >= 2 and order(rows))), what,
              "no '%s' after the key" % text if not shown else "rows %r" % rows)
    term.key("q")
    status = term.wait_exit()
    check(status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "q quits with status 0", "status %r" % (status,))
    check(b"\x1b[?1049l" in term.seen[-200:],
          "the terminal's screen and cursor are given back", "no ^[[?1049l at the end")
    print("done")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
