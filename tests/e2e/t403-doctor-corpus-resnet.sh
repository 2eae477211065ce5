#!/usr/bin/env bash
# t403-doctor-corpus-resnet: the ResNet-50 num_workers=0 run is data-loading bound. tb_plugin's
# own result (kineto/tb_plugin/test/result_check_file.txt): DataLoader 33.37 % of the 177 592 µs
# average step. doctor must rank data loading first with that evidence.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
t=$(need_trace kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz)

expect_rc 1 "$LATSCOPE" doctor --format json "$t"
python3 - "$TMPDIR/out" <<'PY' || fail "resnet50 ranking"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
assert f["id"] == "dataloader", [x["id"] for x in d["findings"]]
assert abs(f["saving_pct"] - 33.37) < 0.01, f["saving_pct"]
assert f["evidence"]["single_process_loader"] is True
assert abs(f["evidence"]["mean_step_us"] - 177592) < 1, f["evidence"]["mean_step_us"]
assert len(f["evidence"]["examples"]) >= 1 and f["evidence"]["examples"][0]["step"] is not None
assert d["traces"][0]["steps"] == 6
PY
expect_rc 1 "$LATSCOPE" doctor "$t"
contains "$TMPDIR/out" "#1 HIGH   dataloader"
contains "$TMPDIR/out" "num_workers=0"

# The second span of the same run: still data-loading bound, ranked first.
t2=$(need_trace kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz)
expect_rc 1 "$LATSCOPE" doctor --format json "$t2"
python3 -c 'import json,sys; f=json.load(sys.stdin)["findings"]; assert f[0]["id"]=="dataloader", [x["id"] for x in f]' <"$TMPDIR/out" \
    || fail "second span"
exit 0
