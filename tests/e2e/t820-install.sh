#!/usr/bin/env bash
# exclusive: make install relinks build/latscope (its version stamp) while other scripts would run it
# t820-install: `make install DESTDIR=D PREFIX=/usr` from the already-built build/ (nothing is
# recompiled) gives a working latscope: it runs, analyzes a hand-made trace as the build does,
# finds liblatscope-cupti.so at its installed path (and a copy of it names every place it
# looked), its man pages render and list every option of each command's --help, and the bash
# completion completes commands and options. `make uninstall` removes every file again.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
src=$LATSCOPE_SRCDIR
[[ $(realpath "$LATSCOPE") == $(realpath "$src/build/latscope") ]] ||
    skip "installs the release build: LATSCOPE is not $src/build/latscope"
command -v make >/dev/null || skip "no make"
unset MAKEFLAGS MFLAGS MAKELEVEL
# The configuration build/ was built with (WERROR=1 from scripts/check.sh, or a plain make):
# with any other, make would rebuild everything, which this test must not do.
cfg=
for w in 1 0; do
    if make -s -C "$src" --no-print-directory WERROR=$w install-flags-check 2>/dev/null; then
        cfg="WERROR=$w"
        break
    fi
done
[[ -n $cfg ]] || skip "build/ was built with a configuration this test cannot repeat (CC/CFLAGS?)"

root=$TMPDIR/root
make -C "$src" --no-print-directory $cfg install DESTDIR="$root" PREFIX=/usr >"$TMPDIR/make.out" 2>&1 ||
    { cat "$TMPDIR/make.out" >&2; fail "make install failed"; }
# Only the version stamp may be recompiled (git describe changes with every commit).
if grep -E '^  CC ' "$TMPDIR/make.out" | grep -v 'version\.c' | grep -q .; then
    cat "$TMPDIR/make.out" >&2
    fail "make install recompiled the build"
fi

bin=$root/usr/bin/latscope
[[ -x $bin ]] || fail "no $bin"
expect_rc 0 "$bin" version
grep -qE '^latscope ' "$TMPDIR/out" || fail "installed version: $(cat "$TMPDIR/out")"
T=$src/tests/data/handmade-analyze-basic.json
expect_rc 0 "$bin" analyze --format json "$T"
cp "$TMPDIR/out" "$TMPDIR/installed.json"
"$LATSCOPE" analyze --format json "$T" >"$TMPDIR/build.json"
cmp -s "$TMPDIR/installed.json" "$TMPDIR/build.json" || fail "installed analyze differs from build/'s"
contains "$TMPDIR/installed.json" '"tool":"latscope analyze"'

# The capture library: found at its installed place (-v names it), or, in a build without the
# CUDA toolkit, a warning naming that place. No GPU needed: without a driver trace says so.
lib=$root/usr/lib/latscope/liblatscope-cupti.so
expect_rc 0 "$bin" -v trace --cuda -o "$TMPDIR/t.json" -- true
if [[ -f $src/build/liblatscope-cupti.so ]]; then
    [[ -f $lib ]] || fail "liblatscope-cupti.so not installed"
    contains "$TMPDIR/err" "capture library: $lib"
    if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then contains "$TMPDIR/err" "no NVIDIA driver"; fi
else
    contains "$TMPDIR/err" "liblatscope-cupti.so not found"
    contains "$TMPDIR/err" "$lib"
    contains "$TMPDIR/err" "built without"
fi
# A binary copied out of the tree: every place looked at is named, the compiled-in one last.
mkdir -p "$TMPDIR/copy/bin"
cp "$bin" "$TMPDIR/copy/bin/latscope"
cdir=$(cd "$TMPDIR/copy" && pwd -P)
pkglib=$(cat "$src/build/pkglibdir")
expect_rc 0 "$TMPDIR/copy/bin/latscope" -v trace --nvtx -o "$TMPDIR/t2.json" -- true
if [[ -f $pkglib/liblatscope-cupti.so && -f $src/build/liblatscope-cupti.so ]]; then
    contains "$TMPDIR/err" "capture library: $pkglib/liblatscope-cupti.so"
else
    contains "$TMPDIR/err" "liblatscope-cupti.so not found (looked for $cdir/bin/liblatscope-cupti.so, $cdir/lib/latscope/liblatscope-cupti.so, $pkglib/liblatscope-cupti.so)"
fi

# Man pages: one per command; each renders and lists every option its --help lists.
man1=$root/usr/share/man/man1
[[ -f $man1/latscope.1 ]] || fail "no latscope.1"
render() {
    if command -v man >/dev/null; then
        MANWIDTH=200 man -l "$1" 2>"$TMPDIR/man.err"
    else
        groff -man -Tutf8 -P-cbou -rLL=200n "$1" 2>"$TMPDIR/man.err"
    fi
}
renderer=
command -v groff >/dev/null && renderer=groff
cmds=$("$bin" help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/:$/ {print $1}' | grep -vx help)
[[ $(wc -w <<<"$cmds") -ge 8 ]] || fail "too few commands in latscope help: $cmds"
for c in $cmds "bench merge" "serve-test" "serve-test openai"; do
    page=$man1/latscope-${c// /-}.1
    [[ -f $page ]] || fail "no man page for $c ($page)"
    # shellcheck disable=SC2086
    "$bin" $c --help >"$TMPDIR/help"
    opts=$(grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$TMPDIR/help" | sed -E 's/.*--/--/' | sort -u || true)
    # the roff source has each as \-\-name
    for o in $opts; do
        grep -qF -- "${o//-/\\-}" "$page" || fail "$page lacks $o (of latscope $c --help)"
    done
    if [[ -n $renderer ]]; then
        groff -man -Tutf8 -ww -z "$page" 2>"$TMPDIR/groff.err"
        [[ ! -s $TMPDIR/groff.err ]] || { cat "$TMPDIR/groff.err" >&2; fail "groff warns on $page"; }
        render "$page" | sed 's/\xe2\x88\x92/-/g; s/\xe2\x80\x90/-/g' >"$TMPDIR/page.txt"
        grep -q "^NAME" "$TMPDIR/page.txt" || fail "$page does not render"
        for o in $opts; do
            grep -qF -- "$o" "$TMPDIR/page.txt" || fail "rendered $page lacks $o"
        done
    fi
done
for c in $cmds; do
    grep -qF "latscope\\-$c\\fR(1)" "$man1/latscope.1" || fail "latscope.1 does not name latscope-$c(1)"
done

# bash completion: a command and an option of one.
comp=$root/usr/share/bash-completion/completions/latscope
[[ -f $comp ]] || fail "no bash completion"
[[ -f $root/usr/share/zsh/site-functions/_latscope ]] || fail "no zsh completion"
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _latscope
             printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
[[ $(complete_words latscope ben) == bench ]] || fail "latscope ben -> '$(complete_words latscope ben)'"
[[ $(complete_words latscope analyze --thr) == --threads ]] ||
    fail "latscope analyze --thr -> '$(complete_words latscope analyze --thr)'"
[[ $(complete_words latscope bench merge --for) == --format ]] || fail "bench merge --for"
complete_words latscope bench merge -- | grep -q -- --target && fail "bench merge offers bench's --target"
complete_words latscope trace --cu | grep -qx -- --cuda-events || fail "trace --cu lacks --cuda-events"
[[ -z $(complete_words latscope trace -- --cu) ]] || fail "completes latscope options after --"
bash -c ". '$comp'; complete -p latscope" | grep -q -- '-F _latscope' || fail "complete -F not set"
if command -v zsh >/dev/null; then
    zcomp=$root/usr/share/zsh/site-functions/_latscope
    zsh -n "$zcomp" || fail "zsh completion does not parse"
    # compsys's _describe and _files stubbed: what the function offers for a line
    zoffer() {
        zsh -fc '_describe() { print -r -- "${(P)4}"; }; _files() { print -r -- FILES; }
                 F=$1; shift; words=("$@"); CURRENT=${#words}; PREFIX=${words[CURRENT]}; source $F' \
            _ "$zcomp" "$@"
    }
    zoffer latscope ben | grep -q 'bench:load-test' || fail "zsh: latscope ben -> $(zoffer latscope ben)"
    zoffer latscope analyze --thr | grep -q -- '--threads:' || fail "zsh: analyze --thr lacks --threads"
    zoffer latscope bench merge --f >"$TMPDIR/z"
    grep -q -- '--format' "$TMPDIR/z" && ! grep -q -- '--target' "$TMPDIR/z" || fail "zsh: bench merge --f: $(cat "$TMPDIR/z")"
    [[ $(zoffer latscope trace -- --cu) == FILES ]] || fail "zsh: completes latscope options after --"
fi

make -C "$src" --no-print-directory $cfg uninstall DESTDIR="$root" PREFIX=/usr >"$TMPDIR/make.out" 2>&1 ||
    { cat "$TMPDIR/make.out" >&2; fail "make uninstall failed"; }
left=$(find "$root" -type f)
[[ -z $left ]] || fail "make uninstall left: $left"
exit 0
