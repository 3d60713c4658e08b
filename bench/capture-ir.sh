#!/bin/bash
# bench/capture-ir.sh [BUILD_DIR] — what the preload costs per allocation, in
# instructions (callgrind): the same count on every run, so small changes to
# the hot path show even on a noisy machine. Runs the allocation churn
# (200,000 malloc+free pairs at depth 5-25) and one round of the python3
# workload (PYTHONMALLOC=malloc), each uninstrumented and under the preload
# (default unwinder), and prints the added instructions per malloc+free pair
# (churn) and per allocation (python3: every malloc, calloc and realloc, with
# its free). MODES (default "libunwind fp") picks the unwinders. Not a
# test; takes about two minutes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
preload=$build/src/capture/libheaplens-preload.so
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
[ -f "$preload" ] || { echo "no preload in $build" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "valgrind is needed" >&2; exit 1; }
export PYTHONMALLOC=malloc PYTHONHASHSEED=0

gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
sed 's/range(8)/range(1)/' "$here/workload.py" > "$tmp/w1.py"

# ir OUT [VAR=VALUE...] CMD...: total instructions of CMD under callgrind
ir () {
  local out=$1 envs=()
  shift
  while [[ $1 == *=* ]]; do envs+=("$1"); shift; done
  env "${envs[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/$out" "$@" > /dev/null 2> "$tmp/$out.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/$out.log" | tail -1
}
# calls OUT FUNCTION: how often the preload's FUNCTION was called
calls () {
  (cd "$tmp" && callgrind_annotate --tree=caller "$1" 2> /dev/null) | awk -v f="$2" '
    /^ *[0-9,]+ .*< / { if (match($0, /\(([0-9,]+)x\)/)) { c = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", c); sum += c } next }
    /\*  / { if ($0 ~ (":" f " ")) total += sum; sum = 0; next }
    { sum = 0 }
    END { print total + 0 }'
}

[ -z "${KEEP:-}" ] || echo "keeping $tmp"
cli=$build/src/cli/heaplens-cli
# allocations of the python3 run (every malloc, calloc and realloc): from the
# trace of the python3 process (the largest file), else from callgrind's call
# counts (which miss calls the optimiser inlined)
py_allocs () {
  local f n
  f=$(ls -S "$tmp"/"$1"* 2> /dev/null | head -1)
  n=$([ -x "$cli" ] && [ -n "$f" ] && "$cli" report "$f" 2> /dev/null | sed -n 's/^ *calls: *\([0-9]*\) allocations.*/\1/p')
  [ -n "$n" ] || n=$(( $(calls "$2" hl_record_alloc) + $(calls "$2" hl_record_realloc_end) ))
  [ "$n" -gt 0 ] || n=1
  echo "$n"
}
churn_n=${CHURN_N:-200000}
modes=${MODES:-libunwind fp}
a=$(ir churn.plain "$tmp/churn" $churn_n)
for m in $modes; do
  b=$(ir churn.$m HEAPLENS_UNWIND=$m HEAPLENS_OUTPUT="$tmp/c-$m.hltrace" LD_PRELOAD="$preload" "$tmp/churn" $churn_n)
  echo "churn ($m): $(( (b - a) / churn_n )) instructions per malloc+free pair added (uninstrumented $(( a / churn_n )))"
done

a=$(ir py.plain /usr/bin/python3 "$tmp/w1.py")
for m in $modes; do
  # fp: keep fp on python3 (the sampled check would switch to DWARF), as
  # bench/capture.sh does
  b=$(ir py.$m HEAPLENS_UNWIND=$m HEAPLENS_FP_CHECK=warn HEAPLENS_OUTPUT="$tmp/p-$m.hltrace" LD_PRELOAD="$preload" /usr/bin/python3 "$tmp/w1.py")
  n=$(py_allocs "p-$m.hltrace" "py.$m")
  echo "python3 ($m): $(( (b - a) / n )) instructions per allocation added ($n allocations; total $b vs $a uninstrumented, ratio $(echo "scale=2; $b / $a" | bc))"
done
