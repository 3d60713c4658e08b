#!/bin/sh
# A cut or damaged compressed recording keeps what is whole (issue 26,
# points 6 and 11): in independent frames, a flipped byte in one frame
# loses that frame only and report warns with the events lost, a cut
# keeps the whole frames before it, and a recording where damage left
# nothing usable makes report exit 1 ("nothing usable", docs/cli.md),
# not an all-zero report with exit 0. (Every cut and flip offset of a
# small trace: tests/format/test-format-frames.c.)
set -u
B="${HL_BUILD_ROOT:?}"
CLI="$B/src/cli/heaplens-cli"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hl-report-damaged.XXXXXX")
trap '[ -n "${HL_KEEP:-}" ] || rm -rf "$WORK"' EXIT
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
# frames FILE: "END N_EVENTS" of every ZFRAME packet of a compressed trace
frames () {
  python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
pos = 64
while pos + 64 <= len(d):
    size, hsize = struct.unpack_from('<IH', d, pos + 4)
    n_events = struct.unpack_from('<I', d, pos + 56)[0]
    pos += hsize + size
    print(pos, n_events)
PY
}
# flip FILE OFFSET: one byte xor 0x10
flip () {
  python3 -c "
import sys
p, at = sys.argv[1], int(sys.argv[2])
d = bytearray(open(p, 'rb').read()); d[at] ^= 0x10; open(p, 'wb').write(d)" "$1" "$2"
}
allocs () { sed -n 's/^ *calls: *\([0-9]*\) allocations.*/\1/p' "$1" | head -n 1; }

"$CLI" record --no-compress --no-costs -o "$WORK/p.hltrace" -- "$B/tests/capture/t-churn" 300000 > /dev/null 2>&1
ok $? "record --no-compress: exit status 0"

# 1. several frames (1 MiB each): one damaged in the middle
"$CLI" compress --frame-mib 1 -o "$WORK/z.hltrace" "$WORK/p.hltrace" > /dev/null 2>&1
frames "$WORK/z.hltrace" > "$WORK/z.frames"
n=$(wc -l < "$WORK/z.frames")
[ "$n" -ge 3 ]
ok $? "compressed in $n frames of 1 MiB"
"$CLI" report "$WORK/z.hltrace" > "$WORK/whole.out" 2> "$WORK/whole.err"
ok $? "report of the whole trace: exit 0"
whole=$(allocs "$WORK/whole.out")
cp "$WORK/z.hltrace" "$WORK/d.hltrace"
end1=$(sed -n 1p "$WORK/z.frames" | cut -d' ' -f1)
end2=$(sed -n 2p "$WORK/z.frames" | cut -d' ' -f1)
ev2=$(sed -n 2p "$WORK/z.frames" | cut -d' ' -f2)
flip "$WORK/d.hltrace" $(( (end1 + end2) / 2 ))
"$CLI" report "$WORK/d.hltrace" > "$WORK/d.out" 2> "$WORK/d.err"
ok $? "report with frame 2 of $n damaged: exit 0 (the other frames are whole)"
has "it warns: one frame skipped, its $ev2 events lost (bound)" "$WORK/d.out" \
  "1 damaged compressed frames skipped, $ev2 events lost \\(bound\\)"
part=$(allocs "$WORK/d.out")
[ -n "$part" ] && [ -n "$whole" ] && [ "$part" -gt 0 ] && [ "$part" -lt "$whole" ]
ok $? "it keeps the other frames' allocations ($part of $whole)"

# 2. cut inside the last frame: the whole frames before it
last_begin=$(sed -n "$((n - 1))p" "$WORK/z.frames" | cut -d' ' -f1)
head -c $((last_begin + 200)) "$WORK/z.hltrace" > "$WORK/c.hltrace"
"$CLI" report "$WORK/c.hltrace" > "$WORK/c.out" 2> "$WORK/c.err"
ok $? "report of a trace cut inside its last frame: exit 0"
has "it warns of the cut" "$WORK/c.out" "ends inside a frame"
cut_allocs=$(allocs "$WORK/c.out")
[ -n "$cut_allocs" ] && [ "$cut_allocs" -gt 0 ] && [ "$cut_allocs" -lt "$whole" ]
ok $? "it keeps the whole frames' allocations ($cut_allocs of $whole)"

# 3. one frame, damaged: nothing usable, exit 1
"$CLI" compress -o "$WORK/one.hltrace" "$WORK/p.hltrace" > /dev/null 2>&1
[ "$(frames "$WORK/one.hltrace" | wc -l)" -eq 1 ]
ok $? "compressed in one frame (the default size)"
size=$(wc -c < "$WORK/one.hltrace")
flip "$WORK/one.hltrace" $((size / 2))
"$CLI" report "$WORK/one.hltrace" > "$WORK/one.out" 2> "$WORK/one.err"
st=$?
[ $st -eq 1 ]
ok $? "report of a trace whose only frame is damaged: exit 1 (got $st)"
has "it says nothing usable is left" "$WORK/one.err" "nothing usable"
echo "1..$T"
[ $FAILED -eq 0 ]
