#!/bin/sh
# Continuous heap profiles of a preload set by hand (issue 29, point 2):
# t-profiles runs under a bare LD_PRELOAD with HEAPLENS_PROFILE_DIR in its
# own environment, and `heaplens-cli profiles PID --profile-every 0.5s`
# follows it. The folder is the program's, the files are named by program,
# pid and time, go tool pprof reads them, their numbers are the trace's
# (the alloc profiles add up to report's totals, the last inuse profile,
# written after the program's end, holds what report says it held at its
# exit, which the program prints), the trace is only read (its bytes at
# the program's exit are its bytes after the follower ended, never opened
# for writing, same inode, nothing beside it), SIGTERM writes a last
# profile and exits 0, --profile-keep keeps the newest, a sampled session
# gives estimates, a program killed by SIGKILL ends the follower with a
# last profile, and a missing pid, a process without the preload, another
# user's process, a program without a trace, one that record follows and
# a missing folder are refused.
set -u
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
PRELOAD="$B/src/capture/libheaplens-preload.so"
T="${HL_PROFILES_TARGET:?}"
WORK=$(mktemp -d)
trap 'kill $bg_pids 2> /dev/null; rm -rf "$WORK"' EXIT
bg_pids=
PY=/usr/bin/python3
export HOME="$WORK" GOCACHE="$WORK/gocache"
unset HEAPLENS_PROFILE_DIR
n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# eq NAME GOT WANT [LINES TO SHOW WHEN IT FAILS...]
eq () {
  if [ "$2" = "$3" ]; then ok "$1"; else e_name=$1 e_got=$2 e_want=$3; shift 3; not_ok "$e_name" "got:      $e_got" "expected: $e_want" "$@"; fi
}
# The sums of a profile's two sample types: "OBJECTS BYTES", from -raw
# (test-profiles.sh reads them so too).
sums () {
  go tool pprof -raw "$1" 2>/dev/null \
    | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+:/ { o += $1; b += $2 }
           END { printf "%d %d\n", o, b }'
}
truth () { sed -n "s/^$2 //p" "$1"; }
# the wall-clock ms in a profile's name (...-YYYYMMDDTHHMMSS.mmmZ.KIND.pb.gz)
name_ms () {
  "$PY" -c 'import sys, datetime, re; m = re.search(r"-(\d{8}T\d{6})\.(\d{3})Z\.", sys.argv[1])
d = datetime.datetime.strptime(m.group(1), "%Y%m%dT%H%M%S").replace(tzinfo=datetime.timezone.utc)
print(int(d.timestamp()) * 1000 + int(m.group(2)))' "$1"
}
# waits (at most 3 s) for FILE to exist
wait_file () { i=0; while [ ! -s "$1" ] && [ $i -lt 150 ]; do sleep 0.02; i=$((i + 1)); done; }
# waits (at most 3 s) for PID's session segment in /dev/shm
wait_session () { i=0; while ! ls /dev/shm/heaplens-*-"$1"-* > /dev/null 2>&1 && [ $i -lt 150 ]; do sleep 0.02; i=$((i + 1)); done; }
# refused PID ERR: `profiles PID --profile-dir $WORK/x`, its stderr in ERR,
# again while the session is still being created (at most 3 s); the status
refused () {
  i=0
  while :; do
    "$CLI" profiles "$1" --profile-dir "$WORK/x" > /dev/null 2> "$2"; r_s=$?
    grep -q 'still being created' "$2" && [ $i -lt 150 ] || break
    sleep 0.02; i=$((i + 1))
  done
  return $r_s
}

if ! command -v go > /dev/null 2>&1; then
  echo "1..0 # SKIP go (golang-go) is not installed: the profiles cannot be decoded"
  exit 0
fi
echo "1..24"

# 1. the program under a bare preload, its folder in its own environment,
# the follower beside it (under strace when there is one)
mkdir "$WORK/run" "$WORK/rec"
P="$WORK/prof"
TRACE="$WORK/run/t.hltrace"
HEAPLENS_PROFILE_DIR="$P" HEAPLENS_OUTPUT="$TRACE" LD_PRELOAD="$PRELOAD" "$T" 2.5 > "$WORK/truth" &
pid=$!
bg_pids="$pid"
wait_file "$TRACE"
inode=$(stat -c %i "$TRACE")
if command -v strace > /dev/null 2>&1; then
  # LeakSanitizer cannot run under ptrace: the other runs check leaks
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq \
    -e trace=open,openat,openat2,creat,truncate,ftruncate,rename,renameat,renameat2,unlink,unlinkat \
    -o "$WORK/strace" "$CLI" profiles "$pid" --profile-every 0.5s 2> "$WORK/follow.err" &
else
  "$CLI" profiles "$pid" --profile-every 0.5s 2> "$WORK/follow.err" &
fi
fpid=$!
bg_pids="$bg_pids $fpid"
wait "$pid"; s_prog=$?
# the trace as the program left it, before the follower has ended
sum_at_exit=$(sha256sum < "$TRACE")
wait "$fpid"; s=$?
eq "profiles PID exits 0 once the program has ended" "$s" 0 "$(cat "$WORK/follow.err")"
eq "the program exits 0" "$s_prog" 0
grep -q "heap profiles in $P (the program's HEAPLENS_PROFILE_DIR)" "$WORK/follow.err" \
  && ok "the folder is the program's HEAPLENS_PROFILE_DIR" \
  || not_ok "the folder is the program's HEAPLENS_PROFILE_DIR" "$(cat "$WORK/follow.err")"
said=$(sed -n 's/^heaplens: \([0-9]*\) heap profiles of \(.*\) in \(.*\)$/\1 \2 \3/p' "$WORK/follow.err")
count=${said%% *}
eq "it says 'heaplens: N heap profiles of TRACE in DIR', N from 5 to 8 (2.5 s at 0.5 s)" \
  "$(echo "$said" | awk '{ print ($1 >= 5 && $1 <= 8) ? "yes" : $1 }') ${said#* }" "yes $TRACE $P"
eq "N inuse and N alloc profiles (the default keep removes none), nothing else" \
  "$(ls "$P" | grep -c '\.inuse\.pb\.gz$') $(ls "$P" | grep -c '\.alloc\.pb\.gz$') $(ls -A "$P" | wc -l)" \
  "$count $count $((count * 2))"
eq "every file is named heaplens-t-profiles-PID-TIME.KIND.pb.gz, mode 0600" \
  "$(ls "$P" | grep -cv "^heaplens-t-profiles-$pid-[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{3\}Z\.\(inuse\|alloc\)\.pb\.gz$") $(stat -c %a "$P"/* | sort -u)" \
  "0 600"
last=$(ls "$P"/*.inuse.pb.gz | tail -1)
last_ms=$(name_ms "$last")
end_ms=$(truth "$WORK/truth" end_wall_ms)
eq "the last profile is written after the program's end ($last_ms >= $end_ms)" \
  "$([ "$last_ms" -ge "$end_ms" ] && echo after)" after

# the numbers are the trace's
"$CLI" report --json "$TRACE" > "$WORK/t.json" 2> "$WORK/report.err"
sel () { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["selection"][sys.argv[2]])' "$WORK/t.json" "$1"; }
# t-profiles' blocks, and its array and stdout's buffer
eq "report reads the plain trace: the program's allocations, and what it held" \
  "$(sel allocations) $(sel live_bytes)" \
  "$(($(truth "$WORK/truth" total_blocks) + 2)) $(truth "$WORK/truth" held_bytes)" "$(cat "$WORK/report.err")"
eq "the last inuse profile = what report says was held at the exit (blocks, bytes)" \
  "$(sums "$last")" "$(sel leaked_blocks) $(sel live_bytes)"
alloc_sum=$(for f in "$P"/*.alloc.pb.gz; do sums "$f"; done | awk '{ o += $1; b += $2 } END { printf "%d %d\n", o, b }')
eq "the alloc profiles add up to report's allocations and bytes" \
  "$alloc_sum" "$(sel allocations) $(sel bytes)"
tags=$(go tool pprof -symbolize=none -tags "$last" 2>&1)
eq "labels: program, pid, host and phase=serve" \
  "$(printf '%s\n' "$tags" | awk '/^ [a-z]+: Total/ { k = $1 } k != "" && /\(.*%\): / { sub(/^.*%\): /, ""); print k $0; k = "" }' | sort | tr '\n' ' ')" \
  "host:$(hostname) phase:serve pid:$pid program:$T "

# the trace stays the program's
eq "the trace: its bytes at the program's exit, same inode, nothing written beside it" \
  "$(sha256sum < "$TRACE") $(stat -c %i "$TRACE") $(ls -A "$WORK/run")" "$sum_at_exit $inode t.hltrace"
if [ -s "$WORK/strace" ]; then
  opens=$(grep -F "$WORK/run/" "$WORK/strace")
  n_opens=$(printf '%s\n' "$opens" | grep -c .)
  eq "the follower opened the trace, read-only, and nothing else there (strace)" \
    "$([ "$n_opens" -gt 0 ] && echo opened) $(printf '%s\n' "$opens" | grep -c 'O_RDONLY') $(printf '%s\n' "$opens" | grep -cE 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|truncate|rename|unlink|creat\(')" \
    "opened $n_opens 0" "$opens"
else
  ok "# SKIP strace is not installed"
fi

# 2. refusals: no such pid, a process without the preload, another user's
# process, a program without a trace, a session record follows
"$CLI" profiles 999999999 --profile-dir "$WORK/x" > /dev/null 2> "$WORK/nopid.err"; s=$?
eq "no process of that pid: status 1, said" \
  "$s $(grep -c '^heaplens-cli profiles: no session for pid 999999999 ' "$WORK/nopid.err")" "1 1" "$(cat "$WORK/nopid.err")"
sleep 5 &
plain_pid=$!
bg_pids="$bg_pids $plain_pid"
"$CLI" profiles "$plain_pid" --profile-dir "$WORK/x" > /dev/null 2> "$WORK/plain.err"; s=$?
eq "a process without the preload: status 1, 'is it running under the Heaplens preload?'" \
  "$s $(grep -c "no session for pid $plain_pid (is it running under the Heaplens preload?)" "$WORK/plain.err")" \
  "1 1" "$(cat "$WORK/plain.err")"
kill "$plain_pid" 2> /dev/null
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1; then
  # as nobody, from / (the test's folder is root's), without a trace
  (cd / && exec setpriv --reuid 65534 --regid 65534 --clear-groups \
     env HEAPLENS_OUTPUT=none LD_PRELOAD="$PRELOAD" "$T" 1.5 > /dev/null 2>&1) &
  other_pid=$!
  bg_pids="$bg_pids $other_pid"
  wait_session "$other_pid"
  refused "$other_pid" "$WORK/other.err"; s=$?
  eq "another user's process: status 1, 'belongs to uid 65534, not to you'" \
    "$s $(grep -c "the session of pid $other_pid belongs to uid 65534, not to you" "$WORK/other.err")" \
    "1 1" "$(cat "$WORK/other.err")"
  wait "$other_pid"
else
  ok "# SKIP another user's process: needs root (setpriv) to start one"
fi
HEAPLENS_OUTPUT=none LD_PRELOAD="$PRELOAD" "$T" 1.5 > /dev/null &
none_pid=$!
bg_pids="$bg_pids $none_pid"
wait_session "$none_pid"
refused "$none_pid" "$WORK/none.err"; s=$?
eq "a program without a trace (HEAPLENS_OUTPUT=none): status 1, said" \
  "$s $(grep -c "pid $none_pid writes no trace" "$WORK/none.err")" "1 1" "$(cat "$WORK/none.err")"
wait "$none_pid"
"$CLI" record -o "$WORK/rec/r.hltrace" -- "$T" 6 > /dev/null 2>&1 &
rec_pid=$!
bg_pids="$bg_pids $rec_pid"
i=0
while [ -z "$(pgrep -P "$rec_pid")" ] && [ $i -lt 150 ]; do sleep 0.02; i=$((i + 1)); done
target_of_record=$(pgrep -P "$rec_pid" | head -1)
wait_session "$target_of_record"
refused "$target_of_record" "$WORK/rec.err"; s=$?
eq "a program under record: status 1, 'recorded by its launcher (pid $rec_pid'" \
  "$s $(grep -c "recorded by its launcher (pid $rec_pid" "$WORK/rec.err")" "1 1" "$(cat "$WORK/rec.err")"
eq "nothing written for the refused ones" "$(ls -A "$WORK" | grep -c '^x$')" 0

# 3. sampled, no folder in the program's environment, SIGTERM to the
# follower, --profile-keep 2
HEAPLENS_SAMPLE_BYTES=4096 HEAPLENS_OUTPUT="$WORK/run/s.hltrace" LD_PRELOAD="$PRELOAD" \
  "$T" 3 > "$WORK/s.truth" &
spid=$!
bg_pids="$bg_pids $spid"
wait_file "$WORK/run/s.hltrace"
"$CLI" profiles "$spid" > /dev/null 2> "$WORK/nodir.err"; s=$?
eq "no folder (no --profile-dir, no HEAPLENS_PROFILE_DIR): status 2, said" \
  "$s $(grep -c 'no folder for the profiles' "$WORK/nodir.err")" "2 1" "$(cat "$WORK/nodir.err")"
S="$WORK/sampled"
"$CLI" profiles "$spid" --profile-dir "$S" --profile-every 0.5s --profile-keep 2 2> "$WORK/term.err" &
fpid=$!
bg_pids="$bg_pids $fpid"
sleep 1.8
term_ms=$(date +%s%3N)
kill -TERM "$fpid"
wait "$fpid"; s=$?
newest=$(ls "$S"/*.inuse.pb.gz | tail -1)
newest_ms=$(name_ms "$newest")
eq "SIGTERM: exit 0, a last profile written after it, and said" \
  "$s $([ "$newest_ms" -ge "$term_ms" ] && echo after) $(grep -c '^heaplens: [0-9]* heap profiles of' "$WORK/term.err")" \
  "0 after 1" "$(cat "$WORK/term.err")"
eq "--profile-keep 2: the newest two of each kind left" \
  "$(ls "$S" | grep -c '\.inuse\.pb\.gz$') $(ls "$S" | grep -c '\.alloc\.pb\.gz$') $(ls -A "$S" | wc -l)" "2 2 4"
wait "$spid"
set -- $(sums "$newest")
eq "sampled: period 4096, and the inuse estimate within 15 % of the live set ($2 against $(truth "$WORK/s.truth" live_bytes))" \
  "$(go tool pprof -raw "$newest" 2>&1 | sed -n 's/^Period: //p') $("$PY" -c 'import sys; g, t = map(float, sys.argv[1:]); print(abs(g - t) <= t * 0.15)' "$2" "$(truth "$WORK/s.truth" live_bytes)")" \
  "4096 True"

# 4. the program killed (SIGKILL): its session never ends, the follower
# sees the process gone and ends with a last profile
K="$WORK/killed"
HEAPLENS_OUTPUT="$WORK/run/k.hltrace" LD_PRELOAD="$PRELOAD" "$T" 10 > /dev/null &
kpid=$!
bg_pids="$bg_pids $kpid"
wait_file "$WORK/run/k.hltrace"
"$CLI" profiles "$kpid" --profile-dir "$K" --profile-every 0.5s 2> "$WORK/kill.err" &
fpid=$!
bg_pids="$bg_pids $fpid"
sleep 1.2
kill_ms=$(date +%s%3N)
kill -KILL "$kpid"
wait "$kpid"
wait "$fpid"; s=$?
done_ms=$(date +%s%3N)
knewest=$(ls "$K"/*.inuse.pb.gz 2> /dev/null | tail -1)
eq "SIGKILL of the program: the follower exits 0 within 5 s, a last profile after the kill, said" \
  "$s $([ $((done_ms - kill_ms)) -lt 5000 ] && echo soon) $([ -n "$knewest" ] && [ "$(name_ms "$knewest")" -ge "$kill_ms" ] && echo after) $(grep -c '^heaplens: [0-9]* heap profiles of' "$WORK/kill.err")" \
  "0 soon after 1" "$(cat "$WORK/kill.err")"
# the killed program's segment (nobody removes it but a prune)
rm -f /dev/shm/heaplens-"$(id -u)"-"$kpid"-*
wait "$rec_pid"
exit $failed
