#!/bin/bash
# bench/attach.sh [BUILD_DIR] — the attach (issue 28): how long
# `heaplens-cli attach` stops the process (it prints it: the calling
# thread, and every thread), and the per-call cost after it, side by side
# in one run: the plain program, the program started under `record`, the
# program under LD_PRELOAD alone (HEAPLENS_OUTPUT, no CLI beside it: what
# `record` adds, its costs computed while the program runs, is not in it),
# and the same program attached to before its work (GOT-patched calls). The
# program (bench/attach-churn.c) waits for a go file, then times PAIRS
# malloc+free pairs itself, so that start-up, the attach and the trace's
# compression after the exit stay out of the number. ROUNDS rounds
# (default 7), the configurations taking turns in each, so that a slow
# spell of the shared machine falls on all; medians. Writes a Markdown
# table to bench/results/attach-DATE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${ROUNDS:-7}
pairs=${PAIRS:-2000000}
cli=$build/src/cli/heaplens-cli
preload=$build/src/capture/libheaplens-preload.so
[ -x "$cli" ] || { echo "no heaplens-cli in $build" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -fno-omit-frame-pointer -fno-builtin "$here/attach-churn.c" -o "$tmp/churn"
# the CLI of a sanitizer build must not report its own leaks here
export ASAN_OPTIONS=detect_leaks=0

wait_file () { for _ in $(seq 3000); do [ -e "$1" ] && return 0; sleep 0.01; done; echo "timeout: $1" >&2; exit 1; }

# run_one CONFIG: prints ns per pair (and, for attach, the two stop times in ms)
run_one () {
  local cfg=$1 d=$tmp/run
  rm -rf "$d"; mkdir -p "$d"
  case $cfg in
    plain)
      "$tmp/churn" "$d" "$pairs" > "$d/out" &
      local p=$!
      wait_file "$d/ready"; touch "$d/go"; wait $p
      awk '{print $2}' "$d/out" ;;
    record)
      "$cli" record -o "$d/t.hltrace" -- "$tmp/churn" "$d" "$pairs" > "$d/out" 2> "$d/err" &
      local p=$!
      wait_file "$d/ready"; touch "$d/go"; wait $p
      awk '{print $2}' "$d/out" ;;
    preload)
      LD_PRELOAD=$preload HEAPLENS_OUTPUT=$d/t.hltrace "$tmp/churn" "$d" "$pairs" > "$d/out" &
      local p=$!
      wait_file "$d/ready"; touch "$d/go"; wait $p
      awk '{print $2}' "$d/out" ;;
    attach)
      "$tmp/churn" "$d" "$pairs" > "$d/out" &
      local p=$!
      wait_file "$d/ready"
      "$cli" attach -o "$d/t.hltrace" $p 2> "$d/err" &
      local c=$!
      for _ in $(seq 3000); do grep -q "attached to process" "$d/err" 2>/dev/null && break; sleep 0.01; done
      grep -q "attached to process" "$d/err" || { cat "$d/err" >&2; exit 1; }
      touch "$d/go"; wait $p; wait $c
      # "stopped 12.3 ms (every thread 1.2 ms)"
      echo "$(awk '{print $2}' "$d/out") $(sed -n 's/.*stopped \([0-9.]*\) ms (every thread \([0-9.]*\) ms).*/\1 \2/p' "$d/err")" ;;
  esac
}

configs="plain record preload attach"
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range () { sort -n | awk 'NR == 1 {lo=$1} {hi=$1} END {printf "%s–%s", lo, hi}'; }

for cfg in $configs; do : > "$tmp/res-$cfg"; done
for r in $(seq "$rounds"); do
  for cfg in $configs; do
    line=$(run_one "$cfg")
    echo "$line" >> "$tmp/res-$cfg"
    echo "round $r $cfg: $line" >&2
  done
done

declare -A NS
for cfg in $configs; do
  NS[$cfg]=$(awk '{print $1}' "$tmp/res-$cfg" | median)
done
stop=$(awk '{print $2}' "$tmp/res-attach" | median)
stop_range=$(awk '{print $2}' "$tmp/res-attach" | range)
all=$(awk '{print $3}' "$tmp/res-attach" | median)
all_range=$(awk '{print $3}' "$tmp/res-attach" | range)

mkdir -p "$here/results"
out=$here/results/attach-$(date -u +%Y%m%d-%H%M).md
{
  echo "# Attach: stop time and per-call cost ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, median of $rounds)"
  echo
  echo "\`ROUNDS=$rounds PAIRS=$pairs bench/attach.sh $(basename "$build")\`; load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "bench/attach-churn.c: $pairs malloc+free pairs of 16 to 271 bytes, timed by the program itself after"
  echo "a go file (the attach, the start-up and the compression after the exit are outside the number)."
  echo "The configurations take turns in each round."
  echo
  echo "| config | ns per malloc+free pair | range | / plain | / record | / preload |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for cfg in $configs; do
    echo "| $cfg | ${NS[$cfg]} | $(awk '{print $1}' "$tmp/res-$cfg" | range) | $(echo "${NS[$cfg]} ${NS[plain]}" | awk '{printf "%.2f", $1 / $2}') | $(echo "${NS[$cfg]} ${NS[record]}" | awk '{printf "%.2f", $1 / $2}') | $(echo "${NS[$cfg]} ${NS[preload]}" | awk '{printf "%.2f", $1 / $2}') |"
  done
  echo
  echo "Stop of the attach (as \`attach\` prints it): the calling thread $stop ms (median; $stop_range),"
  echo "every thread $all ms ($all_range). This program has one thread."
} > "$out"
cat "$out"
echo "written: $out" >&2
