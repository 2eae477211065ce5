#!/usr/bin/env bash
# t004-version-features: `latscope version` lists the compiled features and their libraries
# (text and --format json, the same facts), the compiled flags are the build's probes (build/flags),
# the versions agree with what Python's bindings of the same system libraries report, and every
# JSON result (analyze, doctor, diff, bench, bench merge) carries the same "latscope" object.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
D=$LATSCOPE_SRCDIR/tests/data
feats="zlib openssl isa-l libdeflate sqlite libdw mpi cuda-capture nghttp2"

expect_rc 0 "$LATSCOPE" version
cp "$TMPDIR/out" "$TMPDIR/text"
head -1 "$TMPDIR/text" | grep -qE '^latscope [^ ]+$' || fail "first line: $(head -1 "$TMPDIR/text")"
contains "$TMPDIR/text" "features:"
expect_rc 0 "$LATSCOPE" version --format json
cp "$TMPDIR/out" "$TMPDIR/v.json"
check_py "$TMPDIR/v.json" "
b = d['latscope']
assert list(d) == ['latscope'], list(d)
assert b['version'], b
assert list(b['features']) == '$feats'.split(), list(b['features'])
for k, f in b['features'].items():
    assert isinstance(f['compiled'], bool) and f['library'], (k, f)
    assert f['version'] is None or f['version'], (k, f)
    assert f['compiled'] or f['version'] is None, ('a version for a feature not compiled', k, f)
assert b['features']['zlib']['compiled'] and b['features']['openssl']['compiled']
"
# text and JSON say the same: "NAME yes|no LIBRARY [VERSION]"
python3 - "$TMPDIR/v.json" "$TMPDIR/text" <<'EOF' || fail "text and JSON disagree"
import json, sys
b = json.load(open(sys.argv[1]))['latscope']
lines = open(sys.argv[2]).read().splitlines()
assert lines[0] == 'latscope ' + b['version'], lines[0]
rows = {l.split()[0]: l for l in lines[2:]}
for k, f in b['features'].items():
    r = rows[k].split(None, 2)
    assert r[1] == ('yes' if f['compiled'] else 'no'), (k, r)
    lib = f['library'] + (' ' + f['version'] if f['version'] else '')
    assert r[2].startswith(lib), (k, r, lib)
EOF

# compiled = the build's probes (the flags file next to the binary, when this is a tree build)
flags=$(dirname "$LATSCOPE")/flags
if [[ -f $flags ]]; then
    for p in "isa-l ISAL" "libdeflate LIBDEFLATE" "sqlite SQLITE3" "libdw LIBDW" "mpi MPI" \
        "cuda-capture CUPTI" "nghttp2 NGHTTP2"; do
        set -- $p
        want=$(grep -oE -- "-DLAT_HAVE_$2=[01]" "$flags" | head -1 | cut -d= -f2)
        [[ -n $want ]] || fail "no LAT_HAVE_$2 in $flags"
        check_py "$TMPDIR/v.json" "assert d['latscope']['features']['$1']['compiled'] == bool($want)"
    done
fi

# versions the libraries report, as Python's bindings of the same libraries see them
python3 - "$TMPDIR/v.json" <<'EOF' || fail "a library version differs from Python's view of it"
import json, sys
f = json.load(open(sys.argv[1]))['latscope']['features']
import zlib
assert f['zlib']['version'] == zlib.ZLIB_RUNTIME_VERSION, (f['zlib'], zlib.ZLIB_RUNTIME_VERSION)
try:
    import ssl
    assert f['openssl']['version'] == ssl.OPENSSL_VERSION.split()[1], (f['openssl'], ssl.OPENSSL_VERSION)
except ImportError:
    pass
if f['sqlite']['compiled']:
    try:
        import sqlite3
        assert f['sqlite']['version'] == sqlite3.sqlite_version, (f['sqlite'], sqlite3.sqlite_version)
    except ImportError:
        pass
EOF

expect_rc 2 "$LATSCOPE" version --format csv
contains "$TMPDIR/err" "--format wants text or json"
expect_rc 2 "$LATSCOPE" version extra

# every JSON result carries the same object
same() { # FILE WHAT
    python3 - "$TMPDIR/v.json" "$1" "$2" <<'EOF' || fail "$2: its \"latscope\" object differs from latscope version's"
import json, sys
want = json.load(open(sys.argv[1]))['latscope']
got = json.load(open(sys.argv[2]))
assert got.get('latscope') == want, (sys.argv[3], got.get('latscope'), want)
EOF
}
expect_rc 0 "$LATSCOPE" analyze --format json "$D/handmade-analyze-basic.json"
cp "$TMPDIR/out" "$TMPDIR/a.json" && same "$TMPDIR/a.json" analyze
set +e
"$LATSCOPE" doctor --format json "$D/handmade-doctor-launch.json" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
set -e
same "$TMPDIR/d.json" doctor
set +e
"$LATSCOPE" diff --format json "$D/handmade-kineto-2021.json" "$D/handmade-kineto-current.json" \
    >"$TMPDIR/df.json" 2>"$TMPDIR/err"
set -e
same "$TMPDIR/df.json" "diff (traces)"
start_fixture --service fixed:1ms
expect_rc 0 "$LATSCOPE" bench -c 1 -n 20 --format json "$FIXTURE_URL/"
cp "$TMPDIR/out" "$TMPDIR/b.json" && same "$TMPDIR/b.json" bench
check_py "$TMPDIR/b.json" "assert list(d)[0] == 'target', list(d)[:2]" # the bench contract
expect_rc 0 "$LATSCOPE" bench merge --format json "$TMPDIR/b.json"
cp "$TMPDIR/out" "$TMPDIR/m.json" && same "$TMPDIR/m.json" "bench merge"
echo "ok"
