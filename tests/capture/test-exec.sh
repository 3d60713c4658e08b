#!/bin/sh
# A process that exec'd (issue 26, point 5): the report of each image that
# exec'd another says what replaced it and when, never "exit status: -1";
# the last image has the process's exit status or its signal; when the
# rest of the chain ran unrecorded (--no-follow), the last recorded image
# says how the process ended, as record saw it. And the sessions a killed
# record left (point 2): the next record removes them and says so, one
# line each; a running session is left alone.
. "$(dirname "$0")/tap-lib.sh"
uid=$(id -u)

# report_of TRACE OUT: the text report and the JSON one (OUT.json)
report_of () {
  "$HL_CLI" report "$1" > "$2" 2>&1
  "$HL_CLI" report --json "$1" > "$2.json" 2>&1
}

# json_get FILE EXPR: a value of the JSON report (python3)
json_get () {
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print($2)" "$1" 2>&1
}

# a chain of two recorded images: sh, then t-entry (exit status 3). -o
# FILE is the last image's trace, the first's beside it (the first is not
# folded away: HEAPLENS_RECORD_FOLD_MS=0)
HEAPLENS_RECORD_FOLD_MS=0 "$HL_CLI" record -o "$WORK/a.hltrace" -- /bin/sh -c "exec $D/t-entry" > /dev/null 2> "$WORK/a.err"
eq "sh -c 'exec t-entry': the exit status" "$?" 3
first=$(ls "$WORK"/a.hltrace.* 2> /dev/null | head -n 1)
report_of "${first:-$WORK/none}" "$WORK/a.rep"
check "the first image: replaced by exec of t-entry at T" \
  grep -q "^  ended: *replaced by exec of $D/t-entry at [0-9]*\.[0-9]* s$" "$WORK/a.rep"
check "the first image: no exit status line" sh -c "! grep -q 'exit status' '$WORK/a.rep'"
eq "the first image, JSON: replaced_by_exec, exit_status null" \
  "$(json_get "$WORK/a.rep.json" "s['replaced_by_exec']['program'], s['exit_status'], s['replaced_by_exec']['time_ns'] > 0, s['replaced_by_exec']['then_exit_status']")" \
  "$D/t-entry None True None"
last=$WORK/a.hltrace
check "the last image wrote its own trace" test -n "$first" -a -s "$last"
report_of "$last" "$WORK/a2.rep"
check "the last image: exit status 3" grep -q "^  exit status: *3$" "$WORK/a2.rep"
check "the last image: not replaced" sh -c "! grep -q 'replaced by exec' '$WORK/a2.rep'"
eq "the last image, JSON: exit status 3, no replaced_by_exec" \
  "$(json_get "$WORK/a2.rep.json" "s['exit_status'], 'replaced_by_exec' in s")" "3 False"

# the last image killed by SIGKILL: it says so, the first is replaced
HEAPLENS_RECORD_FOLD_MS=0 "$HL_CLI" record -o "$WORK/k.hltrace" -- /bin/sh -c 'exec /bin/sh -c "kill -KILL \$\$"' > /dev/null 2> "$WORK/k.err"
eq "sh -c 'exec sh -c kill -KILL': the status" "$?" 137
first=$(ls "$WORK"/k.hltrace.* 2> /dev/null | head -n 1)
report_of "${first:-$WORK/none}" "$WORK/k.rep"
check "killed chain, the first image: replaced by exec of /bin/sh" \
  grep -q "^  ended: *replaced by exec of /bin/sh at " "$WORK/k.rep"
report_of "$WORK/k.hltrace" "$WORK/k2.rep"
check "killed chain, the last image: ended by SIGKILL" grep -q "^  ended by: *SIGKILL (signal 9)" "$WORK/k2.rep"

# the rest of the chain unrecorded: the first image says how the process ended
"$HL_CLI" record --no-follow -o "$WORK/n.hltrace" -- /bin/sh -c "exec $D/t-entry" > /dev/null 2> "$WORK/n.err"
eq "--no-follow, sh -c 'exec t-entry': the exit status" "$?" 3
report_of "$WORK/n.hltrace" "$WORK/n.rep"
check "--no-follow: replaced by exec of t-entry, which exited with status 3" \
  grep -q "^  ended: *replaced by exec of $D/t-entry at .*; the process, no longer recorded, exited with status 3$" \
  "$WORK/n.rep"
eq "--no-follow, JSON: then_exit_status 3" \
  "$(json_get "$WORK/n.rep.json" "s['replaced_by_exec']['then_exit_status'], s['replaced_by_exec']['then_signal']")" "3 None"
"$HL_CLI" record --no-follow -o "$WORK/s.hltrace" -- /bin/sh -c 'exec /bin/sh -c "kill -TERM \$\$"' > /dev/null 2> "$WORK/s.err"
eq "--no-follow, sh -c 'exec sh -c kill -TERM': the status" "$?" 143
report_of "$WORK/s.hltrace" "$WORK/s.rep"
check "--no-follow: replaced by exec of /bin/sh, which SIGTERM ended" \
  grep -q "^  ended: *replaced by exec of /bin/sh at .*; the process, no longer recorded, ended by SIGTERM (signal 15)$" \
  "$WORK/s.rep"

# an exec that fails: the image goes on, its exit status is its own
"$HL_CLI" record -o "$WORK/f.hltrace" -- /bin/sh -c 'exec /nonexistent/program; exit 5' > /dev/null 2> "$WORK/f.err"
report_of "$WORK/f.hltrace" "$WORK/f.rep"
check "a failed exec: not replaced" sh -c "! grep -q 'replaced by exec' '$WORK/f.rep'"

# Point 2: a record killed with its program leaves the session; the next
# record removes it (one line on stderr); a running one stays.
# wait_segment PID: the name of PID's session once there is one
wait_segment () {
  for i in $(seq 1 400); do
    s=$(ls /dev/shm/heaplens-$uid-$1-* 2> /dev/null | head -n 1)
    [ -n "$s" ] && { echo "$s"; return; }
    sleep 0.025
  done
}
# start_recorded TRACE: record -- sleep 60 in the background; REC and PROG set
start_recorded () {
  "$HL_CLI" record -o "$1" -- sleep 60 > /dev/null 2>&1 &
  REC=$!
  PROG=
  for i in $(seq 1 400); do
    PROG=$(pgrep -P "$REC" 2> /dev/null | head -n 1)
    [ -n "$PROG" ] && break
    sleep 0.025
  done
}
start_recorded "$WORK/dead.hltrace"
dead_rec=$REC dead=$PROG
start_recorded "$WORK/live.hltrace"
live_rec=$REC live=$PROG
dead_seg=$(wait_segment "$dead")
live_seg=$(wait_segment "$live")
check "two recorded programs have their sessions" test -n "$dead_seg" -a -n "$live_seg"
kill -KILL "$dead_rec" "$live_rec"
wait "$dead_rec" "$live_rec" 2> /dev/null
kill -KILL "$dead"
# (a session silent for less than 2 s may be another record's to salvage)
sleep 2.5
"$HL_CLI" record -o "$WORK/next.hltrace" -- "$D/t-entry" > /dev/null 2> "$WORK/next.err"
check "the next record: the dead session is gone" test ! -e "$dead_seg"
check "the next record: says it removed it" grep -q "^heaplens: removed $(basename "$dead_seg") (pid $dead and its launcher $dead_rec ended)\|^heaplens: removed $(basename "$dead_seg") (pid $dead ended)" "$WORK/next.err"
check "the next record: the running session stays" test -e "$live_seg"
check "the next record: its own end line still last" sh -c "tail -n 1 '$WORK/next.err' | grep -q '^heaplens: $WORK/next.hltrace: 23 allocations'"
"$HL_CLI" record -o "$WORK/quiet.hltrace" -- "$D/t-entry" > /dev/null 2> "$WORK/quiet.err"
eq "a record with nothing to remove: one line on stderr" "$(grep -c "removed $(basename "$dead_seg")" "$WORK/quiet.err")" 0
kill -KILL "$live" 2> /dev/null
rm -f "$live_seg" "$dead_seg"
finish
