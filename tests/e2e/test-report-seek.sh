#!/bin/sh
# report --from/--to read with the trailing index (issue 26, point 3;
# docs/cli.md): the packets of the range, the whole run's summary from a
# costs-only load. The oracle is the report of every event: the same
# trace with its index cut off (a walk, and a note on stderr), and
# HEAPLENS_REPORT_FULL=1; the reports must be byte for byte the same, text
# and JSON, for ranges at the start, in the middle, at the end, around the
# idle thread's block (temporary: freed long after any range around it),
# and with --thread. A damaged index reads by a walk, with a note.
set -u
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
TARGET="${HL_RANGE_TARGET:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-report-seek.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset MALLOC_CHECK_ MALLOC_PERTURB_ G_DEBUG HEAPLENS_REPORT_FULL HEAPLENS_NO_COSTS_PACKET
T=0
FAILED=0

ok () {
  T=$((T + 1))
  if [ "$1" -eq 0 ]; then echo "ok $T - $2"; else echo "not ok $T - $2"; FAILED=$((FAILED + 1)); fi
}
has () { # has DESCRIPTION FILE REGEX
  if grep -Eq "$3" "$2"; then ok 0 "$1"; else sed 's/^/# /' "$2"; ok 1 "$1"; fi
}
lacks () { # lacks DESCRIPTION FILE REGEX
  if grep -Eq "$3" "$2"; then sed 's/^/# /' "$2"; ok 1 "$1"; else ok 0 "$1"; fi
}
same () { # same DESCRIPTION A B
  if cmp -s "$2" "$3" && [ -s "$2" ]; then ok 0 "$1"; else diff "$2" "$3" | head -20 | sed 's/^/# /'; ok 1 "$1"; fi
}

# Every copy is t.hltrace in a folder of its own (p: plain, n: p without
# its index, nz: n compressed, d: p with a damaged index, z: another run,
# compressed, its costs saved), so that their reports, which name the
# file, compare byte for byte.
mkdir "$WORK/p" "$WORK/n" "$WORK/nz" "$WORK/d" "$WORK/z"
"$CLI" record --no-compress -o "$WORK/p/t.hltrace" -- "$TARGET" > /dev/null 2> "$WORK/record.err"
ok $? "record --no-compress t-range"
HEAPLENS_RECORD_COSTS_MIN=0 \
  "$CLI" record --costs -o "$WORK/z/t.hltrace" -- "$TARGET" > /dev/null 2>> "$WORK/record.err"
ok $? "record t-range (compressed)"
[ "$(tail -c 8 "$WORK/z/t.hltrace" | tr -d '\0')" = HLCOSTS ]
ok $? "compressed: its costs saved (the whole run's summary read from them)"

# The index cut off: the INDEX_TAIL's first field (the last 88 bytes: a
# 64-byte header, then first_index_offset:u64) is where the index starts.
size=$(wc -c < "$WORK/p/t.hltrace")
first=$(tail -c 24 "$WORK/p/t.hltrace" | od -An -tu8 -N8 | tr -d ' ')
[ -n "$first" ] && [ "$first" -gt 64 ] && [ "$first" -lt "$size" ]
ok $? "plain: the index starts at $first of $size bytes"
head -c "$first" "$WORK/p/t.hltrace" > "$WORK/n/t.hltrace"
"$CLI" dump --index "$WORK/n/t.hltrace" > "$WORK/n.index" 2>&1
has "the copy has no trailing index" "$WORK/n.index" '^index: [0-9]+ packets, walked \(no trailing index'
"$CLI" compress -o "$WORK/nz/t.hltrace" "$WORK/n/t.hltrace" > /dev/null 2>&1
ok $? "the copy compressed (compress keeps no index)"
# a damaged index: a byte of the first INDEX packet's content changed
cp "$WORK/p/t.hltrace" "$WORK/d/t.hltrace"
at=$((first + 70))
byte=$(od -An -tu1 -j "$at" -N1 "$WORK/d/t.hltrace" | tr -d ' ')
# shellcheck disable=SC2059
printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$WORK/d/t.hltrace" bs=1 seek="$at" conv=notrunc 2> /dev/null
"$CLI" dump --index "$WORK/d/t.hltrace" > "$WORK/d.index" 2>&1
has "the damaged copy's index is walked" "$WORK/d.index" 'walked \(the trailing index is damaged'

rep () { # rep COPY ARGS...: report of WORK/COPY/t.hltrace, from there
  c=$1
  shift
  (cd "$WORK/$c" && "$CLI" report "$@" t.hltrace)
}

rep p --json > "$WORK/whole.json" 2> /dev/null
dur=$(sed -n 's/.*"duration_ns": \([0-9]*\).*/\1/p' "$WORK/whole.json" | head -n 1)
worker=$(grep -o '"tid": [0-9]*, "name": "worker-1"' "$WORK/whole.json" | sed 's/"tid": \([0-9]*\),.*/\1/')
late=$(grep -o '"tid": [0-9]*, "name": "late-2"' "$WORK/whole.json" | sed 's/"tid": \([0-9]*\),.*/\1/')
idler_ns=$(grep -o '"name": "idler", "start_ns": [0-9]*' "$WORK/whole.json" | sed 's/.*: //')
[ -n "$dur" ] && [ -n "$worker" ] && [ -n "$late" ] && [ -n "$idler_ns" ]
ok $? "the whole run: ${dur:-?} ns, worker-1 tid ${worker:-?}, late-2 tid ${late:-?}, idler from ${idler_ns:-?} ns"
[ -n "$dur" ] && [ -n "$worker" ] && [ -n "$late" ] && [ -n "$idler_ns" ] || { echo "1..$T"; exit 1; }

# ranges: the start, the middle (narrow), the end, around the idle block,
# a worker's thread in the middle, a late thread (absent before 400 ms)
a=$((dur / 10)); b=$((dur / 5)); m=$((dur / 2)); m2=$((dur / 2 + dur / 50)); e=$((dur * 9 / 10))
set -- "--to $a" "--from $a --to $b" "--from $m --to $m2" "--from $e" \
       "--from $((idler_ns > 20000000 ? idler_ns - 20000000 : 0)) --to $((idler_ns + 120000000))" \
       "--from $a --to $m --thread $worker" "--from $m --to $dur --thread $late"
k=0
for r in "$@"; do
  k=$((k + 1))
  for form in text json; do
    j=--top=10; [ $form = json ] && j=--json
    # (a plain trace has no saved costs: HEAPLENS_REPORT_SEEK=1 seeks all
    # the same; HEAPLENS_DEBUG=timing says what a range load read)
    # shellcheck disable=SC2086
    HEAPLENS_REPORT_SEEK=1 HEAPLENS_DEBUG=timing rep p $j $r > "$WORK/$k.$form.p" 2> "$WORK/$k.$form.p.err"
    # shellcheck disable=SC2086
    HEAPLENS_REPORT_SEEK=1 rep n $j $r > "$WORK/$k.$form.n" 2> "$WORK/$k.$form.n.err"
    # shellcheck disable=SC2086
    rep p $j $r > "$WORK/$k.$form.p0" 2> "$WORK/$k.$form.p0.err"
    # shellcheck disable=SC2086
    HEAPLENS_REPORT_FULL=1 rep p $j $r > "$WORK/$k.$form.f" 2> /dev/null
    # shellcheck disable=SC2086
    rep nz $j $r > "$WORK/$k.$form.nz" 2> /dev/null
    # shellcheck disable=SC2086
    HEAPLENS_DEBUG=timing rep z $j $r > "$WORK/$k.$form.z" 2> "$WORK/$k.$form.z.err"
    # shellcheck disable=SC2086
    HEAPLENS_REPORT_FULL=1 rep z $j $r > "$WORK/$k.$form.zf" 2> /dev/null
    same "$r ($form): plain, with the index = without it" "$WORK/$k.$form.p" "$WORK/$k.$form.n"
    same "$r ($form): plain, with the index = every event (HEAPLENS_REPORT_FULL=1)" "$WORK/$k.$form.p" "$WORK/$k.$form.f"
    same "$r ($form): compressed without the index = plain without it" "$WORK/$k.$form.nz" "$WORK/$k.$form.n"
    same "$r ($form): compressed, costs saved, with the index = every event" "$WORK/$k.$form.z" "$WORK/$k.$form.zf"
    same "$r ($form): plain without saved costs, not forced: loaded whole, the same" "$WORK/$k.$form.p" "$WORK/$k.$form.p0"
    lacks "$r ($form): with the index, no note" "$WORK/$k.$form.p.err" 'note:'
    has "$r ($form): plain, forced: a range load" "$WORK/$k.$form.p.err" 'load: range: [0-9]+ of [0-9]+ bytes read'
    lacks "$r ($form): plain, not forced: no note" "$WORK/$k.$form.p0.err" 'note:'
    lacks "$r ($form): compressed with the index, no note" "$WORK/$k.$form.z.err" 'note:'
    has "$r ($form): compressed with saved costs: a range load" "$WORK/$k.$form.z.err" 'load: range: [0-9]+ of [0-9]+ bytes read'
    has "$r ($form): without it, the note" "$WORK/$k.$form.n.err" 'note: every allocation is loaded .*no trailing index'
  done
done
# flamegraph shows the selection only: it seeks without saved costs
fg () { # fg COPY ARGS...: flamegraph of WORK/COPY/t.hltrace, from there
  c=$1
  shift
  (cd "$WORK/$c" && "$CLI" flamegraph "$@" t.hltrace)
}
k=0
for r in "$@"; do
  k=$((k + 1))
  for x in "--cost bytes" "--cost leaked" "--cost temporary --inverted" "--format svg --cost peak"; do
    # shellcheck disable=SC2086
    HEAPLENS_DEBUG=timing fg p $x $r > "$WORK/$k.fg.p" 2> "$WORK/$k.fg.p.err"
    # shellcheck disable=SC2086
    fg n $x $r > "$WORK/$k.fg.n" 2> "$WORK/$k.fg.n.err"
    # shellcheck disable=SC2086
    HEAPLENS_REPORT_FULL=1 fg p $x $r > "$WORK/$k.fg.f" 2> /dev/null
    if cmp -s "$WORK/$k.fg.p" "$WORK/$k.fg.f" && cmp -s "$WORK/$k.fg.p" "$WORK/$k.fg.n"; then
      ok 0 "flamegraph $x $r: with the index = without it = every event"
    else
      diff "$WORK/$k.fg.p" "$WORK/$k.fg.f" | head -10 | sed 's/^/# /'
      ok 1 "flamegraph $x $r: with the index = without it = every event"
    fi
    grep -Eq 'load: range: [0-9]+ of' "$WORK/$k.fg.p.err" && ! grep -q 'note:' "$WORK/$k.fg.p.err" \
      && grep -q 'note: every allocation is loaded' "$WORK/$k.fg.n.err"
    ok $? "flamegraph $x $r: a range load with the index, a note without"
  done
done

# the idle thread's block, freed at the end, counted temporary in its range
has "around the idle block: temporary counted" "$WORK/5.json.p" '"selection": \{[^}]*"temporary": [1-9]'
has "around the idle block: read on past the range until it was freed" "$WORK/5.json.p.err" 'bytes read \([1-9][0-9]* after'
has "a late thread's range: its allocations counted" "$WORK/7.json.p" '"selection": \{"allocations": [1-9]'

# a damaged index: walked, with the loader's warning and a note
HEAPLENS_REPORT_SEEK=1 rep d --from "$a" --to "$b" > "$WORK/d.out" 2> "$WORK/d.err"
ok $? "damaged index: report exits 0"
has "damaged index: a note on stderr" "$WORK/d.err" 'note: every allocation is loaded'
has "damaged index: the report's warning" "$WORK/d.out" 'trailing index is damaged'
HEAPLENS_REPORT_FULL=1 rep d --from "$a" --to "$b" > "$WORK/d.full" 2> /dev/null
same "damaged index: the report of every event" "$WORK/d.out" "$WORK/d.full"

echo "1..$T"
[ $FAILED -eq 0 ]
