#!/bin/sh
# Every reader salvages first (issue 26 point 1; docs/capture.md, "What is
# kept under each way of dying"): a program run with a bare LD_PRELOAD and
# killed by SIGKILL leaves its session in /dev/shm with the packets its
# threads were still building (t-killed's idle thread: all of its
# allocations). `report` run on the trace, with no prune before, salvages
# them into it first and says so: every allocation the program's own log
# shows is counted. A second report says nothing and gives the same
# numbers; a prune then removes the segment and salvages nothing more; a
# copy of the trace (another inode) and a trace whose session's launcher
# still runs are not touched.
. "$(dirname "$0")/tap-lib.sh"

IDLE=40          # the idle thread's allocations (T_KILLED_IDLE)
IDLE_SIZE=4321   # their size (t-killed.c)

# logged LOG: the allocations the log shows made: per thread, its last
# count; a busy thread's last one less (the line is written just before
# the call, which the kill may have stopped), the idle thread's (4) all
logged () {
  awk '{ if ($2 > m[$1]) m[$1] = $2 }
    END { s = 0; for (k in m) s += (k == 4 ? m[k] : m[k] - 1); print s }' "$1"
}

# allocs REPORT: the allocations `report` counts
allocs () {
  sed -n 's/^  calls: *\([0-9]*\) allocations.*/\1/p' "$1"
}

# idle_allocs TRACE: the idle thread's allocations in TRACE
idle_allocs () {
  HL_SUMMARY_SIZE=$IDLE_SIZE "$SUMMARY" "$1" | sed -n 's/^size_allocs=//p'
}

has_segment () { ls /dev/shm | grep -q -- "-$1-"; }

# run_killed TRACE LOG [ENV...]: t-killed under the bare preload (with its
# idle thread), killed by SIGKILL after 0.4 s; its pid in $p
run_killed () {
  tr=$1
  lg=$2
  shift 2
  env "$@" T_KILLED_IDLE=$IDLE HEAPLENS_OUTPUT="$tr" LD_PRELOAD="$HL_PRELOAD" "$D/t-killed" 3> "$lg" &
  p=$!
  sleep 0.4
  kill -9 "$p"
  wait "$p" 2> /dev/null
}

# 1. bare preload, kill -9, then report with no prune
run_killed "$WORK/r.hltrace" "$WORK/r.log"
eq "the idle thread's allocations are only in the session before a read" "$(idle_allocs "$WORK/r.hltrace")" 0
check "the session stays in /dev/shm" has_segment "$p"
cp "$WORK/r.hltrace" "$WORK/copy.hltrace"
"$HL_CLI" report "$WORK/r.hltrace" > "$WORK/r.report" 2> "$WORK/r.err"
eq "report's status" "$?" 0
check "report says it salvaged the session into the trace, on stderr" \
  grep -q "^salvaged [0-9]* events of pid $p, which died without ending its trace, into $WORK/r.hltrace ([0-9]* lost)$" "$WORK/r.err"
eq "report says it once" "$(grep -c salvaged "$WORK/r.err")" 1
grep -q "^salvaged" "$WORK/r.err" || sed 's/^/# /' "$WORK/r.err"
got=$(allocs "$WORK/r.report")
want=$(logged "$WORK/r.log")
check "report counts every allocation the program logged ($got, $want logged)" test "${got:-0}" -ge "$want"
# (and no more than a few of the preload's start besides: no packet twice)
check "report counts no allocation twice ($got, $want logged)" test "${got:-0}" -le $((want + 64))
check "report says how it ended, and the salvage" \
  grep -q "ended by: *unknown: no exit was recorded (SIGKILL or the OOM killer, most likely); [0-9]* events salvaged, [0-9]* lost" "$WORK/r.report"
eq "the trace holds the idle thread's allocations" "$(idle_allocs "$WORK/r.hltrace")" "$IDLE"
check "the session is left in /dev/shm (for the prune)" has_segment "$p"

# 2. a second read finds nothing more to salvage
size=$(stat -c %s "$WORK/r.hltrace")
"$HL_CLI" report "$WORK/r.hltrace" > "$WORK/r.report2" 2> "$WORK/r.err2"
check "a second report says nothing about a salvage" sh -c "! grep -q salvag '$WORK/r.err2'"
check "and gives the same report" cmp -s "$WORK/r.report" "$WORK/r.report2"
eq "and appends nothing" "$(stat -c %s "$WORK/r.hltrace")" "$size"
"$HL_CLI" flamegraph "$WORK/r.hltrace" > /dev/null 2> "$WORK/r.err3"
check "nor does another reader (flamegraph)" sh -c "! grep -q salvag '$WORK/r.err3'"

# 3. a copy is another file: not salvaged into
"$HL_CLI" report "$WORK/copy.hltrace" > "$WORK/copy.report" 2> "$WORK/copy.err"
check "a copy of the trace is not salvaged into (another inode)" sh -c "! grep -q salvag '$WORK/copy.err'"
check "and says no exit was recorded" \
  grep -q "^  not freed: .* at the trace's end (no exit recorded: killed, or still running)$" "$WORK/copy.report"

# 4. the prune removes the segment and salvages nothing more
"$HL_CLI" sessions --prune > "$WORK/prune" 2>&1
check "sessions --prune salvages nothing more" sh -c "! grep -q 'salvaged.* $p,' '$WORK/prune'"
check "and removes the segment" sh -c "! ls /dev/shm | grep -q -- '-$p-'"
eq "the trace is as the first report left it" "$(stat -c %s "$WORK/r.hltrace")" "$size"

# 5. a session whose launcher still runs is the launcher's: not touched
sleep 30 &
launcher=$!
run_killed "$WORK/l.hltrace" "$WORK/l.log" HEAPLENS_KEEP_SESSION=1 HEAPLENS_LAUNCHER=$launcher
size=$(stat -c %s "$WORK/l.hltrace")
"$HL_CLI" report "$WORK/l.hltrace" > "$WORK/l.report" 2> "$WORK/l.err"
check "launcher alive: report salvages nothing" sh -c "! grep -q salvag '$WORK/l.err'"
eq "launcher alive: the trace is not touched" "$(stat -c %s "$WORK/l.hltrace")" "$size"
check "launcher alive: the session stays" has_segment "$p"
kill "$launcher"
wait "$launcher" 2> /dev/null
"$HL_CLI" report "$WORK/l.hltrace" > "$WORK/l.report2" 2> "$WORK/l.err2"
check "launcher gone: the next report salvages" grep -q "^salvaged [0-9]* events of pid $p," "$WORK/l.err2"
eq "launcher gone: the trace holds the idle thread's allocations" "$(idle_allocs "$WORK/l.hltrace")" "$IDLE"
"$HL_CLI" sessions --prune > /dev/null 2>&1
finish
