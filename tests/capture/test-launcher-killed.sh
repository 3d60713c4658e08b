#!/bin/sh
# `record` killed while its program runs (issue 26, point 2; docs/capture.md,
# "What is kept under each way of dying"): the program runs on to its end,
# its trace complete (END with its exit status); its end finds the launcher
# gone (a zombie first: not reaped yet) and removes its segment and the
# file record was compressing to. Then the fatal signals with the launcher
# killed first (point 1's tests): the trace ends with the signal's END.
. "$(dirname "$0")/tap-lib.sh"

# segments_of DIR: the session segments of this user whose trace is in DIR
segments_of () {
  n=0
  for f in /dev/shm/heaplens-"$(id -u)"-*; do
    [ -f "$f" ] || continue
    head -c 4096 "$f" 2> /dev/null | grep -qa "$1/" && n=$((n + 1))
  done
  echo $n
}

# pid_of PATTERN: the first process whose command line starts so (2 s)
pid_of () {
  for i in $(seq 20); do
    p=$(pgrep -f "^$1" | head -n 1)
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.1
  done
}

# wait_gone PID: until it has ended (at most 10 s)
wait_gone () {
  for i in $(seq 100); do
    kill -0 "$1" 2> /dev/null || return
    sleep 0.1
  done
}

# 1. record killed with SIGKILL, and reaped: the program runs on and ends
dir=$WORK/k
mkdir "$dir"
"$HL_CLI" record -o "$dir/t.hltrace" -- "$D/t-linger" 1200 > /dev/null 2>&1 &
rec=$!
p=$(pid_of "$D/t-linger")
sleep 0.3
kill -9 "$rec"
wait "$rec" 2> /dev/null
check "record killed: the program still runs" kill -0 "$p"
wait_gone "$p"
summarize "$dir/t.hltrace" "$dir/sum"
eq "record killed: the trace ends with the program's exit status" "$(field "$dir/sum" end_status)" 0
eq "record killed: no segment left" "$(segments_of "$dir")" 0
eq "record killed: no .tmp-compress left" "$(ls "$dir" | grep -c 'tmp-compress')" 0

# 2. record killed, not reaped (a zombie) while the program ends
dir=$WORK/z
mkdir "$dir"
# python3 starts record and does not reap it before it exits
/usr/bin/python3 -c '
import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open(sys.argv[4] + ".pid", "w").write(str(p.pid))
time.sleep(4)
' "$HL_CLI" record -o "$dir/t.hltrace" -- "$D/t-linger" 1200 &
shpid=$!
p=$(pid_of "$D/t-linger")
sleep 0.3
rec=$(cat "$dir/t.hltrace.pid")
rm -f "$dir/t.hltrace.pid"
kill -9 "$rec"
sleep 0.2
check "record killed, a zombie: it is one" grep -q "^State:.Z" "/proc/$rec/status"
wait_gone "$p"
eq "record killed, a zombie: no segment left" "$(segments_of "$dir")" 0
eq "record killed, a zombie: no .tmp-compress left" "$(ls "$dir" | grep -c 'tmp-compress')" 0
kill "$shpid" 2> /dev/null; wait "$shpid" 2> /dev/null

# 3. record sent SIGTERM: forwarded, the program ends by it, record finishes
dir=$WORK/t
mkdir "$dir"
"$HL_CLI" record -o "$dir/t.hltrace" -- "$D/t-linger" 3000 > /dev/null 2> "$WORK/t.err" &
rec=$!
pid_of "$D/t-linger" > /dev/null
sleep 0.3
kill -TERM "$rec"
wait "$rec"
eq "record sent SIGTERM: exits as the program did" "$?" 143
eq "record sent SIGTERM: no segment left" "$(segments_of "$dir")" 0
eq "record sent SIGTERM: the trace compressed, nothing aside" "$(ls "$dir")" "t.hltrace"

# 4. SIGSEGV and SIGABRT with the launcher killed first: END 128 + signal
for sig in segv abort; do
  dir=$WORK/$sig
  mkdir "$dir"
  "$HL_CLI" record -o "$dir/t.hltrace" -- "$D/t-linger" 800 "$sig" > /dev/null 2>&1 &
  rec=$!
  p=$(pid_of "$D/t-linger")
  sleep 0.2
  kill -9 "$rec"
  wait "$rec" 2> /dev/null
  wait_gone "$p"
  summarize "$dir/t.hltrace" "$dir/sum"
  want=139
  [ "$sig" = abort ] && want=134
  eq "launcher killed, then $sig: the trace ends with END $want" "$(field "$dir/sum" end_status)" "$want"
  eq "launcher killed, then $sig: no segment left" "$(segments_of "$dir")" 0
done
finish
