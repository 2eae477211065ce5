# lib-cpu.sh - helpers for the CPU sampler's end-to-end tests (t350-t399); sourced after lib.sh.
#
# cpu_record FOLDED FREQ CMD...   samples CMD into folded stacks (stats on $TMPDIR/cpu.err),
#                                 through `latscope trace --cpu` when this build has it, else the
#                                 library driver build/cpuprof-run (same library, same calls)
# need_dwarf                      skips when this build has no DWARF unwinding (no libdw)
# build_prog OUT SRC CFLAGS...    compiles a test program from tests/progs (skips without cc)
# share FOLDED NAME [BASE]        percentage of samples with frame NAME among those with BASE
SRC=${LATSCOPE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CPURUN=${LATSCOPE%/*}/cpuprof-run

cpu_have_trace() {
    "$LATSCOPE" trace --help 2>/dev/null | grep -q -- '--folded'
}

need_cpu() {
    if ! cpu_have_trace && [[ ! -x $CPURUN ]]; then
        skip "neither 'latscope trace --cpu' nor $CPURUN is available"
    fi
    set +e
    cpu_record "$TMPDIR/probe.folded" 99 true >/dev/null 2>&1
    local rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
        grep -q 'perf_event_open' "$TMPDIR/cpu.err" && skip "perf_event_open not permitted here: $(tail -1 "$TMPDIR/cpu.err")"
        cat "$TMPDIR/cpu.err" >&2
        fail "sampling 'true' failed"
    fi
}

# need_dwarf: skips unless this build unwinds with DWARF CFI (libdw present at build time);
# needs need_cpu's probe first.
need_dwarf() {
    if grep -q 'no DWARF unwinding in this build' "$TMPDIR/cpu.err"; then
        skip "this build has no DWARF unwinding (libdw-dev absent when it was built: scripts/deps.sh installs it)"
    fi
}

cpu_record() {
    local folded=$1 freq=$2
    shift 2
    if cpu_have_trace; then
        "$LATSCOPE" -v trace --cpu --freq "$freq" --folded "$folded" -o "$TMPDIR/cpu-trace.json" \
            -- "$@" 2>"$TMPDIR/cpu.err"
    else
        "$CPURUN" -F "$freq" -f "$folded" -- "$@" 2>"$TMPDIR/cpu.err"
    fi
}

build_prog() {
    local out=$1 src=$2
    shift 2
    command -v cc >/dev/null || skip "no C compiler"
    cc "$@" -o "$out" "$SRC/tests/progs/$src" -lpthread || fail "cannot build $src"
}

share() {
    awk -v name="$2" -v base="${3:-}" '
        { n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); hb = (base == ""); hn = 0
          for (i = 1; i <= k; i++) { if (f[i] == base) hb = 1; if (f[i] == name) hn = 1 }
          if (hb) { tot += n; if (hn) hit += n } }
        END { if (tot == 0) { print "0"; exit } printf "%.1f\n", 100 * hit / tot }' "$1"
}

# in_range VALUE LO HI: fails unless LO <= VALUE <= HI (decimals allowed).
in_range() {
    awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
        fail "$4: $1 not within [$2, $3]"
}
