#!/bin/sh
# Process-life corners: frees of blocks a forked child inherited,
# HEAPLENS_FOLLOW=none with system()/popen()/posix_spawn, SA_RESETHAND
# handlers that re-raise, 2000 threads alive at once, allocations in a
# signal handler that interrupts the preload.
. "$(dirname "$0")/tap-lib.sh"
SHM=$D/hl-shm-summary
G=$D/t-gaps

# ---- a forked child frees blocks it inherited -------------------------------
cd "$WORK" || exit 1
HEAPLENS_KEEP_SESSION=1 under_preload "$WORK/f.hltrace" "$G" forkfree > "$WORK/f.out" 2>&1
eq "forkfree: exit status" "$?" 0
cpid=$(head -n 1 "$WORK/f.out")
seg=$(ls /dev/shm/heaplens-"$(id -u)"-"$cpid"-* 2>/dev/null | head -n 1)
check "forkfree: the child's session is kept" test -n "$seg"
summarize "$WORK/f.hltrace.$cpid" "$WORK/fc.sum"
"$SHM" "$seg" > "$WORK/fc.shm" 2>&1
eq "forkfree: child's trace: 140 frees of inherited blocks" "$(field "$WORK/fc.sum" free_unknown)" 140
eq "forkfree: child's session: 140 frees of inherited blocks (exited threads' included)" \
  "$(field "$WORK/fc.shm" frees_unknown)" 140
eq "forkfree: child's session and trace: same allocations and frees" \
  "$(field "$WORK/fc.shm" allocs)/$(field "$WORK/fc.shm" frees)" \
  "$(field "$WORK/fc.sum" allocs)/$(field "$WORK/fc.sum" frees)"
eq "forkfree: child's heap is its own leaked bytes" "$(field "$WORK/fc.shm" heap)" "$(field "$WORK/fc.sum" leaked_bytes)"
eq "forkfree: child's peak equals the trace's" "$(field "$WORK/fc.shm" peak)" "$(field "$WORK/fc.sum" peak_bytes)"
eq "forkfree: child's live count is its own leaked blocks" "$(field "$WORK/fc.shm" live_count)" "$(field "$WORK/fc.sum" leaked_blocks)"
eq "forkfree: child's live table holds its own leaked blocks" "$(field "$WORK/fc.shm" live)" "$(field "$WORK/fc.sum" leaked_blocks)"
check "forkfree: child's own 14 blocks leaked ($(field "$WORK/fc.sum" leaked_blocks))" \
  test "$(field "$WORK/fc.sum" leaked_blocks)" -ge 14
ppid=$(sed -n 2p "$WORK/f.out")
rm -f "$seg" /dev/shm/heaplens-"$(id -u)"-"$ppid"-*

# ---- HEAPLENS_FOLLOW=none: commands run by system(), popen(), posix_spawn ---
rm -f "$WORK"/n.hltrace*
LD_PRELOAD="$HL_PRELOAD $D/t-plugin.so" HEAPLENS_FOLLOW=none HEAPLENS_OUTPUT=$WORK/n.hltrace \
  "$G" system "$D/t-entry > /dev/null; echo \"preload=\$LD_PRELOAD\"" > "$WORK/n.out" 2>&1
eq "follow=none system: exit status" "$?" 0
eq "follow=none: system(), popen() and posix_spawn children not recorded" "$(ls "$WORK"/n.hltrace* | wc -l)" 1
eq "follow=none: the program's own LD_PRELOAD entries stay, ours is gone" \
  "$(sort -u "$WORK/n.out")" "preload=$D/t-plugin.so"
rm -f "$WORK"/n.hltrace*
"$HL_CLI" record --no-follow --no-compress -o "$WORK/n.hltrace" -- "$G" system "$D/t-entry > /dev/null; true" > /dev/null 2>&1
eq "record --no-follow: exit status; system(), popen() and posix_spawn children not recorded" \
  "$?/$(ls "$WORK"/n.hltrace* | wc -l)" "0/1"
rm -f "$WORK"/n.hltrace*
LD_PRELOAD="$HL_PRELOAD" HEAPLENS_OUTPUT=$WORK/n.hltrace "$G" system "$D/t-entry > /dev/null; true" > /dev/null 2>&1
check "follow=all: system(), popen() and posix_spawn children recorded ($(ls "$WORK"/n.hltrace* | wc -l) traces)" \
  test "$(ls "$WORK"/n.hltrace* | wc -l)" -ge 7

# ---- SA_RESETHAND handlers that re-raise ---------------------------------------
for how in term segv info; do
  "$G" resethand $how > "$WORK/r0.out" 2>&1
  want=$?
  under_preload "$WORK/r.hltrace" "$G" resethand $how > "$WORK/r.out" 2>&1
  eq "resethand $how: same exit status ($want)" "$?" "$want"
  cmp -s "$WORK/r0.out" "$WORK/r.out"
  ok $? "resethand $how: same output"
  summarize "$WORK/r.hltrace" "$WORK/r.sum"
  eq "resethand $how: everything flushed, END with the status" \
    "$(field "$WORK/r.sum" allocs)/$(field "$WORK/r.sum" end_status)" "1001/$want"
done

# a SIGSEGV sent (not a fault) is re-sent after the flush: the program dies
"$G" raisesegv > "$WORK/r0.out" 2>&1
want=$?
under_preload "$WORK/r.hltrace" "$G" raisesegv > "$WORK/r.out" 2>&1
eq "raise (SIGSEGV): same exit status ($want), same output" "$?/$(cat "$WORK/r.out")" "$want/$(cat "$WORK/r0.out")"
summarize "$WORK/r.hltrace" "$WORK/r.sum"
eq "raise (SIGSEGV): END with the status" "$(field "$WORK/r.sum" end_status)" "$want"

# ---- 2000 threads alive at once -------------------------------------------
# kept_run TRACE COMMAND...: runs COMMAND under the preload keeping its
# session; sets $status and $seg (the session of that process)
kept_run () {
  tr=$1
  shift
  rm -f "$tr"
  HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT=$tr LD_PRELOAD=$HL_PRELOAD "$@" &
  p=$!
  wait $p
  status=$?
  seg=$(ls /dev/shm/heaplens-"$(id -u)"-"$p"-* 2>/dev/null | head -n 1)
}

kept_run "$WORK/t.hltrace" "$G" threads 2000 > "$WORK/t.out" 2>&1
eq "2000 concurrent threads: status and output" "$status/$(cat "$WORK/t.out")" "0/threads: 2000"
summarize "$WORK/t.hltrace" "$WORK/t.sum"
eq "2000 concurrent threads: all recorded, nothing dropped" \
  "$(field "$WORK/t.sum" threads)/$(field "$WORK/t.sum" dropped)/$(field "$WORK/t.sum" free_unknown)" "2001/0/0"
"$SHM" "$seg" > "$WORK/t.shm" 2>&1
eq "2000 concurrent threads: the session's totals equal the trace's" \
  "$(field "$WORK/t.shm" allocs)/$(field "$WORK/t.shm" frees)/$(field "$WORK/t.shm" heap)" \
  "$(field "$WORK/t.sum" allocs)/$(field "$WORK/t.sum" frees)/$(field "$WORK/t.sum" leaked_bytes)"
rm -f "$seg"

# ---- allocations in a signal handler that interrupts the preload ------------
# (a 20 us timer: most signals arrive while the main thread is inside the
# preload; the handler's calls are recorded on the thread's second block)
kept_run "$WORK/s.hltrace" "$G" sigalloc > "$WORK/s.out" 2>&1
eq "sigalloc: status and output" "$status/$(head -n 1 "$WORK/s.out")" "0/sigalloc: done"
summarize "$WORK/s.hltrace" "$WORK/s.sum"
eq "sigalloc: trace clean, every free paired" \
  "$(field "$WORK/s.sum" bad_events)/$(field "$WORK/s.sum" free_unknown)" "0/0"
made=$(sed -n 's/^allocations: //p' "$WORK/s.out")
eq "sigalloc: every allocation recorded, the handler's too (+1: stdout's buffer)" \
  "$(field "$WORK/s.sum" allocs)" "$((made + 1))"
"$SHM" "$seg" > "$WORK/s.shm" 2>&1
eq "sigalloc: the session's totals equal the trace's" \
  "$(field "$WORK/s.shm" allocs)/$(field "$WORK/s.shm" frees)/$(field "$WORK/s.shm" heap)" \
  "$(field "$WORK/s.sum" allocs)/$(field "$WORK/s.sum" frees)/$(field "$WORK/s.sum" leaked_bytes)"
rm -f "$seg"
if "$HL_CLI" flamegraph --cost bytes "$WORK/s.hltrace" 2>/dev/null | grep on_alarm | grep -q -e program_trampoline -e hl_record; then
  ok 1 "sigalloc: the handler's stacks have no preload frames"
else
  ok 0 "sigalloc: the handler's stacks have no preload frames"
fi
finish
