#!/usr/bin/env bash
# t401-doctor-handmade: doctor on the hand-made traces in tests/data: ranking, JSON shape,
# markdown, text without colour, --fail-on exit codes, the clean-trace verdict.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

# Data-loading bound: exit 1 (a finding at or above the default --fail-on low), ranked first.
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-doctor-dataloader.json"
cp "$TMPDIR/out" "$TMPDIR/dl.json"
"$LATSCOPE" selftest lint-json "$TMPDIR/dl.json" >/dev/null || fail "doctor JSON does not lint"
python3 - "$TMPDIR/dl.json" <<'PY' || fail "JSON shape"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert f[0]["id"] == "dataloader", f[0]["id"]
assert abs(f[0]["saving_pct"] - 30.0) < 0.01, f[0]["saving_pct"]
for x in f:
    assert set(x) == {"id", "title", "severity", "saving_us_per_step", "saving_pct", "saving_bound", "evidence",
                      "recommendation", "next_step"}, sorted(x)
    assert x["severity"] in ("info", "low", "medium", "high")
    assert "saving_method" in x["evidence"] and "examples" in x["evidence"]
# ranked by saving among non-info findings
s = [x["saving_pct"] for x in f if x["severity"] != "info"]
assert s == sorted(s, reverse=True), s
ex = f[0]["evidence"]["examples"][0]
assert {"name", "ts_us", "offset_us", "dur_us", "step", "stream", "tid", "note"} <= set(ex)
assert d["verdict"] == "findings"
assert d["traces"][0]["steps"] == 5
PY

# --fail-on: high finding present -> 1; never -> 0.
expect_rc 1 "$LATSCOPE" doctor --fail-on high "$data/handmade-doctor-dataloader.json"
expect_rc 0 "$LATSCOPE" doctor --fail-on never "$data/handmade-doctor-dataloader.json"
contains "$TMPDIR/out" "#1 HIGH   dataloader"
contains "$TMPDIR/out" "num_workers"
if grep -q $'\033' "$TMPDIR/out"; then fail "colour escapes when stdout is not a TTY"; fi

# Markdown for issues/PRs.
expect_rc 1 "$LATSCOPE" doctor --format md "$data/handmade-doctor-sync.json"
contains "$TMPDIR/out" "### 1. \`sync-points\`"
contains "$TMPDIR/out" "aten::_local_scalar_dense"
contains "$TMPDIR/out" '```sh'

# Launch-bound eager trace: the recommendation is CUDA graphs / torch.compile.
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-doctor-launch.json"
python3 -c 'import json,sys; f=json.load(sys.stdin)["findings"]; assert f[0]["id"]=="launch-bound", f[0]["id"]; assert "CUDA graph" in f[0]["recommendation"]' <"$TMPDIR/out" \
    || fail "launch-bound not first"

# A GPU-bound trace: no significant finding, exit 0, the supporting numbers are printed.
expect_rc 0 "$LATSCOPE" doctor "$data/handmade-doctor-clean.json"
contains "$TMPDIR/out" "No significant finding"
contains "$TMPDIR/out" "6 steps"
contains "$TMPDIR/out" "GPU busy"
expect_rc 0 "$LATSCOPE" doctor --format json "$data/handmade-doctor-clean.json"
contains "$TMPDIR/out" '"verdict": "no significant finding"'
contains "$TMPDIR/out" '"gpu_busy_pct"'

# Several traces at once: findings of both, each naming its trace.
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-doctor-sync.json" "$data/handmade-doctor-dataloader.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["traces"])==2; ids={x["id"] for x in d["findings"]}; assert {"sync-points","dataloader"}<=ids, ids; assert all(x["evidence"]["trace"] for x in d["findings"])' <"$TMPDIR/out" \
    || fail "two traces"
exit 0
