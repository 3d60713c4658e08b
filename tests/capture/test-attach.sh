#!/bin/sh
# test-attach.sh — heaplens-cli attach: a program not started under the
# preload (t-attach: 8 threads allocating in a loop, a ninth that only
# sleeps) attached to mid-run, detached with Ctrl+C, attached to again and
# detached with attach --detach; its output and exit status against a run
# without us, the allocations of each attached round exact (5000 blocks of
# 777 bytes), the frees of blocks allocated before the attach counted (the
# 1000 blocks of 100 bytes of the start, at least), the thread that never
# allocates named from /proc. Then the refusals this machine can set up,
# each leaving the process running. The preload is never built with
# sanitizers (hl_nosan_args), so it can be loaded into the plain target;
# the CLI doing the ptrace work is the (ASan) build's.
. "$(dirname "$0")/tap-lib.sh"

export HEAPLENS_PRELOAD=$HL_PRELOAD
T_ATTACH=$D/t-attach

# wait_file FILE: up to 30 s
wait_file () {
  n=0
  while [ ! -e "$1" ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
  [ -e "$1" ]
}

# wait_grep FILE PATTERN: up to 30 s
wait_grep () {
  n=0
  while ! grep -q "$2" "$1" 2>/dev/null && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
  grep -q "$2" "$1" 2>/dev/null
}

# running PID: alive and not stopped (no tracing stop left behind)
running () {
  st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
  [ -n "$st" ] && [ "$st" != t ] && [ "$st" != T ] && [ "$st" != Z ]
}

json_field () {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; a=d.get("attach") or {}; v=a.get(sys.argv[2]); print("null" if v is None else v)' "$1" "$2"
}

# ---- the program alone ------------------------------------------------------
P0=$WORK/plain
mkdir -p "$P0"
"$T_ATTACH" "$P0" 3 > "$P0/out" 2> "$P0/err" &
p=$!
for r in 1 2 3; do wait_file "$P0/ready-$r"; touch "$P0/go-$r"; done
wait $p
echo $? > "$P0/rc"

# ---- attached twice --------------------------------------------------------
A=$WORK/attached
mkdir -p "$A"
"$T_ATTACH" "$A" 3 > "$A/out" 2> "$A/err" &
pid=$!
wait_file "$A/ready-1"
"$HL_CLI" attach -o "$A/t1.hltrace" $pid 2> "$A/cli1.err" &
cli=$!
check "attach 1: attached" wait_grep "$A/cli1.err" "attached to process $pid"
echo "# $(head -n 1 "$A/cli1.err")"
check "attach 1: the stop's duration is said" grep -q "stopped [0-9.]* ms" "$A/cli1.err"
touch "$A/go-1"
wait_file "$A/ready-2"
kill -INT $cli
wait $cli
eq "attach 1: Ctrl+C detaches, status 0" "$?" 0
check "attach 1: its end line says detached" grep -q "detached, the process goes on" "$A/cli1.err"
check "attach 1: the process runs on after the detach" running $pid

"$HL_CLI" attach -o "$A/t2.hltrace" $pid 2> "$A/cli2.err" &
cli=$!
check "attach 2: a second attach to the same process works" wait_grep "$A/cli2.err" "attached to process $pid"
echo "# $(head -n 1 "$A/cli2.err")"
touch "$A/go-2"
wait_file "$A/ready-3"
"$HL_CLI" attach --detach $pid 2> "$A/detach.err"
eq "attach --detach: status 0" "$?" 0
wait $cli
eq "attach 2: ends when attach --detach asks, status 0" "$?" 0
touch "$A/go-3"
wait $pid
echo $? > "$A/rc"
check "the program's output is byte-identical to a run without attach" cmp -s "$P0/out" "$A/out"
eq "the program's exit status is unchanged" "$(cat "$A/rc")" "$(cat "$P0/rc")"
eq "the program wrote nothing on stderr" "$(cat "$A/err")" ""

for n in 1 2; do
  HL_SUMMARY_SIZE=777 "$SUMMARY" "$A/t$n.hltrace" > "$A/s$n" 2>&1
  eq "trace $n: decodes without error" "$(field "$A/s$n" error)" ""
  eq "trace $n: no damaged packet" "$(field "$A/s$n" bad_checksum)" 0
  eq "trace $n: the round of 5000 blocks of 777 bytes made while attached, exactly" "$(field "$A/s$n" size_allocs)" 5000
  check "trace $n: the workers' allocations after the attach ($(field "$A/s$n" allocs))" \
    test "$(field "$A/s$n" allocs)" -gt 10000
  eq "trace $n: ends with the detach's END (status -1)" "$(field "$A/s$n" end_status)" -1
  check "trace $n: the idle thread, which never allocates, named from /proc" \
    sh -c "field () { sed -n \"s/^\$2=//p\" \"\$1\"; }; field '$A/s$n' thread_names | grep -q t-idle"
  "$HL_CLI" report --json "$A/t$n.hltrace" > "$A/r$n.json" 2> "$A/r$n.err"
  check "trace $n: report shows the heap at the attach ($(json_field "$A/r$n.json" heap_bytes) bytes in use)" \
    test "$(json_field "$A/r$n.json" heap_bytes)" -gt 100000
  check "trace $n: report shows the RSS at the attach" test "$(json_field "$A/r$n.json" rss_bytes)" -gt 0
  check "trace $n: report shows the detach" test "$(json_field "$A/r$n.json" detached_ns)" != null
done
# round 1 freed the 1000 blocks of 100 bytes (104 usable each) allocated
# at the start, before the attach; the workers' live blocks add to it
before=$(json_field "$A/r1.json" frees_before)
before_bytes=$(json_field "$A/r1.json" frees_before_bytes)
echo "# trace 1: $before frees of blocks allocated before the attach, $before_bytes bytes"
check "trace 1: the 1000 frees of blocks allocated before the attach are counted apart" \
  test "$before" -ge 1000 -a "$before" -le 1200
check "trace 1: their bytes from malloc_usable_size (at least 1000 x 104)" test "$before_bytes" -ge 104000
eq "trace 1: the frees of unknown blocks in the trace are those" "$(field "$A/s1" free_unknown)" "$before"
"$HL_CLI" report "$A/t1.hltrace" > "$A/r1.txt" 2>&1
check "report's text says the frees allocated before the attach" \
  grep -q "freed, allocated before the attach: $before blocks" "$A/r1.txt"
check "report's text says the heap at the attach" grep -q "attached: .*of heap in use" "$A/r1.txt"

# ---- the process exits while attached -----------------------------------------
X=$WORK/exit
mkdir -p "$X"
"$T_ATTACH" "$X" 1 > "$X/out" &
pid=$!
wait_file "$X/ready-1"
"$HL_CLI" attach -o "$X/t.hltrace" $pid 2> "$X/cli.err" &
cli=$!
check "exit while attached: attached" wait_grep "$X/cli.err" "attached to process $pid"
"$HL_CLI" sessions > "$X/sessions" 2>&1
check "sessions lists the attached process like any other" grep -q "$pid" "$X/sessions"
touch "$X/go-1"
wait $pid
eq "exit while attached: the program's status" "$?" 7
wait $cli
eq "exit while attached: attach ends with status 0" "$?" 0
check "exit while attached: its end line gives the exit status" grep -q "the process exited with status 7" "$X/cli.err"
HL_SUMMARY_SIZE=777 "$SUMMARY" "$X/t.hltrace" > "$X/s" 2>&1
eq "exit while attached: the trace ends with the exit status" "$(field "$X/s" end_status)" 7
eq "exit while attached: its round of 5000 blocks" "$(field "$X/s" size_allocs)" 5000
check "exit while attached: no session segment is left" sh -c "! ls /dev/shm/heaplens-$(id -u)-$pid-* 2>/dev/null"

# ---- a C++ program: 8 std::thread workers, new/delete through libstdc++ ----
if [ "$HL_HAVE_CXX" = 1 ] && [ -x "$D/t-attach-cxx" ]; then
  C=$WORK/cxx
  mkdir -p "$C/plain"
  touch "$C/plain/go-1"
  "$D/t-attach-cxx" "$C/plain" > "$C/plain.out"
  echo $? > "$C/plain.rc"
  "$D/t-attach-cxx" "$C" > "$C/out" &
  pid=$!
  wait_file "$C/ready-1"
  "$HL_CLI" attach -o "$C/t.hltrace" $pid 2> "$C/cli.err" &
  cli=$!
  check "C++: attached while its threads allocate" wait_grep "$C/cli.err" "attached to process $pid"
  sleep 0.2
  touch "$C/go-1"
  wait $pid
  eq "C++: exit status unchanged" "$?" "$(cat "$C/plain.rc")"
  wait $cli
  check "C++: output byte-identical" cmp -s "$C/plain.out" "$C/out"
  HL_SUMMARY_SIZE=777 "$SUMMARY" "$C/t.hltrace" > "$C/s" 2>&1
  eq "C++: its 3000 vectors of 777 bytes, exactly" "$(field "$C/s" size_allocs)" 3000
  check "C++: the workers' new/delete after the attach ($(field "$C/s" allocs))" \
    test "$(field "$C/s" allocs)" -gt 10000
else
  ok 0 "C++ # SKIP no C++ compiler"
fi

# ---- python3 (PYTHONMALLOC=malloc: its objects come from malloc) ------------
if command -v python3 > /dev/null; then
  Y=$WORK/python
  mkdir -p "$Y"
  cat > "$Y/work.py" <<'EOF'
import os, sys, time
d = sys.argv[1]
open (os.path.join (d, "ready-1"), "w").close ()
while not os.path.exists (os.path.join (d, "go-1")):
    time.sleep (0.001)
total = 0
for i in range (20000):
    words = [str (j * i) for j in range (30)]
    total += len (" ".join (words)) + len ({w: i for w in words})
print (total)
EOF
  touch "$Y/go-1"
  PYTHONMALLOC=malloc python3 "$Y/work.py" "$Y" > "$Y/plain.out"
  echo $? > "$Y/plain.rc"
  rm -f "$Y"/ready-1 "$Y"/go-1
  PYTHONMALLOC=malloc python3 "$Y/work.py" "$Y" > "$Y/out" &
  pid=$!
  wait_file "$Y/ready-1"
  "$HL_CLI" attach -o "$Y/t.hltrace" $pid 2> "$Y/cli.err" &
  cli=$!
  check "python3: attached" wait_grep "$Y/cli.err" "attached to process $pid"
  touch "$Y/go-1"
  wait $pid
  eq "python3: exit status unchanged" "$?" "$(cat "$Y/plain.rc")"
  wait $cli
  check "python3: output byte-identical" cmp -s "$Y/plain.out" "$Y/out"
  "$SUMMARY" "$Y/t.hltrace" > "$Y/s" 2>&1
  check "python3: its workload's allocations are in the trace ($(field "$Y/s" allocs))" \
    test "$(field "$Y/s" allocs)" -gt 100000
else
  ok 0 "python3 # SKIP no python3"
fi

# ---- refusals --------------------------------------------------------------
# refused PID TEXT DESCRIPTION: attach fails with status 2 and TEXT, and
# leaves the process running
refused () {
  timeout -s INT 20 "$HL_CLI" attach -o "$WORK/refused.hltrace" "$1" > "$WORK/ref.out" 2> "$WORK/ref.err"
  rc=$?
  if [ $rc -eq 2 ] && grep -q "$2" "$WORK/ref.err" && running "$1"; then
    echo "# $(cat "$WORK/ref.err")"
    ok 0 "$3"
  else
    echo "# status $rc: $(cat "$WORK/ref.err")"
    ok 1 "$3"
  fi
}

if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null && [ "$(id -u)" != 65534 ]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 &
  p=$!
  sleep 0.2
  refused $p "belongs to user 65534" "another user's process: refused with the user and how to attach as them"
  kill $p 2>/dev/null
  wait $p 2>/dev/null
else
  ok 0 "another user's process # SKIP setpriv cannot run a process as uid 65534 here"
fi

if [ -x "$D/t-attach-static" ]; then
  S=$WORK/static
  mkdir -p "$S"
  "$D/t-attach-static" "$S" 1 > /dev/null &
  p=$!
  wait_file "$S/ready-1"
  refused $p "statically linked" "a statically linked program: refused"
  touch "$S/go-1"
  wait $p
  eq "the static program ends as it would" "$?" 7
else
  ok 0 "a statically linked program # SKIP no static libc (libc.a) to build one"
fi

N=$WORK/nopie
mkdir -p "$N"
"$D/t-attach-nopie" "$N" 1 > /dev/null &
p=$!
wait_file "$N/ready-1"
refused $p "built without -fPIE that takes the address of malloc" \
  "a non-PIE program that takes malloc's address (its canonical PLT entry): refused"
touch "$N/go-1"
wait $p
eq "the non-PIE program ends as it would" "$?" 7

Z=$WORK/asan
mkdir -p "$Z"
ASAN_OPTIONS=detect_leaks=0 "$D/t-attach-asan" "$Z" 1 > /dev/null &
p=$!
wait_file "$Z/ready-1"
refused $p "built with AddressSanitizer" "a program built with AddressSanitizer: refused"
touch "$Z/go-1"
wait $p
eq "the ASan program ends as it would" "$?" 7

# a 32-bit program: built here without a C library (no multilib needed)
printf 'void _start (void) { for (;;) __asm__ volatile ("int $0x80" : : "a" (29)); }\n' > "$WORK/t32.c"
if ${CC:-cc} -m32 -nostdlib -static -fno-pic -o "$WORK/t32" "$WORK/t32.c" 2>/dev/null; then
  "$WORK/t32" 2> /dev/null &
  p=$!
  sleep 0.1
  # a kernel built without 32-bit support cannot run it ("Exec format error")
  if kill -0 $p 2> /dev/null; then
    refused $p "another word size" "a 32-bit program: refused"
    kill $p
  else
    ok 0 "a 32-bit program # SKIP this kernel cannot run 32-bit programs"
  fi
  wait $p 2>/dev/null
else
  ok 0 "a 32-bit program # SKIP the compiler cannot build 32-bit code here"
fi

# under a debugger: a tracer that seized it (python3's ctypes, as gdb would)
G=$WORK/traced
mkdir -p "$G"
"$T_ATTACH" "$G" 1 > /dev/null &
p=$!
wait_file "$G/ready-1"
python3 -c '
import ctypes, sys, time
libc = ctypes.CDLL (None, use_errno=True)
if libc.ptrace (0x4206, int (sys.argv[1]), None, None) != 0:
    sys.exit (1)
print ("seized", flush=True)
time.sleep (30)' $p > "$G/tracer.out" &
tracer=$!
if wait_grep "$G/tracer.out" seized; then
  refused $p "already traced by process $tracer" "a process under a debugger: refused, the tracer named"
else
  ok 1 "a process under a debugger (the test's tracer could not seize it)"
fi
kill $tracer
wait $tracer 2>/dev/null
touch "$G/go-1"
wait $p
eq "the traced program ends as it would once its tracer is gone" "$?" 7

# already under Heaplens (LD_PRELOAD)
H=$WORK/preloaded
mkdir -p "$H"
HEAPLENS_OUTPUT=$H/pre.hltrace LD_PRELOAD=$HL_PRELOAD "$T_ATTACH" "$H" 1 > /dev/null &
p=$!
wait_file "$H/ready-1"
refused $p "already runs under Heaplens" "a process recorded already: refused, its session named"
touch "$H/go-1"
wait $p
eq "the preloaded program ends as it would" "$?" 7

# exits during the attach: killed while its threads are stopped
E=$WORK/exits
mkdir -p "$E"
"$T_ATTACH" "$E" 1 > /dev/null &
p=$!
wait_file "$E/ready-1"
HEAPLENS_ATTACH_TEST_PAUSE_MS=3000 "$HL_CLI" attach -o "$E/t.hltrace" $p 2> "$E/cli.err" &
cli=$!
n=0
while ! cat /proc/$p/task/*/stat 2>/dev/null | grep -q '^[0-9]* ([^)]*) t' && [ $n -lt 1000 ]; do
  sleep 0.01
  n=$((n + 1))
done
kill -9 $p
wait $p 2>/dev/null
wait $cli
rc=$?
echo "# $(cat "$E/cli.err")"
check "a process that exits during the attach: said so, status 1" \
  sh -c "[ $rc -eq 1 ] && grep -q 'exited during the attach' '$E/cli.err'"
check "no configuration file is left behind" sh -c "! ls /dev/shm/heaplens-attach-$(id -u)-$p 2>/dev/null"

if [ -e /proc/sys/kernel/yama/ptrace_scope ]; then
  ok 0 "kernel.yama.ptrace_scope # SKIP changing it would change the machine for every other process"
else
  ok 0 "kernel.yama.ptrace_scope # SKIP no Yama on this kernel (/proc/sys/kernel/yama/ptrace_scope is absent)"
fi

"$HL_CLI" attach --detach $$ 2> "$WORK/nodetach.err"
eq "attach --detach of a process without an attached session: status 1" "$?" 1
"$HL_CLI" attach 999999999 2> "$WORK/nopid.err"
eq "attach to no process: status 1" "$?" 1

finish
