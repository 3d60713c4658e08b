#!/bin/sh
# Oracle test: `heaplens-cli report --json` against Valgrind on deterministic
# programs (the demo, whose counts depend only on its seed, and four of the
# capture tests' programs). Allocations, frees, bytes and blocks/bytes still in use at exit
# must equal memcheck's exactly; the peak heap must be within 0.1 % of
# massif's (--peak-inaccuracy=0.0). Valgrind runs with its libc/C++ freeres
# off, so that, like the program without Valgrind, nothing is freed for it
# at exit.
set -u
# heaptrack opens heaptrack_gui at the end of a recording when it is
# installed, and under Xvfb that window never closes
if command -v heaptrack > /dev/null 2>&1; then
  heaptrack () { "${HL_SOURCE_ROOT:?}/scripts/heaptrack-nogui.sh" "$@"; }
fi
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
D="$B"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }

# close_to "A B C" "X Y Z" SLACK: prints the expected words when every
# count is equal and the byte figure (3rd of three, 1st of two) is within
# SLACK bytes; otherwise prints the words got.
close_to () {
  "$PY" -c 'import sys
got, exp, slack = sys.argv[1].split(), sys.argv[2].split(), int(sys.argv[3])
ok = len(got) == len(exp) and all(g == e or (i == byte_index and abs(int(g) - int(e)) <= slack)
         for i, (g, e) in enumerate(zip(got, exp)) for byte_index in [2 if len(exp) == 3 else 0])
print(sys.argv[2] if ok else sys.argv[1])' "$1" "$2" "$3"
}

json_field () { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"][sys.argv[2]])' "$1" "$2"; }

echo "1..85"
for prog in "examples/heaplens-demo --seconds 0.5" "tests/capture/t-churn 1000" "tests/capture/t-strings" "tests/capture/t-cxx" "tests/capture/t-tree"; do
  set -- $prog
  name=$(basename "$1")
  VG="valgrind --run-libc-freeres=no --run-cxx-freeres=no"
  $VG --leak-check=no "$D/$@" > /dev/null 2> "$WORK/$name.memcheck"
  $VG --tool=massif --peak-inaccuracy=0.0 --massif-out-file="$WORK/$name.massif" "$D/$@" > /dev/null 2>&1
  "$CLI" record --no-compress -o "$WORK/$name.hltrace" -- "$D/$@" > /dev/null 2>&1
  "$CLI" report --json --top 3 "$WORK/$name.hltrace" > "$WORK/$name.json"
  eq "$name: report --json exits 0 and parses" "$($PY -c 'import json,sys; json.load(open(sys.argv[1])); print("ok")' "$WORK/$name.json" 2>&1)" ok
  if [ "$name" = heaplens-demo ]; then
    # the JSON's keys are those docs/cli.md lists
    eq "$name: report --json has the keys docs/cli.md lists" \
      "$($PY -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1])).keys())))' "$WORK/$name.json")" \
      "$(awk '/^### `--json`/ { f = 1 } f && /^```/ { n++; if (n == 2) exit } f && n == 1' "${HL_SOURCE_ROOT:?}/docs/cli.md" | grep -o '^  "[a-z_]*"' | tr -d ' "' | sort | tr '\n' ' ' | sed 's/ $//')"
    # its heaplens_mark() calls, in order, in the JSON and the summary
    eq "$name: the report lists the program's marks (JSON/text)" \
      "$($PY -c 'import json,sys; print("|".join(m["text"] for m in json.load(open(sys.argv[1]))["marks"]))' "$WORK/$name.json")/$("$CLI" report --top 1 "$WORK/$name.hltrace" | sed -n 's/^  \(marks:\)\{0,1\} *[0-9][0-9.]* s  //p' | tr '\n' '|')" \
      "load started|index started|peak|queries started/load started|index started|peak|queries started|"
    # its metadata keys, in the order of their first setting in time (the
    # main thread sets seed first), with their first values and how many,
    # in the text;
    # every interval in the JSON (phase: three, seed: one)
    eq "$name: the report lists the program's metadata keys and values (text/JSON)" \
      "$("$CLI" report --top 1 "$WORK/$name.hltrace" | sed -n '/^  metadata:/,/^$/p' | sed 's/^ *//' | tr '\n' '|')/$($PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["metadata"]; print(sum(1 for i in m if i["key"] == "phase"), sum(1 for i in m if i["key"] == "seed"), all(i["start_ns"] <= i["end_ns"] for i in m))' "$WORK/$name.json")" \
      "metadata:         seed: 1|phase: load, index, query|document: 0, 1, 2, 3, 4, … (240 values)|request: 0, 1, 2, 3, 4, … (600 values)||/3 1 True"
    # a range between marks (--from @TEXT, --to @TEXT) is the range of
    # their times
    t1=$($PY -c 'import json,sys; print([m["time_ns"] for m in json.load(open(sys.argv[1]))["marks"] if m["text"] == "index started"][0])' "$WORK/$name.json")
    t2=$($PY -c 'import json,sys; print([m["time_ns"] for m in json.load(open(sys.argv[1]))["marks"] if m["text"] == "peak"][0])' "$WORK/$name.json")
    "$CLI" report --json --from "@index started" --to @peak "$WORK/$name.hltrace" > "$WORK/$name.marks.json"
    "$CLI" report --json --from "$t1" --to "$t2" "$WORK/$name.hltrace" > "$WORK/$name.times.json"
    eq "$name: report --from @MARK --to @MARK selects the range of their times" \
      "$(cmp -s "$WORK/$name.marks.json" "$WORK/$name.times.json" && echo same)/$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"]["allocations"] > 0)' "$WORK/$name.marks.json")" "same/True"
    # a range that ends before the exit: "leaked" is what was not freed by
    # its end, and the text says so; a range to the end leaks
    "$CLI" report --cost leaked --top 1 --from "@index started" --to @peak "$WORK/$name.hltrace" > "$WORK/$name.range.txt"
    "$CLI" report --cost leaked --top 1 --from "@index started" "$WORK/$name.hltrace" > "$WORK/$name.toend.txt"
    eq "$name: a range before the exit counts 'not freed by' its end, not 'leaked'" \
      "$(grep -c 'not freed by [0-9.]* s$\|^most memory not freed by [0-9.]* s, the end of the range (leaked):$' "$WORK/$name.range.txt")/$(grep -c ' leaked$\|^most memory leaked (leaked):$' "$WORK/$name.toend.txt")" "2/2"
    "$CLI" flamegraph --from @peak "$WORK/$name.hltrace" > "$WORK/$name.marks.folded"
    "$CLI" flamegraph --from "$t2" "$WORK/$name.hltrace" > "$WORK/$name.times.folded"
    eq "$name: flamegraph --from @MARK is flamegraph --from its time" \
      "$(cmp -s "$WORK/$name.marks.folded" "$WORK/$name.times.folded" && echo same)/$(wc -l < "$WORK/$name.marks.folded")" "same/$(wc -l < "$WORK/$name.times.folded")"
    "$CLI" report --to @nope "$WORK/$name.hltrace" > /dev/null 2> "$WORK/$name.nomark.err"
    eq "$name: an unknown mark is a usage error that names the marks" "$?/$(cat "$WORK/$name.nomark.err")" \
      "2/heaplens-cli report: --to @nope: $WORK/$name.hltrace has no mark 'nope' (its marks: 'load started', 'index started', 'peak', 'queries started')"
  fi
  # The report's costs-only load (the default without a filter) and the
  # full model give the same text and JSON.
  HEAPLENS_REPORT_FULL=1 "$CLI" report --json --top 3 "$WORK/$name.hltrace" > "$WORK/$name.full.json"
  "$CLI" report "$WORK/$name.hltrace" > "$WORK/$name.txt"
  HEAPLENS_REPORT_FULL=1 "$CLI" report "$WORK/$name.hltrace" > "$WORK/$name.full.txt"
  if cmp -s "$WORK/$name.json" "$WORK/$name.full.json" && cmp -s "$WORK/$name.txt" "$WORK/$name.full.txt" &&
     [ -s "$WORK/$name.txt" ]; then
    ok "$name: costs-only report equals the full model's (text and JSON)"
  else
    not_ok "$name: costs-only report equals the full model's (text and JSON)" \
      "$(diff "$WORK/$name.json" "$WORK/$name.full.json" | head -5)" "$(diff "$WORK/$name.txt" "$WORK/$name.full.txt" | head -5)"
  fi

  # timeline: the heap over time adds up to the report's numbers (checked
  # against Valgrind above): the largest heap_max is the peak, the last
  # bucket's heap is what was never freed, the buckets' allocations and
  # bytes are the totals; the sites' bytes fit in the heap at each end;
  # the JSON holds the CSV's numbers
  "$CLI" timeline --buckets 50 --sites 4 "$WORK/$name.hltrace" > "$WORK/$name.timeline.csv"
  "$CLI" timeline --buckets 50 --sites 4 --json "$WORK/$name.hltrace" > "$WORK/$name.timeline.json"
  eq "$name: timeline's CSV adds up to the report (peak, never freed, allocations, bytes, sites within the heap)" \
    "$($PY -c '
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
head, rows = rows[0], [[int(v) for v in r] for r in rows[1:]]
s = json.load(open(sys.argv[2]))["summary"]
sites = len(head) - 8
fit = all(sum(r[7:7 + sites]) <= r[-1] and r[2] <= r[-1] <= r[3] for r in rows)
print(len(rows), max(r[3] for r in rows) == s["peak_heap_bytes"], rows[-1][-1] == s["leaked_bytes"],
      sum(r[5] for r in rows) == s["allocations"], sum(r[6] for r in rows) == s["bytes_allocated"], fit, 0 < sites <= 4)
' "$WORK/$name.timeline.csv" "$WORK/$name.json" 2>&1)" "50 True True True True True True"
  eq "$name: timeline --json holds the CSV's numbers" \
    "$($PY -c '
import csv, json, sys
rows = [[int(v) for v in r] for r in list(csv.reader(open(sys.argv[1])))[1:]]
j = json.load(open(sys.argv[2]))
flat = [[b["start_ns"], b["end_ns"], b["heap_min"], b["heap_max"], b["rss"], b["allocations"], b["bytes_allocated"]]
        + b["sites"] + [b["heap_end"]] for b in j["buckets"]]
print(flat == rows and len(j["sites"]) == len(rows[0]) - 8)
' "$WORK/$name.timeline.csv" "$WORK/$name.timeline.json" 2>&1)" "True"
  if [ "$name" = heaplens-demo ]; then
    t_peak=$($PY -c 'import json,sys; print([m["time_ns"] for m in json.load(open(sys.argv[1]))["marks"] if m["text"] == "peak"][0])' "$WORK/$name.json")
    eq "$name: timeline --from @MARK starts at the mark" \
      "$("$CLI" timeline --buckets 5 --from @peak "$WORK/$name.hltrace" | sed -n 2p | cut -d, -f1)" "$t_peak"
    "$CLI" timeline --buckets 0 "$WORK/$name.hltrace" > "$WORK/$name.tl.out" 2>&1
    eq "$name: timeline with no buckets is a usage error" "$?/$(wc -c < "$WORK/$name.tl.out" | tr -d ' ' | sed 's/^[1-9][0-9]*$/message/')" "2/message"
  fi

  # A compressed recording made with --costs carries the costs
  # (hl-recording-costs-packet.h; followed while the program ran, stacks
  # inline): report reads them and prints exactly what decoding its
  # events prints.
  HEAPLENS_RECORD_COSTS_MIN=0 "$CLI" record --costs -o "$WORK/$name.z.hltrace" -- "$D/$@" > /dev/null 2>&1
  for how in packet decode; do
    env=""
    [ $how = decode ] && env="HEAPLENS_NO_COSTS_PACKET=1"
    env $env "$CLI" report --json --top 3 "$WORK/$name.z.hltrace" > "$WORK/$name.z.$how.json"
    env $env "$CLI" report "$WORK/$name.z.hltrace" > "$WORK/$name.z.$how.txt"
  done
  if [ "$(tail -c 8 "$WORK/$name.z.hltrace" | tr -d '\0')" = HLCOSTS ] &&
     cmp -s "$WORK/$name.z.packet.json" "$WORK/$name.z.decode.json" &&
     cmp -s "$WORK/$name.z.packet.txt" "$WORK/$name.z.decode.txt" && [ -s "$WORK/$name.z.packet.txt" ]; then
    ok "$name: report from the saved costs equals the report from the events (text and JSON)"
  else
    not_ok "$name: report from the saved costs equals the report from the events (text and JSON)" \
      "$(tail -c 8 "$WORK/$name.z.hltrace" | od -c | head -1)" \
      "$(diff "$WORK/$name.z.packet.json" "$WORK/$name.z.decode.json" | head -5)" \
      "$(diff "$WORK/$name.z.packet.txt" "$WORK/$name.z.decode.txt" | head -5)"
  fi

  # Recorded the default way, the costs followed while the program ran
  # (hl-recording-costs-stream.h), here saved with the stacks by reference
  # to the trace's own: the same report. A threaded program may not be
  # followed (a thread's first packet late): then no packet, still the
  # same report.
  HEAPLENS_RECORD_COSTS_MIN=0 HEAPLENS_RECORD_COSTS_STACKS=reference HEAPLENS_RECORD_COSTS_VERBOSE=1 \
    "$CLI" record -o "$WORK/$name.r.hltrace" -- "$D/$@" > /dev/null 2> "$WORK/$name.r.err"
  "$CLI" report --json --top 3 "$WORK/$name.r.hltrace" > "$WORK/$name.r.packet.json"
  HEAPLENS_NO_COSTS_PACKET=1 "$CLI" report --json --top 3 "$WORK/$name.r.hltrace" > "$WORK/$name.r.decode.json"
  saved=no
  [ "$(tail -c 8 "$WORK/$name.r.hltrace" | tr -d '\0')" = HLCOSTS ] && saved=yes
  if cmp -s "$WORK/$name.r.packet.json" "$WORK/$name.r.decode.json" && [ -s "$WORK/$name.r.packet.json" ] &&
     { [ $saved = yes ] || { [ "$name" = heaplens-demo ] && grep -q 'not followed' "$WORK/$name.r.err"; }; }; then
    ok "$name: costs followed while recording (stacks by reference): report equals the events' (saved: $saved)"
  else
    not_ok "$name: costs followed while recording (stacks by reference): report equals the events'" \
      "saved: $saved" "$(cat "$WORK/$name.r.err")" "$(diff "$WORK/$name.r.packet.json" "$WORK/$name.r.decode.json" | head -5)"
  fi

  # Filters by thread, module and function: the costs-only load (saved
  # costs and decoded events) answers them as the full model does.
  tid=$("$CLI" dump "$WORK/$name.z.hltrace" | sed -n 's/.*THREAD tid=\([0-9]*\) start.*/\1/p' | tail -n 1)
  fn=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(([f["function"] for s in d["top"]["peak"] + d["top"]["allocations"] for f in s["stack"][1:]
        if " " not in f["function"] and "?" not in f["function"]] + ["main"])[0])' "$WORK/$name.z.packet.json")
  same=yes
  for args in "--thread=${tid:-1}" "--filter=function=$fn" "--filter=module=libc"; do
    "$CLI" report --json "$args" "$WORK/$name.z.hltrace" > "$WORK/$name.f.packet"
    HEAPLENS_NO_COSTS_PACKET=1 "$CLI" report --json "$args" "$WORK/$name.z.hltrace" > "$WORK/$name.f.decode"
    HEAPLENS_REPORT_FULL=1 "$CLI" report --json "$args" "$WORK/$name.z.hltrace" > "$WORK/$name.f.full"
    if ! cmp -s "$WORK/$name.f.packet" "$WORK/$name.f.full" || ! cmp -s "$WORK/$name.f.decode" "$WORK/$name.f.full" ||
       ! grep -q '"selection"' "$WORK/$name.f.full"; then
      same="no: $args $(diff "$WORK/$name.f.packet" "$WORK/$name.f.full" | head -3)"
    fi
  done
  eq "$name: report --thread/--filter from the costs equals the full model's" "$same" yes
  # flamegraph takes the same costs-only load.
  same=yes
  for args in "--cost=allocations" "--cost=peak --inverted" "--cost=leaked --filter=module=libc" "--cost=temporary --thread=${tid:-1}"; do
    "$CLI" flamegraph $args "$WORK/$name.z.hltrace" > "$WORK/$name.fg.costs"
    HEAPLENS_REPORT_FULL=1 "$CLI" flamegraph $args "$WORK/$name.z.hltrace" > "$WORK/$name.fg.full"
    cmp -s "$WORK/$name.fg.costs" "$WORK/$name.fg.full" || same="no: $args"
  done
  "$CLI" flamegraph --cost peak -o "$WORK/$name.fg.costs.svg" "$WORK/$name.z.hltrace"
  HEAPLENS_REPORT_FULL=1 "$CLI" flamegraph --cost peak -o "$WORK/$name.fg.full.svg" "$WORK/$name.z.hltrace"
  cmp -s "$WORK/$name.fg.costs.svg" "$WORK/$name.fg.full.svg" || same="no: svg"
  eq "$name: flamegraph (collapsed and SVG) from the costs equals the full model's" "$same" yes
  # and diff (the plain recording against the compressed one).
  "$CLI" diff --cost peak "$WORK/$name.hltrace" "$WORK/$name.z.hltrace" > "$WORK/$name.diff.costs"
  HEAPLENS_REPORT_FULL=1 "$CLI" diff --cost peak "$WORK/$name.hltrace" "$WORK/$name.z.hltrace" > "$WORK/$name.diff.full"
  if cmp -s "$WORK/$name.diff.costs" "$WORK/$name.diff.full" && [ -s "$WORK/$name.diff.full" ]; then
    ok "$name: diff from the costs equals the full model's"
  else
    not_ok "$name: diff from the costs equals the full model's" "$(diff "$WORK/$name.diff.costs" "$WORK/$name.diff.full" | head -5)"
  fi

  usage=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs, \([0-9,]*\) frees, \([0-9,]*\) bytes allocated.*/\1 \2 \3/p' "$WORK/$name.memcheck" | tr -d ,)
  inuse=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$WORK/$name.memcheck" | tr -d ,)
  # Threaded programs: glibc sizes each new thread's DTV by the number of
  # TLS modules, and the preload is one more (32 B more per thread's DTV
  # block), so bytes may differ by that much; counts must still be equal.
  slack=0
  [ "$name" = heaplens-demo ] && slack=64
  ours="$(json_field "$WORK/$name.json" allocations) $(json_field "$WORK/$name.json" frees) $(json_field "$WORK/$name.json" bytes_allocated)"
  eq "$name: allocations, frees, bytes equal memcheck's total heap usage" "$(close_to "$ours" "$usage" $slack)" "$usage"
  ours="$(json_field "$WORK/$name.json" leaked_bytes) $(json_field "$WORK/$name.json" leaked_blocks)"
  eq "$name: leaked bytes and blocks equal memcheck's in use at exit" "$(close_to "$ours" "$inuse" $slack)" "$inuse"

  peak=$(sed -n 's/^mem_heap_B=//p' "$WORK/$name.massif" | sort -n | tail -1)
  ours=$(json_field "$WORK/$name.json" peak_heap_bytes)
  within=$("$PY" -c 'import sys; a,b=int(sys.argv[1]),int(sys.argv[2]); print("yes" if b and abs(a-b) <= b/1000 else "no %d vs %d" % (a,b))' "$ours" "${peak:-0}")
  eq "$name: peak heap within 0.1 % of massif's" "$within" yes

  # heaptrack_print: same calls once its own preload's libstdc++ emergency
  # pool is taken out (one allocation in a process that does not already
  # load libstdc++; a C++ program has that pool anyway); the
  # same temporary count where no allocation of that pool interleaves
  # (t-strings: a churn of short strings).
  (cd "$WORK" && heaptrack -o "$WORK/$name.ht" "$D/$@" > /dev/null 2>&1)
  heaptrack_print "$WORK/$name.ht".* > "$WORK/$name.htprint" 2>/dev/null
  ht_calls=$(sed -n 's/^calls to allocation functions: \([0-9]*\) .*/\1/p' "$WORK/$name.htprint")
  pool=1
  ldd "$D/$1" | grep -q 'libstdc++' && pool=0
  eq "$name: calls equal heaptrack_print's minus its own pool allocation" "$(json_field "$WORK/$name.json" allocations)" "$((ht_calls - pool))"
  if [ "$name" = t-strings ]; then
    ht_temp=$(sed -n 's/^temporary memory allocations: \([0-9]*\) .*/\1/p' "$WORK/$name.htprint")
    eq "$name: temporary equals heaptrack_print's" "$(json_field "$WORK/$name.json" temporary)" "$ht_temp"
  fi

  "$CLI" flamegraph --cost leaked "$WORK/$name.hltrace" > "$WORK/$name.collapsed"
  sum=$(awk '{ s += $NF } END { print s + 0 }' "$WORK/$name.collapsed")
  eq "$name: collapsed leaked stacks sum to the leaked bytes" "$sum" "$(json_field "$WORK/$name.json" leaked_bytes)"
  "$CLI" flamegraph --cost bytes -o "$WORK/$name.svg" "$WORK/$name.hltrace"
  if "$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$WORK/$name.svg" 2>/dev/null &&
     grep -q '<g class="f"' "$WORK/$name.svg"; then
    ok "$name: flamegraph SVG is well-formed XML with frames"
  else
    not_ok "$name: flamegraph SVG is well-formed XML with frames"
  fi
done
exit $failed
