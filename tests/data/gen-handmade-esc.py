#!/usr/bin/env python3
"""Writes the hand-made hostile inputs of t015-escape-outputs.sh into DIR (not from a real
program): names with ESC CSI, an OSC title sequence (ESC ] 0 ; title BEL), CR/LF that would
forge a line, bytes next to NUL (\\x01, DEL) and the C1 CSI U+009B.

  gen-handmade-esc.py DIR
"""
import json, os, sys

out = sys.argv[1]
# JSON strings cannot carry NUL into a C string, so the "NUL-adjacent" bytes are \x01 and \x7f
H = "\x1b[31mRED\x1b]0;PWNED-TITLE\x07\r\nFORGED LINE\x01\x7f\u009bZ"


def name(stem):
    return stem + H


def kineto(path, scale, extra):
    ev = [{"ph": "M", "name": "process_name", "pid": 100, "args": {"name": name("proc")}},
          {"ph": "M", "name": "thread_name", "pid": 100, "tid": 100, "args": {"name": name("thr")}}]
    for s in range(4):
        b = s * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s,
                   "pid": 100, "tid": 100, "ts": b, "dur": 1000})
        ev.append({"ph": "X", "cat": "user_annotation", "name": name("annot"),
                   "pid": 100, "tid": 100, "ts": b + 1, "dur": 40})
        for k, (op, kern, dur) in enumerate([(name("aten::op"), name("kernA"), 500 * scale),
                                            ("aten::mm", name("kernB"), 200 + extra)]):
            c = s * 10 + k + 1
            t0 = b + 2 + 20 * k
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 100, "tid": 100,
                       "ts": t0, "dur": 10, "args": {"Input Dims": [[4, 4]]}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                       "tid": 100, "ts": t0 + 1, "dur": 7, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": kern, "pid": 0, "tid": 7,
                       "ts": b + 50 + 300 * k, "dur": dur,
                       "args": {"device": 0, "stream": 7, "correlation": c, "grid": [1, 1, 1],
                                "block": [128, 1, 1]}})
            ev.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": b + 50 + 300 * k,
                       "cat": "ac2g", "name": "ac2g", "bp": "e"})
            ev.append({"ph": "s", "id": c, "pid": 100, "tid": 100, "ts": t0 + 1,
                       "cat": "ac2g", "name": "ac2g"})
    doc = {"schemaVersion": 1,
           "comment": "hand-made for latscope's escaping test: hostile names; not from a real program",
           "deviceProperties": [{"id": 0, "name": name("GPU"), "computeMajor": 8,
                                 "computeMinor": 0, "numSms": 108,
                                 "totalGlobalMem": 42949672960}],
           "distributedInfo": {"backend": name("nccl"), "rank": 0, "world_size": 1},
           "traceEvents": ev}
    json.dump(doc, open(path, "w"))


kineto(os.path.join(out, "handmade-esc-kineto-a.json"), 1, 0)
kineto(os.path.join(out, "handmade-esc-kineto-b.json"), 2, 50)

# ONNX Runtime profile: node and op names
ort = [{"cat": "Session", "pid": 7, "tid": 7, "dur": 40, "ts": 1, "ph": "X",
        "name": "model_loading_uri", "args": {}}]
for r in range(3):
    b = 100 + r * 1000
    ort.append({"cat": "Node", "pid": 7, "tid": 7, "dur": 300, "ts": b + 100, "ph": "X",
                "name": name("node") + "_kernel_time",
                "args": {"op_name": name("Conv"), "provider": name("CPUExecutionProvider")}})
    ort.append({"cat": "Session", "pid": 7, "tid": 7, "dur": 900, "ts": b, "ph": "X",
                "name": "model_run", "args": {}})
json.dump(ort, open(os.path.join(out, "handmade-esc-ort.json"), "w"))

# TensorRT exported layer profile
trt = [{"count": 10}]
for i in range(3):
    trt.append({"name": name("layer%d" % i), "timeMs": 1, "averageMs": 0.1, "medianMs": 0.1,
                "percentage": 33.3})
json.dump(trt, open(os.path.join(out, "handmade-esc-trt.engine.profile.json"), "w"))

# ncu --csv: a kernel name with ESC, OSC, CR/LF inside a quoted field
hdr = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
       '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
       '"Metric Value"\n')
rows = []
for i, (sec, met, unit, val) in enumerate([("GPU Speed Of Light Throughput", "Duration", "nsecond", "2000"),
                                           ("GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", "85.5"),
                                           ("Occupancy", "Achieved Occupancy", "%", "40.5")]):
    rows.append('"0","42","%s","h","%s","1","7","(256, 1, 1)","(80, 2, 1)","0","9.0","%s","%s","%s","%s"\n'
                % (name("app"), name("void k<int>(float*)"), sec, met, unit, val))
with open(os.path.join(out, "handmade-esc-ncu.csv"), "w", newline="") as f:
    f.write(hdr + "".join(rows))
