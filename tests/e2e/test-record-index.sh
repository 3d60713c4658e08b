#!/bin/sh
# The trailing index (docs/trace-format.md 7, issue 26 point 3): `record`
# ends every recording with it, compressed (the default: the compress
# stream puts it at the end of the last frame) or plain (--no-compress:
# appended), so `dump --index` reads it instead of walking the packets; the
# costs followed while recording are still saved, and a report from them
# equals one from the events. (Its absence and its damage:
# tests/format/test-format-compress-index.c.)
set -u
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-record-index.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG
T=0
FAILED=0

ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then echo "ok $T - $2"; else echo "not ok $T - $2"; FAILED=$((FAILED + 1)); fi
}
has () { # has DESCRIPTION FILE REGEX
  if grep -Eq "$3" "$2"; then ok 0 "$1"; else sed 's/^/# /' "$2"; ok 1 "$1"; fi
}

# 1. compressed, the default; the costs followed (a forced form: saved
# whatever they cost)
HEAPLENS_RECORD_COSTS_MIN=0 HEAPLENS_RECORD_COSTS_STACKS=inline HEAPLENS_RECORD_COSTS_VERBOSE=1 \
  "$CLI" record -o "$WORK/z.hltrace" -- "$B/tests/capture/t-churn" 3000 > /dev/null 2> "$WORK/z.err"
ok $? "record (compressed): exit status 0"
"$CLI" dump --index "$WORK/z.hltrace" > "$WORK/z.index" 2>&1
has "compressed: dump --index reads the trailing index" "$WORK/z.index" '^index: [1-9][0-9]* packets, trailing index$'
saved=no
[ "$(tail -c 8 "$WORK/z.hltrace" | tr -d '\0')" = HLCOSTS ] && saved=yes
if [ $saved = yes ]; then ok 0 "compressed: the followed costs are saved after the index"; else
  sed 's/^/# /' "$WORK/z.err"; ok 1 "compressed: the followed costs are saved after the index"; fi
"$CLI" report --json --top 3 "$WORK/z.hltrace" > "$WORK/z.packet.json" 2> /dev/null
HEAPLENS_NO_COSTS_PACKET=1 "$CLI" report --json --top 3 "$WORK/z.hltrace" > "$WORK/z.decode.json" 2> /dev/null
cmp -s "$WORK/z.packet.json" "$WORK/z.decode.json" && [ -s "$WORK/z.packet.json" ]
ok $? "compressed: the report from the saved costs equals the events'"

# 2. plain (--no-compress)
"$CLI" record --no-compress -o "$WORK/p.hltrace" -- "$B/tests/capture/t-churn" 3000 > /dev/null 2>&1
ok $? "record --no-compress: exit status 0"
"$CLI" dump --index "$WORK/p.hltrace" > "$WORK/p.index" 2>&1
has "plain: dump --index reads the trailing index" "$WORK/p.index" '^index: [1-9][0-9]* packets, trailing index$'
zn=$(sed -n 's/^index: \([0-9]*\) packets.*/\1/p' "$WORK/z.index")
pn=$(sed -n 's/^index: \([0-9]*\) packets.*/\1/p' "$WORK/p.index")
[ -n "$zn" ] && [ -n "$pn" ]
ok $? "both indexes list packets ($zn compressed, $pn plain)"
echo "1..$T"
[ $FAILED -eq 0 ]
