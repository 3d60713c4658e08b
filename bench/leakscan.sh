#!/bin/bash
# bench/leakscan.sh [BUILD_DIR] — what the leak scan at exit costs
# (docs/capture.md, "Leaks at exit"): the bench's workloads (churn,
# python3 with PYTHONMALLOC=malloc, sqlite3; as bench/capture.sh runs them)
# under `heaplens-cli record --leak-scan` and `--no-leak-scan`, taking
# turns run by run. Per workload: the median wall time of each, the
# median scan time the trace holds (scan_ns of report --json), the scan's
# share of the run without it, the live blocks at exit and the roots and
# blocks read. RUNS (default 5). Writes a Markdown table to bench/results/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
runs=${RUNS:-5}
cli=$build/src/cli/heaplens-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONMALLOC=malloc
gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
python3 "$here/sqlite-work.py" > "$tmp/work.sql"
cmd_of () {
  case $1 in
    churn) echo "$tmp/churn 2000000" ;;
    python) echo "/usr/bin/python3 $here/workload.py" ;;
    sqlite) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
  esac
}
median () { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

out=$here/results/leakscan-$(date +%Y%m%d-%H%M).md
{
  echo "# Leak scan at exit: cost on the bench workloads ($(date -u +%Y-%m-%d), $runs runs each, $(nproc) cores)"
  echo
  echo "| workload | run, scan on (s) | run, scan off (s) | scan (ms, median) | scan / run off | live blocks at exit | definitely lost | still reachable | roots read | blocks read |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$out"
for w in ${WORKLOADS:-churn python sqlite}; do
  cmd=$(cmd_of "$w")
  : > "$tmp/on"; : > "$tmp/off"; : > "$tmp/scan"
  for r in $(seq "$runs"); do
    for mode in on off; do
      rm -f "$tmp/db.sqlite" "$tmp/t.hltrace"
      flag=--leak-scan; [ $mode = off ] && flag=--no-leak-scan
      t0=$(date +%s%N)
      "$cli" record $flag -o "$tmp/t.hltrace" -- $cmd > /dev/null 2>&1
      t1=$(date +%s%N)
      echo "scale=3; ($t1 - $t0) / 1000000000" | bc >> "$tmp/$mode"
      if [ $mode = on ]; then
        HEAPLENS_NO_COSTS_PACKET=1 "$cli" report --json --top 1 "$tmp/t.hltrace" > "$tmp/r.json" 2> /dev/null
        jq -r '.reachability.scan_ns' "$tmp/r.json" >> "$tmp/scan"
      fi
    done
  done
  on=$(median < "$tmp/on"); off=$(median < "$tmp/off"); scan=$(median < "$tmp/scan")
  share=$(echo "scale=2; 100 * $scan / 1000000000 / $off" | bc)
  j=$tmp/r.json
  blocks=$(jq -r '.summary.leaked_blocks' "$j")
  def=$(jq -r '"\(.reachability.definitely_lost_blocks) blocks, \(.reachability.definitely_lost_bytes) B"' "$j")
  still=$(jq -r '"\(.reachability.still_reachable_blocks) blocks, \(.reachability.still_reachable_bytes) B"' "$j")
  roots=$(jq -r '"\(.reachability.roots_bytes / 1048576 * 10 | floor / 10) MiB"' "$j")
  read=$(jq -r '.reachability.blocks_scanned' "$j")
  echo "| $w | $on | $off | $(echo "scale=1; $scan / 1000000" | bc) | $share % | $blocks | $def | $still | $roots | $read |" >> "$out"
done
cat "$out"
