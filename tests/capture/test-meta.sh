#!/bin/sh
# Metadata and marks from 8 threads at once (t-meta): the recording's
# intervals of "phase" follow the order of the log the target writes
# itself, each ends where the next starts (never before its own start),
# the marks follow the same order, and `report --where phase=VALUE` finds
# the block allocated under VALUE alone. Both the trace `record` writes
# and the same program under the bare preload, with the fine clock (the
# coarse one's 4 ms ticks would give many sets the same time).
. "$(dirname "$0")/tap-lib.sh"

check_run () {
  what=$1
  tr=$2
  log=$3
  "$HL_CLI" report --json "$tr" > "$WORK/$what.json" 2> "$WORK/$what.err"
  eq "$what: report --json reads the trace" "$?" "0"
  eq "$what: the intervals and marks follow the log's order" "$(python3 -c "
import json, sys
log = sorted((int(t), v) for k, v, t in (l.split() for l in open(sys.argv[2])))
want = [v for t, v in log]
j = json.load(open(sys.argv[1]))
iv = [m for m in j['metadata'] if m['key'] == 'phase']
got = [m['value'] for m in iv]
bad = [m for m in iv if m['end_ns'] < m['start_ns']]
gaps = [i for i in range(len(iv) - 1) if iv[i]['end_ns'] != iv[i + 1]['start_ns']]
marks = [m['text'] for m in j['marks'] if m['text'].startswith('m')]
wmarks = ['m' + v[1:] for v in want if v != 'main']
print('ok' if got == want and not bad and not gaps and marks == wmarks else
      'got %d intervals (%d as logged), %d ending before they start, %d gaps, marks %s' %
      (len(got), sum(a == b for a, b in zip(got, want)), len(bad), len(gaps), marks == wmarks))
" "$WORK/$what.json" "$log")" "ok"
  # the first and a middle worker value, and the last one (set after the
  # main thread's only set, which reaches the trace last)
  for pick in 1 60 -1; do
    v=$(python3 -c "
import sys
log = sorted((int(t), v) for k, v, t in (l.split() for l in open(sys.argv[1])))
print(log[int(sys.argv[2])][1])" "$log" "$pick")
    size=$(echo "$v" | sed 's/^t\([0-9]*\)-\([0-9]*\)$/\1 \2/' | { read -r k r; echo $((100000 + 100 * k + r)); })
    got=$("$HL_CLI" report --json --where "phase=$v" "$tr" | python3 -c "
import json, sys
s = json.load(sys.stdin)['selection']
print(s['allocations'], s['bytes'])")
    eq "$what: --where phase=$v finds its one block" "$got" "1 $size"
  done
}

"$HL_CLI" record --fine-clock 60000 -o "$WORK/r.hltrace" -- "$D/t-meta" "$WORK/r.log" > "$WORK/r.out" 2> /dev/null
eq "record: t-meta ran" "$?/$(cat "$WORK/r.out")" "0/t-meta: ok"
check_run record "$WORK/r.hltrace" "$WORK/r.log"

HEAPLENS_FINE_CLOCK_MS=60000 under_preload "$WORK/p.hltrace" "$D/t-meta" "$WORK/p.log" > "$WORK/p.out" 2> /dev/null
eq "preload: t-meta ran" "$?/$(cat "$WORK/p.out")" "0/t-meta: ok"
check_run preload "$WORK/p.hltrace" "$WORK/p.log"
finish
