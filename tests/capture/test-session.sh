#!/bin/sh
# The shared-memory session, read by the format's shm reader from another
# process: the same totals as the trace, exact peak, call sites, stacks,
# thread records, live snapshot, metadata; live while running (heartbeat,
# samples); ENDED with the exit status; mode 0600.
. "$(dirname "$0")/tap-lib.sh"
SHM=$D/hl-shm-summary
uid=$(id -u)

HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT=$WORK/e.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-entry" > /dev/null 2>&1 &
pid=$!
wait $pid
seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
check "HEAPLENS_KEEP_SESSION=1 leaves the ended segment" test -n "$seg"
"$SHM" "$seg" > "$WORK/s.sum" 2>&1
summarize "$WORK/e.hltrace" "$WORK/e.sum"
eq "session: ENDED" "$(field "$WORK/s.sum" state)" ended
eq "session: exit status" "$(field "$WORK/s.sum" exit_status)" 3
check "session: KEPT and coarse-clock flags" test $(( $(field "$WORK/s.sum" flags) & 5 )) -eq 5
eq "session: allocations = trace's" "$(field "$WORK/s.sum" allocs)" "$(field "$WORK/e.sum" allocs)"
eq "session: frees = trace's" "$(field "$WORK/s.sum" frees)" "$(field "$WORK/e.sum" frees)"
eq "session: bytes allocated = trace's" "$(field "$WORK/s.sum" bytes_allocated)" "$(field "$WORK/e.sum" bytes)"
eq "session: heap at exit = trace's leaked bytes" "$(field "$WORK/s.sum" heap)" "$(field "$WORK/e.sum" leaked_bytes)"
eq "session: exact peak = trace's" "$(field "$WORK/s.sum" peak)" "$(field "$WORK/e.sum" peak_bytes)"
eq "session: call-site calls sum to the allocations" "$(field "$WORK/s.sum" cs_calls)" 23
eq "session: call-site bytes sum to the bytes" "$(field "$WORK/s.sum" cs_bytes)" 10490
eq "session: call-site frees sum to the frees" "$(field "$WORK/s.sum" cs_frees)" 20
eq "session: stacks = trace's" "$(field "$WORK/s.sum" stacks)" "$(field "$WORK/e.sum" stacks)"
eq "session: thread record" "$(field "$WORK/s.sum" thread_names)" t-entry
eq "session: live snapshot = the leaked blocks" "$(field "$WORK/s.sum" live)/$(field "$WORK/s.sum" live_sizes)" "3/10,50,8192"
eq "session: metadata items" "$(field "$WORK/s.sum" meta_keys)" "site_lo,site_hi"
eq "session: metadata log" "$(field "$WORK/s.sum" log_entries)" 2
check "session: samples taken" test "$(field "$WORK/s.sum" samples)" -ge 1
check "session: mode 0600" test "$(stat -c %a "/dev/shm/$seg")" = 600
rm -f "/dev/shm/$seg"

# without HEAPLENS_KEEP_SESSION the name is gone at exit
LD_PRELOAD=$HL_PRELOAD HEAPLENS_OUTPUT=none "$D/t-entry" > /dev/null 2>&1 &
pid=$!
wait $pid
eq "session: unlinked at exit by default" "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null)" ""

# a running program: heartbeat and samples advance, the live block is seen
HEAPLENS_OUTPUT=none LD_PRELOAD=$HL_PRELOAD "$D/t-crash" kill > "$WORK/k.out" 2>&1 &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
  [ -s "$WORK/k.out" ] && break
  sleep 0.2
done
seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
"$SHM" "$seg" > "$WORK/r1.sum" 2>&1
sleep 0.5
"$SHM" "$seg" > "$WORK/r2.sum" 2>&1
kill -9 $pid
wait $pid 2> /dev/null
rm -f "/dev/shm/$seg"
eq "running session: RUNNING" "$(field "$WORK/r1.sum" state)" running
check "running session: heartbeat advances" test "$(field "$WORK/r2.sum" heartbeat)" -gt "$(field "$WORK/r1.sum" heartbeat)"
check "running session: samples advance" test "$(field "$WORK/r2.sum" samples)" -gt "$(field "$WORK/r1.sum" samples)"
case ",$(field "$WORK/r2.sum" live_sizes)," in
  *,4321,*) ok 0 "running session: the live snapshot holds the 4321-byte block" ;;
  *) ok 1 "running session: the live snapshot holds the 4321-byte block" ;;
esac
eq "running session: readable without error" "$(grep -c '^error=' "$WORK/r2.sum")" 0
finish
