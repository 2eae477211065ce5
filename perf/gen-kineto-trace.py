#!/usr/bin/env python3
"""gen-kineto-trace.py - writes a synthetic Kineto (PyTorch profiler) trace of about SIZE_MB
megabytes of JSON, for scale checks (`make perf`); never committed.

usage: gen-kineto-trace.py SIZE_MB OUT.json [--gzip] [--rank=R --world=W]

--rank/--world: distributedInfo of rank R of a W-rank job (default 0 of 1), and a seed of its
own (42 + R), for many-rank directories (perf/13-analyze-many-ranks.sh).

The trace has the current layout: ProfilerStep#N user annotations, cpu_op -> cuda_runtime
cudaLaunchKernel -> kernel on streams 7/20 (correlated, with ac2g flows), memcpys, [memory]
instants, ns-resolution float timestamps, deviceProperties and distributedInfo. Deterministic
(fixed seed), streamed to the output in blocks (bounded memory).
"""
import gzip
import random
import sys


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    target = int(float(sys.argv[1]) * 1e6)
    out_path = sys.argv[2]
    use_gz = "--gzip" in sys.argv[3:]
    rank, world = 0, 1
    for a in sys.argv[3:]:
        if a.startswith("--rank="):
            rank = int(a[7:])
        elif a.startswith("--world="):
            world = int(a[8:])
    rnd = random.Random(42 + rank)
    f = gzip.open(out_path, "wt", compresslevel=1) if use_gz else open(out_path, "w")
    head = (
        '{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "Synthetic GPU", '
        '"totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],\n'
        '  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n' % (rank, world) +
        '  "baseTimeNanoseconds": 1712195495000000000,\n  "traceEvents": [\n'
    )
    f.write(head)
    written = len(head)
    ops = ["aten::mm", "aten::add", "aten::relu", "aten::layer_norm", "aten::softmax", "aten::copy_"]
    kernels = ["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
               "void at::native::vectorized_elementwise_kernel<4>", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
               "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16>"]
    # A model has a limited set of tensor shapes: draw them from a fixed pool.
    shapes = ["[[%d, %d], [%d]]" % (rnd.randint(1, 4096), rnd.randint(1, 4096), rnd.randint(1, 64))
              for _ in range(300)]
    ts = 1000000.0
    corr = 1
    step = 1
    first = True
    block = []
    while written < target:
        step_start = ts
        events = []
        n_ops = 400
        for _ in range(n_ops):
            name = rnd.choice(ops)
            dur = rnd.randint(5000, 40000) / 1000.0
            events.append('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 4242, "tid": 4243, '
                          '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Record function id": 0, '
                          '"Ev Idx": %d, "Input Dims": %s, "Input type": ["c10::BFloat16", ""]}}'
                          % (name, ts, dur, corr, corr, rnd.choice(shapes)))
            lts = ts + 1.5
            events.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, '
                          '"tid": 4243, "ts": %.3f, "dur": 3.125, "args": {"External id": %d, "cbid": 211, '
                          '"correlation": %d}}' % (lts, corr, corr))
            stream = 7 if rnd.random() < 0.8 else 20
            kts = lts + rnd.randint(2000, 30000) / 1000.0
            kname = rnd.choice(kernels)
            events.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %.3f, '
                          '"dur": %.3f, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, '
                          '"stream": %d, "correlation": %d, "registers per thread": 128, "shared memory": 0, '
                          '"blocks per SM": 1.5, "warps per SM": 6.0, "grid": [132, 1, 1], "block": [384, 1, 1], '
                          '"est. achieved occupancy %%": 19}}'
                          % (kname, stream, kts, rnd.randint(2000, 90000) / 1000.0, corr, stream, corr))
            events.append('{"ph": "s", "id": %d, "pid": 4242, "tid": 4243, "ts": %.3f, "cat": "ac2g", '
                          '"name": "ac2g"}' % (corr, lts))
            events.append('{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %.3f, "cat": "ac2g", '
                          '"name": "ac2g", "bp": "e"}' % (corr, stream, kts))
            if rnd.random() < 0.1:
                events.append('{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", '
                              '"pid": 4242, "tid": 4243, "ts": %.3f, "args": {"Total Reserved": 2097152, '
                              '"Total Allocated": %d, "Bytes": 512, "Addr": %d, "Device Type": 1, '
                              '"Device Id": 0}}' % (ts + 0.5, rnd.randint(1, 1 << 30), rnd.randint(1, 1 << 40)))
            corr += 1
            ts += dur + rnd.randint(100, 2000) / 1000.0
        events.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 4242, '
                      '"tid": 4243, "ts": %.3f, "dur": %.3f, "args": {"External id": %d}}'
                      % (step, step_start, ts - step_start, corr))
        corr += 1
        step += 1
        text = (",\n" if not first else "") + ",\n".join(events)
        first = False
        block.append(text)
        written += len(text)
        if len(block) >= 16:
            f.write("".join(block))
            block = []
    f.write("".join(block))
    f.write('\n  ],\n  "traceName": "synthetic"\n}\n')
    f.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
