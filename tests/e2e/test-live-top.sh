#!/bin/sh
# `heaplens-cli top` on the demo program running under the preload (env as
# `heaplens-cli record` sets it): the metadata phase and live bytes while
# it runs, the exit status once it ended; damaged and foreign sessions are
# refused with a reason and a non-zero status, never a crash.
set -u
T=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-top.XXXXXX")
uid=$(id -u)
segs=""
cleanup () {
  for s in $segs; do rm -f "/dev/shm/$s"; done
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

HEAPLENS_KEEP_SESSION=1 HEAPLENS_FOLLOW=all HEAPLENS_OUTPUT=$WORK/demo.hltrace \
  LD_PRELOAD=$HL_PRELOAD "$HL_DEMO" --seconds 6 > /dev/null 2>&1 &
pid=$!
# wait for the index phase (1/3 .. 2/3 of the run). Six seconds: under
# ASan one `top --once` takes 0.7-1.4 s (it symbolizes the sites it shows),
# and the refreshing top below needs a second or more of the run left.
phase=""
for i in $(seq 1 60); do
  "$CLI" top "$pid" --once > "$WORK/top.txt" 2> "$WORK/top.err"
  phase=$(sed -n 's/^  phase = //p' "$WORK/top.txt")
  [ "$phase" = index ] && break
  sleep 0.1
done
seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
segs=$seg
has "top --once while running: state running" "$WORK/top.txt" '^state +running'
has "top --once: the demo's metadata phase (index)" "$WORK/top.txt" '^  phase = index$'
has "top --once: nonzero heap" "$WORK/top.txt" '^heap +[1-9][0-9.]* (B|KiB|MiB)'
has "top --once: a call site with nonzero live bytes" "$WORK/top.txt" '^ +[1-9][0-9.]* (B|KiB|MiB) +[1-9][0-9]* +'
has "top --once: call sites symbolized from /proc/PID/maps" "$WORK/top.txt" 'demo_'
"$CLI" top "$seg" --once > "$WORK/byname.txt" 2>&1
has "top SESSION (by segment name) works too" "$WORK/byname.txt" "pid $pid "
# the refreshing form, not a tty: plain repeated blocks until the end
"$CLI" top "$pid" --interval 200 > "$WORK/loop.txt" 2>&1
rc=$?
ok $rc "top PID follows the session to its end (status 0)"
n=$(grep -c '^heaplens top' "$WORK/loop.txt")
if [ "$n" -ge 3 ]; then ok 0 "top refreshes ($n blocks)"; else ok 1 "top refreshes ($n blocks)"; fi
has "top: last block says ended with exit status 0" "$WORK/loop.txt" '^state +ended \(exit status 0\)'
if grep -q $'\033' "$WORK/loop.txt"; then ok 1 "no ANSI escapes when stdout is not a tty"; else ok 0 "no ANSI escapes when stdout is not a tty"; fi
wait $pid
# The ended session is read from a copy in $WORK from here on: in /dev/shm
# the session of a process gone is another run's to prune (a build of
# Heaplens older than the launcher rules of `sessions --prune` too), and
# no other run sees the copies.
ended="$WORK/ended-session"
# (a segment is large and mostly holes: 650 MiB of which 1.4 MiB written
# for the demo; copies stay sparse, patches touch the header only)
cp --sparse=always "/dev/shm/$seg" "$ended"
"$CLI" top "$ended" --once > "$WORK/ended.txt" 2>&1
has "top on an ended session: final numbers" "$WORK/ended.txt" '^state +ended \(exit status 0\)'
has "top on an ended session: metadata still readable" "$WORK/ended.txt" '^  seed = 1$'
if grep -q '^unrecorded programs' "$WORK/ended.txt"; then ok 1 "top: no unrecorded programs said when none"; else ok 0 "top: no unrecorded programs said when none"; fi
# the flag UNFOLLOWED (header flags, offset 36, bit 3): the process started
# programs without the preload (built with a sanitizer, or 32-bit)
cp --sparse=always "$ended" "$WORK/unfollowed-session"
python3 -c "
p='$WORK/unfollowed-session'
with open(p,'r+b') as f:
    f.seek(36); b=bytearray(f.read(1)); b[0] |= 8; f.seek(36); f.write(b)"
"$CLI" top "$WORK/unfollowed-session" --once > "$WORK/unf.txt" 2>&1
has "top: programs started without the preload are said" "$WORK/unf.txt" \
  '^unrecorded programs it started that cannot take the preload \(built with a sanitizer, or for another machine\)$'

# damaged copies of the real segment, in $WORK
bad () { # bad NAME PYTHON-PATCH (on b, the first 4 KiB, or f, the file) → runs top on it
  cp --sparse=always "$ended" "$WORK/$1"
  python3 -c "
import os, struct
p='$WORK/$1'
with open(p,'r+b') as f:
    b=bytearray(f.read(4096))
    $2
    f.seek(0)
    f.write(b)"
  "$CLI" top "$WORK/$1" --once > "$WORK/bad.out" 2> "$WORK/bad.err"
  echo $? > "$WORK/bad.rc"
}
bad "heaplens-$uid-$$-1garbage" "b[0:8]=b'NOTHLSHM'"
has "garbage magic: a clear error" "$WORK/bad.err" 'cannot read session .*(magic|not a)'
[ "$(cat "$WORK/bad.rc")" = 1 ]; ok $? "garbage magic: status 1"
bad "heaplens-$uid-$$-2future" "b[8:12]=struct.pack('<I', 99)"
has "version from the future: refused naming the version" "$WORK/bad.err" 'version'
bad "heaplens-$uid-$$-3foreign" "b[32:36]=struct.pack('<I', $uid + 4242)"
has "another uid in the header: refused saying whose it is" "$WORK/bad.err" "uid $((uid + 4242))"
bad "heaplens-$uid-$$-4offsets" "b[80:88]=struct.pack('<Q', 1<<40)"
has "region offset out of the segment: refused" "$WORK/bad.err" 'cannot read session'
bad "heaplens-$uid-$$-5short" "f.truncate(5000)"
has "truncated segment: refused" "$WORK/bad.err" 'cannot read session'
if [ "$uid" = 0 ]; then
  # root can hand a segment to another user: top refuses another owner's file
  cp --sparse=always "$ended" "$WORK/heaplens-0-$$-6owner" 2> /dev/null
  chown 65534 "$WORK/heaplens-0-$$-6owner"
  "$CLI" top "$WORK/heaplens-0-$$-6owner" --once > /dev/null 2> "$WORK/own.err"
  has "a segment owned by another user: refused with the owner" "$WORK/own.err" 'owned by uid 65534, not you'
fi
"$CLI" top 4000000000 --once > /dev/null 2> "$WORK/none.err"
has "a pid without a session: says so" "$WORK/none.err" 'no session for pid'
echo "1..$T"
[ "$FAILED" -eq 0 ]
