#!/bin/sh
# costs-stream.sh [BUILD] — the saved-costs stream's CPU on the three
# workloads of capture.sh, its sqlite3 script included (not a test): records each plain trace under the
# preload, then runs bench/costs-stream on it (the costs thread's own CPU
# time and its pace in ns a KiB of trace), following python3 too (record
# gives it up for its many stacks: its cost per event is measured all the
# same). BASE=OTHER_BUILD runs that build's costs-stream on the same traces,
# side by side; RUNS=N (3) runs of each, alternating.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONMALLOC=malloc HL_BENCH_NO_GIVE_UP=1
gcc -O2 -g -fno-omit-frame-pointer "$here/churn.c" -o "$tmp/churn"
python3 "$here/sqlite-work.py" > "$tmp/work.sql"
HEAPLENS_OUTPUT="$tmp/churn.t" HEAPLENS_FOLLOW=none LD_PRELOAD="$build/src/capture/libheaplens-preload.so" "$tmp/churn" 2000000 > /dev/null
HEAPLENS_OUTPUT="$tmp/sqlite.t" HEAPLENS_FOLLOW=none LD_PRELOAD="$build/src/capture/libheaplens-preload.so" sqlite3 "$tmp/db" -init "$tmp/work.sql" .quit > /dev/null
# /usr/bin/python3 (python3 on PATH may be a pyenv shim that runs others):
# the largest trace, should it exec
HEAPLENS_OUTPUT="$tmp/py.t" LD_PRELOAD="$build/src/capture/libheaplens-preload.so" /usr/bin/python3 "$here/workload.py" > /dev/null
mv "$(ls -S "$tmp"/py.t* | head -1)" "$tmp/python.t"
for w in churn sqlite python; do
  for i in $(seq "${RUNS:-3}"); do
    for b in $build ${BASE:-}; do
      printf '%-7s %-40s %s\n' "$w" "$b" "$("$b/bench/costs-stream" "$tmp/$w.t" "$tmp/out.hltrace" | sed 's/.*; costs thread/costs thread/')"
    done
  done
done
