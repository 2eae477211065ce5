"""names.py - a Python program for the frame-naming test (t368): the same functions sampled by
`latscope trace --cpu` and by py-spy must get the same names. It spends its CPU time in a
method (Enc.forward: a qualified name), a module function (tokenize) and the standard library
(json.dumps -> JSONEncoder.encode, a file under lib/python3.N/), about a third each.
Usage: python3 names.py [CPU_SECONDS] (thread CPU time: the work does not depend on load).
"""
import json
import sys
import time

DOC = {"k%d" % i: [i, str(i), {"x": i}] for i in range(60)}


class Enc:
    def forward(self, n):
        s = 0
        for i in range(n):
            s += i * i
        return s


def tokenize(n):
    s = 0
    for i in range(n):
        s += i ^ 5
    return s


def main(seconds):
    enc = Enc()
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        enc.forward(2000)
        tokenize(2000)
        json.dumps(DOC, indent=1)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)
