#!/bin/sh
# `heaplens-cli report --json` and `timeline --json` on a program whose
# metadata, mark and thread name hold control characters and invalid UTF-8
# (t-json-strings): the output is valid JSON in valid UTF-8, and each string
# is the program's made valid (one U+FFFD per invalid byte, docs/cli.md);
# flamegraph --format svg of a trace so named is XML.
set -u
CLI="${HL_CLI:?}"
T="${HL_JSON_TARGET:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=/usr/bin/python3
n=0
failed=0

ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
eq () { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:      $2" "expected: $3"; fi; }

"$CLI" record -o "$WORK/s.hltrace" -- "$T" > "$WORK/out" 2> "$WORK/err"
eq "t-json-strings ran under record" "$?/$(cat "$WORK/out")" "0/t-json-strings: ok"

"$CLI" report --json "$WORK/s.hltrace" > "$WORK/r.json" 2> "$WORK/r.err"
eq "report --json" "$?" "0"
# json.loads on bytes: strict UTF-8, no raw control character in a string
eq "report --json: valid JSON, strings made valid" "$("$PY" -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read())
def valid(b): return b.decode("utf-8", "replace")
meta = [m for m in d["metadata"] if m["key"] == valid(b"key\x01\x1f")]
marks = [m for m in d["marks"] if m["text"] == valid(b"mark\x1b[0m\xfe")]
print(len(meta), meta and meta[0]["value"] == valid(b"value\t\x7f\xff\"\\\x80"), len(marks),
      d["summary"]["leaked_blocks"] >= 3)
' "$WORK/r.json" 2>&1)" "1 True 1 True"
eq "report --json: control characters escaped" \
  "$(grep -c "$(printf '[\001-\011\013-\037\177]')" "$WORK/r.json")" "0"

"$CLI" timeline --json --sites 2 "$WORK/s.hltrace" > "$WORK/t.json" 2> "$WORK/t.err"
eq "timeline --json --sites 2: valid JSON" "$?/$("$PY" -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read())
print(len(d["buckets"]), len(d["sites"]) > 0)
' "$WORK/t.json" 2>&1)" "0/100 True"

# the SVG flame graph's title holds the trace's name: XML whatever it is
nasty="$WORK/$(printf 's\001\033\377<&>.hltrace')"
cp "$WORK/s.hltrace" "$nasty"
"$CLI" flamegraph --format svg "$nasty" > "$WORK/f.svg" 2> "$WORK/f.err"
eq "flamegraph --format svg of a trace named with control bytes: XML" "$?/$("$PY" -c '
import sys, xml.etree.ElementTree as E
E.parse(sys.argv[1]); print("parsed")' "$WORK/f.svg" 2>&1)" "0/parsed"

echo "1..$n"
exit $failed
