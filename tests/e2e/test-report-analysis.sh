#!/bin/sh
# Issue 30, points 5, 6 and 1 on t-analysis, a program whose per-thread
# counts, call structure and block lifetimes are known (see its header):
# report and report --json list every thread by name with its
# allocations, bytes, live bytes at the heap peak and leaked bytes (the
# program's own counts); --function gives a function's callers and
# callees with every cost; --lifetimes the lifetime histogram per call
# site, the short-lived and the growing sites; top names the threads of a
# running session. Every key of the new JSON members is in docs/cli.md.
set -u
CLI="${HL_CLI:?}"
PRELOAD="${HL_PRELOAD:?}"
T="${HL_ANALYSIS_TARGET:?}"
DOCS="${HL_SOURCE_ROOT:?}/docs/cli.md"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-analysis.XXXXXX")
uid=$(id -u)
pid=""
cleanup () {
  [ -n "$pid" ] && rm -f /dev/shm/heaplens-$uid-$pid-*
  rm -rf "$WORK"
}
trap cleanup EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
PY=/usr/bin/python3
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }
has () { if grep -Eq "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3"; sed 's/^/# /' "$2"; fi; }

# The bare preload, the coarse clock from the first event (no fine-clock
# spell, no recorder's clock word): lifetimes in 4 ms ticks.
HEAPLENS_OUTPUT="$WORK/a.hltrace" HEAPLENS_FINE_CLOCK_MS=0 LD_PRELOAD="$PRELOAD" "$T" > "$WORK/a.out" 2> "$WORK/a.err"
eq "t-analysis ran under the preload" "$?/$(wc -l < "$WORK/a.out")" "0/2"

# ---- Point 5: threads by name ----------------------------------------------
"$CLI" report --json "$WORK/a.hltrace" > "$WORK/r.json" 2> "$WORK/r.err"
eq "report --json exits 0" "$?" "0"
# the program's own counts, per named thread: allocations, bytes, live
# bytes at the heap peak, leaked bytes
eq "report --json: worker-a and worker-b with the program's own counts" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
by = {t["name"]: t["costs"] for t in d["threads"]}
for line in open(sys.argv[2]):
    w = line.split()
    c = by.get(w[1])
    got = None if c is None else [c["allocations"], c["bytes"], c["peak_bytes"], c["leaked_bytes"]]
    print(w[1], "ok" if got == [int(w[3]), int(w[5]), int(w[7]), int(w[9])] else got)
' "$WORK/r.json" "$WORK/a.out" 2>&1 | tr '\n' ' ')" "worker-a ok worker-b ok "
# the main thread renamed itself with prctl; every thread once, its tid
# the trace's; the threads' costs add up to the selection, their live bytes
# at the peak to the peak, their leaks to the leaks
eq "report --json: the main thread's name, three threads, costs adding up" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
th = d["threads"]
names = sorted(t["name"] for t in th)
s = lambda k: sum(t["costs"][k] for t in th)
print(names, len(set(t["tid"] for t in th)) == len(th) == d["summary"]["threads"],
      s("allocations") == d["selection"]["allocations"], s("bytes") == d["selection"]["bytes"],
      s("peak_bytes") == d["summary"]["peak_heap_bytes"], s("leaked_bytes") == d["summary"]["leaked_bytes"],
      all(t["start_ns"] <= t["end_ns"] for t in th))
' "$WORK/r.json" 2>&1)" "['t-main', 'worker-a', 'worker-b'] True True True True True True"
"$CLI" report --top 1 "$WORK/a.hltrace" > "$WORK/r.txt" 2>&1
has "report: the threads table names worker-a with its calls and sizes" "$WORK/r.txt" \
  '^ +[0-9]+ +100 +97\.66 KiB +39\.06 KiB +39\.06 KiB  worker-a$'
has "report: worker-b, 1000000 bytes at the peak, nothing leaked" "$WORK/r.txt" \
  '^ +[0-9]+ +50 +976\.56 KiB +976\.56 KiB +0 B  worker-b$'
# a filter by thread: only that thread's allocations in the selection
tid_a=$("$PY" -c 'import json,sys; print([t["tid"] for t in json.load(open(sys.argv[1]))["threads"] if t["name"] == "worker-a"][0])' "$WORK/r.json")
"$CLI" report --json --thread "$tid_a" "$WORK/a.hltrace" > "$WORK/ra.json" 2>&1
eq "report --thread TID: the selection is that thread's, the others' costs 0" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["selection"]["allocations"], [t["costs"]["allocations"] for t in d["threads"] if t["name"] != "worker-a"])
' "$WORK/ra.json" 2>&1)" "100 [0, 0]"

# ---- Point 6: callers and callees ------------------------------------------
"$CLI" report --json --function leaf_alloc "$WORK/a.hltrace" > "$WORK/f.json" 2> "$WORK/f.err"
eq "report --json --function leaf_alloc: its costs, callers caller_y and caller_x" "$?/$("$PY" -c '
import json, sys
f = json.load(open(sys.argv[1]))["function"]
m = f["matches"]
c = lambda x: [x["allocations"], x["bytes"], x["temporary"], x["peak_bytes"], x["leaked_bytes"], x["leaked_blocks"]]
print(f["name"], len(m), m[0]["frame"]["function"], c(m[0]["costs"]),
      [(e["frame"]["function"], c(e["costs"])) for e in m[0]["callers"]],
      [e["frame"]["function"] for e in m[0]["callees"]])
' "$WORK/f.json" 2>&1)" \
  "0/leaf_alloc 1 leaf_alloc [8, 1300, 0, 1300, 1300, 8] [('caller_y', [5, 1000, 0, 1000, 1000, 5]), ('caller_x', [3, 300, 0, 300, 300, 3])] []"
"$CLI" report --json --function caller_y "$WORK/a.hltrace" > "$WORK/g.json" 2> "$WORK/g.err"
eq "report --json --function caller_y: caller run_calls, callees leaf_alloc and malloc's own" "$?/$("$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["function"]["matches"][0]
c = lambda x: [x["allocations"], x["bytes"]]
print(c(m["costs"]), [(e["frame"]["function"], c(e["costs"])) for e in m["callers"]],
      [(e["frame"]["function"], c(e["costs"])) for e in m["callees"]])
' "$WORK/g.json" 2>&1)" "0/[7, 1100] [('run_calls', [7, 1100])] [('leaf_alloc', [5, 1000])]"
"$CLI" report --top 1 --function caller_y "$WORK/a.hltrace" > "$WORK/g.txt" 2>&1
has "report --function caller_y: the total row" "$WORK/g.txt" '^  total +7 +1\.07 KiB +0 +1\.07 KiB +1\.07 KiB  $'
has "report --function caller_y: the caller row" "$WORK/g.txt" '^  callers +7 +1\.07 KiB +0 +1\.07 KiB +1\.07 KiB  run_calls '
has "report --function caller_y: the callee row" "$WORK/g.txt" '^  callees +5 +1000 B +0 +1000 B +1000 B  leaf_alloc '
"$CLI" report --top 1 --function no_such_function "$WORK/a.hltrace" > "$WORK/n.txt" 2>&1
has "report --function of a function not in the stacks says so" "$WORK/n.txt" '^function no_such_function: not in the selection'"'"'s stacks$'

# ---- Point 1: lifetimes ----------------------------------------------------
"$CLI" report --json --lifetimes --top 0 "$WORK/a.hltrace" > "$WORK/l.json" 2> "$WORK/l.err"
eq "report --json --lifetimes: each site's blocks in its bucket" "$?/$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
lt = d["lifetimes"]
site = {s["stack"][0]["function"]: s for s in lt["sites"] if s["stack"]}
def nz(s): return {k: v for k, v in s["blocks"].items() if v}
short = site["life_short"]
print(short["n_blocks"], short["blocks"]["lt_1us"] + short["blocks"]["1ms_10ms"] == 100, short["blocks"]["lt_1us"] >= 95,
      nz(site["life_mid"]), nz(site["life_long"]), nz(site["life_never"]), nz(site["grow_one"]))
' "$WORK/l.json" 2>&1)" \
  "0/100 True True {'10ms_100ms': 10} {'100ms_1s': 10} {'alive_at_exit': 10} {'alive_at_exit': 20}"
eq "report --json --lifetimes: short-lived life_short, growing grow_one, the rest neither" "$("$PY" -c '
import json, sys
lt = json.load(open(sys.argv[1]))["lifetimes"]
f = lambda l: sorted(s["stack"][0]["function"] for s in l if s["stack"] and s["stack"][0]["function"].startswith(("life_", "grow_")))
site = {s["stack"][0]["function"]: s for s in lt["sites"] if s["stack"]}
q = site["grow_one"]["live_bytes_by_quarter"]
print(f(lt["short_lived"]), f(lt["growing"]), site["life_short"]["median"], site["life_long"]["median"],
      q[-1], all(a < b for a, b in zip(q, q[1:])))
' "$WORK/l.json" 2>&1)" "['life_short'] ['grow_one'] lt_1us 100ms_1s 20000 True"
eq "report --json --lifetimes: the buckets add up to the selection's blocks and bytes" "$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
lt = d["lifetimes"]
print(sum(lt["blocks"].values()) == d["selection"]["allocations"] == sum(s["n_blocks"] for s in lt["sites"]),
      sum(lt["bytes"].values()) == d["selection"]["bytes"],
      lt["blocks"]["alive_at_exit"] == d["selection"]["leaked_blocks"], list(lt["blocks"])[0], list(lt["blocks"])[-1])
' "$WORK/l.json" 2>&1)" "True True True lt_1us alive_at_exit"
"$CLI" report --top 3 --lifetimes "$WORK/a.hltrace" > "$WORK/l.txt" 2>&1
# (of the program's own functions: worker_a and worker_b free blocks at
# once too, but on a busy machine a thread preempted between its
# allocations and frees sees a 4 ms tick pass)
eq "report --lifetimes: the short-lived sites include life_short, the growing one is grow_one" "$(
  sed -n '/^short-lived call sites/,/^$/p' "$WORK/l.txt" | sed -n 's/^ *at \(life_[a-z_]*\|grow_one\) .*/\1/p' | sort | tr '\n' ' ')/$(
  sed -n '/^long-lived call sites that keep growing/,/^$/p' "$WORK/l.txt" | sed -n 's/^ *at \([a-z_]*\) .*/\1/p' | tr '\n' ' ')" \
  "life_short /grow_one "
has "report --lifetimes: the whole selection's never-freed blocks" "$WORK/l.txt" '^    alive at exit +[0-9]+ '
# a time range from the first grow_one block on: the lifetimes follow it
"$CLI" report --json --lifetimes --top 0 --function grow_one "$WORK/a.hltrace" > "$WORK/lg.json" 2>&1
t0=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["lifetimes"]["start_ns"])' "$WORK/lg.json")
eq "report --json --lifetimes without a range: from 0 to the end" "$t0" "0"

# ---- New keys documented ---------------------------------------------------
eq "every key of threads, function and lifetimes is in docs/cli.md" "$("$PY" -c '
import json, re, sys
doc = open(sys.argv[3]).read()
keys = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k); walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
for path, member in ((sys.argv[1], "threads"), (sys.argv[2], "function"), (sys.argv[2], "lifetimes")):
    d = json.load(open(path))
    keys.add(member); walk(d[member])
print(" ".join(sorted(k for k in keys if ("\"%s\"" % k) not in doc)) or "all")
' "$WORK/r.json" "$WORK/lg.json" "$DOCS" 2>&1)" "all"

# ---- top: thread names of a running session --------------------------------
HEAPLENS_OUTPUT="$WORK/h.hltrace" HEAPLENS_KEEP_SESSION=1 LD_PRELOAD="$PRELOAD" "$T" --hold "$WORK/release" \
  > "$WORK/h.out" 2>&1 &
pid=$!
for i in $(seq 1 200); do
  [ -e "$WORK/release.ready" ] && break
  sleep 0.05
done
"$CLI" top "$pid" --once > "$WORK/top.txt" 2> "$WORK/top.err"
touch "$WORK/release"
wait $pid
eq "t-analysis --hold ended" "$?" "0"
has "top: the running thread holder-c by name with its 10 allocations" "$WORK/top.txt" '^ +[0-9]+  holder-c +10 +1000 B$'
has "top: the main thread t-main running" "$WORK/top.txt" '^ +[0-9]+  t-main +[0-9]+ '
has "top: the threads that exited, by name" "$WORK/top.txt" '^  exited: worker-a \([0-9]+\), worker-b \([0-9]+\)$'
has "top: two running, two exited" "$WORK/top.txt" '^threads +2 running, 2 exited$'

# ---- Issue 27.5: --filter size=MIN..MAX -------------------------------------
# The oracle is the trace itself: dump's ALLOC and REALLOC events with a
# size in the range (both ends included), counted and summed here.
"$CLI" dump "$WORK/a.hltrace" > "$WORK/dump.txt" 2> /dev/null
for range in 0..63 64..1023 1KiB.. ..100 100; do
  "$CLI" report --json --filter "size=$range" "$WORK/a.hltrace" > "$WORK/size.json" 2> "$WORK/size.err"
  eq "report --filter size=$range: the dumped events' calls and bytes of those sizes" "$("$PY" -c '
import json, re, sys
units = {"": 1, "KiB": 1024}
def size(t, default):
    if t == "":
        return default
    m = re.fullmatch(r"([0-9]+)(KiB)?", t)
    return int(m.group(1)) * units[m.group(2) or ""]
r = sys.argv[3]
lo, hi = (r.split("..") + [None])[:2] if ".." in r else (r, r)
lo, hi = size(lo, 0), size(hi, 2**64 - 1)
calls = total = 0
for line in open(sys.argv[1]):
    m = re.search(r" (ALLOC|REALLOC) .*\bsize=([0-9]+) ", line)
    if m and lo <= int(m.group(2)) <= hi:
        calls += 1
        total += int(m.group(2))
sel = json.load(open(sys.argv[2]))["selection"]
print("ok" if calls > 0 and [sel["allocations"], sel["bytes"]] == [calls, total] else [calls, total, sel["allocations"], sel["bytes"]])
' "$WORK/dump.txt" "$WORK/size.json" "$range" 2>&1)" "ok"
done
"$CLI" report --filter "size=10..5" "$WORK/a.hltrace" > /dev/null 2> "$WORK/bad.err"
eq "report --filter size=10..5 is a usage error that says why" "$?/$(grep -c 'ends before it starts' "$WORK/bad.err")" "2/1"

echo "1..$n"
exit $failed
