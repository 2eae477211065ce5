#!/usr/bin/env bash
# t005-link-graph: the link-level twin of t002's include check. From `nm` of the build's objects
# (the defined and the undefined symbols of each src/**/*.o), file A depends on file B when A
# uses a symbol B defines. The check runs at file granularity, within modules too: a registry
# file (a table of plug-ins) calls its plug-ins, so the helpers those plug-ins call must sit in
# a file below it, never in the registry itself; two files that call each other are one
# strongly connected group and fail here. Across modules, the module graph derived from the
# same edges must have no cycle either. A group listed in KNOWN is tolerated (it must still
# exist: a fixed one is removed from the list). The self-test first proves that a planted
# cycle is found and that an acyclic graph passes.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v nm >/dev/null || skip "nm (binutils) missing"
command -v python3 >/dev/null || skip "python3 missing"
objdir=$(dirname "$LATSCOPE")/src
[[ -d $objdir ]] || skip "no object files next to $LATSCOPE (not a tree build)"
KNOWN=( # sorted file names of a tolerated group, space-separated
)

# groups FILE: the strongly connected groups (2+ files, one sorted line each) of the graph
# given as "FILE D|U SYMBOL" lines; then "module-cycle: M1 M2..." lines for the module graph.
groups() {
    python3 - "$1" <<'EOF'
import collections, sys
defs, uses, files = {}, collections.defaultdict(set), set()
for line in open(sys.argv[1]):
    f, k, s = line.split()
    files.add(f)
    (defs.setdefault(s, set()).add(f) if k == 'D' else uses[f].add(s))
def sccs(nodes, g):
    index, low, st, on, out, n = {}, {}, [], set(), [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        index[root] = low[root] = n[0]; n[0] += 1; st.append(root); on.add(root)
        work = [(root, iter(sorted(g[root])))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; st.append(w); on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    c = []
                    while True:
                        w = st.pop(); on.discard(w); c.append(w)
                        if w == v:
                            break
                    if len(c) > 1:
                        out.append(sorted(c))
    return sorted(out)
g, mg = collections.defaultdict(set), collections.defaultdict(set)
mod = lambda f: f.split('/')[0] if '/' in f else 'cmd'
for f in files:
    for s in uses[f]:
        for d in defs.get(s, ()):
            if d != f:
                g[f].add(d)
                if mod(d) != mod(f):
                    mg[mod(f)].add(mod(d))
for c in sccs(files, g):
    print(' '.join(c))
for c in sccs({mod(f) for f in files}, mg):
    print('module-cycle: ' + ' '.join(c))
EOF
}

# self-test: a planted cycle a.c -> b.c -> c.c -> a.c (and d.c outside it) must be found, across
# modules too; the same graph without the back edge must pass
cat >"$TMPDIR/planted" <<'EOF'
x/a.c D fa
x/a.c U fb
x/b.c D fb
x/b.c U fc
y/c.c D fc
y/c.c U fa
z/d.c D fd
z/d.c U fa
EOF
got=$(groups "$TMPDIR/planted")
[[ $got == $'x/a.c x/b.c y/c.c\nmodule-cycle: x y' ]] || fail "planted cycle not found: '$got'"
grep -v 'y/c.c U fa' "$TMPDIR/planted" >"$TMPDIR/acyclic"
got=$(groups "$TMPDIR/acyclic")
[[ -z $got ]] || fail "acyclic graph reported as cyclic: '$got'"

# the real objects (the injection library's objects are another binary)
: >"$TMPDIR/nm"
n=0
while IFS= read -r o; do
    f=${o#"$objdir"/}
    f=${f%.o}.c
    nm "$o" | awk -v f="$f" '$1 == "U" { print f, "U", $2; next }
        NF == 3 && $2 ~ /^[TDBRVWG]$/ { print f, "D", $3 }' >>"$TMPDIR/nm"
    n=$((n + 1))
done < <(find "$objdir" -name '*.o' | sort)
((n > 50)) || skip "only $n object files under $objdir (build first)"
groups "$TMPDIR/nm" >"$TMPDIR/groups"
bad=0
while IFS= read -r g; do
    ok=0
    for k in "${KNOWN[@]}"; do [[ $g == "$k" ]] && ok=1; done
    ((ok)) || { echo "FAIL: link cycle: $g" >&2; bad=1; }
done <"$TMPDIR/groups"
for k in "${KNOWN[@]}"; do
    grep -qxF "$k" "$TMPDIR/groups" || { echo "FAIL: KNOWN group gone, remove it: $k" >&2; bad=1; }
done
((bad == 0)) || fail "link-level cycles (see above; move the helpers a registry's plug-ins call below it)"
echo "$n objects, $(wc -l <"$TMPDIR/nm") symbol rows, ${#KNOWN[@]} known groups, no other cycle"
