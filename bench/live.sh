#!/bin/sh
# bench/live.sh — what watching costs the target (issue 8 target: an
# attached reader at 10 Hz slows it by ≤ 5 %): the churn benchmark under
# the preload, alternately alone and watched by `heaplens-cli top
# --interval 100` (the same reads as the application's live view: totals,
# samples, resources, call sites, metadata), ROUNDS times each, same run.
#   bench/live.sh [BUILDDIR] [ROUNDS] [CALLS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
rounds=${2:-5}
calls=${3:-2000000}
preload=$build/src/capture/libheaplens-preload.so
cli=$build/src/cli/heaplens-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"

now () { date +%s.%N; }
run () { # run watched|alone → prints seconds
  t0=$(now)
  HEAPLENS_OUTPUT=none LD_PRELOAD=$preload "$tmp/churn" "$calls" > /dev/null &
  pid=$!
  if [ "$1" = watched ]; then
    sleep 0.05
    "$cli" top "$pid" --interval 100 > /dev/null 2>&1 &
    top=$!
  fi
  wait $pid
  t1=$(now)
  [ "$1" = watched ] && { kill $top 2> /dev/null || true; wait $top 2> /dev/null || true; }
  echo "$t1 - $t0" | bc -l
}

alone=""
watched=""
for i in $(seq 1 "$rounds"); do
  alone="$alone $(run alone)"
  watched="$watched $(run watched)"
done
median () { echo "$@" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ma=$(median $alone)
mw=$(median $watched)
printf 'churn %s calls, %s rounds\n  alone:   median %.3f s (%s)\n  watched: median %.3f s (%s)\n  slowdown: %+.1f %%\n' \
  "$calls" "$rounds" "$ma" "$alone" "$mw" "$watched" "$(echo "($mw - $ma) * 100 / $ma" | bc -l)"
