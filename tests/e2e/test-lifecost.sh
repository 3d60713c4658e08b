#!/bin/sh
# The long-lived and mmap costs (issue 30, point 1) against t-lifecost,
# a program that measures its own blocks' lifetimes (CLOCK_MONOTONIC) and
# knows its own mappings: report --cost long-lived --lived-at-least 100ms
# per call site equals the bytes the program saw live at least 100 ms (0
# for the blocks freed at once, all of those freed after 300 ms and of
# those never freed); --cost mmap per call site the bytes each mapping
# function still maps at the end (a mapping unmapped is not there, a
# trimmed one is its rest); flamegraph and export give the same totals;
# the costs-only load and every event agree; every new JSON key is in
# docs/cli.md.
set -u
CLI="${HL_CLI:?}"
PRELOAD="${HL_PRELOAD:?}"
T="${HL_LIFECOST_TARGET:?}"
DOCS="${HL_SOURCE_ROOT:?}/docs/cli.md"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-lifecost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
PY=/usr/bin/python3
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }

HEAPLENS_OUTPUT="$WORK/a.hltrace" LD_PRELOAD="$PRELOAD" "$T" > "$WORK/a.out" 2> "$WORK/a.err"
eq "t-lifecost ran under the preload" "$?/$(wc -l < "$WORK/a.out")" "0/6"

# per call site (the function that called malloc or mmap's wrapper, -O0):
# the cost, against the program's own figure
by_site='
import json, sys
d = json.load(open(sys.argv[1]))
kind, key, field = sys.argv[2], sys.argv[3], sys.argv[5]
want = {}
for line in open(sys.argv[6]):
    w = line.split()
    if w[0] == sys.argv[7]:
        want[w[1]] = int(w[w.index(field) + 1])
got = {}
for e in d["top"].get(kind, []):
    for fn in (f["function"] for f in e["stack"]):
        if fn in want:
            got[fn] = got.get(fn, 0) + e["costs"][key]
            break
print(" ".join("%s=%s" % (k, "ok" if got.get(k, 0) == v else "%s!=%d" % (got.get(k), v)) for k, v in sorted(want.items())))
'
"$CLI" report --json --top 0 --cost long-lived --lived-at-least 100ms "$WORK/a.hltrace" > "$WORK/l.json" 2> "$WORK/l.err"
eq "report --cost long-lived --lived-at-least 100ms exits 0" "$?" "0"
eq "report --json: each site's long-lived bytes are what the program saw live at least 100 ms" \
  "$("$PY" -c "$by_site" "$WORK/l.json" long-lived long_lived_bytes - lived_ge_100ms "$WORK/a.out" site 2>&1)" \
  "life_long=ok life_never=ok life_zero=ok"
eq "report --json: lived_at_least_ns is the T asked, the selection's long-lived bytes its sites'" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = sum(e["costs"]["long_lived_bytes"] for e in d["top"]["long-lived"])
print(d["lived_at_least_ns"], d["selection"]["long_lived_bytes"] == s, d["selection"]["long_lived_bytes"] < d["selection"]["bytes"])
' "$WORK/l.json" 2>&1)" "100000000 True True"
"$CLI" report --json "$WORK/a.hltrace" > "$WORK/r.json" 2> /dev/null
eq "report --json without --lived-at-least: every block is long-lived (T 0)" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["lived_at_least_ns"], d["selection"]["long_lived_bytes"] == d["selection"]["bytes"])
' "$WORK/r.json" 2>&1)" "0 True"
"$CLI" report --cost long-lived --lived-at-least 100ms "$WORK/a.hltrace" > "$WORK/l.txt" 2>&1
eq "report: the section names the T" "$(grep -c '^most bytes in blocks that lived at least 100 ms (long-lived):$' "$WORK/l.txt")" "1"

"$CLI" report --json --top 0 --cost mmap "$WORK/a.hltrace" > "$WORK/m.json" 2> "$WORK/m.err"
eq "report --cost mmap exits 0" "$?" "0"
eq "report --json: each mapping function's mmap cost is what the program still maps" \
  "$("$PY" -c "$by_site" "$WORK/m.json" mmap mmap_bytes - bytes_at_end "$WORK/a.out" map 2>&1)" \
  "map_drop=ok map_keep=ok map_trim=ok"
eq "report --json: the selection's mmap bytes are the mmap section's mapped at the end" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["selection"]["mmap_bytes"] == d["mmap"]["live_bytes"] > 0)
' "$WORK/m.json" 2>&1)" "True"
# a thread filter: the mappings are the main thread's (every event loaded)
tid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"][0]["tid"])' "$WORK/m.json")
"$CLI" report --json --cost mmap --thread "$tid" "$WORK/a.hltrace" > "$WORK/mt.json" 2> /dev/null
"$CLI" report --json --cost mmap --thread 1 "$WORK/a.hltrace" > "$WORK/m1.json" 2> /dev/null
eq "report --cost mmap --thread: the program's thread holds them all, another none" "$("$PY" -c '
import json, sys
a, b, c = (json.load(open(p))["selection"]["mmap_bytes"] for p in sys.argv[1:4])
print(a == b, c)
' "$WORK/mt.json" "$WORK/m.json" "$WORK/m1.json" 2>&1)" "True 0"

# flamegraph and export: the same totals
"$CLI" flamegraph --cost long-lived --lived-at-least 100ms "$WORK/a.hltrace" > "$WORK/l.collapsed" 2> /dev/null
"$CLI" flamegraph --cost mmap "$WORK/a.hltrace" > "$WORK/m.collapsed" 2> /dev/null
sel () { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"][sys.argv[2]])' "$1" "$2"; }
eq "flamegraph --cost long-lived: the collapsed stacks sum to the selection" \
  "$(awk '{ s += $NF } END { print s }' "$WORK/l.collapsed")" "$(sel "$WORK/l.json" long_lived_bytes)"
eq "flamegraph --cost mmap: the collapsed stacks sum to the selection" \
  "$(awk '{ s += $NF } END { print s }' "$WORK/m.collapsed")" "$(sel "$WORK/m.json" mmap_bytes)"
"$CLI" export --format speedscope --cost long-lived --lived-at-least 100ms "$WORK/a.hltrace" -o "$WORK/a.speedscope" > /dev/null 2>&1
eq "export speedscope: the long-lived and mmap profiles sum to the selection, long-lived first" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = {p["name"]: sum(p["weights"]) for p in d["profiles"]}
print(d["profiles"][d.get("activeProfileIndex", 0)]["name"], w.get("long-lived"), w.get("mmap"))
' "$WORK/a.speedscope" 2>&1)" "long-lived $(sel "$WORK/l.json" long_lived_bytes) $(sel "$WORK/m.json" mmap_bytes)"

# the costs-only load and every event give the same selection (T 0)
HEAPLENS_REPORT_FULL=1 "$CLI" report --json "$WORK/a.hltrace" > "$WORK/f.json" 2> /dev/null
eq "report --json: costs only and every event agree on the selection" "$("$PY" -c '
import json, sys
a, b = (json.load(open(p))["selection"] for p in sys.argv[1:3])
print(a == b)
' "$WORK/r.json" "$WORK/f.json" 2>&1)" "True"
# a recording with its costs saved: the saved costs answer mmap (their
# sites), a T loads the events
HEAPLENS_RECORD_COSTS_MIN=0 "$CLI" record --costs -o "$WORK/c.hltrace" -- "$T" > "$WORK/c.out" 2> /dev/null
eq "record --costs: t-lifecost ran" "$?/$(wc -l < "$WORK/c.out")" "0/6"
"$CLI" report --json --top 0 --cost long-lived --lived-at-least 100ms "$WORK/c.hltrace" > "$WORK/cl.json" 2> /dev/null
eq "saved costs: each site's long-lived bytes are the program's (from the events)" \
  "$("$PY" -c "$by_site" "$WORK/cl.json" long-lived long_lived_bytes - lived_ge_100ms "$WORK/c.out" site 2>&1)" \
  "life_long=ok life_never=ok life_zero=ok"
"$CLI" report --json --top 0 --cost mmap "$WORK/c.hltrace" > "$WORK/cm.json" 2> /dev/null
eq "saved costs: each mapping function's mmap cost is what the program still maps" \
  "$("$PY" -c "$by_site" "$WORK/cm.json" mmap mmap_bytes - bytes_at_end "$WORK/c.out" map 2>&1)" \
  "map_drop=ok map_keep=ok map_trim=ok"
"$CLI" report --cost long-lived --lived-at-least 10parsecs "$WORK/a.hltrace" > /dev/null 2>&1
eq "a bad T is a usage error" "$?" "2"

for key in long_lived_bytes mmap_bytes lived_at_least_ns lived-at-least long-lived long_lived_space mmap_space; do
  if grep -q -- "$key" "$DOCS"; then ok "docs/cli.md has $key"; else not_ok "docs/cli.md has $key"; fi
done
echo "1..$n"
exit $failed
