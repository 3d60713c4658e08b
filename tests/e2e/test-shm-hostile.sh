#!/bin/sh
# /dev/shm is world-writable (issue 26, point 9): a FIFO and a symlink
# named like sessions must not hang `sessions`, `sessions --prune`, `top`,
# `report` or `record`, and each says what it left out. Every command runs
# under `timeout 10`: status 124 is a hang.
set -u
T=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-hostile.XXXXXX")
uid=$(id -u)
fifo="heaplens-$uid-1-$$f1f0"               # pid 1 runs: never "dead"
link="heaplens-$uid-99999990-$$l1nk"         # a pid gone: prune must still leave it
linkfifo="heaplens-$uid-99999991-$$l1nkf"    # a symlink to a FIFO
foreign="heaplens-65534-99999992-$$f0re"
cleanup () {
  rm -f "/dev/shm/$fifo" "/dev/shm/$link" "/dev/shm/$linkfifo" "/dev/shm/$foreign"
  rm -rf "$WORK"
}
trap cleanup EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
CLI=$HL_CLI

ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then echo "ok $T - $2"; else echo "not ok $T - $2"; FAILED=$((FAILED + 1)); fi
}
has () { # has DESCRIPTION FILE REGEX
  if grep -Eq "$3" "$2"; then ok 0 "$1"; else sed 's/^/# /' "$2"; ok 1 "$1"; fi
}
prompt () { # prompt DESCRIPTION STATUS: not a hang (124: timeout killed it)
  if [ "$2" -ne 124 ]; then ok 0 "$1"; else ok 1 "$1 (hung: killed after 10 s)"; fi
}

mkfifo "/dev/shm/$fifo" || { echo "1..0 # SKIP cannot make a FIFO in /dev/shm"; exit 0; }
ln -s /etc/passwd "/dev/shm/$link"
ln -s "/dev/shm/$fifo" "/dev/shm/$linkfifo"

timeout 10 "$CLI" sessions > "$WORK/s.out" 2>&1
rc=$?
prompt "sessions: returns promptly" $rc
ok $rc "sessions: status 0"
has "sessions: says the FIFO is not a session segment" "$WORK/s.out" "$fifo +left out: .*is a FIFO, not a session segment"
has "sessions: says the symlink is one" "$WORK/s.out" "$link +left out: .*symbolic link"
has "sessions: says how many entries it left out" "$WORK/s.out" '^left out 3 entries named like sessions'

timeout 10 "$CLI" sessions --prune > "$WORK/p.out" 2>&1
rc=$?
prompt "sessions --prune: returns promptly" $rc
ok $rc "sessions --prune: status 0"
has "sessions --prune: leaves the FIFO alone, saying so" "$WORK/p.out" "^$fifo: .*FIFO.*: left alone"
has "sessions --prune: leaves the symlink of a dead pid alone, saying so" "$WORK/p.out" "^$link: .*symbolic link: left alone"
[ -p "/dev/shm/$fifo" ] && [ -L "/dev/shm/$link" ] && [ -L "/dev/shm/$linkfifo" ]
ok $? "sessions --prune: removes none of them"

timeout 10 "$CLI" top "/dev/shm/$fifo" --once > /dev/null 2> "$WORK/t.err"
rc=$?
prompt "top FIFO: returns promptly" $rc
[ $rc -ne 0 ] && [ $rc -ne 124 ]; ok $? "top FIFO: refused (status $rc)"
has "top FIFO: says it is a FIFO" "$WORK/t.err" 'is a FIFO, not a session segment'
timeout 10 "$CLI" top "/dev/shm/$linkfifo" --once > /dev/null 2> "$WORK/t.err"
rc=$?
prompt "top symlink to a FIFO: returns promptly" $rc
has "top symlink: says it is a symbolic link" "$WORK/t.err" 'symbolic link'
timeout 10 "$CLI" top 1 --once > /dev/null 2> "$WORK/t1.err"
prompt "top PID whose name is taken by a FIFO: returns promptly" $?

mkfifo "$WORK/trace.fifo"
timeout 10 "$CLI" report "$WORK/trace.fifo" > /dev/null 2> "$WORK/r.err"
rc=$?
prompt "report FIFO: returns promptly" $rc
[ $rc -ne 0 ] && [ $rc -ne 124 ]; ok $? "report FIFO: refused (status $rc)"
has "report FIFO: says it is a FIFO" "$WORK/r.err" 'is a FIFO, not a trace file'
timeout 10 "$CLI" report "/dev/shm/$fifo" > /dev/null 2>&1
prompt "report of the FIFO in /dev/shm: returns promptly" $?

timeout 10 "$CLI" record -o "$WORK/r.hltrace" -- true > /dev/null 2> "$WORK/rec.err"
rc=$?
prompt "record: returns promptly after its program exits" $rc
ok $rc "record: status of its program"

if [ "$uid" = 0 ]; then
  # another user's session: counted, not read
  printf 'x' > "/dev/shm/$foreign"
  chown 65534 "/dev/shm/$foreign"
  timeout 10 "$CLI" sessions > "$WORK/f.out" 2>&1
  has "sessions: says it left out another user's session" "$WORK/f.out" '^left out [0-9]+ sessions? of (another user|other users)'
fi
echo "1..$T"
[ "$FAILED" -eq 0 ]
