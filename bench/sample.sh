#!/bin/sh
# bench/sample.sh BUILD — sampling mode's overhead (issue 29 point 1): python3
# (PYTHONMALLOC=malloc, bench/workload.py) and sqlite3 (bench/sqlite-work.py)
# side by side in one run, rounds interleaved: uninstrumented, the preload
# recording every call, the preload sampling at the default 524288 bytes,
# and heaptrack. The preload is loaded directly (HEAPLENS_OUTPUT, no
# `record`), so the times are the target's own. Prints a markdown table of
# medians (wall and user+sys CPU) and the trace sizes. BASELINE=SO adds
# "sampled-base": the same sampling run with another preload (the commit
# before a change), interleaved with the rest.
set -eu
build=${1:?usage: bench/sample.sh BUILD}
here=$(cd "$(dirname "$0")" && pwd)
# heaptrack without the heaptrack_gui it opens at the end when installed
heaptrack=$here/../scripts/heaptrack-nogui.sh
preload=$(cd "$build" && pwd)/src/capture/libheaplens-preload.so
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/sqlite-work.py" > "$tmp/work.sql"
cmd_of () {
  case $1 in
    python) echo "/usr/bin/python3 $here/workload.py" ;;
    sqlite) echo "sqlite3 $tmp/db.sqlite -init $tmp/work.sql .quit" ;;
  esac
}
# one CONFIG WORKLOAD: appends "wall cpu size" to $tmp/CONFIG.WORKLOAD
one () {
  rm -f "$tmp/db.sqlite" "$tmp"/t.hltrace "$tmp"/ht.*
  c=$(cmd_of "$2")
  case $1 in
    plain) set -- env PYTHONMALLOC=malloc $c ;;
    full) set -- env PYTHONMALLOC=malloc HEAPLENS_OUTPUT="$tmp/t.hltrace" LD_PRELOAD="$preload" $c ;;
    sampled) set -- env PYTHONMALLOC=malloc HEAPLENS_SAMPLE_BYTES=524288 HEAPLENS_OUTPUT="$tmp/t.hltrace" LD_PRELOAD="$preload" $c ;;
    sampled-base) set -- env PYTHONMALLOC=malloc HEAPLENS_SAMPLE_BYTES=524288 HEAPLENS_OUTPUT="$tmp/t.hltrace" LD_PRELOAD="$BASELINE" $c ;;
    heaptrack) set -- env PYTHONMALLOC=malloc "$heaptrack" -o "$tmp/ht" $c ;;
  esac
  cfg=$1
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" > /dev/null 2>&1 < /dev/null || true
  size=$(cat "$tmp"/t.hltrace "$tmp"/ht.* 2> /dev/null | wc -c)
  awk -v s="$size" '{ print $1, $2 + $3, s }' "$tmp/time"
}
configs="plain full sampled heaptrack"
[ -n "${BASELINE:-}" ] && configs="plain full sampled-base sampled heaptrack"
for w in python sqlite; do
  for r in $(seq "$runs"); do
    for cfg in $configs; do
      one "$cfg" "$w" >> "$tmp/$cfg.$w"
    done
  done
done
med () { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "| workload | config | wall s | cpu s | wall / plain | cpu / plain | trace bytes |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for w in python sqlite; do
  pw=$(cut -d' ' -f1 "$tmp/plain.$w" | med)
  pc=$(cut -d' ' -f2 "$tmp/plain.$w" | med)
  for cfg in $configs; do
    wa=$(cut -d' ' -f1 "$tmp/$cfg.$w" | med)
    cp=$(cut -d' ' -f2 "$tmp/$cfg.$w" | med)
    sz=$(cut -d' ' -f3 "$tmp/$cfg.$w" | med)
    echo "| $w | $cfg | $wa | $cp | $(awk -v a="$wa" -v b="$pw" 'BEGIN { printf "%.3f", a / b }') | $(awk -v a="$cp" -v b="$pc" 'BEGIN { printf "%.3f", a / b }') | $sz |"
  done
done
