#!/usr/bin/env python3
"""grpc-v2-server.py - a KServe v2 gRPC server (inference.GRPCInferenceService) for bench tests.

Two engines, one command line:
  --engine grpcio  grpcio's server with generic handlers (the messages hand-encoded below):
                   ModelInfer, ModelMetadata, ModelStatistics, ServerReady; --delay-ms, --status-every N
                   --status-code C (abort every Nth call with that grpc-status).
  --engine raw     a hand-made HTTP/2 server on a plain socket, for what grpcio will not do:
                   --rst-every N (RST_STREAM INTERNAL_ERROR), --goaway-every N (GOAWAY that
                   refuses the call, then close), --garbage-every N (a DATA payload that is no
                   gRPC message), --delay-ms. Every other call is answered correctly; a call
                   without inputs (ModelMetadata, ModelStatistics) gets UNIMPLEMENTED.
Calls are counted from 1; the count of ModelInfer calls received is written to --count-file
after each one. Prints "port N" on stdout once listening (--port 0 picks one).
"""
import argparse
import socket
import struct
import sys
import threading
import time


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def sint64(v):  # int64 as a varint (two's complement for negatives)
    return varint(v & 0xFFFFFFFFFFFFFFFF)


def read_fields(buf):
    """(number, wire type, value) of a protobuf message; value is bytes for wire type 2."""
    i, out = 0, []
    while i < len(buf):
        key, shift = 0, 0
        while True:
            b = buf[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, shift = 0, 0
            while True:
                b = buf[i]
                i += 1
                v |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            out.append((num, wt, v))
        elif wt == 2:
            n, shift = 0, 0
            while True:
                b = buf[i]
                i += 1
                n |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            out.append((num, wt, buf[i:i + n]))
            i += n
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
    return out


def tensor(name, dt, shape):
    return field(1, name.encode()) + field(2, dt.encode()) + field(3, b"".join(sint64(d) for d in shape))


def infer_response(req):
    """ModelInferResponse for a ModelInferRequest: model_name, id echoed, one FP32 output."""
    model, rid = b"", b""
    for num, wt, v in read_fields(req):
        if num == 1 and wt == 2:
            model = v
        if num == 3 and wt == 2:
            rid = v
    out = field(1, model) + (field(3, rid) if rid else b"")
    out += field(5, tensor("OUTPUT0", "FP32", [1, 4]))
    out += field(6, struct.pack("<4f", 0.5, 0.25, 0.125, 1.0))
    return out


def metadata_response(name):
    return field(1, name) + field(3, b"latscope-test") + field(4, tensor("INPUT0", "FP32", [-1, 4])) + \
        field(5, tensor("OUTPUT0", "FP32", [-1, 4]))


class Counter:
    def __init__(self, path):
        self.n, self.path, self.lock = 0, path, threading.Lock()

    def bump(self):
        with self.lock:
            self.n += 1
            n = self.n
            if self.path:
                with open(self.path + ".tmp", "w") as f:
                    f.write("%d\n" % n)
                import os
                os.replace(self.path + ".tmp", self.path)
            return n


def every(n, k):
    return n > 0 and k % n == 0


# ---- grpcio --------------------------------------------------------------------------------

def run_grpcio(a, count):
    import grpc
    from concurrent import futures

    def infer(req, ctx):
        k = count.bump()
        if a.delay_ms:
            time.sleep(a.delay_ms / 1000.0)
        if every(a.status_every, k):
            ctx.abort(grpc.StatusCode(next(c for c in grpc.StatusCode if c.value[0] == a.status_code)),
                      "latscope test: fault on call %d" % k)
        return infer_response(req)

    def meta(req, ctx):
        name = b""
        for num, wt, v in read_fields(req):
            if num == 1 and wt == 2:
                name = v
        if a.model and name != a.model.encode():
            ctx.abort(grpc.StatusCode.NOT_FOUND, "no model %r" % name)
        return metadata_response(name)

    def ready(req, ctx):
        return varint(1 << 3 | 0) + varint(1)

    def stats(req, ctx):
        """Triton's ModelStatistics: per call 250 us queue, 100 us input, 1 ms infer, 50 us
        output, exactly (the test checks the per-request breakdown bench derives)."""
        n = count.n

        def dur(c, ns):
            return varint(1 << 3) + varint(c) + varint(2 << 3) + varint(ns)
        inf = field(1, dur(n, n * int(a.delay_ms * 1e6))) + field(3, dur(n, n * 250000)) + \
            field(4, dur(n, n * 100000)) + field(5, dur(n, n * 1000000)) + field(6, dur(n, n * 50000))
        name = (a.model or "m").encode()
        return field(1, field(1, name) + field(2, b"1") + varint(4 << 3) + varint(n) + field(6, inf))

    h = grpc.method_handlers_generic_handler("inference.GRPCInferenceService", {
        "ModelInfer": grpc.unary_unary_rpc_method_handler(infer),
        "ModelMetadata": grpc.unary_unary_rpc_method_handler(meta),
        "ServerReady": grpc.unary_unary_rpc_method_handler(ready),
        "ModelStatistics": grpc.unary_unary_rpc_method_handler(stats),
    })
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=a.workers))
    srv.add_generic_rpc_handlers((h,))
    port = srv.add_insecure_port("127.0.0.1:%d" % a.port)
    srv.start()
    print("port %d" % port, flush=True)
    srv.wait_for_termination()


# ---- raw HTTP/2 ----------------------------------------------------------------------------

DATA, HEADERS, RST, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS, ACK = 1, 4, 1


def frame(t, flags, sid, payload=b""):
    n = len(payload)
    return struct.pack(">BHBBI", n >> 16, n & 0xFFFF, t, flags, sid & 0x7FFFFFFF) + payload


def lit(name, value):  # HPACK literal without indexing, new name, no Huffman
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def serve_conn(s, a, count):
    try:
        if recv_exact(s, 24) != b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n":
            return
        s.sendall(frame(SETTINGS, 0, 0, struct.pack(">HI", 3, 100)))
        bodies = {}
        while True:
            h = recv_exact(s, 9)
            n = h[0] << 16 | h[1] << 8 | h[2]
            t, flags, sid = h[3], h[4], struct.unpack(">I", h[5:9])[0] & 0x7FFFFFFF
            p = recv_exact(s, n) if n else b""
            if t == SETTINGS and not flags & ACK:
                s.sendall(frame(SETTINGS, ACK, 0))
            elif t == PING and not flags & ACK:
                s.sendall(frame(PING, ACK, 0, p))
            elif t == HEADERS:
                bodies[sid] = b""
            elif t == DATA and sid in bodies:
                bodies[sid] += p
                if n:  # give the flow-control window back
                    s.sendall(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", n)))
            if t in (HEADERS, DATA) and flags & END_STREAM and sid in bodies:
                body = bodies.pop(sid)
                if not any(num == 5 for num, _, _ in read_fields(body[5:])):
                    # not a ModelInferRequest (no inputs: ModelMetadata, ModelStatistics):
                    # a trailers-only UNIMPLEMENTED, not counted
                    s.sendall(frame(HEADERS, END_HEADERS | END_STREAM, sid, b"\x88" +
                                    lit("content-type", "application/grpc") + lit("grpc-status", "12")))
                    continue
                k = count.bump()
                if a.delay_ms:
                    time.sleep(a.delay_ms / 1000.0)
                if every(a.rst_every, k):
                    s.sendall(frame(RST, 0, sid, struct.pack(">I", 2)))
                    continue
                if every(a.goaway_every, k):
                    s.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", max(sid - 2, 0), 0)))
                    s.shutdown(socket.SHUT_RDWR)
                    return
                msg = infer_response(body[5:]) if len(body) >= 5 else b""
                grpc_msg = struct.pack(">BI", 0, len(msg)) + msg
                if every(a.garbage_every, k):
                    grpc_msg = b"\x07this is not a gRPC message"
                hdr = b"\x88" + lit("content-type", "application/grpc")
                s.sendall(frame(HEADERS, END_HEADERS, sid, hdr) + frame(DATA, 0, sid, grpc_msg) +
                          frame(HEADERS, END_HEADERS | END_STREAM, sid, lit("grpc-status", "0")))
    except (EOFError, OSError):
        pass
    finally:
        s.close()


def run_raw(a, count):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", a.port))
    ls.listen(64)
    print("port %d" % ls.getsockname()[1], flush=True)
    while True:
        c, _ = ls.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve_conn, args=(c, a, count), daemon=True).start()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=["grpcio", "raw"], default="grpcio")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--model", default="")
    ap.add_argument("--delay-ms", type=float, default=0)
    ap.add_argument("--status-every", type=int, default=0)
    ap.add_argument("--status-code", type=int, default=14)
    ap.add_argument("--rst-every", type=int, default=0)
    ap.add_argument("--goaway-every", type=int, default=0)
    ap.add_argument("--garbage-every", type=int, default=0)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--count-file", default="")
    a = ap.parse_args()
    count = Counter(a.count_file)
    (run_grpcio if a.engine == "grpcio" else run_raw)(a, count)


if __name__ == "__main__":
    sys.exit(main())
