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
  eq "$name: nothing leaked (all freed)" "$(field "$S" leaked_blocks)" "$(field "$WORK/full" leaked_blocks)"
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
# the model does not weigh samples yet: report says its numbers are the samples'
"$HL_CLI" report "$WORK/s1.hltrace" > "$WORK/s1.report" 2>&1
check "report of a sampled trace: says it is sampled and not estimated" \
  grep -q "This trace was sampled (about one allocation per 2048 bytes allocated)" "$WORK/s1.report"
"$HL_CLI" report "$WORK/full.hltrace" > "$WORK/full.report" 2>&1
check "report of a full trace: no such warning" sh -c "! grep -q 'was sampled' '$WORK/full.report'"
finish
