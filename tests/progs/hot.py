"""hot.py - a Python test program with known hot functions for the CPU sampler's tests.

hot_py does twice the work of warm_py per round (same loop body), so under sampling the
share of hot_py is about 2/3 of the time spent in the two, and both sit under run_rounds.
Usage: python3 hot.py [CPU_SECONDS] (thread CPU time: sample counts do not depend on load).
Rounds (~0.3 ms) are short against the 5 ms sampling period, so samples do not alias onto one phase.
"""
import sys
import time


def hot_py(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def warm_py(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def run_rounds(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        hot_py(4000)
        warm_py(2000)


if __name__ == "__main__":
    run_rounds(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)
