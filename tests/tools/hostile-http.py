#!/usr/bin/env python3
"""hostile-http.py - hostile HTTP/1.1 servers for the bench e2e tests (issue 31), loopback only.

  hostile-http.py MODE PORTFILE COUNTFILE [SECONDS]

MODE drop2: answers the first request of each connection (keep-alive), reads the second in
full, sleeps 200 ms and closes without answering ("dropped mid-request").
MODE backlog: listen backlog 1 and one accept every 300 ms (Python's http.server has 5 and a
slow accept loop): SYNs beyond the backlog are dropped and retransmitted by the client after
1 s. Accepted connections are answered at once (keep-alive).
MODE lcpp: llama-cpp-python's tokenize endpoint: POST /extras/tokenize {"input": TEXT} answers
{"tokens": [1, one id per whitespace-separated word]} (BOS prepended, as it does); any other
path is 404.
MODE http10: answers every request with "HTTP/1.0 200 OK", no Content-Length, a 5-byte body
and closes (a close-delimited response).
Writes its port to PORTFILE once listening; on exit (SIGTERM or SECONDS, default 60) writes
"requests N dropped M" to COUNTFILE (N: requests read in full, M: dropped after reading).
"""
import asyncio
import signal
import sys

mode, portfile, countfile = sys.argv[1], sys.argv[2], sys.argv[3]
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
stats = {"requests": 0, "dropped": 0}


def dump():
    with open(countfile, "w") as f:
        f.write("requests %d dropped %d\n" % (stats["requests"], stats["dropped"]))


async def read_request(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    body = await reader.readexactly(n) if n else b""
    stats["requests"] += 1
    return head.split(b" ")[1], body


async def handle(reader, writer):
    try:
        k = 0
        while True:
            path, body = await read_request(reader)
            k += 1
            if mode == "lcpp":
                import json
                try:
                    text = json.loads(body)["input"]
                    ok = path == b"/extras/tokenize"
                except (ValueError, KeyError, TypeError):
                    ok = False
                if path != b"/extras/tokenize":
                    out, st = b'{"detail":"Not Found"}', b"404 Not Found"
                elif not ok:
                    out, st = b'{"detail":"unprocessable"}', b"422 Unprocessable Entity"
                else:
                    ids = [1] + [100 + len(w) for w in text.split()]
                    out, st = json.dumps({"tokens": ids}).encode(), b"200 OK"
                writer.write(b"HTTP/1.1 " + st + b"\r\nContent-Type: application/json\r\n"
                             b"Content-Length: " + str(len(out)).encode() + b"\r\n\r\n" + out)
                await writer.drain()
                continue
            if mode == "http10":
                writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello")
                await writer.drain()
                dump()
                break
            if mode == "drop2" and k == 2:
                await asyncio.sleep(0.2)
                stats["dropped"] += 1
                dump()
                break
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
            await writer.drain()
            dump()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def serve_backlog(sock):
    loop = asyncio.get_running_loop()
    while True:
        conn, _ = await loop.sock_accept(sock)
        conn.setblocking(False)
        r, w = await asyncio.open_connection(sock=conn)
        asyncio.ensure_future(handle(r, w))
        await asyncio.sleep(0.3)


async def main():
    if mode == "backlog":
        import socket
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        sock.setblocking(False)

        class S:
            sockets = [sock]

            def close(self):
                sock.close()

        srv = S()
        asyncio.ensure_future(serve_backlog(sock))
    else:
        srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.sockets[0].getsockname()[1])
    import os
    os.rename(portfile + ".tmp", portfile)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), limit)
    except asyncio.TimeoutError:
        pass
    srv.close()
    dump()


asyncio.run(main())
