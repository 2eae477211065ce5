"""A FastAPI + uvicorn + onnxruntime inference server for `latscope bench --server-pid`
(tests/e2e/t841): a seeded MLP (256 -> 512 -> 512 -> 16, built here with onnx.helper; nothing
from a hub) behind POST /predict. Every request runs the model on its row; 1 request in 10 is
also "padded": the server copies the row into a batch of PAD rows with a Python loop
(pad_batch) and runs the model on the whole batch (the slow path a real server takes when it
pads a request to a fixed batch shape).

usage: ort_srvprof_server.py PORTFILE LOG PAD

Writes its port to PORTFILE once serving, then one line per request to LOG:
    n slow cpu_all cpu_pad cpu_run t0 t1
n: the server's request count; slow: 1 on the padded path; cpu_all: the thread CPU time (ns)
of the handler; cpu_pad: of pad_batch(); cpu_run: of the ORT call(s); t0/t1: the handler's
start and end on time.monotonic_ns() (CLOCK_MONOTONIC, the clock of bench's records).
"""
import os
import socket
import sys
import threading
import time

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from fastapi.responses import JSONResponse  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

PORTFILE, LOG, PAD = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(17)
D_IN, D_H, D_OUT = 256, 512, 16


def rnd(*shape):
    return (rng.standard_normal(shape) * 0.05).astype(np.float32)


inits = [numpy_helper.from_array(a, n) for a, n in ((rnd(D_IN, D_H), "W1"), (rnd(D_H), "B1"),
                                                     (rnd(D_H, D_H), "W2"), (rnd(D_H), "B2"),
                                                     (rnd(D_H, D_OUT), "W3"), (rnd(D_OUT), "B3"))]
nodes = [helper.make_node("Gemm", ["input", "W1", "B1"], ["h1"]), helper.make_node("Relu", ["h1"], ["r1"]),
         helper.make_node("Gemm", ["r1", "W2", "B2"], ["h2"]), helper.make_node("Relu", ["h2"], ["r2"]),
         helper.make_node("Gemm", ["r2", "W3", "B3"], ["output"])]
g = helper.make_graph(nodes, "latscope_srvprof_mlp",
                      [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", D_IN])],
                      [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", D_OUT])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="latscope-test")
m.ir_version = 8
so = ort.SessionOptions()
so.intra_op_num_threads = 1
so.inter_op_num_threads = 1
sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

app = FastAPI()
lock = threading.Lock()
count = 0
log = open(LOG, "w", buffering=1)


def pad_batch(row):
    # a Python copy into a fixed batch shape: the slow path's own work
    out = [[0.0] * D_IN for _ in range(PAD)]
    for i in range(PAD):
        r = out[i]
        for j in range(D_IN):
            r[j] = row[j]
    return np.asarray(out, dtype=np.float32)


def infer(x):
    return sess.run(["output"], {"input": x})[0]


@app.post("/predict")
async def predict(req: Request):
    global count
    t0, c0 = time.monotonic_ns(), time.thread_time_ns()
    body = await req.json()
    row = body["input"][0]
    with lock:
        n = count
        count += 1
    slow = n % 10 == 9
    cp = 0
    if slow:
        a = time.thread_time_ns()
        x = pad_batch(row)
        cp = time.thread_time_ns() - a
    else:
        x = np.asarray([row], dtype=np.float32)
    a = time.thread_time_ns()
    y = infer(x)
    cr = time.thread_time_ns() - a
    out = {"output": y[:1].tolist()}
    log.write("%d %d %d %d %d %d %d\n" % (n, slow, time.thread_time_ns() - c0, cp, cr, t0, time.monotonic_ns()))
    return JSONResponse(out)


s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()


config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
server = uvicorn.Server(config)


def announce():
    while not server.started:
        time.sleep(0.05)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(PORTFILE + ".tmp", PORTFILE)


threading.Thread(target=announce, daemon=True).start()
server.run()
