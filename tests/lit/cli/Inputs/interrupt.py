"""Sends a signal to a command mid-run: interrupt.py SIGNAL GLOB COMMAND...

Starts COMMAND with SIGINT, SIGTERM and SIGHUP at their default actions (as
a terminal would; lit's workers ignore SIGINT, which their children would
inherit), waits until a path matching GLOB exists (what the command writes
while it runs), sends SIGNAL, waits for the command to end, and prints how
it ended: "killed by SIGINT", or "exit N" (tests/lit/cli/signals.test).
"""
import glob
import signal
import subprocess
import sys
import time


def defaults():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def main():
    sig = getattr(signal, sys.argv[1])
    pattern = sys.argv[2]
    command = sys.argv[3:]
    process = subprocess.Popen(command, preexec_fn=defaults, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not glob.glob(pattern):
        if process.poll() is not None:
            print("ended (exit %d) before %s appeared" % (process.returncode, pattern))
            return 1
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            print("%s did not appear in 120 s" % pattern)
            return 1
        time.sleep(0.002)
    process.send_signal(sig)
    rc = process.wait(120)
    print("killed by %s" % signal.Signals(-rc).name if rc < 0 else "exit %d" % rc)
    return 0


sys.exit(main())
