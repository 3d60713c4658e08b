#!/bin/sh
# The preload never changes what a program prints or its exit status; every
# entry point is counted; stacks start at the allocating function; depth,
# full tables, bad settings and an unwritable output degrade as documented.
. "$(dirname "$0")/tap-lib.sh"

# same_behaviour NAME ARGS...: stdout and exit status with and without the
# preload (both unwinders)
same_behaviour () {
  name=$1
  shift
  "$D/$name" "$@" > "$WORK/plain.out" 2> /dev/null
  want=$?
  for mode in libunwind fp; do
    HEAPLENS_UNWIND=$mode under_preload "$WORK/b.hltrace" "$D/$name" "$@" > "$WORK/pre.out" 2> /dev/null
    got=$?
    eq "$name ($mode): same exit status" "$got" "$want"
    cmp -s "$WORK/plain.out" "$WORK/pre.out"
    ok $? "$name ($mode): same output"
  done
}

same_behaviour t-entry
same_behaviour t-churn 3000
same_behaviour t-tree
same_behaviour t-strings
if [ "${HL_HAVE_CXX:-0}" = 1 ]; then
  same_behaviour t-cxx
fi
grep -q "t-entry: ok" "$WORK/plain.out" 2> /dev/null || true

# every entry point, with pvalloc (which Valgrind lacks: known counts)
under_preload "$WORK/e.hltrace" "$D/t-entry" > "$WORK/e.out" 2>&1
eq "t-entry checks errno and alignment itself" "$(cat "$WORK/e.out")" "t-entry: ok"
summarize "$WORK/e.hltrace" "$WORK/e.sum"
eq "entry points: allocations" "$(field "$WORK/e.sum" allocs)" 23
eq "entry points: frees" "$(field "$WORK/e.sum" frees)" 20
eq "entry points: bytes (pvalloc rounded to pages)" "$(field "$WORK/e.sum" bytes)" 10490
eq "entry points: leaked bytes" "$(field "$WORK/e.sum" leaked_bytes)" 8252
eq "entry points: leaked blocks" "$(field "$WORK/e.sum" leaked_blocks)" 3
eq "every free found its allocation" "$(field "$WORK/e.sum" free_unknown)" 0
eq "END carries the exit status" "$(field "$WORK/e.sum" end_status)" 3
eq "metadata events recorded" "$(field "$WORK/e.sum" meta)" 2
eq "trace decodes without damage" "$(field "$WORK/e.sum" bad_events)/$(field "$WORK/e.sum" bad_checksum)" "0/0"
check "module map recorded" test "$(field "$WORK/e.sum" modules)" -ge 3
eq "frame 0 is the allocating function (libunwind)" "$(field "$WORK/e.sum" site_hits)" 10
HEAPLENS_UNWIND=fp under_preload "$WORK/e.hltrace" "$D/t-entry" > /dev/null 2>&1
summarize "$WORK/e.hltrace" "$WORK/e.sum"
eq "frame 0 is the allocating function (fp)" "$(field "$WORK/e.sum" site_hits)" 10
check "trace file is mode 0600" test "$(stat -c %a "$WORK/e.hltrace")" = 600

if [ "${HL_HAVE_CXX:-0}" = 1 ]; then
  under_preload "$WORK/x.hltrace" "$D/t-cxx" > /dev/null 2>&1
  summarize "$WORK/x.hltrace" "$WORK/x.sum"
  eq "C++: operator new frames removed, frame 0 is the caller of new" "$(field "$WORK/x.sum" site_hits)" 20
fi

# the cached-CFI unwinder gives exactly libunwind's stacks
for t in t-tree t-churn t-cxx; do
  [ -x "$D/$t" ] || continue
  HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/$t" > /dev/null 2> "$WORK/u.err"
  check "$t: cached CFI stacks = unw_backtrace's ($(grep 'unwind check' "$WORK/u.err"))" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/u.err"
done

# fp mode: a stack found among the thread's recent stacks is the one a
# fresh frame-pointer walk gives (HEAPLENS_UNWIND_CHECK=1 walks every hit)
for t in t-tree t-churn t-cxx; do
  [ -x "$D/$t" ] || continue
  HEAPLENS_UNWIND=fp HEAPLENS_FP_CHECK=0 HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/$t" > /dev/null 2> "$WORK/u.err"
  check "$t: fp recent stacks = fresh walks ($(grep 'unwind check' "$WORK/u.err"))" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/u.err"
done

# one wrapper called from 24 sites in turn: the 24 stacks share the state
# the unwind starts from, and are all kept among the recent stacks (a key
# discriminator each), not unwound again; 48000 allocations
for mode in libunwind fp; do
  HEAPLENS_UNWIND=$mode HEAPLENS_FP_CHECK=0 HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/t-wrapper" 2000 > "$WORK/w.out" 2> "$WORK/w.err"
  eq "t-wrapper ($mode): output and status" "$?/$(cat "$WORK/w.out")" "0/t-wrapper: done"
  check "t-wrapper ($mode): recent stacks = fresh unwinds ($(grep 'unwind check' "$WORK/w.err"))" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/w.err"
  recent=$(sed -n 's/.* \([0-9]*\) were recent stacks.*/\1/p' "$WORK/w.err")
  check "t-wrapper ($mode): 47900 of 48000 stacks or more were recent ones (${recent:-none})" test "${recent:-0}" -ge 47900
  # the same at -O0, whose sites' spacing put five or six stacks in one
  # set in about a third of the layouts (ASLR): eight runs, each layout
  # its own
  fewest=48000
  for run in 1 2 3 4 5 6 7 8; do
    HEAPLENS_UNWIND=$mode HEAPLENS_FP_CHECK=0 HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/t-wrapper-O0" 2000 > "$WORK/w0.out" 2> "$WORK/w0.err"
    [ "$?/$(cat "$WORK/w0.out")" = "0/t-wrapper: done" ] || fewest=-2
    grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/w0.err" || fewest=-1
    recent=$(sed -n 's/.* \([0-9]*\) were recent stacks.*/\1/p' "$WORK/w0.err")
    [ "$fewest" -ge 0 ] && [ "${recent:-0}" -lt "$fewest" ] && fewest=${recent:-0}
  done
  check "t-wrapper -O0 ($mode), 8 runs: status 0, 0 differ, 47900 of 48000 stacks or more recent ones in each (fewest $fewest; -1: differ, -2: status)" test "$fewest" -ge 47900
done

# fp mode on a program without frame pointers: the check switches to the
# DWARF unwinder, and no stack remembered in fp mode is used afterwards
# (t-nofp allocates from the same stack states before and after)
HEAPLENS_UNWIND=fp HEAPLENS_UNWIND_CHECK=1 HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/t-nofp" > "$WORK/nofp.out" 2> "$WORK/nofp.err"
eq "t-nofp under fp: output and status" "$?/$(cat "$WORK/nofp.out")" "0/t-nofp: done"
check "t-nofp under fp: switched to DWARF" grep -q "switching to the DWARF unwinder" "$WORK/nofp.err"
check "t-nofp under fp: stacks after the switch = fresh unwinds ($(grep 'unwind check' "$WORK/nofp.err"))" grep -q "unwind check: [1-9][0-9]* stacks compared, 0 differ" "$WORK/nofp.err"

# Under an address-space limit (ulimit -v) the tables' reservations
# (1.5 GiB by default, touched as used) would count against the program's
# limit: they shrink to an eighth of it, one line says so, and the program
# is recorded (with the defaults, 1 GB left no room for the session: not
# recorded).
(ulimit -v 1000000 && under_preload "$WORK/as.hltrace" "$D/t-churn" 3000 > "$WORK/as.out" 2> "$WORK/as.err")
eq "ulimit -v 1000000: status and output" "$?/$(cat "$WORK/as.out")" "0/t-churn: done"
check "ulimit -v 1000000: one line names the shrunk tables" \
  grep -q "^heaplens: the address space is limited (ulimit -v); tables shrunk to [0-9]* stacks, [0-9]* live blocks, [0-9]* threads$" "$WORK/as.err"
eq "ulimit -v 1000000: nothing else on stderr" "$(wc -l < "$WORK/as.err")" 1
summarize "$WORK/as.hltrace" "$WORK/as.sum"
eq "ulimit -v 1000000: every allocation recorded, none dropped" "$(field "$WORK/as.sum" allocs)/$(field "$WORK/as.sum" dropped)" "3000/0"

# Under a file-size limit (ulimit -f) a file past it gets the program
# SIGXFSZ, which kills it: the session's segment (a file in /dev/shm,
# 650 MiB by default) is shrunk to fit, or not made when the smallest
# does not fit (512 KB: killed at the start before), and the trace stops
# at the limit (its later events dropped and counted). dash counts
# `ulimit -f` in 512-byte blocks: 16000 is 8,192,000 bytes.
"$D/t-churn" 1000000 > "$WORK/fs.plain" 2>&1
(ulimit -f 1000 && under_preload "$WORK/fs1.hltrace" "$D/t-churn" 1000000 > "$WORK/fs1.out" 2> "$WORK/fs1.err")
eq "ulimit -f 1000 (512 KB): status and output" "$?/$(cat "$WORK/fs1.out")" "0/$(cat "$WORK/fs.plain")"
eq "ulimit -f 1000 (512 KB): one line, not recording" "$(cat "$WORK/fs1.err")" \
  "heaplens: the file size is limited (ulimit -f): no room for the smallest tables; not recording"
(ulimit -f 16000 && under_preload "$WORK/fs8.hltrace" "$D/t-churn" 1000000 > "$WORK/fs8.out" 2> "$WORK/fs8.err")
eq "ulimit -f 16000: status and output" "$?/$(cat "$WORK/fs8.out")" "0/$(cat "$WORK/fs.plain")"
check "ulimit -f 16000: the tables shrunk" grep -q "^heaplens: the file size is limited (ulimit -f); tables shrunk to " "$WORK/fs8.err"
check "ulimit -f 16000: the trace stopped at the limit, said once" \
  test "$(grep -c "^heaplens: the trace reached the file size limit (ulimit -f): the events after it are dropped, the program goes on$" "$WORK/fs8.err")" = 1
check "ulimit -f 16000: the trace within the limit ($(stat -c %s "$WORK/fs8.hltrace") bytes)" test "$(stat -c %s "$WORK/fs8.hltrace")" -le 8192000
summarize "$WORK/fs8.hltrace" "$WORK/fs8.sum"
eq "ulimit -f 16000: the trace reads, whole packets" "$(field "$WORK/fs8.sum" bad_events)/$(field "$WORK/fs8.sum" bad_checksum)" "0/0"
check "ulimit -f 16000: its first events are there ($(field "$WORK/fs8.sum" allocs) allocations)" test "$(field "$WORK/fs8.sum" allocs)" -ge 100000
rm -f "$WORK"/fs*.hltrace

# A small /dev/shm (a container's is 64 MiB by default; 8 MiB here, in a
# mount namespace of our own): a page of the segment touched past its free
# space was SIGBUS in the program (t-regions' half million live blocks:
# 16 MiB of live table). The tables shrink to half its free space.
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
  unshare -m sh -c 'mount -t tmpfs -o size=8m tmpfs /dev/shm && HEAPLENS_OUTPUT="$1" LD_PRELOAD="$2" "$3" 1 524288 24' \
    sh "$WORK/shm.hltrace" "$HL_PRELOAD" "$D/t-regions" > "$WORK/shm.out" 2> "$WORK/shm.err"
  eq "a /dev/shm of 8 MiB: status and output (none)" "$?/$(cat "$WORK/shm.out")" "0/"
  check "a /dev/shm of 8 MiB: one line names it and the tables" \
    grep -q "^heaplens: /dev/shm is small ([0-9]* MiB free); tables shrunk to [0-9]* stacks, [0-9]* live blocks, [0-9]* threads$" "$WORK/shm.err"
  summarize "$WORK/shm.hltrace" "$WORK/shm.sum"
  check "a /dev/shm of 8 MiB: its half million allocations in the trace ($(field "$WORK/shm.sum" allocs))" \
    test "$(field "$WORK/shm.sum" allocs)" -ge 524288
  rm -f "$WORK/shm.hltrace"
else
  ok 0 "a /dev/shm of 8 MiB # SKIP needs root and unshare -m"
fi

# stacks: depth, truncation
under_preload "$WORK/c.hltrace" "$D/t-churn" 3000 > /dev/null 2>&1
summarize "$WORK/c.hltrace" "$WORK/c.sum"
check "libunwind: deep stacks recovered ($(field "$WORK/c.sum" max_frames) frames)" test "$(field "$WORK/c.sum" max_frames)" -ge 26
eq "no stack truncated at the default depth" "$(field "$WORK/c.sum" truncated_stacks)" 0
HEAPLENS_UNWIND=fp under_preload "$WORK/c.hltrace" "$D/t-churn" 3000 > /dev/null 2>&1
summarize "$WORK/c.hltrace" "$WORK/c.sum"
check "fp: deep stacks recovered ($(field "$WORK/c.sum" max_frames) frames)" test "$(field "$WORK/c.sum" max_frames)" -ge 26
HEAPLENS_UNWIND=fp LD_PRELOAD=$HL_PRELOAD HEAPLENS_OUTPUT=none "$D/t-churn" 20000 > /dev/null 2> "$WORK/fp.err"
eq "fp: a program built with frame pointers passes the sampled check (no warning)" "$(cat "$WORK/fp.err")" ""
HEAPLENS_DEPTH=4 under_preload "$WORK/c.hltrace" "$D/t-churn" 3000 > /dev/null 2>&1
summarize "$WORK/c.hltrace" "$WORK/c.sum"
eq "HEAPLENS_DEPTH=4 keeps 4 frames" "$(field "$WORK/c.sum" max_frames)" 4
check "deeper stacks are flagged truncated" test "$(field "$WORK/c.sum" truncated_stacks)" -ge 1

# full tables degrade: counted, dropped, program unaffected
HEAPLENS_LIVE_SLOTS=64 under_preload "$WORK/f.hltrace" "$D/t-churn" 3000 > "$WORK/f.out" 2>&1
eq "full live table: program unaffected" "$?/$(cat "$WORK/f.out")" "0/t-churn: done"
summarize "$WORK/f.hltrace" "$WORK/f.sum"
eq "full live table: every allocation still in the trace" "$(field "$WORK/f.sum" allocs)" 3000
check "full live table: drops counted" test "$(field "$WORK/f.sum" dropped)" -ge 1
check "full live table: frees of dropped blocks recorded by address" test "$(field "$WORK/f.sum" free_unknown)" -ge 1
HEAPLENS_MAX_STACKS=16 under_preload "$WORK/f.hltrace" "$D/t-churn" 3000 > "$WORK/f.out" 2>&1
eq "full stack table: program unaffected" "$?/$(cat "$WORK/f.out")" "0/t-churn: done"
summarize "$WORK/f.hltrace" "$WORK/f.sum"
eq "full stack table: every allocation still in the trace" "$(field "$WORK/f.sum" allocs)" 3000
check "full stack table: at most 16 stacks interned" test "$(field "$WORK/f.sum" stacks)" -le 16
check "full stack table: drops counted" test "$(field "$WORK/f.sum" dropped)" -ge 1

# the stack index's levels (hl-capture-stacks.c): 500 stacks, found again
# by a second and a third thread (whose own caches are empty) in whichever
# level holds them, with 2^10 stacks allowed (levels of 4, 64 and 512
# buckets: all three used) and with the default 2^20: never interned twice
for max in 1024 1048576; do
  for passes in 1 3; do
    HEAPLENS_MAX_STACKS=$max under_preload "$WORK/s.hltrace" "$D/t-stacks" 500 $passes > /dev/null 2>&1
    summarize "$WORK/s.hltrace" "$WORK/s$passes.sum"
  done
  eq "stack index, $max stacks allowed: allocations of 1 and 3 threads" \
    "$(field "$WORK/s1.sum" allocs)/$(field "$WORK/s3.sum" allocs)" "501/1501"
  eq "stack index, $max stacks allowed: the 3 threads' stacks are the 1 thread's, none dropped" \
    "$(field "$WORK/s3.sum" stacks)/$(field "$WORK/s3.sum" dropped)" "$(field "$WORK/s1.sum" stacks)/0"
  check "stack index, $max stacks allowed: at least the 500 stacks" test "$(field "$WORK/s1.sum" stacks)" -ge 500
done

# the live table maps 16 or 32 bytes of addresses per entry (auto: 32 with
# glibc): every free finds its allocation either way, also in a small table
# where neighbouring blocks probe into each other's entries
for g in 16 32; do
  for slots in 16777216 4096; do
    HEAPLENS_LIVE_GRANULE=$g HEAPLENS_LIVE_SLOTS=$slots under_preload "$WORK/g.hltrace" "$D/t-churn" 3000 > /dev/null 2>&1
    summarize "$WORK/g.hltrace" "$WORK/g.sum"
    eq "HEAPLENS_LIVE_GRANULE=$g, $slots slots: allocations/unknown frees/drops" \
      "$(field "$WORK/g.sum" allocs)/$(field "$WORK/g.sum" free_unknown)/$(field "$WORK/g.sum" dropped)" "3000/0/0"
  done
done

# bad settings: one warning line, defaults, same behaviour
HEAPLENS_DEPTH=many HEAPLENS_UNWIND=magic HEAPLENS_LIVE_GRANULE=8 HEAPLENS_FINE_CLOCK_MS=-1 under_preload "$WORK/m.hltrace" "$D/t-entry" > "$WORK/m.out" 2> "$WORK/m.err"
eq "malformed HEAPLENS_* values: same exit status" "$?" 3
eq "malformed HEAPLENS_* values: same output" "$(cat "$WORK/m.out")" "t-entry: ok"
eq "malformed HEAPLENS_* values: one warning line each" "$(grep -c '^heaplens: ignoring malformed HEAPLENS_' "$WORK/m.err")" 4
summarize "$WORK/m.hltrace" "$WORK/m.sum"
eq "malformed values: still recorded with defaults" "$(field "$WORK/m.sum" allocs)" 23
HEAPLENS_OUTPUT=/nonexistent-dir/x.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-entry" > "$WORK/u.out" 2> "$WORK/u.err"
eq "unwritable output: same exit status" "$?" 3
eq "unwritable output: same output" "$(cat "$WORK/u.out")" "t-entry: ok"
eq "unwritable output: one warning line" "$(grep -c '^heaplens: cannot write the trace' "$WORK/u.err")" 1

# shared memory: mode 0600 while running; kill -9 leaves a readable trace
HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT=$WORK/k.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-crash" kill > "$WORK/k.out" 2>&1 &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
  [ -s "$WORK/k.out" ] && break
  sleep 0.2
done
seg=$(ls /dev/shm/heaplens-"$(id -u)"-$pid-* 2> /dev/null | head -n 1)
check "session segment exists while running" test -n "$seg"
check "session segment is mode 0600" test "$(stat -c %a "$seg" 2> /dev/null)" = 600
sleep 1.5
kill -9 $pid
wait $pid 2> /dev/null
summarize "$WORK/k.hltrace" "$WORK/k.sum"
check "kill -9: the trace reads up to its last packet ($(field "$WORK/k.sum" allocs) allocations)" test "$(field "$WORK/k.sum" allocs)" -ge 1001
eq "kill -9: no damaged packet" "$(field "$WORK/k.sum" bad_events)/$(field "$WORK/k.sum" bad_checksum)" "0/0"
"$HL_CLI" sessions --prune > "$WORK/p.out" 2>&1
check "sessions --prune removes the killed process's segment" test ! -e "$seg"
finish
