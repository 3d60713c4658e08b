#!/bin/sh
# A second `heaplens --record -- PROG ARGS` hands its command line to the
# running instance (GApplication forwards app.record-command over D-Bus):
# it exits at once with status 0, and the running instance records PROG
# with the second one's arguments in the second one's working directory.
# Runs on a private session bus (dbus-run-session), under the caller's X
# server (Xvfb).
set -u
if [ "${HL_FORWARD_INNER:-}" != 1 ]; then
  HL_FORWARD_INNER=1 exec dbus-run-session -- sh "$0" "$@"
fi
T=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-forward.XXXXXX")
primary=""
cleanup () {
  [ -n "$primary" ] && kill "$primary" 2> /dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then echo "ok $T - $2"; else echo "not ok $T - $2"; FAILED=$((FAILED + 1)); fi
}
APP=$HL_BUILD_ROOT/src/app/heaplens
DEMO=$HL_BUILD_ROOT/examples/heaplens-demo
mkdir "$WORK/first" "$WORK/second"
# recordings go to a folder of their own (hl-launch-folder.h)
export XDG_STATE_HOME="$WORK/state"
echo "1..4"

(cd "$WORK/first" && exec "$APP") > "$WORK/first.log" 2>&1 &
primary=$!
up=1
for _ in $(seq 1 200); do
  if gdbus call --session --dest org.heaplens.Heaplens --object-path /org/heaplens/Heaplens \
       --method org.freedesktop.DBus.Peer.Ping > /dev/null 2>&1; then up=0; break; fi
  sleep 0.1
done
ok $up "the first instance is on the session bus"

start=$(date +%s)
# The demo runs far longer than any start-up (60 s): the test stops it once
# the checks have seen it, rather than waiting for it to end.
(cd "$WORK/second" && timeout 30 "$APP" --record -- "$DEMO" --seconds 60 --seed 7) > "$WORK/second.log" 2>&1
rc=$?
sed 's/^/# second: /' "$WORK/second.log"
ok $rc "the second instance hands the command over and exits with status 0"
# the demo has not ended when the second instance is back: it did not wait
# for the recording (a wall-time limit failed under ASan on a loaded
# machine, where starting the second instance alone takes seconds)
demo_pid () { # the pid in the name of the trace the running instance writes, or nothing
  for f in "$WORK"/state/heaplens/heaplens-demo-*/heaplens-demo.*.hltrace; do
    echo "$f" | sed -n 's/.*\.\([0-9][0-9]*\)\.hltrace$/\1/p'
  done
}
for _ in $(seq 1 300); do
  [ -n "$(demo_pid)" ] && break
  sleep 0.1
done
pid=$(demo_pid)
not_waited=1
if [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null; then not_waited=0; fi
echo "# back after $(( $(date +%s) - start )) s, demo pid ${pid:-none}"
ok $not_waited "it does not wait for the recording"

args=1
if [ -n "$pid" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "--seconds 60 --seed 7" \
   && [ "$(readlink "/proc/$pid/cwd")" = "$(cd "$WORK/second" && pwd -P)" ]; then args=0; fi

# Stop it (as the window's Stop does, SIGINT first): the trace is complete.
[ -n "$pid" ] && kill -INT "$pid" 2> /dev/null
found=$args
for _ in $(seq 1 300); do
  if [ "$args" -eq 0 ] && ! kill -0 "$pid" 2> /dev/null && [ -s "$(ls "$WORK"/state/heaplens/heaplens-demo-*/heaplens-demo."$pid".hltrace 2> /dev/null | head -n 1)" ]; then
    found=0
    break
  fi
  sleep 0.1
done
ls -lR "$WORK/first" "$WORK/second" "$WORK/state" | sed 's/^/# /'
sed 's/^/# first: /' "$WORK/first.log" | grep -v "GSettings schema" | head -20
ok $found "the running instance recorded the demo, with its arguments, run in the second one's directory, into a recording folder"
[ "$FAILED" -eq 0 ]
