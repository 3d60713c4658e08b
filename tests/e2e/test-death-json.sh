#!/bin/sh
# `report --json` of a program that a signal ended (docs/cli.md,
# summary.ended_by_signal): SIGKILL, which the preload cannot catch (record
# salvages the session: salvaged_events and lost_events_at_most are
# numbers), SIGABRT, which it catches (END written: nothing to salvage,
# both null), and a normal exit (no ended_by_signal).
set -u
CLI="${HL_CLI:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }

# ended_by_signal of FILE's report --json, as one line
death () {
  "$CLI" report --json "$1" > "$1.json" 2> "$1.err" || { echo "report failed: $(cat "$1.err")"; return; }
  "$PY" -c '
import json, sys
e = json.load(open(sys.argv[1]))["summary"].get("ended_by_signal", "absent")
if e == "absent":
    print("absent")
else:
    s, l = e["salvaged_events"], e["lost_events_at_most"]
    print(e["signal"], e["name"], "null" if s is None else "int" if isinstance(s, int) and s >= 0 else s,
          "null" if l is None else "int" if isinstance(l, int) and l >= 0 else l)
' "$1.json" 2>&1
}

# a shell that allocates (its words), then kills itself
"$CLI" record --no-costs -o "$WORK/k.hltrace" -- sh -c 'for i in 1 2 3 4 5 6 7 8; do x="$x$i"; done; kill -9 $$' \
  > /dev/null 2> "$WORK/k.rec"
eq "record, SIGKILL: status 137" "$?" 137
eq "report --json, SIGKILL: signal, name, salvaged and lost counted" "$(death "$WORK/k.hltrace")" "9 SIGKILL int int"

"$CLI" record --no-costs -o "$WORK/a.hltrace" -- sh -c 'kill -ABRT $$' > /dev/null 2> "$WORK/a.rec"
eq "record, SIGABRT: status 134" "$?" 134
eq "report --json, SIGABRT (caught by the preload): signal, name, nothing salvaged" \
  "$(death "$WORK/a.hltrace")" "6 SIGABRT null null"

"$CLI" record --no-costs -o "$WORK/e.hltrace" -- sh -c 'exit 3' > /dev/null 2> "$WORK/e.rec"
eq "record, exit 3: status 3" "$?" 3
eq "report --json, exit 3: no signal, no member" "$(death "$WORK/e.hltrace")" "absent"

echo "1..$n"
exit $failed
