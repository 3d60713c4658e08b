#!/bin/sh
# bench/live.sh — issue 8's live targets:
#  1. what watching costs the target (≤ 5 % at 10 Hz): the churn benchmark
#     under the preload, alternately alone and watched by the application's
#     reader (`live-bench --watch`: HlLiveSession polling every 100 ms —
#     totals, samples, stacks, call sites, metadata and the live-table
#     snapshot), ROUNDS times each in the same run; the target's CPU time
#     (user+sys, /usr/bin/time) and wall time, medians;
#  2. the snapshot of 1 M live allocations (≤ 50 ms) and the live flame
#     graph refresh at 100,000 stacks (≤ 100 ms): `live-bench` on
#     `live-many` (HEAPLENS_DEBUG=timing gives the snapshot's own numbers);
#  3. the live view's refresh rate (≥ 5 per second): `live-refresh`, the
#     application recording the demo under Xvfb (skipped without xvfb-run).
#   bench/live.sh [BUILDDIR] [ROUNDS] [CALLS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${2:-5}
calls=${3:-2000000}
preload=$build/src/capture/libheaplens-preload.so
bench=$build/bench/live-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"

run () { # run watched|alone → "cpu_s wall_s" of the target
  HEAPLENS_OUTPUT=none LD_PRELOAD=$preload /usr/bin/time -f "%U %S %e" -o "$tmp/time" \
    "$tmp/churn" "$calls" > /dev/null &
  pid=$!
  if [ "$1" = watched ]; then
    # the churn process itself is time's child
    sleep 0.02
    child=$(pgrep -P $pid churn | head -1)
    /usr/bin/time -f "%U %S" -o "$tmp/wtime" "$bench" --watch "${child:-$pid}" > "$tmp/watch.log" 2>&1 &
    w=$!
  fi
  wait $pid
  [ "$1" = watched ] && { wait $w 2> /dev/null || true; }
  awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/time"
}

cpu_alone=""; cpu_watched=""; wall_alone=""; wall_watched=""
for i in $(seq 1 "$rounds"); do
  set -- $(run alone); cpu_alone="$cpu_alone $1"; wall_alone="$wall_alone $2"
  set -- $(run watched); cpu_watched="$cpu_watched $1"; wall_watched="$wall_watched $2"
done
median () { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ca=$(median $cpu_alone); cw=$(median $cpu_watched)
wa=$(median $wall_alone); ww=$(median $wall_watched)
printf 'observer: churn %s calls, %s rounds alternating alone/watched (10 Hz, the application'"'"'s reader)\n' "$calls" "$rounds"
printf '  target CPU  alone %.3f s (%s)\n              watched %.3f s (%s)\n  CPU slowdown: %+.1f %%  [target ≤ 5 %%]\n' \
  "$ca" "$cpu_alone" "$cw" "$cpu_watched" "$(echo "($cw - $ca) * 100 / $ca" | bc -l)"
printf '  target wall alone %.3f s, watched %.3f s: %+.1f %%\n' "$wa" "$ww" "$(echo "($ww - $wa) * 100 / $wa" | bc -l)"
printf '  the reader itself (last round): %s, %s s CPU\n' "$(grep -h polls "$tmp/watch.log")" \
  "$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/wtime")"

echo
HEAPLENS_DEBUG=timing "$bench" "$preload" "$build/bench/live-many" 1000000 100000 > "$tmp/bench.log" 2> "$tmp/timing.log"
cat "$tmp/bench.log"
grep "live table snapshot" "$tmp/timing.log" | head -1 | sed 's/^heaplens: timing: /first (all new): /'
steady=$(grep "live table snapshot" "$tmp/timing.log" | sed -n '2,$p' | sed 's/.*worker \([0-9.]*\) ms CPU.*/\1/')
printf 'steady snapshot of the live table (worker CPU, median of %s): %s ms  [target ≤ 50 ms]\n' \
  "$(echo $steady | wc -w)" "$(median $steady)"

echo
if command -v xvfb-run > /dev/null; then
  # the application as the tests run it: Xvfb, the cairo renderer
  GSETTINGS_SCHEMA_DIR=$build/data GSK_RENDERER=cairo GDK_DEBUG=gl-disable GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
    xvfb-run -a -s "-screen 0 1280x1024x24" "$build/bench/live-refresh" \
    "$build/examples/heaplens-demo" --seconds 8 2> "$tmp/refresh.log" \
    || { echo "live-refresh failed:"; tail -5 "$tmp/refresh.log"; }
else
  echo "live view refresh rate: skipped (no xvfb-run)"
fi
