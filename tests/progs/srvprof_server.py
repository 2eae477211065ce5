"""A ThreadingHTTPServer for `latscope bench --server-pid` (tests/e2e/t840): every request does
common_work() (about COMMON_MS of CPU), and 1 request in 10 also slow_path() (about SLOW_MS).

usage: srvprof_server.py PORTFILE LOG COMMON_MS SLOW_MS

Writes its port to PORTFILE once listening, then one line per request to LOG:
    n tid t0 t1 s0 s1 cpu_all cpu_slow tw
n: the server's request count; tid: the handling thread (native id); t0/t1: do_GET's start
and end, s0/s1: slow_path()'s (0 0 on the fast path), time.monotonic_ns() (CLOCK_MONOTONIC,
the clock of bench's records); cpu_all/cpu_slow: the thread CPU time (ns) of do_GET and of
slow_path(), the server's own timers of where its time went; tw: just before the body's write.
"""
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMON_MS, SLOW_MS = float(sys.argv[3]), float(sys.argv[4])
lock = threading.Lock()
count = 0
log = open(sys.argv[2], "w", buffering=1)


def spin(ms):
    # CPU time, not wall time: a descheduled thread still does all its work
    end = time.thread_time_ns() + int(ms * 1e6)
    x = 0
    while time.thread_time_ns() < end:
        x += 1
    return x


def common_work():
    return spin(COMMON_MS)


def slow_path():
    return spin(SLOW_MS)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes

    def do_GET(self):
        global count
        t0, c0 = time.monotonic_ns(), time.thread_time_ns()
        with lock:
            n = count
            count += 1
        common_work()
        s0 = s1 = cs = 0
        if n % 10 == 9:
            s0, cs0 = time.monotonic_ns(), time.thread_time_ns()
            slow_path()
            s1, cs = time.monotonic_ns(), time.thread_time_ns() - cs0
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        tw = time.monotonic_ns()
        self.wfile.write(body)
        t1, c1 = time.monotonic_ns(), time.thread_time_ns()
        log.write(f"{n} {threading.get_native_id()} {t0} {t1} {s0} {s1} {c1 - c0} {cs} {tw}\n")

    def log_message(self, *args):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
