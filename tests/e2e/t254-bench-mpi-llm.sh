#!/usr/bin/env bash
# t254-bench-mpi-llm: `mpirun -n 2 latscope bench --mpi --target openai` against the OpenAI
# fixture: the ranks split the streams and send requests K, K+2, ... of the one seeded
# workload, so the reduced result has exactly the single run's requests and output tokens; the
# LLM summary comes from the reduced LLM histograms (every request's TTFT counted), and an SLO
# on an LLM metric is judged on it. Skips without mpirun or an MPI build.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
grep -q "built without MPI" "$TMPDIR/probe" && skip "this latscope was built without MPI"
start_fixture --prefill 5ms --token-interval 1ms --max-seqs 8
URL="http://127.0.0.1:$FX_PORT/v1/completions"
MPIRUN=(mpirun --oversubscribe -n 2)
[[ $(id -u) -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
args=(--target openai --output-tokens 12:5 --input-tokens 20:8 --seed 9 -t 1 --max-send-lag 50
    --format json -c 4 -n 40 --slo 'ttft.p99<=5s')
set +e
"$LATSCOPE" bench "${args[@]}" "$URL" >"$TMPDIR/single.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || fail "single: exit $rc: $(cat "$TMPDIR/err")"
set +e
"${MPIRUN[@]}" "$LATSCOPE" bench --mpi "${args[@]}" "$URL" >"$TMPDIR/mpi.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || fail "mpirun: exit $rc: $(cat "$TMPDIR/err")"
python3 - "$TMPDIR" <<'PY' || fail "MPI LLM reduction"
import json, sys
T = sys.argv[1]
s = json.load(open(T + "/single.json"))["points"][0]
d = json.load(open(T + "/mpi.json"))
m = d["points"][0]
assert d["distributed"]["method"] == "mpi" and len(m["shards"]) == 2
assert m["concurrency"] == 4 and [l["requests"] for l in m["shards"]] == [20, 20], m["shards"]
assert m["requests"] == s["requests"] == 40
assert s["llm_errors"]["total"] == 0 and m["llm_errors"]["total"] == 0, m["llm_errors"]
assert m["output_tokens"] == s["output_tokens"], (m["output_tokens"], s["output_tokens"])
assert m["ttft_ms"]["n"] == 40 and m["tpot_ms"]["n"] > 0, (m["ttft_ms"], m["tpot_ms"])
assert sum(m["tokens_source_counts"].values()) == 40, m["tokens_source_counts"]
t = m["slo"]["terms"][0]
assert t["term"].startswith("ttft.p99") and t["verdict"] == "pass", m["slo"]
assert abs(t["observed_ms"] - m["ttft_ms"]["p99"]) < 0.01, (t, m["ttft_ms"])
PY
set +e
"${MPIRUN[@]}" "$LATSCOPE" bench --mpi --target openai --records-detail "$TMPDIR/rd" -c 2 -n 2 \
    "$URL" >/dev/null 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -ne 0 ]] && grep -q "records-detail" "$TMPDIR/err" || fail "--records-detail: exit $rc"
exit 0
