#!/bin/sh
# Process life: threads (named), a signal handler that allocates, dlopen /
# dlclose, fork (own trace), exec (own trace), HEAPLENS_FOLLOW=none, and
# fatal endings (SIGSEGV, SIGTERM, abort, _exit) that keep their status.
. "$(dirname "$0")/tap-lib.sh"

plugin=$D/t-plugin.so
"$D/t-life" "$plugin" > "$WORK/plain.out" 2>&1
want=$?
(cd "$WORK" && under_preload "$WORK/life.hltrace" "$D/t-life" "$plugin" > "$WORK/pre.out" 2>&1)
eq "t-life: same exit status" "$?" "$want"
cmp -s "$WORK/plain.out" "$WORK/pre.out"
ok $? "t-life: same output (threads, signals, dlopen, fork, exec)"
summarize "$WORK/life.hltrace" "$WORK/life.sum"
eq "main trace: 5 threads started" "$(field "$WORK/life.sum" threads)" 5
names=$(field "$WORK/life.sum" thread_names)
for n in worker-1 worker-2 worker-3 prctl-name; do
  case ",$names," in *,$n,*) ok 0 "thread name $n recorded" ;; *) echo "# names: $names"; ok 1 "thread name $n recorded" ;; esac
done
check "dlclose recorded as module unloads ($(field "$WORK/life.sum" modules_unloaded))" test "$(field "$WORK/life.sum" modules_unloaded)" -ge 3
check "allocations from signal handlers recorded ($(field "$WORK/life.sum" allocs))" test "$(field "$WORK/life.sum" allocs)" -ge 4400
eq "main trace: every free paired" "$(field "$WORK/life.sum" free_unknown)" 0
eq "main trace: clean END" "$(field "$WORK/life.sum" end_status)" 0
eq "main trace: one END (a vfork child did not end the parent's recording)" "$(field "$WORK/life.sum" ends)" 1

fork_trace=
exec_trace=
for f in "$WORK"/life.hltrace.*; do
  summarize "$f" "$WORK/x.sum"
  case "$(field "$WORK/x.sum" end_status)" in
    5) fork_trace=$f ;;
    7) exec_trace=$f ;;
  esac
done
check "forked child wrote its own trace" test -n "$fork_trace"
if [ -n "$fork_trace" ]; then
  summarize "$fork_trace" "$WORK/x.sum"
  eq "forked child's trace: its 10 allocations" "$(field "$WORK/x.sum" allocs)" 10
  eq "forked child's trace: its own pid in every packet" "$(field "$WORK/x.sum" other_pid)" 0
fi
check "exec'd image wrote its own trace" test -n "$exec_trace"

rm -f "$WORK"/life.hltrace*
HEAPLENS_FOLLOW=none under_preload "$WORK/life.hltrace" "$D/t-life" "$plugin" > "$WORK/pre.out" 2>&1
eq "HEAPLENS_FOLLOW=none: same exit status" "$?" "$want"
eq "HEAPLENS_FOLLOW=none: only the parent's trace" "$(ls "$WORK"/life.hltrace* | wc -l)" 1
# A large environment (3000 variables) passed to exec with
# HEAPLENS_FOLLOW=none: the copy without the preload holds all of it (it
# was cut at 2047), and the exec'd image has no preload.
big=$(i=0; while [ $i -lt 3000 ]; do printf 'HLV%d=%d ' $i $i; i=$((i + 1)); done)
env $big HEAPLENS_FOLLOW=none HEAPLENS_OUTPUT="$WORK/env.hltrace" LD_PRELOAD="$HL_PRELOAD" \
  /bin/sh -c 'exec env' > "$WORK/env.out" 2>&1
eq "HEAPLENS_FOLLOW=none, 3000 variables: all passed to exec, without the preload" \
  "$(grep -c '^HLV[0-9]*=' "$WORK/env.out")/$(grep -c '^HLV2999=2999$' "$WORK/env.out")/$(grep -c '^LD_PRELOAD=.*libheaplens-preload' "$WORK/env.out")" "3000/1/0"
rm -f "$WORK"/env.hltrace*

# stress: threads x fork x exec x signals x dlopen, several runs at once
rm -f "$WORK"/s*.hltrace*
for i in 1 2 3; do
  under_preload "$WORK/s$i.hltrace" "$D/t-life" "$plugin" > "$WORK/s$i.out" 2>&1 &
done
wait
all_same=0
for i in 1 2 3; do cmp -s "$WORK/plain.out" "$WORK/s$i.out" || all_same=1; done
ok $all_same "3 concurrent runs: same output"
bad=0
for f in "$WORK"/s*.hltrace*; do
  summarize "$f" "$WORK/x.sum"
  [ "$(field "$WORK/x.sum" bad_events)$(field "$WORK/x.sum" bad_checksum)" = "00" ] || bad=1
done
ok $bad "3 concurrent runs: every trace decodes cleanly"

# thread churn: 5000 threads come and go, every one recorded
under_preload "$WORK/t.hltrace" "$D/t-stress" threads > "$WORK/t.out" 2>&1
eq "5000 short-lived threads: status and output" "$?/$(cat "$WORK/t.out")" "0/threads: done"
summarize "$WORK/t.hltrace" "$WORK/t.sum"
eq "5000 short-lived threads: all started and recorded" "$(field "$WORK/t.sum" threads)" 5001
check "5000 short-lived threads: their allocations ($(field "$WORK/t.sum" allocs))" test "$(field "$WORK/t.sum" allocs)" -ge 250000
eq "5000 short-lived threads: every free paired, nothing dropped" "$(field "$WORK/t.sum" free_unknown)/$(field "$WORK/t.sum" dropped)" "0/0"

# a profiling timer whose handler allocates, often while inside the preload
under_preload "$WORK/p.hltrace" "$D/t-stress" sigprof > "$WORK/p.out" 2>&1
eq "allocating SIGPROF handler every 50 us: status and output" "$?/$(cat "$WORK/p.out")" "0/sigprof: done"
summarize "$WORK/p.hltrace" "$WORK/p.sum"
eq "allocating SIGPROF handler: trace clean, frees paired" "$(field "$WORK/p.sum" bad_events)/$(field "$WORK/p.sum" free_unknown)/$(field "$WORK/p.sum" ends)" "0/0/1"

# A program that closes every descriptor above 2 and puts a file of its
# own on each number up to 599 (the trace's among them): the preload opens
# its trace again by path and loses nothing, never writes into the
# program's file, and its forked child does not close the program's
# descriptor that had been the trace's (or the RSS sampler's).
# It changes directory first, and its trace name is relative: the name
# is taken against the directory it started in.
mkdir -p "$WORK/cf"
(cd "$WORK/cf" && under_preload t.hltrace "$D/t-closefrom" "$WORK/cf" > "$WORK/cf.out" 2>&1)
eq "closefrom: status and output (the child found its descriptors)" "$?/$(cat "$WORK/cf.out")" "0/t-closefrom: ok"
eq "closefrom: the program's file holds its line alone" "$(cat "$WORK/cf/own")" "the program's own line"
summarize "$WORK/cf/t.hltrace" "$WORK/cf.sum"
eq "closefrom: every allocation in the trace, nothing dropped, one END" \
  "$(field "$WORK/cf.sum" allocs)/$(field "$WORK/cf.sum" frees)/$(field "$WORK/cf.sum" dropped)/$(field "$WORK/cf.sum" ends)/$(field "$WORK/cf.sum" bad_events)" \
  "5001/5000/0/1/0"
child_trace=$(ls "$WORK"/cf/t.hltrace.* 2> /dev/null | head -n 1)
summarize "$child_trace" "$WORK/cf-child.sum"
eq "closefrom: the child's own trace, its 500 allocations" "$(field "$WORK/cf-child.sum" allocs)/$(field "$WORK/cf-child.sum" other_pid)" "500/0"

# A relative trace name in a directory whose name holds '%' (the
# template's escape): the trace lands there under its own name.
mkdir -p "$WORK/at%p"
(cd "$WORK/at%p" && under_preload rel.%p.hltrace "$D/t-entry" > /dev/null 2>&1)
check "a relative trace name in a directory named at%p (a template escape)" test -n "$(ls "$WORK/at%p"/rel.[0-9]*.hltrace 2> /dev/null)"

# A thread on a minimal stack (16 KiB) that is nearly full at its first
# allocation: the deepest it can be and still get through without us,
# found by bisection, less 768 bytes, must get through under the preload
# too (its unwind buffers on that stack needed about 1.8 KiB more than
# glibc's malloc, 2.3 KiB in fp mode). The same for a thread that starts a
# program there with posix_spawnp, or forks and runs one with execlp (the
# exec and spawn functions had 20 KiB of fixed arrays on the stack, execl
# 8 KiB more, and a fork child's trace opened with 3.5 KiB: they crashed
# at any depth).
for mode in malloc spawn execl; do
  lo=0 hi=16384
  while [ $((hi - lo)) -gt 128 ]; do
    mid=$(( (lo + hi) / 2 ))
    if [ "$("$D/t-smallstack" $mid $mode 2> /dev/null)" = ok ]; then lo=$mid; else hi=$mid; fi
  done
  used=$((lo - 768))
  eq "a nearly full 16 KiB thread stack, $mode ($used of $lo bytes): through under the preload" \
    "$(under_preload "$WORK/ss.hltrace" "$D/t-smallstack" $used $mode 2> /dev/null)" ok
  eq "a nearly full 16 KiB thread stack, $mode: through in fp mode" \
    "$(HEAPLENS_UNWIND=fp under_preload "$WORK/ss.hltrace" "$D/t-smallstack" $used $mode 2> /dev/null)" ok
  eq "a nearly full 16 KiB thread stack, $mode: through with HEAPLENS_FOLLOW=none" \
    "$(HEAPLENS_FOLLOW=none under_preload "$WORK/ss.hltrace" "$D/t-smallstack" $used $mode 2> /dev/null)" ok
done

for how in segv term abort exit handler; do
  "$D/t-crash" $how > /dev/null 2>&1
  want=$?
  under_preload "$WORK/c.hltrace" "$D/t-crash" $how > /dev/null 2>&1
  eq "t-crash $how: same exit status ($want)" "$?" "$want"
  summarize "$WORK/c.hltrace" "$WORK/c.sum"
  eq "t-crash $how: allocations before the end flushed" "$(field "$WORK/c.sum" allocs)" 1001
  eq "t-crash $how: END carries the status" "$(field "$WORK/c.sum" end_status)" "$want"
done
finish
