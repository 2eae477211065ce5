#!/usr/bin/env python3
"""gen-ort-profile.py - writes a synthetic ONNX Runtime profile (the JSON array ORT's
enable_profiling writes) of N events, for the `make perf` reader benchmark; never committed.

usage: gen-ort-profile.py N_EVENTS OUT.json

Layout as ORT 1.28 writes it (see ../shared/traces/ort): Session events model_loading_uri and
session_initialization, then runs: each model_run a Session event written after its Node events
(ORT writes in end-time order), each node "<name>_kernel_time" with op_name, provider,
node_index, shapes, sizes and the 1.28 mem_* args (strings, as ORT writes them). Deterministic.
"""
import json
import random
import sys

OPS = ["Conv", "Relu", "Add", "MatMul", "Gemm", "MaxPool", "GlobalAveragePool", "Softmax",
       "ReorderInput", "ReorderOutput", "LayerNormalization", "Gelu"]


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    n = int(float(sys.argv[1]))
    rnd = random.Random(7)
    nodes_per_run = 48
    with open(sys.argv[2], "w") as f:
        f.write("[\n")
        ev = [
            {"cat": "Session", "pid": 4303, "tid": 4303, "dur": 1155, "ts": 8, "ph": "X",
             "name": "model_loading_uri", "args": {}},
            {"cat": "Session", "pid": 4303, "tid": 4303, "dur": 30874, "ts": 1222, "ph": "X",
             "name": "session_initialization", "args": {}},
        ]
        f.write(",\n".join(json.dumps(e) for e in ev))
        written, ts = 2, 40000
        while written < n:
            run_ts, t = ts, ts + 40
            out = []
            for k in range(nodes_per_run):
                if written + len(out) + 1 >= n:
                    break
                op = OPS[k % len(OPS)]
                dur = rnd.randint(5, 900)
                out.append({"cat": "Node", "pid": 4303, "tid": 4303, "dur": dur, "ts": t,
                            "ph": "X", "name": "node%d_kernel_time" % k, "args": {
                                "mem_bytes_in_use": str(2101288 + k), "node_index": str(k),
                                "provider": "CPUExecutionProvider",
                                "output_type_shape": [{"float": [1, 32, 56, 56]}],
                                "input_type_shape": [{"float": [1, 32, 56, 56]}],
                                "op_name": op, "activation_size": "401408",
                                "output_size": "401408", "parameter_size": "18944",
                                "mem_in_use_peak": "2101288", "mem_in_use_delta": "0"}})
                t += dur + rnd.randint(1, 20)
            out.append({"cat": "Session", "pid": 4303, "tid": 4303, "dur": t - run_ts + 30,
                        "ts": run_ts, "ph": "X", "name": "model_run", "args": {}})
            f.write(",\n" + ",\n".join(json.dumps(e) for e in out))
            written += len(out)
            ts = t + 500
        f.write("\n]\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
