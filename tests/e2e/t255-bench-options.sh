#!/usr/bin/env bash
# t255-bench-options: `latscope bench` on the shared option parser (src/cli-opts.c) with option
# groups: every option --help lists is accepted, `--opt=value` and `--opt value` and options
# after the URL give the same run, a target's options belong to its target (--model is
# kserve's and openai's), and nothing is taken out of argv before parsing (an openai option
# after `--` is not one).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm

# --help: the common groups, then one group per target and multi-host, from the one table
expect_rc 0 "$LATSCOPE" bench --help
for h in "Target:" "Load (closed loop by default):" "Stopping rules and SLOs:" "Output:" \
    "KServe v2 / Triton" "OpenAI-compatible LLM servers" "Multi-host" "bench merge"; do
    contains "$TMPDIR/out" "$h"
done
opts=$(grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$TMPDIR/out" | sed -E 's/.*--/--/' | sort -u)
[[ $(wc -l <<<"$opts") -ge 50 ]] || fail "bench --help lists too few options: $opts"
for o in $opts; do
    [[ $o == --help ]] && continue
    set +e; "$LATSCOPE" bench "$o" >/dev/null 2>"$TMPDIR/e1" </dev/null; set -e
    if grep -q "unknown option" "$TMPDIR/e1"; then fail "bench --help lists $o but rejects it"; fi
done
# the same row names the same option with the target's own (openai) option
"$LATSCOPE" bench --target openai --help >"$TMPDIR/h2"
cmp -s "$TMPDIR/out" "$TMPDIR/h2" || fail "--help depends on --target"

# usage errors: exit 2, nothing on stdout, the option named
u=http://127.0.0.1:1/v1/completions
check() {
    local want=$1; shift
    expect_rc 2 "$LATSCOPE" bench "$@"
    [[ ! -s $TMPDIR/out ]] || fail "stdout not empty for $*"
    contains "$TMPDIR/err" "$want"
}
check "unknown option '--bogus'" --bogus "$u"
check "--api: an option of --target openai, not http" --api chat "$u"
check "--input: an option of --target kserve, not openai" --target openai --input x:1:FP32 "$u"
check "--batch: an option of --target kserve, not http" --batch 2 "$u"
check "expected http, kserve or openai" --target grpc "$u"
check "--model needs NAME" "$u" --target openai --model
check "-t needs N" -t
check "--threads needs N" --threads
# after --, "--api=chat" is an operand: a second endpoint URL, refused as one
check "--api=chat: URL must start with http:// or https://" --target openai "$u" -- --api=chat
check "--output-tokens 0" --target=openai --output-tokens=0 "$u"
check "--start-at soon" --start-at=soon "$u"
check "ambiguous option '--inp'" --target openai --inp 16 "$u"

# --opt=value, --opt value, options after the URL, a unique prefix: the same requests
start_fixture --prefill 1ms --token-interval 1ms
url=http://127.0.0.1:$FX_PORT/v1/completions
run() { expect_rc 0 "$LATSCOPE" bench -n 6 -c 2 -t 1 --format json "$@"; }
run --target openai --model m1 --input-tokens 16 --output-tokens 4 --seed 7 "$url"
cp "$TMPDIR/out" "$TMPDIR/a.json"
run --target=openai --model=m1 --input-tokens=16 --output-tokens=4 --seed=7 "$url"
cp "$TMPDIR/out" "$TMPDIR/b.json"
run "$url" --output-tok 4 --input-t 16 --target openai --seed 7 --model m1
cp "$TMPDIR/out" "$TMPDIR/c.json"
python3 - "$TMPDIR/a.json" "$TMPDIR/b.json" "$TMPDIR/c.json" <<'PY' || fail "runs differ"
import json, sys
ds = [json.load(open(p)) for p in sys.argv[1:]]
for d in ds:
    assert d["target"] == "openai", d["target"]
    assert "model m1 input 16+-0 output 4+-0" in d["workload"], d["workload"]
    assert d["points"][0]["requests"] == 6 and d["points"][0]["concurrency"] == 2
    assert "ttft_ms" in d["points"][0] and "output_tokens" in d["points"][0]
assert len({d["workload"] for d in ds}) == 1, [d["workload"] for d in ds]
PY
# the kserve --model and the openai --model are two options of one name
expect_rc 2 "$LATSCOPE" bench --target kserve --model nope -n 1 "http://127.0.0.1:$FX_PORT/"
contains "$TMPDIR/err" "kserve: GET /v2/models/nope"
exit 0
