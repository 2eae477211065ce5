#!/usr/bin/env python3
"""service-server.py MODE PORTFILE [ARGS...]: keep-alive HTTP/1.1 servers on 127.0.0.1 (port 0)
with one known service problem each, for doctor's service rules (issue 33). Answers every
request "200 ok" (headers and body in one write) unless the mode says otherwise; writes its port
to PORTFILE once listening; exits after 120 s. Times count from the first request, so the
client's start-up does not use them up.

  churn N            closes the connection, without "Connection: close", after N responses
  close N            answers its N-th response on a connection with "Connection: close", closes
  warmup S SLOW FAST each response takes SLOW ms during the first S s, then FAST ms
  stall PERIOD LEN   every PERIOD ms the whole server blocks for LEN ms (a GC-like pause)
  errors-burst A B   answers 500 to requests between A and B s, else 200 at once
  errors-spread K    answers 500 to every K-th request, else 200 at once
  pool W MS          W workers, MS ms each (a fixed worker pool: requests queue for a worker)
"""
import asyncio
import sys
import threading
import time

mode, portfile = sys.argv[1], sys.argv[2]
args = [float(a) for a in sys.argv[3:]]
t0 = None
nreq = 0
pool = asyncio.Semaphore(int(args[0])) if mode == "pool" else None


def since():
    return time.monotonic() - t0


async def stall_loop():
    # blocks the event loop (every connection) for LEN ms every PERIOD ms
    while t0 is None:
        await asyncio.sleep(0.005)
    period, length = args[0] / 1000.0, args[1] / 1000.0
    k = 1
    while True:
        await asyncio.sleep(max(0.0, t0 + k * period - time.monotonic()))
        time.sleep(length)
        k += 1


async def handle(reader, writer):
    global t0, nreq
    n = 0
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            clen = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    clen = int(line.split(b":", 1)[1])
            if clen:
                await reader.readexactly(clen)
            if t0 is None:
                t0 = time.monotonic()
            nreq += 1
            n += 1
            status = b"200 OK"
            if mode == "warmup":
                await asyncio.sleep((args[1] if since() < args[0] else args[2]) / 1000.0)
            elif mode == "pool":
                async with pool:
                    await asyncio.sleep(args[1] / 1000.0)
            elif mode == "errors-burst" and args[0] <= since() < args[1]:
                status = b"500 Internal Server Error"
            elif mode == "errors-spread" and nreq % int(args[0]) == 0:
                status = b"500 Internal Server Error"
            last = mode in ("churn", "close") and n >= int(args[0])
            conn = b"close" if last and mode == "close" else b"keep-alive"
            writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 3\r\n"
                         b"Connection: " + conn + b"\r\n\r\nok\n")
            await writer.drain()
            if last:
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    with open(portfile, "w") as f:
        f.write("%d\n" % srv.sockets[0].getsockname()[1])
    if mode == "stall":
        asyncio.ensure_future(stall_loop())
    await asyncio.sleep(120)


threading.Timer(121, lambda: __import__("os")._exit(0)).start()
asyncio.run(main())
