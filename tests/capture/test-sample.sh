#!/bin/sh
# Sampling mode (HEAPLENS_SAMPLE_BYTES, docs/capture.md): t-sample's many
# small allocations of every size 8..4096, freed in random order, recorded
# fully and sampled every 2048 bytes on average. hl-trace-summary weighs
# each sampled block by 1 / (1 - exp (-size / N)); the estimates of the
# bytes allocated and of the peak are within 2 % of the full recording's,
# and the exact counters (the sessions') equal.
#
# Why 2 % is safe: the estimate is a Horvitz-Thompson sum, whose variance
# is sum of size^2 (1 - p) / p over the blocks, with (1 - p) / p =
# 1 / (e^(size/N) - 1) <= N / size: at most N * B for B bytes, a relative
# standard deviation of at most sqrt (N / B). The peak is the 16 sweeps of
# phase 1 held at once, B = 134 MB: sqrt (2048 / 134e6) = 0.39 %, so 2 % is
# 5.1 sigma (a failure once in ~3 million runs for a random seed); the
# bytes (403 MB): 0.23 %, 8.8 sigma. The estimated heap only rises while
# phase 1 allocates and only falls while it frees, so its maximum is the
# estimate at the true peak, not a maximum of noisy values; phase 2's
# rounds hold a quarter of it. One run with a fixed seed
# (HEAPLENS_SAMPLE_SEED, reproducible), one with a random one.
. "$(dirname "$0")/tap-lib.sh"
SHM=$D/hl-shm-summary
uid=$(id -u)
ARGS="16 4 8"

# run_kept TRACE SUMMARY ENV...: t-sample under the preload, its ended
# session kept and summarized into SUMMARY.shm, its trace into SUMMARY
run_kept () {
  tr=$1 out=$2
  shift 2
  rm -f "$tr"
  env "$@" HEAPLENS_KEEP_SESSION=1 HEAPLENS_OUTPUT="$tr" LD_PRELOAD="$HL_PRELOAD" \
    "$D/t-sample" $ARGS > "$out.prog" 2> "$out.err" &
  pid=$!
  wait $pid
  seg=$(basename "$(ls /dev/shm/heaplens-$uid-$pid-* 2> /dev/null | head -n 1)")
  "$SHM" "$seg" > "$out.shm" 2>&1
  rm -f "/dev/shm/$seg"
  "$SUMMARY" "$tr" > "$out" 2>&1
}

# within A B PERCENT: |A - B| <= PERCENT % of B
within () {
  awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

run_kept "$WORK/full.hltrace" "$WORK/full" HEAPLENS_UNUSED=1
eq "full: no sample_bytes in INFO" "$(field "$WORK/full" sample_bytes)" 0
check "full: the trace holds the program's allocations" \
  test "$(field "$WORK/full" allocs)" -ge "$(field "$WORK/full.prog" allocs)"
FULL_BYTES=$(field "$WORK/full" bytes)
FULL_PEAK=$(field "$WORK/full" peak_bytes)
FULL_ALLOCS=$(field "$WORK/full" allocs)

for seed in 1 0; do
  name="seed $seed"
  [ "$seed" = 0 ] && name="random seed"
  run_kept "$WORK/s$seed.hltrace" "$WORK/s$seed" HEAPLENS_SAMPLE_BYTES=2048 HEAPLENS_SAMPLE_SEED=$seed
  S=$WORK/s$seed
  eq "$name: program's output unchanged" "$(cat "$S.prog")" "$(cat "$WORK/full.prog")"
  eq "$name: INFO sample_bytes" "$(field "$S" sample_bytes)" 2048
  eq "$name: trace decodes" "$(field "$S" error)$(field "$S" bad_events)" 0
  allocs=$(field "$S" allocs)
  check "$name: fewer events than the full recording ($allocs of $FULL_ALLOCS allocations)" \
    test $((allocs * 10)) -lt $((FULL_ALLOCS * 7))
  eq "$name: every free of a sampled block is known" "$(field "$S" free_unknown)" 0
  # the program's one leaked block (stdout's 4 KiB buffer) is sampled with
  # probability 1 - exp (-4096 / 2048) = 0.86: seed 1's run samples it, a
  # random seed's may not; no other sampled block may be left
  if [ "$seed" = 1 ]; then
    eq "$name: nothing leaked (all freed)" "$(field "$S" leaked_blocks)" "$(field "$WORK/full" leaked_blocks)"
  else
    check "$name: nothing leaked (all freed) beyond the full recording's leaks" \
      test "$(field "$S" leaked_blocks)" -le "$(field "$WORK/full" leaked_blocks)"
  fi
  est=$(field "$S" est_bytes)
  echo "# $name: estimated bytes $est, full $FULL_BYTES"
  check "$name: estimated bytes within 2 % of the full recording's" within "$est" "$FULL_BYTES" 2
  estp=$(field "$S" est_peak_bytes)
  echo "# $name: estimated peak $estp, full $FULL_PEAK"
  check "$name: estimated peak within 2 % of the full recording's" within "$estp" "$FULL_PEAK" 2
  esta=$(field "$S" est_allocs)
  check "$name: estimated allocations within 2 % ($esta of $FULL_ALLOCS)" within "$esta" "$FULL_ALLOCS" 2
  # exact counters: every call, as in a full recording
  for k in allocs frees bytes_allocated; do
    eq "$name: session $k exact" "$(field "$S.shm" $k)" "$(field "$WORK/full.shm" $k)"
  done
  eq "$name: session allocations = the full trace's" "$(field "$S.shm" allocs)" "$FULL_ALLOCS"
  # the heap counts usable sizes in sampling mode: at least the requested
  # bytes, at most 24 bytes more a block (glibc) at the peak's 65,424 blocks
  p=$(field "$S.shm" peak)
  fp=$(field "$WORK/full.shm" peak)
  echo "# $name: session peak $p (usable), full $fp (requested)"
  check "$name: session peak (usable sizes) bounds the requested peak" \
    test "$p" -ge "$fp" -a "$p" -le $((fp + 24 * 65424 + 65536))
  check "$name: session heap at exit small (all freed)" test "$(field "$S.shm" heap)" -le 65536
done
# the model weighs each sampled block (hl-sample-weight.h): report's own
# estimates within 2 % of the full trace's report, and it says they are
# estimates; the costs-only path (report) and the full load (--json with
# --lifetimes goes through the full model) agree
json_num () { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'].get(sys.argv[2], 0))" "$1" "$2"; }
"$HL_CLI" report --json "$WORK/full.hltrace" > "$WORK/full.json" 2> /dev/null
for seed in 1 0; do
  S=$WORK/s$seed
  "$HL_CLI" report "$S.hltrace" > "$S.report" 2>&1
  check "report seed $seed: says its numbers are estimated" \
    grep -q "sampled:.*every 2048 bytes allocated on average: every number below is estimated" "$S.report"
  "$HL_CLI" report --json "$S.hltrace" > "$S.json" 2> /dev/null
  eq "report --json seed $seed: sample_bytes" "$(json_num "$S.json" sample_bytes)" 2048
  eq "report --json seed $seed: estimated" "$(json_num "$S.json" estimated)" True
  for k in allocations bytes_allocated peak_heap_bytes; do
    est=$(json_num "$S.json" $k) full=$(json_num "$WORK/full.json" $k)
    echo "# report seed $seed: $k estimated $est, full $full"
    check "report seed $seed: estimated $k within 2 % of the full recording's" within "$est" "$full" 2
  done
done
# seed 1 (reproducible): the one 4 KiB block left is sampled and weighs 1;
# the full model (flamegraph, --lifetimes) and the costs-only one (report)
# give the same estimates
eq "report seed 1: the one block left (4 KiB) is found" "$(json_num "$WORK/s1.json" leaked_bytes)" "$(json_num "$WORK/full.json" leaked_bytes)"
for k in allocations:allocations bytes:bytes_allocated peak:peak_heap_bytes; do
  sum=$("$HL_CLI" flamegraph --cost "${k%%:*}" "$WORK/s1.hltrace" 2> /dev/null | awk '{ s += $NF } END { printf "%.0f", s }')
  eq "seed 1: flamegraph --cost ${k%%:*} (full model) = report's ${k#*:}" "$sum" "$(json_num "$WORK/s1.json" "${k#*:}")"
done
"$HL_CLI" report "$WORK/full.hltrace" > "$WORK/full.report" 2>&1
check "report of a full trace: nothing said to be estimated" sh -c "! grep -qi 'estimated' '$WORK/full.report'"
eq "report --json of a full trace: no sample_bytes" "$(json_num "$WORK/full.json" sample_bytes)" 0
finish
