#!/bin/sh
# The live allocations table: distinct busy 128 KiB regions of the heap
# never share a block of entries while blocks remain (the region
# directory), so a nearly empty table drops nothing; a table really full
# counts its drops; a full directory still finds every block it entered.
. "$(dirname "$0")/tap-lib.sh"

# dropped LOG: the live-table drops of the end line of heaplens-cli record
dropped () {
  sed -n 's/^heaplens: .* \([0-9][0-9]*\) dropped.*/\1/p' "$1" | head -n 1
}

# 2 M entries (512 blocks of 4096) and 16 MiB of 32-byte blocks: 128 dense
# regions, a quarter of the table. With hashed blocks two of them met in a
# block and thousands of inserts were dropped on almost every run.
HEAPLENS_LIVE_SLOTS=2097152 "$HL_CLI" record -o "$WORK/one.hltrace" -- "$D/t-regions" 1 524288 24 > /dev/null 2> "$WORK/one.err"
eq "live table: 128 dense regions, one thread: exit status" "$?" 0
eq "live table: 128 dense regions, one thread: nothing dropped" "$(dropped "$WORK/one.err")" 0
check "live table: 128 dense regions, one thread: no leak" grep -q "524289 allocations, 524289 frees, .* leaked 0 B in 0 blocks" "$WORK/one.err"
summarize "$WORK/one.hltrace" "$WORK/one.sum"
eq "live table: 128 dense regions, one thread: every free found its block" "$(field "$WORK/one.sum" free_unknown)" 0

# 8 threads, each in an arena of its own (64 MiB heap mappings, aligned to
# 64 MiB), all blocks live at once
HEAPLENS_LIVE_SLOTS=2097152 "$HL_CLI" record -o "$WORK/arenas.hltrace" -- "$D/t-regions" 8 65536 24 > "$WORK/arenas.out" 2> "$WORK/arenas.err"
eq "live table: 8 arenas: exit status and output" "$?/$(cat "$WORK/arenas.out")" "0/t-regions: done"
eq "live table: 8 arenas: nothing dropped" "$(dropped "$WORK/arenas.err")" 0
summarize "$WORK/arenas.hltrace" "$WORK/arenas.sum"
eq "live table: 8 arenas: every free found its block" "$(field "$WORK/arenas.sum" free_unknown)" 0
eq "live table: 8 arenas: the allocations" "$(field "$WORK/arenas.sum" allocs)" "$(sed -n 's/^heaplens: [^:]*: \([0-9]*\) allocations.*/\1/p' "$WORK/arenas.err")"

# More regions than blocks: 512 K entries (128 blocks) and 64 MiB of
# 256-byte blocks over 512 regions, the table half full. The regions past
# the 128th share blocks, each the lighter of two; hashed blocks overflowed
# on most runs.
HEAPLENS_LIVE_SLOTS=524288 "$HL_CLI" record -o "$WORK/shared.hltrace" -- "$D/t-regions" 1 262144 240 > /dev/null 2> "$WORK/shared.err"
eq "live table: 4 regions a block: exit status" "$?" 0
eq "live table: 4 regions a block: nothing dropped" "$(dropped "$WORK/shared.err")" 0
check "live table: 4 regions a block: no leak" grep -q "262145 allocations, 262145 frees, .* leaked 0 B in 0 blocks" "$WORK/shared.err"

# fork: the child has a session of its own, with an empty directory; it
# fills the holes the parent left in 128 dense regions (its directory gives
# them blocks anew) and frees them.
HEAPLENS_LIVE_SLOTS=2097152 "$HL_CLI" record -o "$WORK/fork.hltrace" -- "$D/t-regions" 1 524288 24 0 fork > /dev/null 2> "$WORK/fork.err"
eq "live table, fork: exit status" "$?" 0
eq "live table, fork: nothing dropped" "$(dropped "$WORK/fork.err")" 0
child=
for f in "$WORK"/fork.hltrace.*; do
  summarize "$f" "$WORK/fork.sum"
  [ "$(field "$WORK/fork.sum" end_status)" = 5 ] && child=$f
done
check "live table, fork: the child wrote its own trace" test -n "$child"
[ -n "$child" ] && summarize "$child" "$WORK/fork.sum"
eq "live table, fork: the child's blocks, all freed, none dropped" \
  "$(field "$WORK/fork.sum" allocs)/$(field "$WORK/fork.sum" free_unknown)/$(field "$WORK/fork.sum" dropped)/$(field "$WORK/fork.sum" leaked_blocks)" "262145/0/0/0"
summarize "$WORK/fork.hltrace" "$WORK/parent.sum"
eq "live table, fork: the parent's frees all found their blocks" "$(field "$WORK/parent.sum" free_unknown)" 0

# A table really full: 4096 entries for 20,000 live blocks. At least
# 15,904 inserts are dropped and counted; the program runs on.
HEAPLENS_LIVE_SLOTS=4096 "$HL_CLI" record -o "$WORK/full.hltrace" -- "$D/t-regions" 1 20000 24 7 > /dev/null 2> "$WORK/full.err"
eq "live table full: exit status" "$?" 0
n=$(dropped "$WORK/full.err")
check "live table full: the drops are counted (got ${n:-none})" test "${n:-0}" -ge 15904
check "live table full: the counts stay exact" grep -q "20001 allocations, 19994 frees" "$WORK/full.err"
"$HL_CLI" report "$WORK/full.hltrace" > "$WORK/full.report" 2>&1
check "live table full: report's leaks are exact" grep -q "leaked: *168 B in 7 blocks" "$WORK/full.report"

# A full directory: 1024 entries (one block, a directory of 64 words, 48
# regions entered) and 300 blocks of 70,000 bytes over about 160 regions:
# the regions past the 48th are not entered in the directory, and every
# free still finds its block (the lookup knows the directory was full).
HEAPLENS_LIVE_SLOTS=1024 "$HL_CLI" record -o "$WORK/dir.hltrace" -- "$D/t-regions" 1 300 70000 > /dev/null 2> "$WORK/dir.err"
eq "live directory full: exit status" "$?" 0
eq "live directory full: nothing dropped" "$(dropped "$WORK/dir.err")" 0
summarize "$WORK/dir.hltrace" "$WORK/dir.sum"
eq "live directory full: every free found its block" "$(field "$WORK/dir.sum" free_unknown)" 0
check "live directory full: no leak" grep -q "leaked 0 B in 0 blocks" "$WORK/dir.err"

finish
