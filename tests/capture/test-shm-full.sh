#!/bin/sh
# A full /dev/shm during the run (issue 26, point 8): the preload backs the
# segment's pages (fallocate) before it writes them, so a /dev/shm that
# another process fills while the program runs costs live-table drops,
# never a SIGBUS in the program. Runs in a private mount namespace with a
# small tmpfs on /dev/shm (unshare -m as root, else unshare -rm); skipped
# where neither is allowed (containers without the capability).
. "$(dirname "$0")/tap-lib.sh"

if [ "${1:-}" != inside ]; then
  for how in "unshare -m" "unshare -rm"; do
    if $how sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' > /dev/null 2>&1; then
      exec $how sh "$0" inside
    fi
  done
  echo "1..0 # SKIP no private mount namespace here (unshare -m and unshare -rm refused)"
  exit 0
fi

mount -t tmpfs -o size=256m,mode=1777 tmpfs /dev/shm || { echo "1..0 # SKIP cannot mount a tmpfs on /dev/shm"; exit 0; }
rm -f "$WORK/t.hltrace"
# 8 threads keep 2 M blocks of 24 bytes (64 MiB, 512 regions of the heap:
# 512 blocks of the live table, 64 MiB of entries) while the filler takes
# every free byte of /dev/shm once the session exists, before the program
# allocates (it waits for the gate file).
rm -f "$WORK/gate"
T_REGIONS_GATE=$WORK/gate HEAPLENS_OUTPUT=$WORK/t.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-regions" 8 262144 24 > "$WORK/out" 2> "$WORK/err" &
pid=$!
for i in $(seq 1 2000); do
  ls /dev/shm/heaplens-* > /dev/null 2>&1 && break
  sleep 0.005
done
free=$(df -B1 --output=avail /dev/shm | tail -n 1)
fallocate -l "$free" /dev/shm/fill 2> /dev/null || dd if=/dev/zero of=/dev/shm/fill bs=64k 2> /dev/null
touch "$WORK/gate"
wait "$pid"
rc=$?
eq "full /dev/shm: the program's exit status (135 is SIGBUS)" "$rc" 0
eq "full /dev/shm: the program's output" "$(cat "$WORK/out")" "t-regions: done"
"$SUMMARY" "$WORK/t.hltrace" > "$WORK/sum" 2>&1
allocs=$(field "$WORK/sum" allocs)
check "full /dev/shm: the trace goes on (every allocation in it: $allocs)" [ "${allocs:-0}" -ge 2097152 ]
dropped=$(field "$WORK/sum" dropped)
check "full /dev/shm: the live table stopped growing and counted drops ($dropped)" [ "${dropped:-0}" -gt 0 ]
rm -f /dev/shm/fill

# The same under record: its end line, the report and the session say
# that the live table stopped growing (HL_SHM_FLAG_SHM_FULL), and how many
# allocations it did not track.
# The program waits at the gate until the filler took /dev/shm, so the
# live table meets a full /dev/shm when it grows.
rm -f /dev/shm/heaplens-* /dev/shm/fill "$WORK/gate"
T_REGIONS_GATE=$WORK/gate "$HL_CLI" record -o "$WORK/r.hltrace" -- "$D/t-regions" 8 262144 24 > "$WORK/rout" 2> "$WORK/rerr" &
rec=$!
for i in $(seq 1 2000); do
  ls /dev/shm/heaplens-* > /dev/null 2>&1 && break
  sleep 0.005
done
free=$(df -B1 --output=avail /dev/shm | tail -n 1)
fallocate -l "$free" /dev/shm/fill 2> /dev/null || dd if=/dev/zero of=/dev/shm/fill bs=64k 2> /dev/null
touch "$WORK/gate"
wait "$rec"
rrc=$?
eq "record, full /dev/shm: the program's exit status" "$rrc" 0
full_line='live table stopped growing: /dev/shm is full ([0-9][0-9]* allocations not tracked live; the trace is complete)'
check "record, full /dev/shm: the end line says the live table stopped growing" grep -q "; $full_line" "$WORK/rerr"
"$HL_CLI" report "$WORK/r.hltrace" > "$WORK/rrep" 2>&1
check "record, full /dev/shm: the report says so too" grep -q "^  $full_line$" "$WORK/rrep"
untracked=$(sed -n 's/.*\/dev\/shm is full (\([0-9]*\) allocations.*/\1/p' "$WORK/rerr" | head -n 1)
check "record, full /dev/shm: some allocations not tracked live ($untracked)" [ "${untracked:-0}" -gt 0 ]
[ "${untracked:-0}" -gt 0 ] || sed 's/^/# record: /' "$WORK/rerr"
rm -f /dev/shm/fill
finish
