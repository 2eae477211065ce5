#!/usr/bin/env bash
# t362-doctor-cpu-handmade: doctor explains a host-side finding with the CPU samples of the
# launching thread inside the GPU idle gaps (tests/data/handmade-doctor-cpu.json: per step,
# host-late idle [0, 6.02 ms) + [9.5, 10 ms) = 6.52 ms; thread 100 has 7 samples in it, 5 under
# py:dumps -> encode, and 0.6 ms off-CPU: 5/7 x (1 - 0.6/6.52) = 65 %). Thread 101's samples
# (spin) and thread 100's samples under the kernel (py:wait) are not in the evidence. A trace
# without samples keeps its finding text unchanged.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
expect_rc 1 "$LATSCOPE" doctor "$data/handmade-doctor-cpu.json"
tr '\n' ' ' <"$TMPDIR/out" | tr -s ' ' >"$TMPDIR/flat"
contains "$TMPDIR/flat" "during 65 % of GPU idle time the launching thread (tid 100) was in py:dumps (json/__init__.py) (hottest: encode, 65 %); off-CPU 9 %"
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-doctor-cpu.json"
python3 - "$TMPDIR/out" <<'PY' || fail "doctor JSON CPU evidence"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
assert f["id"] == "cpu-pre-post-processing", f["id"]
e = f["evidence"]
assert e["cpu_thread_tid"] == 100 and e["cpu_samples_in_gaps"] == 28, e
assert e["cpu_main_function"] == "py:dumps (json/__init__.py)", e
assert abs(e["cpu_off_cpu_share_of_gaps"] - 0.6 / 6.52) < 1e-4, e
rows = e["cpu_functions_in_gaps"]
assert rows[0]["function"] == "encode" and rows[0]["self_samples"] == 20, rows
assert abs(rows[0]["self_share_of_idle"] - 20 / 28 * (1 - 0.6 / 6.52)) < 1e-4, rows
names = {r["function"] for r in rows}
assert "spin" not in names and "cudaStreamSynchronize" not in names, names
assert all(r["self_samples"] > 0 for r in rows), rows
assert "during 65 %" in f["title"], f["title"]
PY
# Negative: the hand-made traces without samples get no CPU evidence, titles unchanged.
for t in launch dataloader; do
    set +e
    "$LATSCOPE" doctor --format json "$data/handmade-doctor-$t.json" >"$TMPDIR/n.json"
    set -e
    python3 -c 'import json,sys; d=json.load(sys.stdin); bad=[f["id"] for f in d["findings"] if any(k in f["evidence"] for k in ("cpu_samples_in_gaps", "cpu_functions_in_gaps", "cpu_main_function")) or "launching thread" in f["title"]]; assert not bad, bad' \
        <"$TMPDIR/n.json" || fail "CPU evidence without samples in $t"
done
