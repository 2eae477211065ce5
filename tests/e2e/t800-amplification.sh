#!/usr/bin/env bash
# t800-amplification: inputs that are tiny on disk but asked the readers for gigabytes (issue 32
# item 2). A 13-byte folded line "a;b 19999999" and a speedscope sample of weight 19999999 now
# load as exactly that many samples in one event (weights are kept, never expanded:
# src/ingest/stacks.h), for analyze (the CPU section's sample count and top function), doctor
# and convert to folded; 20000 lines of such weights (4e11 samples) load too; a count over 2^53
# (the most samples a file may sum to) is refused (exit 2) naming the file, the line and the
# count. A 1 MB .xplane.pb of 2-byte empty XEvents (no metadata, no duration) and a gzip of 8 M
# of them keep only the one named event and count the rest as empty_event drops.
# Every analyze/doctor run's peak RSS (/usr/bin/time -f %M, else python's
# getrusage(RUSAGE_CHILDREN)) must be <= 20 x the input's size on disk + 64 MB. No times are
# asserted. The bound is for the release build: the sanitizer pass (LATSCOPE_SAN=1) checks every
# exit code and message and prints the RSS without bounding it.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (it writes the inputs)"

# rss EXPECTED_RC FILE CMD...: runs CMD (stdout in $TMPDIR/out, stderr in $TMPDIR/err), fails
# unless it exits EXPECTED_RC (a list "1|3" allowed) and its peak RSS <= 20 x FILE's size + 64 MB.
rss() {
    local want=$1 file=$2 kb rc size limit
    shift 2
    set +e
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -f %M -o "$TMPDIR/rss" "$@" >"$TMPDIR/out" 2>"$TMPDIR/err"
        rc=$?
        kb=$(tail -1 "$TMPDIR/rss")
    else
        python3 -c 'import resource,subprocess,sys
r=subprocess.call(sys.argv[2:],stdout=open(sys.argv[1]+"/out","w"),stderr=open(sys.argv[1]+"/err","w"))
open(sys.argv[1]+"/rss","w").write("%d\n"%resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r)' "$TMPDIR" "$@"
        rc=$?
        kb=$(cat "$TMPDIR/rss")
    fi
    set -e
    [[ "|$want|" == *"|$rc|"* ]] || { cat "$TMPDIR/out" "$TMPDIR/err" >&2; fail "'$*' exited $rc, want $want"; }
    [[ $kb =~ ^[0-9]+$ ]] || fail "no peak RSS measured for '$*' ($kb)"
    size=$(stat -c %s "$file")
    limit=$((20 * size / 1024 + 64 * 1024))
    echo "$(basename "$file") ($size bytes): $(basename "$1") ${2:-} rc=$rc peak RSS ${kb} KB (limit $limit KB)"
    [[ ${LATSCOPE_SAN:-0} == 1 ]] && return 0
    ((kb <= limit)) || fail "'$*' took ${kb} KB of RSS, over 20 x $size bytes + 64 MB"
}

# -- folded: one line of 19999999 samples; 20000 such lines; one over 2^53 --
printf 'a;b 19999999\n' >"$TMPDIR/bomb.folded"
rss 0 "$TMPDIR/bomb.folded" "$LATSCOPE" analyze --format json "$TMPDIR/bomb.folded"
cp "$TMPDIR/out" "$TMPDIR/bomb.json"
check_py "$TMPDIR/bomb.json" 'c = d["ranks"][0]["cpu"]
assert c["samples"] == 19999999, c
f = c["top_functions_self"][0]
assert f["function"] == "b" and f["self"] == 19999999, f'
rss "0|1|3" "$TMPDIR/bomb.folded" "$LATSCOPE" doctor "$TMPDIR/bomb.folded"
contains "$TMPDIR/out" "on-CPU samples (19999999 of 19999999)"
expect_rc 0 "$LATSCOPE" convert "$TMPDIR/bomb.folded" -o "$TMPDIR/back.folded"
[[ $(cat "$TMPDIR/back.folded") == "a;b 19999999" ]] || fail "convert to folded: $(head -c 200 "$TMPDIR/back.folded")"
python3 -c 'import sys
open(sys.argv[1], "w").write("".join("a;f%d 19999999\n" % i for i in range(20000)))' "$TMPDIR/many.folded"
rss 0 "$TMPDIR/many.folded" "$LATSCOPE" analyze --format json "$TMPDIR/many.folded"
cp "$TMPDIR/out" "$TMPDIR/many.json"
check_py "$TMPDIR/many.json" 'assert d["ranks"][0]["cpu"]["samples"] == 20000 * 19999999, d["ranks"][0]["cpu"]["samples"]'
printf 'a;b 9007199254740993\n' >"$TMPDIR/over.folded"
for c in analyze doctor; do
    rss 2 "$TMPDIR/over.folded" "$LATSCOPE" "$c" "$TMPDIR/over.folded"
    for s in over.folded "line 1" "count 9007199254740993" "2^53"; do contains "$TMPDIR/err" "$s"; done
done

# -- speedscope: one sample of weight 19999999 (unit "none": a sample count) --
cat >"$TMPDIR/bomb.speedscope.json" <<'EOF'
{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[{"type":"sampled","name":"t","unit":"none","startValue":0,"endValue":1,"samples":[[0]],"weights":[19999999]}],"shared":{"frames":[{"name":"f","file":"/a/m.py","line":1}]}}
EOF
rss 0 "$TMPDIR/bomb.speedscope.json" "$LATSCOPE" analyze --format json "$TMPDIR/bomb.speedscope.json"
cp "$TMPDIR/out" "$TMPDIR/ss.json"
check_py "$TMPDIR/ss.json" 'assert d["ranks"][0]["cpu"]["samples"] == 19999999, d["ranks"][0]["cpu"]'
rss "0|1|3" "$TMPDIR/bomb.speedscope.json" "$LATSCOPE" doctor "$TMPDIR/bomb.speedscope.json"

# -- xplane: one named 5 us event, then N empty XEvents (bytes 22 00), varints encoded by hand --
python3 - "$TMPDIR" <<'EOF'
import gzip, sys
d = sys.argv[1]
def varint(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)
def field(num, wt, payload):  # wt 0: payload is an int; wt 2: bytes
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def space(n_empty):
    ev = field(1, 0, 1) + field(2, 0, 0) + field(3, 0, 5_000_000)  # metadata 1, 0 ps, 5 us
    line = field(1, 0, 100) + field(2, 2, b"python") + field(3, 0, 1000) + field(4, 2, ev)
    line += b"\x22\x00" * n_empty  # XLine.events (field 4), empty XEvent
    meta = field(1, 0, 1) + field(2, 2, b"op")  # XEventMetadata id 1, name "op"
    entry = field(1, 0, 1) + field(2, 2, meta)  # map<int64, XEventMetadata> entry
    plane = field(1, 0, 7) + field(2, 2, b"/host:CPU") + field(3, 2, line) + field(4, 2, entry)
    return field(1, 2, plane)  # XSpace.planes
open(d + "/empty.xplane.pb", "wb").write(space(500_000))
open(d + "/bomb.xplane.pb.gz", "wb").write(gzip.compress(space(8_000_000), 9))
EOF
for f in empty.xplane.pb:500000 bomb.xplane.pb.gz:8000000; do
    n=${f#*:} f=$TMPDIR/${f%%:*}
    rss 0 "$f" "$LATSCOPE" analyze --format json "$f"
    cp "$TMPDIR/out" "$TMPDIR/xp.json"
    check_py "$TMPDIR/xp.json" "r = d['ranks'][0]; dr = r['dropped']
assert dr['by_reason'].get('empty_event') == $n and dr['total'] == $n, dr"
    rss "0|1|3" "$f" "$LATSCOPE" doctor "$f"
done
echo "t800: ok"
