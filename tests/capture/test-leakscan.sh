#!/bin/sh
# The leak scan at exit (docs/capture.md, "Leaks at exit") against Valgrind
# memcheck's kinds on t-reach: a 10-node list dropped whole, a 2-block
# cycle, a block with no pointer, one kept only in a global, one only by
# an interior pointer, one only on a thread's stack while the thread is
# blocked at exit, a chain from a global, and stdout's buffer.
#
# Valgrind runs with --run-libc-freeres=no: with yes it frees libc's own
# buffers (stdout's) before its leak check, so they vanish from its counts,
# while in the process we scan they are still allocated; with no, both see
# the same heap, and both call stdout's buffer still reachable (libc's
# stdout FILE in libc's data points to it), which is the point.
#
# One difference is not the scan's: the thread's DTV (glibc's
# _dl_allocate_tls), possibly lost on both sides (the thread's control
# block points into it), is 32 bytes larger under the preload, whose own
# TLS adds a module. The possibly-lost bytes are compared without it: the
# DTV's size each side reports for that stack is taken off.
. "$(dirname "$0")/tap-lib.sh"

num () { tr -d ',' ; }
# vg_kind FILE KIND: "BYTES BLOCKS" of Valgrind's summary line of KIND
vg_kind () {
  l=$(grep "$2:" "$1" | head -n 1 | num)
  b=$(echo "$l" | sed -n 's/.*: \([0-9]*\) bytes in \([0-9]*\) blocks.*/\1/p')
  n=$(echo "$l" | sed -n 's/.*: \([0-9]*\) bytes in \([0-9]*\) blocks.*/\2/p')
  echo "${b:-0} ${n:-0}"
}
# vg_dtv FILE: bytes of the possibly-lost loss record allocated in _dl_allocate_tls
vg_dtv () {
  awk '/are possibly lost in loss record/ { gsub(",", "", $2); bytes = $2; next }
       bytes != "" && /_dl_allocate_tls/ { print bytes; exit }
       /^==[0-9]*== *$/ { bytes = "" }' "$1"
}
# js FILE EXPR: a jq expression on FILE
js () { jq -r "$2" "$1"; }

plain_out=$WORK/plain.out
"$D/t-reach" print > "$plain_out" 2>&1
plain_rc=$?

for mode in print _exit; do
  tr=$WORK/r-$mode.hltrace
  under_preload "$tr" "$D/t-reach" $mode > "$WORK/$mode.out" 2>&1
  rc=$?
  eq "$mode: exit status under the preload = the program's own" "$rc" "$plain_rc"
  check "$mode: output under the preload = the program's own" cmp -s "$WORK/$mode.out" "$plain_out"
  "$HL_CLI" report --json "$tr" > "$WORK/$mode.json" 2> "$WORK/$mode.err"
  ok $? "$mode: report --json"
  valgrind --leak-check=full --show-leak-kinds=all --run-libc-freeres=no --run-cxx-freeres=no \
    "$D/t-reach" $mode > /dev/null 2> "$WORK/$mode.vg"
  eq "$mode: exit status under Valgrind = the program's own" "$?" "$plain_rc"
  for kind in "definitely lost" "indirectly lost" "still reachable"; do
    key=$(echo "$kind" | tr ' ' _)
    set -- $(vg_kind "$WORK/$mode.vg" "$kind")
    eq "$mode: $kind bytes = Valgrind's ($1)" "$(js "$WORK/$mode.json" ".reachability.${key}_bytes")" "$1"
    eq "$mode: $kind blocks = Valgrind's ($2)" "$(js "$WORK/$mode.json" ".reachability.${key}_blocks")" "$2"
  done
  set -- $(vg_kind "$WORK/$mode.vg" "possibly lost")
  eq "$mode: possibly lost blocks = Valgrind's ($2)" "$(js "$WORK/$mode.json" .reachability.possibly_lost_blocks)" "$2"
  vg_dtv_bytes=$(vg_dtv "$WORK/$mode.vg")
  our_dtv_bytes=$(js "$WORK/$mode.json" '[.reachability.stacks.possibly_lost[] | select(any(.stack[]; .function == "_dl_allocate_tls")) | .bytes] | add // 0')
  check "$mode: the thread's DTV is possibly lost on both sides ($our_dtv_bytes, $vg_dtv_bytes)" \
    test "${vg_dtv_bytes:-0}" -gt 0 -a "$our_dtv_bytes" -gt 0
  eq "$mode: possibly lost bytes without the DTV = Valgrind's" \
    "$(( $(js "$WORK/$mode.json" .reachability.possibly_lost_bytes) - our_dtv_bytes ))" "$(( $1 - ${vg_dtv_bytes:-0} ))"
  eq "$mode: the scan is complete" "$(js "$WORK/$mode.json" .reachability.complete)" true
  eq "$mode: the kinds add up to the leaked blocks" \
    "$(js "$WORK/$mode.json" '[.reachability | .definitely_lost_blocks, .indirectly_lost_blocks, .possibly_lost_blocks, .still_reachable_blocks] | add')" \
    "$(js "$WORK/$mode.json" .summary.leaked_blocks)"
  # per stack: the list's head definitely lost, its 9 other nodes indirectly
  eq "$mode: drop_list's head is definitely lost" \
    "$(js "$WORK/$mode.json" '[.reachability.stacks.definitely_lost[] | select(.stack[0].function == "drop_list") | "\(.bytes)/\(.blocks)"] | join(",")')" "32/1"
  eq "$mode: drop_list's other nodes are indirectly lost" \
    "$(js "$WORK/$mode.json" '[.reachability.stacks.indirectly_lost[] | select(.stack[0].function == "drop_list") | "\(.bytes)/\(.blocks)"] | join(",")')" "288/9"
  eq "$mode: the cycle has one definitely-lost head" \
    "$(js "$WORK/$mode.json" '[.reachability.stacks.definitely_lost[] | select(.stack[0].function == "drop_cycle") | "\(.bytes)/\(.blocks)"] | join(",")')" "48/1"
  eq "$mode: the block on the blocked thread's stack is still reachable" \
    "$(js "$WORK/$mode.json" '[.reachability.stacks.still_reachable[] | select(.stack[0].function == "thread_main") | "\(.bytes)/\(.blocks)"] | join(",")')" "200/1"
  eq "$mode: stdout's buffer is still reachable, not lost" \
    "$(js "$WORK/$mode.json" '[.reachability.stacks | to_entries[] | .key as $k | .value[] | select(any(.stack[]; .function == "_IO_file_doallocate")) | "\($k):\(.bytes)"] | join(",")')" \
    "still_reachable:$(stat -c %o "$WORK/$mode.out")"
  "$HL_CLI" report "$tr" > "$WORK/$mode.txt" 2>&1
  check "$mode: report's text says 'definitely lost: 104 B in 3 blocks'" grep -q "definitely lost: *104 B in 3 blocks" "$WORK/$mode.txt"
  check "$mode: report's text gives the scan's time" grep -q "leak scan: .* ms at exit" "$WORK/$mode.txt"
done

# A real program: sqlite3 (its allocator keeps each block's size in its
# first 8 bytes and hands out a pointer past it: Valgrind's length64
# heuristic, which the scan applies too), the four kinds exactly
i=0
while [ $i -lt 300 ]; do
  echo "INSERT INTO t VALUES ($i, 'name-$i', $((i % 7)));"
  i=$((i + 1))
done > "$WORK/work.sql"
sed -i '1i CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c INTEGER); CREATE INDEX tc ON t (c);' "$WORK/work.sql"
echo "SELECT c, count(*) FROM t GROUP BY c;" >> "$WORK/work.sql"
rm -f "$WORK/db.sqlite"
sqlite3 "$WORK/db.sqlite" -init "$WORK/work.sql" .quit > "$WORK/sq.plain" 2>&1
sq_rc=$?
rm -f "$WORK/db.sqlite"
under_preload "$WORK/sq.hltrace" sqlite3 "$WORK/db.sqlite" -init "$WORK/work.sql" .quit > "$WORK/sq.out" 2>&1
eq "sqlite3: exit status under the preload = its own" "$?" "$sq_rc"
check "sqlite3: output under the preload = its own" cmp -s "$WORK/sq.out" "$WORK/sq.plain"
"$HL_CLI" report --json "$WORK/sq.hltrace" > "$WORK/sq.json" 2>&1
rm -f "$WORK/db.sqlite"
valgrind --leak-check=full --show-leak-kinds=all --run-libc-freeres=no \
  sqlite3 "$WORK/db.sqlite" -init "$WORK/work.sql" .quit > /dev/null 2> "$WORK/sq.vg"
for kind in "definitely lost" "indirectly lost" "possibly lost" "still reachable"; do
  key=$(echo "$kind" | tr ' ' _)
  set -- $(vg_kind "$WORK/sq.vg" "$kind")
  eq "sqlite3: $kind = Valgrind's ($1 bytes in $2 blocks)" \
    "$(js "$WORK/sq.json" "\"\\(.reachability.${key}_bytes) \\(.reachability.${key}_blocks)\"")" "$1 $2"
done

# record's saved costs (the COSTS packet, docs/trace-format.md 7e) hold the
# scan: report from them gives what the events give
tr=$WORK/costs.hltrace
HEAPLENS_RECORD_COSTS_MIN=0 "$HL_CLI" record --costs -o "$tr" -- "$D/t-reach" print > /dev/null 2>&1
eq "record: exit status kept" "$?" "$plain_rc"
eq "record --costs: the trace ends with a COSTS packet" "$(tail -c 8 "$tr" | head -c 7)" HLCOSTS
"$HL_CLI" report --json "$tr" | jq -S .reachability > "$WORK/saved.json"
HEAPLENS_NO_COSTS_PACKET=1 "$HL_CLI" report --json "$tr" | jq -S .reachability > "$WORK/events.json"
check "report from the saved costs: the scan there" grep -q definitely_lost_bytes "$WORK/saved.json"
check "report from the saved costs = from the events (kinds, stacks, time)" cmp -s "$WORK/saved.json" "$WORK/events.json"

# HEAPLENS_LEAK_SCAN=0: no scan, the leaks as before
tr=$WORK/off.hltrace
HEAPLENS_LEAK_SCAN=0 under_preload "$tr" "$D/t-reach" print > /dev/null 2>&1
eq "HEAPLENS_LEAK_SCAN=0: exit status kept" "$?" "$plain_rc"
"$HL_CLI" report --json "$tr" > "$WORK/off.json" 2>&1
eq "HEAPLENS_LEAK_SCAN=0: no reachability in the report" "$(js "$WORK/off.json" 'has("reachability")')" false
eq "HEAPLENS_LEAK_SCAN=0: the same leaked bytes" "$(js "$WORK/off.json" .summary.leaked_bytes)" \
  "$(js "$WORK/print.json" .summary.leaked_bytes)"
# sampling mode: skipped, and the report says why
tr=$WORK/sampled.hltrace
HEAPLENS_SAMPLE_BYTES=512 under_preload "$tr" "$D/t-reach" print > /dev/null 2>&1
eq "sampling mode: exit status kept" "$?" "$plain_rc"
"$HL_CLI" report --json "$tr" > "$WORK/sampled.json" 2>&1
check "sampling mode: the scan is skipped, and the report says why" \
  grep -q '"skipped": "skipped: sampling mode' "$WORK/sampled.json"
finish
