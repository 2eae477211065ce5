#!/usr/bin/env bash
# t200-serve-test-endpoints: the fixture server's generic and KServe v2 endpoints, its port line
# and its clean shutdown on SIGTERM.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$TMPDIR

start_fixture --model simple --model resnet:FP16:3x4 --body-size 40
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/health") == 200 ]] || fail "health"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/v2/health/ready") == 200 ]] || fail "ready"

# generic: 40 bytes, Server-Timing, keep-alive
curl -s -D "$T/h" -o "$T/b" "$FX_URL/any/path?x=1"
[[ $(wc -c <"$T/b") -eq 40 ]] || fail "generic body $(wc -c <"$T/b") bytes, want 40"
contains "$T/h" "HTTP/1.1 200 OK"
contains "$T/h" "Server-Timing: queue;dur="
contains "$T/h" "Connection: keep-alive"

# echo and status
[[ $(curl -s -d 'hello fixture' "$FX_URL/echo") == "hello fixture" ]] || fail "echo"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/status/418") == 418 ]] || fail "status 418"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/status/99") == 400 ]] || fail "status 99"

# KServe metadata
curl -s "$FX_URL/v2" >"$T/v2"
contains "$T/v2" '"name":"latscope-fixture"'
curl -s "$FX_URL/v2/models/resnet" >"$T/meta"
"$LATSCOPE" selftest lint-json "$T/meta" >/dev/null || fail "metadata is not valid JSON"
contains "$T/meta" '"name":"resnet"'
contains "$T/meta" '"datatype":"FP16","shape":[-1,3,4]'
contains "$T/meta" '"outputs":[{"name":"OUTPUT0"'
curl -s "$FX_URL/v2/models/simple/versions/1" >"$T/meta1"
contains "$T/meta1" '"shape":[-1,16]'
[[ $(curl -s -o "$T/e" -w '%{http_code}' "$FX_URL/v2/models/nope") == 404 ]] || fail "unknown model"
contains "$T/e" "model 'nope' is not served here"

# KServe inference: valid (echoed), invalid (400 naming the problem), wrong method (405)
body='{"id":"r1","inputs":[{"name":"INPUT0","shape":[2,3],"datatype":"FP16","data":[[1,2,3],[4,5,6.5]]}]}'
code=$(curl -s -o "$T/inf" -w '%{http_code}' -H 'Content-Type: application/json' -d "$body" \
    "$FX_URL/v2/models/resnet/infer")
[[ $code == 200 ]] || fail "infer $code: $(cat "$T/inf")"
"$LATSCOPE" selftest lint-json "$T/inf" >/dev/null || fail "infer response is not valid JSON"
contains "$T/inf" '"model_name":"resnet"'
contains "$T/inf" '"id":"r1"'
contains "$T/inf" '"outputs":[{"name":"OUTPUT0","datatype":"FP16","shape":[2,3],"data":[[1,2,3],[4,5,6.5]]}]'
bad='{"inputs":[{"name":"INPUT0","shape":[2,3],"datatype":"FP16","data":[1,2]}]}'
[[ $(curl -s -o "$T/bad" -w '%{http_code}' -d "$bad" "$FX_URL/v2/models/resnet/infer") == 400 ]] ||
    fail "invalid infer not 400"
contains "$T/bad" "input data has 2 elements but its shape needs 6"
[[ $(curl -s -o "$T/bad2" -w '%{http_code}' -d '{"inputs":' "$FX_URL/v2/models/resnet/infer") == 400 ]] ||
    fail "broken JSON not 400"
contains "$T/bad2" "not valid JSON"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/v2/models/resnet/infer") == 405 ]] || fail "GET infer"

# Triton statistics: one success for resnet, none for simple; all models listed
curl -s "$FX_URL/v2/models/resnet/stats" >"$T/st"
"$LATSCOPE" selftest lint-json "$T/st" >/dev/null || fail "stats is not valid JSON"
contains "$T/st" '"success":{"count":1,'
contains "$T/st" '"inference_count":2' # batch = first dimension
contains "$T/st" '"batch_stats":[{"batch_size":1'
curl -s "$FX_URL/v2/models/stats" >"$T/all"
contains "$T/all" '"name":"simple"'
contains "$T/all" '"name":"resnet"'

# counters (served = generic, echo, status 418, infer), then a clean SIGTERM shutdown that prints them
curl -s "$FX_URL/fixture/stats" >"$T/fx"
"$LATSCOPE" selftest lint-json "$T/fx" >/dev/null || fail "fixture stats not valid JSON"
[[ $(jnum "$T/fx" served) -eq 4 ]] || fail "served: $(cat "$T/fx")"
[[ $(jnum "$T/fx" status_4xx) -ge 5 ]] || fail "4xx: $(cat "$T/fx")"
stop_fixture
[[ $FX_RC -eq 0 ]] || fail "serve-test exited $FX_RC on SIGTERM"
[[ $(jnum - requests <<<"$FX_FINAL") -eq 17 ]] || fail "final counters: $FX_FINAL"
echo "$FX_FINAL" | "$LATSCOPE" selftest lint-json - >/dev/null || fail "final line not JSON"
exit 0
