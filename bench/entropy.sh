#!/bin/bash
# bench/entropy.sh [BUILD_DIR] — the trace's size against its lower bound
# (issue 31, point 1), and against heaptrack's file, on workloads nobody
# tuned the encoder for.
#
# 1. entropy-gen (bench/entropy-gen.c), whose choices are known: N
#    replacements over L live blocks, sizes uniform in 8..4096, S call
#    sites. Its information content is, exactly,
#      L (log2 4089 + log2 S)            the first L allocations
#      + N (log2 L + log2 4089 + log2 S) each replacement: victim, size, site
#      + the times                       see below
#    and nothing else: event types, size classes and addresses follow from
#    the choices (malloc is deterministic), so the bound leaves them out
#    (an encoder that could not predict them pays for them: the columns
#    table shows where). Times: the trace's clock after its first 50 ms is
#    the coarse clock (docs/capture.md); knowing how many ticks the run
#    took (T), the events' times are one of C(E + T, T) ways to place the
#    tick boundaries among the E events: log2 of that. The fine clock of
#    the first 50 ms (HEAPLENS_FINE_CLOCK_MS) records real noise (the
#    machine's jitter), which no bound can predict: the bound is computed
#    on a trace recorded with HEAPLENS_FINE_CLOCK_MS=0, and the default
#    trace's size is shown beside it.
#    Per column (bench/trace-columns, the columns of a model frame written
#    with zstd): size against the sizes' bits; free + fid against the
#    victims'; stack + ftok + stackdef + stackhdr against the sites';
#    time against the times'; addr and mtok (the token byte of each
#    allocation: how its address was predicted, and one bit saying whether
#    its stack was), type and the rest against 0.
# 2. Real programs, size against heaptrack's (no bound known): python3 on
#    bench/workload.py and, a program nobody tuned for, `python3 -m
#    compileall` over three packages of its standard library; sqlite3 on
#    the generated SQL script; cc1plus compiling a large C++ translation
#    unit (all of libstdc++'s headers) at -O2; git on this repository
#    (`git log -p` of 400 commits).
#
#   N=5000000 L=10000 S=20 bench/entropy.sh build
# Writes a Markdown table to bench/results/entropy-DATE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# heaptrack without the heaptrack_gui it opens at the end when installed
heaptrack=$here/../scripts/heaptrack-nogui.sh
build=$(cd "${1:-$here/../build}" && pwd)
cli=$build/src/cli/heaplens-cli
columns=$build/bench/trace-columns
N=${N:-5000000}
L=${L:-10000}
S=${S:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$cli" ] && [ -x "$columns" ] || { echo "no heaplens-cli or trace-columns in $build" >&2; exit 1; }
command -v heaptrack > /dev/null || { echo "heaptrack is not installed (scripts/deps.sh --test)" >&2; exit 1; }
export PYTHONMALLOC=malloc HEAPTRACK_ENABLE_DEBUGINFOD=0
unset DEBUGINFOD_URLS

gcc -O2 -g -fno-omit-frame-pointer "$here/entropy-gen.c" -o "$tmp/entropy-gen"

# --- 1. the generator ---------------------------------------------------
/usr/bin/time -f %e -o "$tmp/plain.time" "$tmp/entropy-gen" "$N" "$L" "$S" > /dev/null
HEAPLENS_FINE_CLOCK_MS=0 "$cli" record -o "$tmp/gen0.hltrace" -- "$tmp/entropy-gen" "$N" "$L" "$S" \
  > /dev/null 2> "$tmp/gen0.err"
"$cli" record -o "$tmp/gen.hltrace" -- "$tmp/entropy-gen" "$N" "$L" "$S" > /dev/null 2> /dev/null
"$heaptrack" -o "$tmp/gen.ht" "$tmp/entropy-gen" "$N" "$L" "$S" > /dev/null 2>&1
"$cli" report --json "$tmp/gen0.hltrace" > "$tmp/gen0.json"
"$columns" "$tmp/gen0.hltrace" 19 > "$tmp/gen0.columns"
ht_gen=$(stat -c %s "$tmp"/gen.ht*)

python3 - "$tmp" "$N" "$L" "$S" "$ht_gen" > "$tmp/gen.md" << 'EOF'
import json, math, os, sys
tmp, n, live, sites, ht = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rep = json.load(open(os.path.join(tmp, "gen0.json")))
summary = rep["summary"]
allocs, frees = summary["allocations"], summary["frees"]
events = allocs + frees
duration_ns = summary["duration_ns"]
tick_ns = 4_000_000  # the coarse clock at HZ=250 (docs/capture.md)
ticks = max(1, duration_ns // tick_ns)
def log2_binom(a, b):
    return (math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)) / math.log(2)
bits = {
    "size": allocs * math.log2(4096 - 8 + 1),
    "site": allocs * math.log2(sites),
    "victim": n * math.log2(live),
    "time": log2_binom(events + ticks, ticks),
}
bound = sum(bits.values()) / 8
size0 = os.path.getsize(os.path.join(tmp, "gen0.hltrace"))
size = os.path.getsize(os.path.join(tmp, "gen.hltrace"))
cols = {}
for line in open(os.path.join(tmp, "gen0.columns")):
    f = line.split()
    if len(f) == 4 and f[1].isdigit():
        cols[f[0]] = int(f[3])
group = {
    "size": ["size"],
    "victim": ["free", "fid"],
    "site": ["stack", "ftok", "stackdef", "stackhdr"],
    "time": ["time"],
    "addresses": ["addr", "mtok"],
    "event types": ["type"],
    "the rest": ["ctrl", "header", "misc", "bodylen", "other", "len", "raw"],
}
print("## entropy-gen: %d replacements over %d live blocks, sizes 8..4096, %d sites\n" % (n, live, sites))
print("%d allocations, %d frees, %.2f s recorded (%d ticks of the coarse clock)\n"
      % (allocs, frees, duration_ns / 1e9, ticks))
print("| trace | bytes | / bound | / heaptrack's |")
print("| --- | ---: | ---: | ---: |")
print("| lower bound | %d | 1.00 | %.3f |" % (bound, bound / ht))
print("| Heaplens, HEAPLENS_FINE_CLOCK_MS=0 | %d | %.3f | %.3f |" % (size0, size0 / bound, size0 / ht))
print("| Heaplens, default | %d | %.3f | %.3f |" % (size, size / bound, size / ht))
print("| heaptrack | %d | %.3f | 1.000 |" % (ht, ht / bound))
print()
print("Per column (the trace without the fine clock, its columns compressed as written, level 19):\n")
print("| part | columns | bytes | bound bytes | / bound |")
print("| --- | --- | ---: | ---: | ---: |")
for part, names in group.items():
    got = sum(cols.get(c, 0) for c in names)
    b = bits.get(part, 0) / 8
    ratio = "%.3f" % (got / b) if b > 0 else "(bound 0)"
    print("| %s | %s | %d | %d | %s |" % (part, " + ".join(names), got, b, ratio))
print("| sum | | %d | %d | %.3f |" % (sum(cols.get(c, 0) for v in group.values() for c in v), bound,
                                     sum(cols.get(c, 0) for v in group.values() for c in v) / bound))
EOF

# --- 2. real programs ---------------------------------------------------
python3 "$here/sqlite-work.py" > "$tmp/work.sql"
printf '#include <bits/stdc++.h>\nint main () { std::map<std::string, std::vector<int>> m; m["a"].push_back (1); std::regex r ("a+"); return (int) m.size () + std::regex_match ("aa", r); }\n' > "$tmp/big.cc"
g++ -E -O2 "$tmp/big.cc" -o "$tmp/big.ii"
cc1plus=$(g++ -print-prog-name=cc1plus)
real_names="python3-workload python3-compileall sqlite3 cc1plus git-log"
cmd_of () {
  case $1 in
    python3-workload) echo "/usr/bin/python3 $here/workload.py" ;;
    python3-compileall) echo "/usr/bin/python3 -m compileall -q -f -d x -o 0 -x nothing $tmp/stdlib" ;;
    sqlite3) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
    cc1plus) echo "$cc1plus -quiet -O2 $tmp/big.ii -o $tmp/big.s" ;;
    git-log) echo "git -C $here/.. log -p -n 400 --no-color" ;;
  esac
}
mkdir "$tmp/stdlib"
cp -r /usr/lib/python3.11/json /usr/lib/python3.11/email /usr/lib/python3.11/asyncio "$tmp/stdlib/"
{
  echo "## Real programs: the trace against heaptrack's"
  echo
  echo "| workload | allocations | Heaplens bytes | heaptrack bytes | Heaplens / heaptrack | bits per event |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
} > "$tmp/real.md"
for w in $real_names; do
  # shellcheck disable=SC2046
  rm -f "$tmp/db.sqlite"
  "$cli" record -o "$tmp/$w.hltrace" -- $(cmd_of "$w") > /dev/null 2> /dev/null < /dev/null || true
  rm -f "$tmp/db.sqlite"
  # heaptrack_interpret once grew past 17 GB on cc1plus on a loaded
  # machine: 8 GiB of address space at most (the program's own too)
  (ulimit -v 8388608; "$heaptrack" -o "$tmp/$w.ht" $(cmd_of "$w") > /dev/null 2>&1 < /dev/null) || true
  a=$("$cli" report --json "$tmp/$w.hltrace" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["allocations"], s["allocations"] + s["frees"])')
  hs=$(stat -c %s "$tmp/$w.hltrace")
  ts=$(stat -c %s "$tmp/$w".ht* 2> /dev/null | head -n 1)
  python3 -c "
a, e = map(int, '$a'.split()); hs, ts = $hs, ${ts:-0}
print('| $w | %d | %d | %d | %s | %.3f |' % (a, hs, ts, '%.3f' % (hs / ts) if ts else '-', hs * 8 / e if e else 0))
" >> "$tmp/real.md"
done

out=$here/results/entropy-$(date -u +%Y%m%d-%H%M).md
{
  echo "# Trace size against its bound and against heaptrack ($(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here/.." rev-parse --short HEAD))"
  echo
  cat "$tmp/gen.md"
  echo
  cat "$tmp/real.md"
} > "$out"
cat "$out"
echo "written to $out"
