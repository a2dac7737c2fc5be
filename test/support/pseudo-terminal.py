"""Runs a command in a real pseudo-terminal, for the terminal tests.

    python3 test/support/pseudo-terminal.py COLUMNS ROWS -- COMMAND [ARGS...]

Everything the command writes to its terminal comes out on this script's stdout, byte for byte.
Lines on this script's stdin steer the terminal as a person would: `resize C R` (the kernel tells
the command with SIGWINCH), `ctrl-c` (the terminal's interrupt character, so the terminal sends
SIGINT). When the command ends, the last line on stderr is `exit N` (or `signal N`).

A resize happens at a known point of the output: the command is stopped, what it wrote so far is
passed on, then the marker RESIZE (with the new size) is written to stdout, then the terminal
takes its new size and the command goes on. Whoever draws the screen from stdout resizes at the
marker, so the test never depends on how fast the command answers SIGWINCH.
"""

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios


def set_size(fd, columns, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


RESIZE = b"\x1b]7777;resize %d %d\x07"


def drain(fd):
    """Passes on everything the (stopped) command has written and not yet been read."""
    os.set_blocking(fd, False)
    try:
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            os.write(sys.stdout.fileno(), data)
    except (BlockingIOError, OSError):
        pass
    finally:
        os.set_blocking(fd, True)


def main():
    columns, rows = int(sys.argv[1]), int(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    pid, fd = pty.fork()
    if pid == 0:
        set_size(sys.stdout.fileno(), columns, rows)
        os.execvp(command[0], command)
    set_size(fd, columns, rows)
    steering = sys.stdin.fileno()
    pending = b""
    while True:
        ready, _, _ = select.select([fd, steering] if steering is not None else [fd], [], [])
        if steering in ready:
            data = os.read(steering, 1024)
            if not data:
                steering = None
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                words = line.decode().split()
                if words[:1] == ["resize"]:
                    os.kill(pid, signal.SIGSTOP)
                    os.waitpid(pid, os.WUNTRACED)
                    drain(fd)
                    os.write(sys.stdout.fileno(), RESIZE % (int(words[1]), int(words[2])))
                    set_size(fd, int(words[1]), int(words[2]))
                    os.kill(pid, signal.SIGCONT)
                elif words[:1] == ["ctrl-c"]:
                    os.write(fd, b"\x03")
        if fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the command closed its terminal
                data = b""
            if not data:
                break
            os.write(sys.stdout.fileno(), data)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sys.stderr.write("signal %d\n" % os.WTERMSIG(status))
    else:
        sys.stderr.write("exit %d\n" % os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
