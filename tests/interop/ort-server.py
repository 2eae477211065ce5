#!/usr/bin/env python3
"""ort-server.py MODEL.onnx PORT: FastAPI + uvicorn + onnxruntime, the interop run's inference server.

Endpoints (the model is served as "mlp"):
  GET  /v2/health/ready                 200 when the session is loaded
  GET  /v2/models/mlp                   KServe v2 metadata (inputs/outputs, -1 for dynamic dims)
  POST /v2/models/mlp/infer             KServe v2 inference: {"inputs":[{"name","shape","datatype","data"}]}
  POST /predict                         plain JSON: {"input": [[...256 floats...], ...]} -> {"output": [[...]]}
A malformed request gets 400 with {"error": ...}, as KServe servers answer.
"""
import os
import sys

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from fastapi.responses import JSONResponse  # noqa: E402

MODEL, PORT = sys.argv[1], int(sys.argv[2])
so = ort.SessionOptions()
so.intra_op_num_threads = 1
so.inter_op_num_threads = 1
sess = ort.InferenceSession(MODEL, so, providers=["CPUExecutionProvider"])
try:
    ort.disable_telemetry_events()
except AttributeError:
    pass
NAME = "mlp"
app = FastAPI()
TYPES = {"tensor(float)": "FP32"}


def dims(shape):
    return [d if isinstance(d, int) else -1 for d in shape]


@app.get("/v2/health/ready")
def ready():
    return {"ready": True}


@app.get("/v2/models/" + NAME)
def metadata():
    return {"name": NAME, "versions": ["1"], "platform": "onnxruntime_onnx",
            "inputs": [{"name": i.name, "datatype": TYPES[i.type], "shape": dims(i.shape)}
                       for i in sess.get_inputs()],
            "outputs": [{"name": o.name, "datatype": TYPES[o.type], "shape": dims(o.shape)}
                        for o in sess.get_outputs()]}


def bad(msg):
    return JSONResponse(status_code=400, content={"error": msg})


@app.post("/v2/models/" + NAME + "/infer")
async def infer(req: Request):
    try:
        body = await req.json()
        feeds = {}
        for t in body["inputs"]:
            if t.get("datatype") != "FP32":
                return bad("input %s: datatype %s, want FP32" % (t.get("name"), t.get("datatype")))
            feeds[t["name"]] = np.asarray(t["data"], dtype=np.float32).reshape(t["shape"])
        outs = sess.run(None, feeds)
    except Exception as e:  # the request's fault: KServe answers 400 with the message
        return bad("%s: %s" % (type(e).__name__, e))
    return {"model_name": NAME, "model_version": "1",
            "outputs": [{"name": o.name, "datatype": "FP32", "shape": list(a.shape),
                         "data": a.reshape(-1).tolist()}
                        for o, a in zip(sess.get_outputs(), outs)]}


@app.post("/predict")
async def predict(req: Request):
    try:
        body = await req.json()
        x = np.asarray(body["input"], dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        (y,) = sess.run(None, {"input": x})
    except Exception as e:
        return bad("%s: %s" % (type(e).__name__, e))
    return {"output": y.tolist()}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", access_log=False)
