#!/bin/sh
# The leak scan on demand (docs/capture.md, "Leaks on demand"): t-reach,
# run with a bare LD_PRELOAD, builds its blocks of every kind and then
# allocates and frees a small block every millisecond; `top PID
# --leak-scan` asks it for a scan while it runs. The scan's kinds must be
# the ones the scan at its exit finds on the same blocks (themselves
# checked against Valgrind memcheck by test-leakscan.sh); the program's
# output and exit status are its own; the trace keeps both scans, the
# exit's last. Then the same with the program killed after the scan on
# demand: the trace's scan is the on-demand one, and report says so.
. "$(dirname "$0")/tap-lib.sh"

js () { jq -r "$2" "$1"; }
# the top line's "KIND BYTES in N" as "BYTES N" (BYTES as printed)
top_kind () {
  sed -n "s/.*$2 \([0-9.]* [KMG]*i*B\) in \([0-9]*\).*/\1 \2/p" "$1" | head -n 1
}
fmt () {   # BYTES as the CLI prints a size below 1 KiB or in KiB
  if [ "$1" -lt 1024 ]; then echo "$1 B"; else awk -v b="$1" 'BEGIN { printf "%.2f KiB\n", b / 1024 }'; fi
}
wait_file () {
  i=0
  while [ ! -e "$1" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
  [ -e "$1" ]
}

plain_out=$WORK/plain.out
"$D/t-reach" print > "$plain_out" 2>&1
plain_rc=$?

# 1. asked while it runs, then a clean exit (the program itself in the
# background, so that $! is its pid)
tr=$WORK/demand.hltrace
HEAPLENS_OUTPUT=$tr LD_PRELOAD=$HL_PRELOAD "$D/t-reach" wait "$WORK/ready" "$WORK/go" > "$WORK/demand.out" 2>&1 &
pid=$!
check "the program is ready" wait_file "$WORK/ready"
sleep 0.1
"$HL_CLI" top "$pid" --leak-scan > "$WORK/top.out" 2> "$WORK/top.err"
ok $? "top --leak-scan answers"; sed "s/^/# top: /" "$WORK/top.err"
grep "leak scan" "$WORK/top.out" | sed 's/^/# /'
check "top prints the scan's line" grep -q "^leak scan  at .* definitely lost" "$WORK/top.out"
touch "$WORK/go"
wait "$pid"
rc=$?
eq "exit status under the preload = the program's own" "$rc" "$plain_rc"
check "output under the preload = the program's own" cmp -s "$WORK/demand.out" "$plain_out"
"$HL_CLI" report --json "$tr" > "$WORK/demand.json" 2> "$WORK/demand.err"
ok $? "report --json"
eq "the trace's scan is the exit's" "$(js "$WORK/demand.json" .reachability.on_demand)" false
for kind in "definitely lost" "indirectly lost" "possibly lost" "still reachable"; do
  key=$(echo "$kind" | tr ' ' _)
  bytes=$(js "$WORK/demand.json" ".reachability.${key}_bytes")
  blocks=$(js "$WORK/demand.json" ".reachability.${key}_blocks")
  eq "on demand, $kind = at exit ($(fmt "$bytes") in $blocks)" "$(top_kind "$WORK/top.out" "$kind")" "$(fmt "$bytes") $blocks"
done
"$HL_CLI" dump "$tr" > "$WORK/demand.dump" 2>&1
eq "the trace holds two scans, the first on demand" \
  "$(grep -o 'REACHABILITY flags=[0-9]*' "$WORK/demand.dump" | awk -F= '$2 % 2 == 1 { print $2 }' | tr '\n' ' ')" "5 1 "

# 2. asked while it runs, then killed: the trace's scan is the one on demand
tr=$WORK/killed.hltrace
rm -f "$WORK/ready" "$WORK/go"
HEAPLENS_OUTPUT=$tr LD_PRELOAD=$HL_PRELOAD "$D/t-reach" wait "$WORK/ready" "$WORK/go" > /dev/null 2>&1 &
pid=$!
check "the program is ready (2)" wait_file "$WORK/ready"
sleep 0.1
"$HL_CLI" top "$pid" --leak-scan > "$WORK/top2.out" 2> "$WORK/top2.err"
ok $? "top --leak-scan answers (2)"
sleep 0.2
kill -KILL "$pid"
wait "$pid" 2> /dev/null
"$HL_CLI" sessions --prune > /dev/null 2>&1
"$HL_CLI" report --json "$tr" > "$WORK/killed.json" 2> /dev/null
ok $? "report --json of the killed program"
eq "its scan is the one on demand" "$(js "$WORK/killed.json" .reachability.on_demand)" true
eq "definitely lost on demand: t-reach's 104 B" "$(js "$WORK/killed.json" .reachability.definitely_lost_bytes)" 104
"$HL_CLI" report "$tr" > "$WORK/killed.txt" 2> /dev/null
check "report says the scan was on demand" grep -q "leak scan: .* on demand at " "$WORK/killed.txt"

# 3. an idle program does not answer until it allocates: killed meanwhile,
# top says so and fails
HEAPLENS_OUTPUT=$WORK/idle.hltrace LD_PRELOAD=$HL_PRELOAD sleep 30 &
ipid=$!
sleep 0.3
"$HL_CLI" top "$ipid" --leak-scan > /dev/null 2> "$WORK/idle.err" &
tpid=$!
sleep 0.5
kill -KILL "$ipid"
wait "$ipid" 2> /dev/null
wait "$tpid"
check "top --leak-scan fails when the program dies before it allocates" test $? -ne 0
check "and says why" grep -q "died before it scanned" "$WORK/idle.err"
"$HL_CLI" sessions --prune > /dev/null 2>&1
finish
