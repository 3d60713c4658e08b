#!/bin/sh
# A killed program keeps its last events (docs/capture.md, "What is kept
# under each way of dying"): t-killed's four threads log each allocation
# just before making it; after a kill -9 at a random moment the trace
# holds every one the log shows but those of the last 50 ms (with record,
# which salvages the packets the threads were building: all of them).
. "$(dirname "$0")/tap-lib.sh"

# logged LOG MS: the allocations the log shows made MS ms or more before
# its last line
logged () {
  awk -v ms="$2" '{ t[NR] = $3; k[NR] = $1; n[NR] = $2; if ($3 > last) last = $3 }
    END { for (i = 1; i <= NR; i++) if (t[i] <= last - ms * 1000000 && n[i] > m[k[i]]) m[k[i]] = n[i];
          s = 0; for (j in m) s += m[j]; print s }' "$1"
}

# the t-killed process whose parent is PARENT (or any)
prog_pid () {
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    p=$(pgrep -f "^$D/t-killed" | head -n 1)
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.1
  done
}

random_ms () { awk -v lo="$1" -v hi="$2" 'BEGIN { srand (); printf "%.3f", (lo + rand () * (hi - lo)) / 1000 }'; }

# 1. kill -9 under record, at a random moment
"$HL_CLI" record --no-costs -o "$WORK/k.hltrace" -- "$D/t-killed" 3> "$WORK/k.log" 2> "$WORK/k.err" &
rec=$!
p=$(prog_pid)
sleep "$(random_ms 300 1300)"
kill -9 "$p"
wait $rec
eq "record, kill -9: record dies of the same signal" "$?" 137
summarize "$WORK/k.hltrace" "$WORK/k.sum"
got=$(field "$WORK/k.sum" allocs)
want=$(logged "$WORK/k.log" 0)
check "record, kill -9: every logged allocation is in the trace ($got, $want logged)" test "$got" -ge "$want"
eq "record, kill -9: no damaged packet" "$(field "$WORK/k.sum" bad_events)/$(field "$WORK/k.sum" bad_checksum)" "0/0"
eq "record, kill -9: the trace ends with status 137" "$(field "$WORK/k.sum" end_status)" 137
check "record, kill -9: the end line names the signal and the salvage" \
  grep -q "; ended by SIGKILL (signal 9): [0-9]* events salvaged, [0-9]* lost" "$WORK/k.err"
"$HL_CLI" report "$WORK/k.hltrace" > "$WORK/k.report" 2>&1
check "record, kill -9: report says so" grep -q "ended by: *SIGKILL (signal 9); [0-9]* events salvaged, [0-9]* lost" "$WORK/k.report"
check "record, kill -9: what it held is not called leaked" \
  grep -q "^  not freed: .* blocks when it died (in use then, not leaks)$" "$WORK/k.report"
check "record, kill -9: nor its section" sh -c "grep -q '^most memory not freed when it died' '$WORK/k.report' && ! grep -q '^  leaked:\|^most memory leaked' '$WORK/k.report'"

# 2. a fatal signal the preload catches: END 128+signal, and record names it
"$HL_CLI" record -o "$WORK/s.hltrace" -- "$D/t-crash" segv > /dev/null 2>&1
eq "record, SIGSEGV: status 139" "$?" 139
"$HL_CLI" report "$WORK/s.hltrace" > "$WORK/s.report" 2>&1
check "record, SIGSEGV: report names the signal" grep -q "ended by: *SIGSEGV (signal 11)$" "$WORK/s.report"
"$HL_CLI" record -o "$WORK/a.hltrace" -- "$D/t-crash" abort > /dev/null 2>&1
eq "record, SIGABRT: status 134" "$?" 134
"$HL_CLI" report "$WORK/a.hltrace" > "$WORK/a.report" 2>&1
check "record, SIGABRT: report names the signal" grep -q "ended by: *SIGABRT (signal 6)$" "$WORK/a.report"

# 3. kill -9 without a launcher: packets are written once 50 ms old (the
# machine may hold a thread off its core longer: 250 ms allowed)
HEAPLENS_OUTPUT=$WORK/b.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-killed" 3> "$WORK/b.log" &
p=$!
sleep "$(random_ms 300 1300)"
kill -9 "$p"
wait "$p" 2> /dev/null
summarize "$WORK/b.hltrace" "$WORK/b.sum"
got=$(field "$WORK/b.sum" allocs)
want=$(logged "$WORK/b.log" 250)
check "bare preload, kill -9: the trace holds the allocations logged 250 ms before ($got, $want)" test "$got" -ge "$want"
eq "bare preload, kill -9: no damaged packet" "$(field "$WORK/b.sum" bad_events)/$(field "$WORK/b.sum" bad_checksum)" "0/0"
# (a copy: a report of the trace itself would salvage it first, as
# test-killed-report checks; the copy is another file)
cp "$WORK/b.hltrace" "$WORK/b-copy.hltrace"
"$HL_CLI" report "$WORK/b-copy.hltrace" > "$WORK/b.report0" 2>&1
check "bare preload, kill -9: report says no exit was recorded, not leaked" \
  grep -q "^  not freed: .* at the trace's end (no exit recorded: killed, or still running)$" "$WORK/b.report0"
# ... and its segment stays in /dev/shm with the packets its threads were
# building: `sessions --prune` salvages them into the trace before it
# removes the segment, so every logged allocation is there (issue 26.1)
"$HL_CLI" sessions --prune > "$WORK/b.prune" 2>&1
check "bare preload, kill -9: sessions --prune says it salvaged the session into the trace" \
  grep -q "^salvaged [0-9]* events of pid $p, which died without ending its trace, into $WORK/b.hltrace ([0-9]* lost)$" "$WORK/b.prune"
grep -q "^salvaged" "$WORK/b.prune" || sed 's/^/# /' "$WORK/b.prune"
check "bare preload, kill -9: then removes the segment" sh -c "! ls /dev/shm | grep -q -- '-$p-'"
summarize "$WORK/b.hltrace" "$WORK/b.sum"
got=$(field "$WORK/b.sum" allocs)
want=$(logged "$WORK/b.log" 0)
check "bare preload, kill -9, pruned: every logged allocation is in the trace ($got, $want logged)" test "$got" -ge "$want"
eq "bare preload, kill -9, pruned: no damaged packet" "$(field "$WORK/b.sum" bad_events)/$(field "$WORK/b.sum" bad_checksum)" "0/0"
"$HL_CLI" report "$WORK/b.hltrace" > "$WORK/b.report" 2>&1
check "bare preload, kill -9, pruned: report says no exit was recorded, and the salvage" \
  grep -q "ended by: *unknown: no exit was recorded (SIGKILL or the OOM killer, most likely); [0-9]* events salvaged, [0-9]* lost" "$WORK/b.report"
"$HL_CLI" sessions --prune > "$WORK/b.prune2" 2>&1
check "bare preload, kill -9: a second prune finds nothing more to salvage" sh -c "! grep -q salvaged '$WORK/b.prune2'"

# 4. record killed first: the program runs on, its trace as without a launcher
"$HL_CLI" record --no-costs -o "$WORK/l.hltrace" -- "$D/t-killed" 3> "$WORK/l.log" 2> /dev/null &
rec=$!
p=$(prog_pid)
sleep 0.3
kill -9 $rec
wait $rec 2> /dev/null
sleep 0.3
check "launcher killed: the program still runs" kill -0 "$p"
kill -9 "$p"
sleep 0.3
summarize "$WORK/l.hltrace" "$WORK/l.sum"
got=$(field "$WORK/l.sum" allocs)
want=$(logged "$WORK/l.log" 250)
check "launcher killed, then kill -9: the trace holds the allocations logged 250 ms before ($got, $want)" test "$got" -ge "$want"
finish
