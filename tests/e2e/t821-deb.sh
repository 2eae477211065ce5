#!/usr/bin/env bash
# timeout: 900
# t821-deb: `dpkg-buildpackage -us -uc -b` with the project's own debian/ builds a .deb (in a
# copy of the tree: the working tree's build/ is not touched) that holds the binary, the capture
# library in /usr/lib/latscope, man pages and bash/zsh completion; the packaged latscope runs and
# finds its library, and /usr/lib/latscope is the directory compiled into it.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
src=$LATSCOPE_SRCDIR
# The package is built from the sources, not from $LATSCOPE: checked once, in the release suite.
[[ $(realpath "$LATSCOPE") == $(realpath "$src/build/latscope") ]] ||
    skip "checked with the release build's suite (LATSCOPE is not $src/build/latscope)"
command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (LATSCOPE_DEPS_DEB=1 scripts/deps.sh)"
command -v dh >/dev/null || skip "no debhelper (LATSCOPE_DEPS_DEB=1 scripts/deps.sh)"
command -v git >/dev/null || skip "no git (to list the tree's files)"
unset MAKEFLAGS MFLAGS MAKELEVEL

# The tree as git sees it (tracked and new files, no build outputs, no .git).
mkdir -p "$TMPDIR/pkg/latscope"
(cd "$src" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
    [[ -e $f ]] && printf '%s\0' "$f"
done) | tar -C "$src" --null -T - -cf - | tar -C "$TMPDIR/pkg/latscope" -xf - ||
    fail "copying the tree failed"
cd "$TMPDIR/pkg/latscope"
[[ -x debian/rules ]] || fail "no debian/rules"
dpkg-checkbuilddeps >"$TMPDIR/deps.out" 2>&1 || skip "build dependencies missing: $(tail -1 "$TMPDIR/deps.out")"
DEB_BUILD_OPTIONS="nocheck parallel=${LATSCOPE_DEB_JOBS:-2}" \
    dpkg-buildpackage -us -uc -b >"$TMPDIR/build.log" 2>&1 ||
    { tail -40 "$TMPDIR/build.log" >&2; fail "dpkg-buildpackage failed"; }
deb=$(ls "$TMPDIR"/pkg/latscope_*.deb 2>/dev/null | grep -v dbgsym | head -1)
[[ -n $deb ]] || fail "no .deb in $TMPDIR/pkg: $(ls "$TMPDIR/pkg")"

dpkg-deb -c "$deb" | awk '{print $NF}' >"$TMPDIR/files"
for f in ./usr/bin/latscope ./usr/share/man/man1/latscope.1.gz ./usr/share/man/man1/latscope-bench.1.gz \
    ./usr/share/man/man1/latscope-analyze.1.gz ./usr/share/man/man1/latscope-trace.1.gz \
    ./usr/share/bash-completion/completions/latscope ./usr/share/zsh/vendor-completions/_latscope; do
    grep -qx -- "$f" "$TMPDIR/files" || { cat "$TMPDIR/files" >&2; fail "the .deb lacks $f"; }
done
cupti=0
[[ -f ${CUDA_HOME:-/usr/local/cuda}/include/cupti.h ]] && cupti=1
if [[ $cupti == 1 ]]; then
    grep -qx -- ./usr/lib/latscope/liblatscope-cupti.so "$TMPDIR/files" ||
        { cat "$TMPDIR/files" >&2; fail "the .deb lacks /usr/lib/latscope/liblatscope-cupti.so"; }
fi
dpkg-deb -f "$deb" Depends >"$TMPDIR/depends"
contains "$TMPDIR/depends" "libc6"

# The packaged files work where they lie.
dpkg-deb -x "$deb" "$TMPDIR/root"
bin=$TMPDIR/root/usr/bin/latscope
expect_rc 0 "$bin" version
# the package's version (debian/changelog), not "unknown": the copied tree has no .git
ver=$(dpkg-deb -f "$deb" Version)
contains "$TMPDIR/out" "latscope $ver"
expect_rc 0 "$bin" analyze --format json "$src/tests/data/handmade-analyze-basic.json"
contains "$TMPDIR/out" '"tool":"latscope analyze"'
zcat "$TMPDIR/root/usr/share/man/man1/latscope-analyze.1.gz" | grep -qF '\-\-threads' ||
    fail "latscope-analyze.1 lacks --threads"
if [[ $cupti == 1 ]]; then
    expect_rc 0 "$bin" -v trace --nvtx -o "$TMPDIR/t.json" -- true
    contains "$TMPDIR/err" "capture library: $TMPDIR/root/usr/lib/latscope/liblatscope-cupti.so"
fi
# Copied elsewhere, it looks in /usr/lib/latscope last: the package's directory.
mkdir -p "$TMPDIR/copy"
cp "$bin" "$TMPDIR/copy/latscope"
expect_rc 0 "$TMPDIR/copy/latscope" -v trace --nvtx -o "$TMPDIR/t2.json" -- true
if [[ -f /usr/lib/latscope/liblatscope-cupti.so ]]; then
    contains "$TMPDIR/err" "capture library: /usr/lib/latscope/liblatscope-cupti.so"
else
    contains "$TMPDIR/err" ", /usr/lib/latscope/liblatscope-cupti.so)"
fi
exit 0
