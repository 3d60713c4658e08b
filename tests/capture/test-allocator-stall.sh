#!/bin/sh
# The allocator's view never stalls the program (issue 30 point 2): glibc's
# mallinfo2() walks every free chunk under the arenas' locks, so on a
# fragmented heap one call takes tens of ms. t-fragment fragments its heap
# gradually and times each of its own malloc and free calls, then its own
# mallinfo2(). Against those figures:
# - under the preload (the default bound, 1 ms), none of its calls waited a
#   quarter of what its own mallinfo2() took; without the bound
#   (HEAPLENS_ALLOCATOR_STALL_US very large) one did (the check can fail);
# - the samples after the first slow call are estimates (flag 2), the last
#   one (at the clean exit) is exact again: it equals the program's own
#   figures; the last estimate of the free bytes is within 15 % of them;
# - report and --json say how many samples are estimates, and top says
#   so while they are.
. "$(dirname "$0")/tap-lib.sh"

"$D/t-fragment" "$WORK/plain.log" > "$WORK/plain.out"
eq "without the preload: t-fragment runs" "$?" "0"

own () { sed -n "s/^$1 //p" "$2"; }

under_preload "$WORK/b.hltrace" "$D/t-fragment" "$WORK/b.log" > "$WORK/b.out"
eq "bounded: exit status" "$?" "0"
eq "bounded: the program's output is the same" "$(cmp "$WORK/b.out" "$WORK/plain.out" && echo same)" "same"
took=$(own mallinfo_ns "$WORK/b.log")
check "the program's own mallinfo2() took at least 20 ms (the heap is fragmented: $took ns)" test "$took" -ge 20000000
longest=$(own longest_call_ns "$WORK/b.log")
check "bounded: no malloc or free of the program waited a quarter of mallinfo2()'s $took ns (longest $longest ns)" \
  test "$((longest * 4))" -lt "$took"

"$HL_CLI" dump "$WORK/b.hltrace" 2> /dev/null | grep ALLOCATOR > "$WORK/b.samples"
n_est=$(grep -c " flags=3 " "$WORK/b.samples")
check "bounded: samples after the first slow call are estimates ($n_est)" test "$n_est" -ge 2
check "bounded: the last sample, at the exit, is exact" sh -c "tail -n 1 '$WORK/b.samples' | grep -q ' flags=1 '"
eq "bounded: the last sample equals the program's own mallinfo2 (arena, mmapped; free within 64 KiB)" "$(python3 -c "
import sys
kv = dict(x.split('=') for x in open(sys.argv[1]).read().splitlines()[-1].split() if '=' in x)
own = [int(x) for x in [l for l in open(sys.argv[2]) if l.startswith('mallinfo ')][0].split()[1:]]
ok = int(kv['arena']) == own[0] and int(kv['mmapped_chunks_bytes']) == own[3] and abs(int(kv['free']) - own[2]) <= 65536
print('ok' if ok else 'sample %s, program %s' % (kv, own))
" "$WORK/b.samples" "$WORK/b.log")" "ok"
eq "bounded: the last estimate of the free bytes is within 15 % of the program's own" "$(python3 -c "
import sys
est = [l for l in open(sys.argv[1]) if ' flags=3 ' in l][-1]
kv = dict(x.split('=') for x in est.split() if '=' in x)
own = [int(x) for x in [l for l in open(sys.argv[2]) if l.startswith('mallinfo ')][0].split()[1:]]
print('ok' if abs(int(kv['free']) - own[2]) <= 0.15 * own[2] else 'estimate %s, program %s' % (kv['free'], own[2]))
" "$WORK/b.samples" "$WORK/b.log")" "ok"

"$HL_CLI" report "$WORK/b.hltrace" > "$WORK/b.txt" 2>&1
check "report: says which samples are estimates" \
  grep -q "malloc's figures are estimates from .* s on ($n_est samples.*): mallinfo2() had become too slow to call while the program ran" "$WORK/b.txt"
"$HL_CLI" report --json "$WORK/b.hltrace" > "$WORK/b.json" 2> /dev/null
eq "report --json: memory.estimated_samples" "$(python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['memory']
print(m['estimated_samples'], type(m['estimated']).__name__)
" "$WORK/b.json")" "$n_est bool"

# top, while the program runs: its malloc line says the figures are
# estimates once they are; at the end (the exit's exact sample) it does not
uid=$(id -u)
HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT=$WORK/k.hltrace LD_PRELOAD=$HL_PRELOAD "$D/t-fragment" "$WORK/k.log" > /dev/null &
pid=$!
seen=no
for i in $(seq 60); do
  seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)" 2> /dev/null)
  if [ -n "$seg" ] && "$HL_CLI" top --once "$seg" 2> /dev/null | grep -q "^malloc .*estimated: mallinfo2() had become too slow to call)$"; then
    seen=yes
    break
  fi
  sleep 0.05
done
wait $pid
eq "top: the malloc line says its figures are estimates while they are" "$seen" "yes"
seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
"$HL_CLI" top --once "$seg" > "$WORK/k.top" 2>&1
rm -f "/dev/shm/$seg"
check "top: after the exit's exact sample, not" sh -c "grep '^malloc ' '$WORK/k.top' | grep -vq estimated"

HEAPLENS_ALLOCATOR_STALL_US=100000000 under_preload "$WORK/u.hltrace" "$D/t-fragment" "$WORK/u.log" > "$WORK/u.out"
eq "unbounded: exit status" "$?" "0"
took=$(own mallinfo_ns "$WORK/u.log")
longest=$(own longest_call_ns "$WORK/u.log")
check "unbounded: a call of the program waited at least a quarter of mallinfo2()'s $took ns (longest $longest ns)" \
  test "$((longest * 4))" -ge "$took"
check "unbounded: no estimates" sh -c "! '$HL_CLI' dump '$WORK/u.hltrace' 2> /dev/null | grep ALLOCATOR | grep -q ' flags=3 '"
finish
