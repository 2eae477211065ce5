#!/usr/bin/env python3
"""nagle-server.py PORTFILE [nodelay]: a keep-alive HTTP/1.1 server on 127.0.0.1 (port 0) that
writes the response headers and the body in two sends (BaseHTTPRequestHandler, wbufsize=0): the
body waits for the ACK of the headers (Nagle's algorithm), which the client delays (~40 ms on
Linux). With "nodelay" it sets TCP_NODELAY on each accepted socket. Exits after 120 s."""
import http.server, socket, sys, threading

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 0
    def setup(self):
        super().setup()
        if len(sys.argv) > 2 and sys.argv[2] == "nodelay":
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def do_GET(self):
        body = b"ok\n" * 10
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()   # first send: the headers
        self.wfile.write(body)  # second send: the body
    def log_message(self, *a):
        pass

s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % s.server_address[1])
threading.Timer(120, s.shutdown).start()
s.serve_forever()
