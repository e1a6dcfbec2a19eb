#!/usr/bin/env python3
# Two CPU-bound loops for about 1 s, and a sleeper that wakes every 1 ms and runs briefly
# (about 50 us of busy work) before sleeping again: the mix of the recorded cpu-sleeper-mix
# trace. Processes, not threads (CPython's GIL would serialize threads' loops).
import os
import sys
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
PERIOD = 0.001  # the sleeper's period, s
BURST = 0.00005  # the sleeper's run per period, s


def spin(until):
    n = 0
    while time.monotonic() < until:
        n += 1
    return n


def main():
    end = time.monotonic() + SECONDS
    spinners = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            spin(end)
            os._exit(0)
        spinners.append(pid)
    wakes = 0
    nxt = time.monotonic()
    while True:
        nxt += PERIOD
        now = time.monotonic()
        if nxt >= end:
            break
        if nxt > now:
            time.sleep(nxt - now)
        spin(time.monotonic() + BURST)
        wakes += 1
    for pid in spinners:
        os.waitpid(pid, 0)
    print(f"sleeper woke {wakes} times in {SECONDS} s")


if __name__ == "__main__":
    main()
