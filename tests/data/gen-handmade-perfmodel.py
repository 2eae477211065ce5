#!/usr/bin/env python3
"""Writes the hand-made traces of the performance model's doctor rule (tests/data/
handmade-perfmodel-{fires,clean}.json). Run from the repository root; the outputs are committed,
this script only documents how they were made. Times in µs; an H100 SXM (deviceProperties name
"NVIDIA H100 80GB HBM3": BF16 dense peak 989.4 TFLOP/s, 3350 GB/s, ridge 295 FLOP/B).

fires: each of 3 steps (1000 µs) runs aten::mm bf16 M=2000 N=2050 K=4096 in 300 µs:
  FLOPs 2*2000*2050*4096 = 33 587 200 000, bytes (2000*4096 + 4096*2050 + 2000*2050)*2
  = 41 382 400 -> 811.6 FLOP/B (compute-bound); 111.96 TFLOP/s = 11.3 % of peak BF16;
  N = 2050 is not a multiple of 8. Saving bound 300 * (1 - 0.11316) = 266.0 µs per step.
  Plus an aten::add bf16 [2000, 2050] x2 in 20 µs (elementwise: never this rule's finding).
clean: the same with M=N=2048, K=4096 in 50 µs: 687.2 TFLOP/s = 69.5 % of peak (above 40 %).
"""
import json

COMMENT = ("hand-made for latscope's performance model tests (gen-handmade-perfmodel.py); "
           "not from a real program")
DEV = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
        "computeMajor": 9, "computeMinor": 0, "numSms": 132}]


def trace(m, n, k, mm_dur):
    ev, corr = [], 0
    for s in range(3):
        t0 = 1000.0 * s
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}",
                   "pid": 1, "tid": 1, "ts": t0, "dur": 1000})
        for name, dims, types, conc, kname, kts, kdur in (
            ("aten::mm", [[m, k], [k, n]], ["c10::BFloat16", "c10::BFloat16"], ["", ""],
             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 20, mm_dur),
            ("aten::add", [[m, n], [m, n], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"],
             ["", "", "1"], "vectorized_elementwise_kernel", 20 + mm_dur + 2, 20)):
            corr += 1
            op_ts = t0 + (1 if name == "aten::mm" else 12)
            ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
                       "ts": op_ts, "dur": 10,
                       "args": {"Input Dims": dims, "Input type": types,
                                "Concrete Inputs": conc}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": op_ts + 1, "dur": 7,
                       "args": {"correlation": corr, "cbid": 211}})
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                       "ts": t0 + kts, "dur": kdur,
                       "args": {"device": 0, "stream": 7, "correlation": corr,
                                "grid": [132, 1, 1], "block": [256, 1, 1]}})
    return {"deviceProperties": DEV, "schemaVersion": 1, "comment": COMMENT,
            "traceEvents": ev}


for name, args in (("fires", (2000, 2050, 4096, 300)), ("clean", (2048, 2048, 4096, 50))):
    with open(f"tests/data/handmade-perfmodel-{name}.json", "w") as f:
        d = trace(*args)
        f.write("{" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()
                                 if k != "traceEvents"))
        f.write(',\n"traceEvents": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in d["traceEvents"]))
        f.write("\n]}\n")
